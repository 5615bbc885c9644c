// Indexing kernels: Gather, GatherElements, GatherND, Scatter,
// ScatterElements, ScatterND, OneHot, Compress, NonZero, TopK,
// ReverseSequence. Indices are checked; out-of-range indices are errors.
#include <algorithm>
#include <numeric>

#include "oxs/eval/broadcast.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

int64_t fix_index(const KernelContext& ctx, int64_t i, int64_t n) {
  if (i < -n || i >= n) {
    ctx.fail("index " + std::to_string(i) + " is out of range for a dimension of size " +
             std::to_string(n));
  }
  return i < 0 ? i + n : i;
}

void gather_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  std::vector<int64_t> idx = ctx.tensor(1).to_int_vector();
  const Dims& idims = ctx.tensor(1).dims();
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), int64_t(x.rank()));
  int64_t n = x.dim(size_t(axis));
  int64_t outer = checked_product(ctx, x.dims(), 0, size_t(axis), "outer size");
  int64_t inner = checked_product(ctx, x.dims(), size_t(axis) + 1, x.rank(), "inner size");
  Dims od;
  for (size_t i = 0; i < x.rank(); ++i) {
    if (int64_t(i) == axis) {
      od.insert(od.end(), idims.begin(), idims.end());
    } else {
      od.push_back(x.dim(i));
    }
  }
  for (auto& i : idx) i = fix_index(ctx, i, n);
  Tensor& out = ctx.alloc_output(0, x.dtype(), od);
  // An empty output: nothing to do, and its other dims are no bound on the
  // loops below ([2^62, 0] costs no memory).
  if (out.numel() == 0) return;
  const int64_t m = int64_t(idx.size());
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < m; ++j) {
        const T* src = px + (o * n + idx[size_t(j)]) * inner;
        std::copy(src, src + inner, po + (o * m + j) * inner);
      }
    }
  });
}

// Offset of element `i` of `dims` (row-major) with dimension `axis`
// replaced by `k`, in a tensor of shape `data_dims`.
struct AxisWalker {
  std::vector<int64_t> idims_strides, data_strides;
  size_t axis;
  const Dims* dims;
  int64_t offset(int64_t i, int64_t k) const {
    int64_t off = 0;
    for (size_t d = 0; d < dims->size(); ++d) {
      int64_t c = (i / idims_strides[d]) % (*dims)[d];
      off += (d == axis ? k : c) * data_strides[d];
    }
    return off;
  }
};

// Outside `axis`, indices may not be larger than the data.
void check_index_dims(const KernelContext& ctx, const Tensor& x, const Tensor& it, int64_t axis) {
  for (size_t d = 0; d < x.rank(); ++d) {
    if (int64_t(d) != axis && it.dim(d) > x.dim(d)) {
      ctx.fail("indices shape " + dims_to_string(it.dims()) + " exceeds data shape " +
               dims_to_string(x.dims()) + " outside the axis");
    }
  }
}

void gather_elements_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& it = ctx.tensor(1);
  if (it.rank() != x.rank()) ctx.fail("indices must have the data's rank");
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), int64_t(x.rank()));
  std::vector<int64_t> idx = it.to_int_vector();
  check_index_dims(ctx, x, it, axis);
  AxisWalker w{row_major_strides(it.dims()), row_major_strides(x.dims()), size_t(axis), &it.dims()};
  Tensor& out = ctx.alloc_output(0, x.dtype(), it.dims());
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t i = 0; i < it.numel(); ++i) {
      int64_t k = fix_index(ctx, idx[size_t(i)], x.dim(size_t(axis)));
      po[i] = px[w.offset(i, k)];
    }
  });
}

enum class Reduction { None, Add, Mul, Max, Min };

Reduction reduction_of(const KernelContext& ctx) {
  std::string r = ctx.attr_string("reduction", "none");
  if (r == "none") return Reduction::None;
  if (r == "add") return Reduction::Add;
  if (r == "mul") return Reduction::Mul;
  if (r == "max") return Reduction::Max;
  if (r == "min") return Reduction::Min;
  ctx.fail("unknown reduction '" + r + "'");
}

