// Pooling: MaxPool (with Indices), AveragePool, LpPool, GlobalAveragePool,
// GlobalMaxPool, GlobalLpPool, MaxUnpool. Windows come from window.h.
#include <cmath>
#include <limits>

#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"
#include "oxs/eval/validate/run_limits.h"
#include "oxs/eval/window.h"

namespace oxs::eval {

namespace {

enum class Pool { Max, Avg, Lp };

template <Pool K>
void pool_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() < 3) ctx.fail("input must have rank >= 3");
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape");
  if (kernel.empty()) ctx.fail("kernel_shape is required");
  bool ceil_mode = ctx.attr_int("ceil_mode", 0) != 0;
  Window w = make_window(ctx, spatial, kernel, ceil_mode);
  bool include_pad = ctx.attr_int("count_include_pad", 0) != 0;
  int64_t storage_order = ctx.attr_int("storage_order", 0);
  double p = double(ctx.attr_int("p", 2));
  if (storage_order != 0 && storage_order != 1) ctx.fail("storage_order must be 0 or 1");
  int64_t n = x.dim(0), c = x.dim(1);
  int64_t planes = checked_product(ctx, x.dims(), 0, 2, "batch x channels");
  check_work(ctx, {planes, w.out_numel(), w.kernel_numel()}, "pooling");
  if (K != Pool::Lp && fast::pool_2d(ctx, K == Pool::Max)) return;
  Dims od{n, c};
  od.insert(od.end(), w.out.begin(), w.out.end());
  Tensor& out = ctx.alloc_output(0, x.dtype(), od);
  Tensor* idx_out = nullptr;
  if (K == Pool::Max && ctx.wants_output(1)) idx_out = &ctx.alloc_output(1, DataType::Int64, od);
  const size_t r = w.rank();
  int64_t in_n = 1;
  for (int64_t v : spatial) in_n *= v;
  const int64_t P = w.out_numel(), KN = w.kernel_numel();
  auto in_strides = std::vector<int64_t>(r, 1);
  for (size_t d = r - 1; d-- > 0;) in_strides[d] = in_strides[d + 1] * spatial[d + 1];
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    std::vector<int64_t> oidx(r), kidx(r);
    for (int64_t plane = 0; plane < planes; ++plane) {
      const T* xp = px + plane * in_n;
      std::fill(oidx.begin(), oidx.end(), 0);
      for (int64_t o = 0; o < P; ++o) {
        poll_run_limits(KN);
        double acc = K == Pool::Max ? -std::numeric_limits<double>::infinity() : 0;
        int64_t best = -1, count = 0, padded_count = 0;
        for (int64_t k = 0; k < KN; ++k) {
          int64_t rem = k;
          for (size_t d = r; d-- > 0;) {
            kidx[d] = rem % w.kernel[d];
            rem /= w.kernel[d];
          }
          int64_t off = 0;
          bool inside = true, in_pad_region = true;
          for (size_t d = 0; d < r; ++d) {
            int64_t i = oidx[d] * w.strides[d] - w.pad_begin[d] + kidx[d] * w.dilations[d];
            if (i < 0 || i >= spatial[d]) inside = false;
            if (i < -w.pad_begin[d] || i >= spatial[d] + w.pad_end[d]) in_pad_region = false;
            off += i * in_strides[d];
          }
          if (in_pad_region) ++padded_count;
          if (!inside) continue;
          double v = double(C(xp[off]));
          ++count;
          if constexpr (K == Pool::Max) {
            if (v > acc || std::isnan(v)) {
              acc = v;
              best = off;
            }
          } else if constexpr (K == Pool::Avg) {
            acc += v;
          } else {
            acc += std::pow(std::abs(v), p);
          }
        }
        double res = acc;
        if constexpr (K == Pool::Avg) {
          int64_t div = include_pad ? padded_count : count;
          res = div ? acc / double(div) : 0;
        }
        if constexpr (K == Pool::Lp) res = std::pow(acc, 1.0 / p);
        if constexpr (std::is_integral_v<C>) {
          // A window wholly in the padding has no element: -inf for floats,
          // the type's lowest value for int8/uint8 (converting -inf is UB).
          po[plane * P + o] = T(saturate_to<C>(res));
        } else {
          po[plane * P + o] = T(C(res));
        }
        if (idx_out) {
          int64_t flat = best < 0 ? 0 : best;
          if (storage_order == 1 && r == 2) {  // column-major index within the plane
            int64_t h = flat / spatial[1], ww = flat % spatial[1];
            flat = ww * spatial[0] + h;
          }
          idx_out->mutable_data<int64_t>()[plane * P + o] = plane * in_n + flat;
        }
        for (size_t d = r; d-- > 0;) {
          if (++oidx[d] < w.out[d]) break;
          oidx[d] = 0;
        }
      }
    }
  });
}