template <class T>
void combine(T& dst, const T& src, Reduction r) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
    dst = src;
  } else {
    using C = compute_t<T>;
    switch (r) {
      case Reduction::None:
        dst = src;
        break;
      case Reduction::Add:
        dst = T(wrap_add(C(dst), C(src)));
        break;
      case Reduction::Mul:
        dst = T(wrap_mul(C(dst), C(src)));
        break;
      case Reduction::Max:
        dst = T(std::max(C(dst), C(src)));
        break;
      case Reduction::Min:
        dst = T(std::min(C(dst), C(src)));
        break;
    }
  }
}

void scatter_elements_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& it = ctx.tensor(1);
  const Tensor& up = ctx.tensor(2);
  require_same_dtype(ctx, x, up);
  if (it.dims() != up.dims()) ctx.fail("indices and updates must have the same shape");
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), int64_t(x.rank()));
  Reduction red = reduction_of(ctx);
  std::vector<int64_t> idx = it.to_int_vector();
  if (it.rank() != x.rank()) ctx.fail("indices must have the data's rank");
  check_index_dims(ctx, x, it, axis);
  AxisWalker w{row_major_strides(it.dims()), row_major_strides(x.dims()), size_t(axis), &it.dims()};
  Tensor out = x.clone();
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* po = out.mutable_data<T>();
    const T* pu = up.data<T>();
    for (int64_t i = 0; i < it.numel(); ++i) {
      int64_t k = fix_index(ctx, idx[size_t(i)], x.dim(size_t(axis)));
      combine(po[w.offset(i, k)], pu[i], red);
    }
  });
  ctx.set_output(0, out);
}

void gather_nd_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& it = ctx.tensor(1);
  int64_t b = ctx.attr_int("batch_dims", 0);
  if (it.rank() < 1) ctx.fail("indices must have rank >= 1");
  int64_t q = int64_t(it.rank()), r = int64_t(x.rank());
  if (b < 0 || b >= std::min(q, r)) {
    ctx.fail("batch_dims is " + std::to_string(b) + "; it must be in [0, " +
             std::to_string(std::min(q, r)) + ") for data " + dims_to_string(x.dims()) +
             " and indices " + dims_to_string(it.dims()));
  }
  int64_t k = it.dim(size_t(q - 1));
  if (k > r - b) {
    ctx.fail("indices' last dimension " + std::to_string(k) + " is larger than the data's rank " +
             std::to_string(r) + " minus batch_dims " + std::to_string(b));
  }
  for (int64_t i = 0; i < b; ++i) {
    if (it.dim(size_t(i)) != x.dim(size_t(i))) {
      ctx.fail("the first batch_dims dimensions of indices " + dims_to_string(it.dims()) +
               " and data " + dims_to_string(x.dims()) + " must be equal");
    }
  }
  Dims od(it.dims().begin(), it.dims().end() - 1);
  for (int64_t i = b + k; i < r; ++i) od.push_back(x.dim(size_t(i)));
  int64_t batch = checked_product(ctx, x.dims(), 0, size_t(b), "batch size");
  int64_t slice = checked_product(ctx, x.dims(), size_t(b + k), size_t(r), "slice size");
  auto xs = row_major_strides(x.dims());
  int64_t xbatch = b > 0 ? xs[size_t(b - 1)] : x.numel();
  std::vector<int64_t> idx = it.to_int_vector();
  int64_t tuples = k > 0 ? int64_t(idx.size()) / k : it.numel();
  if (k == 0)
    tuples = it.numel() == 0 ? 0 : checked_numel(Dims(it.dims().begin(), it.dims().end() - 1));
  int64_t per_batch = batch ? tuples / batch : 0;
  Tensor& out = ctx.alloc_output(0, x.dtype(), od);
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t bi = per_batch ? t / per_batch : 0;
      int64_t off = bi * xbatch;
      for (int64_t j = 0; j < k; ++j) {
        off += fix_index(ctx, idx[size_t(t * k + j)], x.dim(size_t(b + j))) * xs[size_t(b + j)];
      }
      std::copy(px + off, px + off + slice, po + t * slice);
    }
  });
}

void scatter_nd_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& it = ctx.tensor(1);
  const Tensor& up = ctx.tensor(2);
  require_same_dtype(ctx, x, up);
  Reduction red = reduction_of(ctx);
  if (it.rank() < 1) ctx.fail("indices must have rank >= 1");
  int64_t k = it.dim(it.rank() - 1);
  if (k < 1 || k > int64_t(x.rank())) {
    ctx.fail("indices' last dimension is " + std::to_string(k) + "; it must be between 1 and " +
             "the data's rank " + std::to_string(x.rank()));
  }
  // updates.shape == indices.shape[:-1] + data.shape[k:]
  Dims want(it.dims().begin(), it.dims().end() - 1);
  want.insert(want.end(), x.dims().begin() + k, x.dims().end());
  if (up.dims() != want) {
    ctx.fail("updates have shape " + dims_to_string(up.dims()) + "; indices " +
             dims_to_string(it.dims()) + " and data " + dims_to_string(x.dims()) + " need " +
             dims_to_string(want));
  }
  auto xs = row_major_strides(x.dims());
  int64_t slice = checked_product(ctx, x.dims(), size_t(k), x.rank(), "slice size");
  std::vector<int64_t> idx = it.to_int_vector();
  int64_t tuples = k ? int64_t(idx.size()) / k : 0;
  Tensor out = x.clone();
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* po = out.mutable_data<T>();
    const T* pu = up.data<T>();
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t off = 0;
      for (int64_t j = 0; j < k; ++j) {
        off += fix_index(ctx, idx[size_t(t * k + j)], x.dim(size_t(j))) * xs[size_t(j)];
      }
      for (int64_t s = 0; s < slice; ++s) combine(po[off + s], pu[t * slice + s], red);
    }
  });
  ctx.set_output(0, out);
}

void onehot_k(KernelContext& ctx) {
  const Tensor& indices = ctx.tensor(0);
  if (ctx.tensor(1).numel() != 1 || ctx.tensor(2).numel() != 2) {
    ctx.fail("depth must have one value and values two (off, on)");
  }
  double depth_d = cast_tensor(ctx.tensor(1), DataType::Double).data<double>()[0];
  if (!(depth_d >= 0 && depth_d < 9.0e15)) ctx.fail("depth must be non-negative");
  int64_t depth = int64_t(depth_d);
  const Tensor& values = ctx.tensor(2);
  if (depth < 0) ctx.fail("depth must be non-negative");
  int64_t r = int64_t(indices.rank()) + 1;
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", -1), r);
  Dims od = indices.dims();
  od.insert(od.begin() + axis, depth);
  Tensor idx = cast_tensor(indices, DataType::Int64);
  int64_t outer = checked_product(ctx, indices.dims(), 0, size_t(axis), "outer size");
  int64_t inner = checked_product(ctx, indices.dims(), size_t(axis), indices.rank(), "inner size");
  Tensor& out = ctx.alloc_output(0, values.dtype(), od);
  dispatch_copy(values.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T off = values.data<T>()[0], on = values.data<T>()[1];
    T* po = out.mutable_data<T>();
    std::fill(po, po + out.numel(), off);
    const int64_t* pi = idx.data<int64_t>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        int64_t v = pi[o * inner + in];
        if (v < 0) v += depth;
        if (v >= 0 && v < depth) po[(o * depth + v) * inner + in] = on;
      }
    }
  });
}

void compress_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& c = ctx.tensor(1);
  require_dtype(ctx, c, DataType::Bool, "condition");
  require_rank(ctx, c, 1, 1, "condition");
  Tensor flat;
  int64_t axis;
  if (!ctx.has_attr("axis")) {
    flat = x.reshaped({x.numel()});
    axis = 0;
  } else {
    flat = x;
    axis = normalize_axis(ctx, ctx.attr_int("axis", 0), int64_t(x.rank()));
  }
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < std::min(c.numel(), flat.dim(size_t(axis))); ++i) {
    if (bool_at(c, i)) keep.push_back(i);
  }
  Tensor idx =
      Tensor::of<int64_t>(DataType::Int64, {int64_t(keep.size())}, std::span<const int64_t>(keep));
  int64_t n = flat.dim(size_t(axis));
  int64_t outer = checked_product(ctx, flat.dims(), 0, size_t(axis), "outer size");
  int64_t inner = checked_product(ctx, flat.dims(), size_t(axis) + 1, flat.rank(), "inner size");
  Dims od = flat.dims();
  od[size_t(axis)] = int64_t(keep.size());
  Tensor& out = ctx.alloc_output(0, x.dtype(), od);
  // An empty output: nothing to do, and its other dims are no bound on the
  // loops below ([2^62, 0] costs no memory).
  if (out.numel() == 0) return;
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = flat.data<T>();
    T* po = out.mutable_data<T>();
    const int64_t m = int64_t(keep.size());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < m; ++j) {
        const T* src = px + (o * n + keep[size_t(j)]) * inner;
        std::copy(src, src + inner, po + (o * m + j) * inner);
      }
    }
  });
}