template <Pool K>
void global_pool_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() < 3) ctx.fail("input must have rank >= 3");
  int64_t planes = checked_product(ctx, x.dims(), 0, 2, "batch x channels");
  int64_t len = x.numel() / std::max<int64_t>(planes, 1);
  Dims od{x.dim(0), x.dim(1)};
  for (size_t i = 2; i < x.rank(); ++i) od.push_back(1);
  double p = double(ctx.attr_int("p", 2));
  Tensor& out = ctx.alloc_output(0, x.dtype(), od);
  if (K == Pool::Avg && fast::global_average_pool(x, out)) return;
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    for (int64_t pl = 0; pl < planes; ++pl) {
      double acc = K == Pool::Max ? -std::numeric_limits<double>::infinity() : 0;
      for (int64_t i = 0; i < len; ++i) {
        double v = double(C(px[pl * len + i]));
        if constexpr (K == Pool::Max) acc = std::max(acc, v);
        if constexpr (K == Pool::Avg) acc += v;
        if constexpr (K == Pool::Lp) acc += std::pow(std::abs(v), p);
      }
      if constexpr (K == Pool::Avg) acc /= double(len);
      if constexpr (K == Pool::Lp) acc = std::pow(acc, 1.0 / p);
      out.mutable_data<T>()[pl] = T(C(acc));
    }
  });
}

void max_unpool_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  require_rank(ctx, x, 3, SIZE_MAX, "X");
  require_same_dims(ctx, x, ctx.tensor(1), "X", "I");
  Tensor ind = cast_tensor(ctx.tensor(1), DataType::Int64).clone();  // modified below
  size_t r = x.rank() - 2;
  std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape");
  if (kernel.size() != r) {
    ctx.fail("kernel_shape has " + std::to_string(kernel.size()) + " values; X has " +
             std::to_string(r) + " spatial dimensions");
  }
  std::vector<int64_t> strides = attr_ints_of_len(ctx, "strides", r, std::vector<int64_t>(r, 1));
  std::vector<int64_t> pads = attr_ints_of_len(ctx, "pads", 2 * r, std::vector<int64_t>(2 * r, 0));
  // Indices refer to the default unpooled shape; with output_shape they are
  // re-flattened into it by coordinates.
  Dims dd{x.dim(0), x.dim(1)};
  for (size_t i = 0; i < r; ++i) {
    if (kernel[i] <= 0 || strides[i] <= 0 || pads[i] < 0 || pads[i + r] < 0) {
      ctx.fail("kernel_shape and strides must be positive and pads non-negative");
    }
    int64_t d = checked_add(ctx, checked_mul(ctx, x.dim(i + 2) - 1, strides[i], "output size"),
                            kernel[i], "output size") -
                pads[i] - pads[i + r];
    if (d < 0) ctx.fail("the unpooled size of spatial axis " + std::to_string(i) + " is negative");
    dd.push_back(d);
  }
  checked_product(ctx, dd, "output size");
  Dims od = dd;
  if (const Tensor* os = ctx.optional_tensor(2)) od = os->to_int_vector();
  if (od.size() != dd.size()) ctx.fail("output_shape has the wrong rank");
  checked_product(ctx, od, "output_shape");
  const int64_t dd_numel = checked_numel(dd);
  if (od != dd) {
    int64_t* pi = ind.mutable_data<int64_t>();
    for (int64_t i = 0; i < ind.numel(); ++i) {
      if (pi[i] < 0 || pi[i] >= dd_numel) {
        ctx.fail("index " + std::to_string(pi[i]) + " is outside the unpooled tensor " +
                 dims_to_string(dd));
      }
      int64_t rem = pi[i], flat = 0, mul = 1;
      for (size_t d = dd.size(); d-- > 0;) {
        int64_t coord = rem % dd[d];
        if (coord >= od[d]) {
          ctx.fail("index " + std::to_string(pi[i]) + " falls outside output_shape " +
                   dims_to_string(od));
        }
        flat += coord * mul;
        rem /= dd[d];
        mul *= od[d];
      }
      pi[i] = flat;
    }
  }
  Tensor& out = ctx.alloc_output(0, x.dtype(), od);
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      int64_t j = ind.data<int64_t>()[i];
      if (j < 0 || j >= out.numel()) ctx.fail("index out of range");
      po[j] = px[i];
    }
  });
}

}  // namespace

void register_pool_kernels(KernelRegistry& r) {
  r.add("", "MaxPool", 1, pool_k<Pool::Max>);
  r.add("", "AveragePool", 1, pool_k<Pool::Avg>);
  r.add("", "LpPool", 1, pool_k<Pool::Lp>);
  r.add("", "GlobalMaxPool", 1, global_pool_k<Pool::Max>);
  r.add("", "GlobalAveragePool", 1, global_pool_k<Pool::Avg>);
  r.add("", "GlobalLpPool", 1, global_pool_k<Pool::Lp>);
  r.add("", "MaxUnpool", 9, max_unpool_k);
}

}  // namespace oxs::eval