void nonzero_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  std::vector<int64_t> hits;
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (C(px[i]) != C(0)) hits.push_back(i);
    }
  });
  int64_t r = int64_t(x.rank());
  Tensor& out = ctx.alloc_output(0, DataType::Int64, {r, int64_t(hits.size())});
  auto st = row_major_strides(x.dims());
  int64_t* po = out.mutable_data<int64_t>();
  for (size_t j = 0; j < hits.size(); ++j) {
    for (int64_t d = 0; d < r; ++d) {
      po[d * int64_t(hits.size()) + int64_t(j)] = (hits[j] / st[size_t(d)]) % x.dim(size_t(d));
    }
  }
}

void topk_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  int64_t k = ctx.opset() < 10 ? ctx.attr_int("k", 0) : ctx.tensor(1).scalar_int();
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", -1), int64_t(x.rank()));
  bool largest = ctx.attr_int("largest", 1) != 0;
  bool sorted = ctx.attr_int("sorted", 1) != 0;
  (void)sorted;  // always sorted: allowed by the spec
  int64_t n = x.dim(size_t(axis));
  int64_t outer = checked_product(ctx, x.dims(), 0, size_t(axis), "outer size");
  int64_t inner = checked_product(ctx, x.dims(), size_t(axis) + 1, x.rank(), "inner size");
  if (k < 0 || k > n) ctx.fail("k is out of range");
  Dims od = x.dims();
  od[size_t(axis)] = k;
  Tensor& vals = ctx.alloc_output(0, x.dtype(), od);
  Tensor& ids = ctx.alloc_output(1, DataType::Int64, od);
  // An empty output: nothing to do, and its other dims are no bound on the
  // loops below ([2^62, 0] costs no memory).
  if (vals.numel() == 0) return;
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* pv = vals.mutable_data<T>();
    int64_t* pi = ids.mutable_data<int64_t>();
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        auto at = [&](int64_t j) { return C(px[(o * n + j) * inner + in]); };
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          return largest ? at(a) > at(b) : at(a) < at(b);
        });
        for (int64_t j = 0; j < k; ++j) {
          pv[(o * k + j) * inner + in] = T(at(order[size_t(j)]));
          pi[(o * k + j) * inner + in] = order[size_t(j)];
        }
      }
    }
  });
}

void reverse_sequence_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  std::vector<int64_t> lens = ctx.tensor(1).to_int_vector();
  int64_t baxis = ctx.attr_int("batch_axis", 1), taxis = ctx.attr_int("time_axis", 0);
  if (x.rank() < 2 || (baxis != 0 && baxis != 1) || (taxis != 0 && taxis != 1) || baxis == taxis) {
    ctx.fail("batch_axis and time_axis must be 0 and 1 (in some order) of an input of rank >= 2");
  }
  if (int64_t(lens.size()) != x.dim(size_t(baxis)))
    ctx.fail("sequence_lens must have one value per batch entry");
  for (int64_t v : lens) {
    if (v < 0 || v > x.dim(size_t(taxis)))
      ctx.fail("sequence_lens values must be within the time axis");
  }
  Tensor out = x.clone();
  auto st = row_major_strides(x.dims());
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      int64_t b = (i / st[size_t(baxis)]) % x.dim(size_t(baxis));
      int64_t t = (i / st[size_t(taxis)]) % x.dim(size_t(taxis));
      int64_t len = lens[size_t(b)];
      if (t < len) po[i] = px[i + (len - 1 - 2 * t) * st[size_t(taxis)]];
    }
  });
  ctx.set_output(0, out);
}

}  // namespace

void register_index_kernels(KernelRegistry& r) {
  r.add("", "Gather", 1, gather_k);
  r.add("", "GatherElements", 11, gather_elements_k);
  r.add("", "GatherND", 11, gather_nd_k);
  r.add("", "Scatter", 9, scatter_elements_k);
  r.add("", "ScatterElements", 11, scatter_elements_k);
  r.add("", "ScatterND", 11, scatter_nd_k);
  r.add("", "OneHot", 9, onehot_k);
  r.add("", "Compress", 9, compress_k);
  r.add("", "NonZero", 9, nonzero_k);
  r.add("", "TopK", 1, topk_k);
  r.add("", "ReverseSequence", 10, reverse_sequence_k);
}

}  // namespace oxs::eval
