// Kernels that move elements without computing on them: Constant, Identity,
// Reshape, Shape, Size, Flatten, (Un)Squeeze, Transpose, Concat, Split,
// Slice, Expand, Tile, ConstantOfShape, Pad, DepthToSpace, SpaceToDepth,
// Trilu, EyeLike.
#include <algorithm>
#include <numeric>

#include "oxs/eval/broadcast.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

void constant_k(KernelContext& ctx) {
  if (const ir::Attr* a = ctx.attr("value")) {
    if (!a->t) ctx.fail("attribute 'value' has no tensor");
    ctx.set_output(0, Tensor::from_ir(std::shared_ptr<const ir::Tensor>(a->t)));
    return;
  }
  if (const ir::Attr* a = ctx.attr("value_float")) {
    ctx.set_output(0, Tensor::of<float>(DataType::Float, {}, std::span<const float>(&a->f, 1)));
  } else if (const ir::Attr* a = ctx.attr("value_floats")) {
    ctx.set_output(0, Tensor::of<float>(DataType::Float, {int64_t(a->floats.size())},
                                        std::span<const float>(a->floats)));
  } else if (const ir::Attr* a = ctx.attr("value_int")) {
    ctx.set_output(0, Tensor::of<int64_t>(DataType::Int64, {}, std::span<const int64_t>(&a->i, 1)));
  } else if (const ir::Attr* a = ctx.attr("value_ints")) {
    ctx.set_output(0, Tensor::of<int64_t>(DataType::Int64, {int64_t(a->ints.size())},
                                          std::span<const int64_t>(a->ints)));
  } else if (const ir::Attr* a = ctx.attr("value_string")) {
    Tensor t(DataType::String, {});
    t.mutable_strings()[0] = a->s;
    ctx.set_output(0, t);
  } else if (const ir::Attr* a = ctx.attr("value_strings")) {
    Tensor t(DataType::String, {int64_t(a->strings.size())});
    std::copy(a->strings.begin(), a->strings.end(), t.mutable_strings().begin());
    ctx.set_output(0, t);
  } else {
    ctx.fail("Constant needs one value attribute", ErrorKind::Unsupported);
  }
}

void identity_k(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(0));
}

void reshape_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  std::vector<int64_t> shape =
      ctx.opset() < 5 ? ctx.attr_ints("shape") : ctx.tensor(1).to_int_vector();
  bool allowzero = ctx.attr_int("allowzero", 0) != 0;
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= x.rank()) ctx.fail("shape has 0 at an index beyond the input's rank");
      shape[i] = x.dim(i);
    }
    if (shape[i] == -1) {
      if (infer >= 0) ctx.fail("shape has more than one -1");
      infer = int64_t(i);
    } else if (shape[i] < 0) {
      ctx.fail("shape has a negative dimension " + std::to_string(shape[i]));
    } else {
      known = checked_mul(ctx, known, shape[i], "the shape's element count");
    }
  }
  if (infer >= 0) {
    if (known == 0 || x.numel() % known != 0) {
      ctx.fail("cannot reshape " + dims_to_string(x.dims()) + " to " + dims_to_string(shape));
    }
    shape[size_t(infer)] = x.numel() / known;
  }
  if (checked_numel(shape) != x.numel()) {
    ctx.fail("cannot reshape " + dims_to_string(x.dims()) + " to " + dims_to_string(shape));
  }
  ctx.set_output(0, x.reshaped(shape));
}

void shape_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  int64_t r = int64_t(x.rank());
  int64_t start = ctx.attr_int("start", 0);
  int64_t end = ctx.attr_int("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  int64_t n = std::max<int64_t>(0, end - start);
  Tensor& out = ctx.alloc_output(0, DataType::Int64, {n});
  for (int64_t i = 0; i < n; ++i) out.mutable_data<int64_t>()[i] = x.dim(size_t(start + i));
}

void size_k(KernelContext& ctx) {
  Tensor& out = ctx.alloc_output(0, DataType::Int64, {});
  out.mutable_data<int64_t>()[0] = ctx.tensor(0).numel();
}

void flatten_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 1), int64_t(x.rank()), true);
  int64_t a = checked_product(ctx, x.dims(), 0, size_t(axis), "outer size");
  int64_t b = checked_product(ctx, x.dims(), size_t(axis), x.rank(), "inner size");
  ctx.set_output(0, x.reshaped({a, b}));
}

std::vector<int64_t> axes_from(KernelContext& ctx, size_t input, int since_input) {
  if (ctx.opset() >= since_input) {
    if (const Tensor* t = ctx.optional_tensor(input)) return t->to_int_vector();
    return {};
  }
  return ctx.attr_ints("axes");
}

void squeeze_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  std::vector<int64_t> axes = axes_from(ctx, 1, 13);
  std::vector<bool> drop(x.rank(), false);
  if (axes.empty()) {
    for (size_t i = 0; i < x.rank(); ++i) drop[i] = x.dim(i) == 1;
  }
  for (int64_t a : axes) {
    size_t k = size_t(normalize_axis(ctx, a, int64_t(x.rank())));
    if (x.dim(k) != 1)
      ctx.fail("cannot squeeze axis " + std::to_string(a) + " of size " + std::to_string(x.dim(k)));
    drop[k] = true;
  }
  Dims d;
  for (size_t i = 0; i < x.rank(); ++i) {
    if (!drop[i]) d.push_back(x.dim(i));
  }
  ctx.set_output(0, x.reshaped(d));
}

void unsqueeze_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  std::vector<int64_t> axes = axes_from(ctx, 1, 13);
  int64_t r = int64_t(x.rank() + axes.size());
  std::vector<bool> ins(size_t(r), false);
  for (int64_t a : axes) {
    size_t k = size_t(normalize_axis(ctx, a, r));
    if (ins[k]) ctx.fail("repeated axis in axes");
    ins[k] = true;
  }
  Dims d;
  size_t j = 0;
  for (size_t i = 0; i < size_t(r); ++i) d.push_back(ins[i] ? 1 : x.dim(j++));
  ctx.set_output(0, x.reshaped(d));
}

}  // namespace

// Shared with other files: out = x permuted by perm.
Tensor transpose_tensor(const Tensor& x, const std::vector<int64_t>& perm) {
  size_t r = x.rank();
  Dims od(r);
  for (size_t i = 0; i < r; ++i) od[i] = x.dim(size_t(perm[i]));
  Tensor out = Tensor::uninitialized(x.dtype(), od);  // every element is copied
  if (x.numel() == 0) return out;
  auto is = row_major_strides(x.dims());
  std::vector<int64_t> st(r);  // input stride for each output dim
  for (size_t i = 0; i < r; ++i) st[i] = is[size_t(perm[i])];
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    if (r == 0) {
      po[0] = px[0];
      return;
    }
    const int64_t inner = od[r - 1], inner_st = st[r - 1];
    std::vector<int64_t> idx(r, 0);
    int64_t off = 0;
    const int64_t total = out.numel();
    for (int64_t o = 0; o < total; o += inner) {
      if (inner_st == 1) {  // the last axis stays last: copy whole rows
        std::copy(px + off, px + off + inner, po + o);
      } else {
        for (int64_t i = 0; i < inner; ++i) po[o + i] = px[off + i * inner_st];
      }
      for (size_t d = r - 1; d-- > 0;) {
        ++idx[d];
        off += st[d];
        if (idx[d] < od[d]) break;
        off -= st[d] * od[d];
        idx[d] = 0;
      }
    }
  });
  return out;
}

// out = concatenation of parts along axis (all parts same dtype and rank).
Tensor concat_tensors(const std::vector<const Tensor*>& parts, int64_t axis) {
  // Callers pass tensors from sequences and loop bodies: check that they
  // line up (copying by the first part's shape read past the others).
  for (const Tensor* p : parts) {
    if (p->dtype() != parts[0]->dtype() || p->rank() != parts[0]->rank()) {
      throw Error(ErrorKind::Invalid, "cannot concatenate " +
                                          std::string(ir::dtype_name(p->dtype())) +
                                          dims_to_string(p->dims()) + " with " +
                                          std::string(ir::dtype_name(parts[0]->dtype())) +
                                          dims_to_string(parts[0]->dims()));
    }
    for (size_t d = 0; d < p->rank(); ++d) {
      if (int64_t(d) != axis && p->dim(d) != parts[0]->dim(d)) {
        throw Error(ErrorKind::Invalid,
                    "cannot concatenate shapes " + dims_to_string(parts[0]->dims()) + " and " +
                        dims_to_string(p->dims()) + " along axis " + std::to_string(axis));
      }
    }
  }
  Dims od = parts[0]->dims();
  od[size_t(axis)] = 0;
  for (const Tensor* p : parts) {
    if (__builtin_add_overflow(od[size_t(axis)], p->dim(size_t(axis)), &od[size_t(axis)])) {
      throw Error(ErrorKind::Invalid, "the concatenated axis is longer than int64 can count");
    }
  }
  Tensor out(parts[0]->dtype(), od);
  // Empty: the outer size is no bound on the copy loop ([2^62, 0, 1] parts).
  if (out.numel() == 0) return out;
  int64_t outer = checked_numel(Dims(od.begin(), od.begin() + axis), "outer size");
  int64_t inner = checked_numel(Dims(od.begin() + axis + 1, od.end()), "inner size");
  dispatch_copy(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* po = out.mutable_data<T>();
    const int64_t orow = od[size_t(axis)] * inner;
    int64_t col = 0;
    for (const Tensor* p : parts) {
      const T* pp = p->data<T>();
      const int64_t prow = p->dim(size_t(axis)) * inner;
      for (int64_t o = 0; o < outer; ++o) {
        std::copy(pp + o * prow, pp + (o + 1) * prow, po + o * orow + col);
      }
      col += prow;
    }
  });
  return out;
}

// Slice of x: per dim start, step and output size.
Tensor slice_tensor(const Tensor& x, const std::vector<int64_t>& start,
                    const std::vector<int64_t>& step, const Dims& od) {
  Tensor out = Tensor::uninitialized(x.dtype(), od);  // every element is copied
  if (out.numel() == 0) return out;
  size_t r = x.rank();
  auto is = row_major_strides(x.dims());
  int64_t base = 0;
  std::vector<int64_t> st(r);
  for (size_t i = 0; i < r; ++i) {
    base += start[i] * is[i];
    st[i] = step[i] * is[i];
  }
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>() + base;
    T* po = out.mutable_data<T>();
    if (r == 0) {
      po[0] = px[0];
      return;
    }
    const int64_t inner = od[r - 1], ist = st[r - 1];
    std::vector<int64_t> idx(r, 0);
    int64_t off = 0;
    for (int64_t o = 0; o < out.numel(); o += inner) {
      if (ist == 1) {
        std::copy(px + off, px + off + inner, po + o);
      } else {
        for (int64_t i = 0; i < inner; ++i) po[o + i] = px[off + i * ist];
      }
      for (size_t d = r - 1; d-- > 0;) {
        ++idx[d];
        off += st[d];
        if (idx[d] < od[d]) break;
        off -= st[d] * od[d];
        idx[d] = 0;
      }
    }
  });
  return out;
}

// Broadcasts x to `od` (materialized).
Tensor expand_tensor(const Tensor& x, const Dims& od) {
  if (x.rank() > od.size() || broadcast_shapes(x.dims(), od) != od) {
    throw Error(ErrorKind::Invalid,
                "cannot broadcast shape " + dims_to_string(x.dims()) + " to " + dims_to_string(od));
  }
  Tensor out = Tensor::uninitialized(x.dtype(), od);  // every element is copied
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for_each_run<1>(od, {&x.dims()},
                    [&](int64_t o, const int64_t* off, int64_t n, const int64_t* s) {
                      for (int64_t i = 0; i < n; ++i) po[o + i] = px[off[0] + i * s[0]];
                    });
  });
  return out;
}

namespace {

void transpose_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  std::vector<int64_t> perm = ctx.attr_ints("perm");
  if (perm.empty()) {
    for (size_t i = x.rank(); i-- > 0;) perm.push_back(int64_t(i));
  }
  if (perm.size() != x.rank()) ctx.fail("perm has the wrong length");
  std::vector<bool> seen(x.rank(), false);
  for (int64_t& p : perm) {
    p = normalize_axis(ctx, p, int64_t(x.rank()));
    if (seen[size_t(p)]) ctx.fail("perm repeats an axis");
    seen[size_t(p)] = true;
  }
  ctx.set_output(0, transpose_tensor(x, perm));
}

void concat_k(KernelContext& ctx) {
  std::vector<const Tensor*> parts;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) parts.push_back(&ctx.tensor(i));
  if (parts.empty()) ctx.fail("needs at least one input");
  int64_t r = int64_t(parts[0]->rank());
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 1), r);
  for (const Tensor* p : parts) {
    require_same_dtype(ctx, *parts[0], *p);
    if (int64_t(p->rank()) != r) ctx.fail("inputs must have the same rank");
    for (size_t d = 0; d < size_t(r); ++d) {
      if (int64_t(d) != axis && p->dim(d) != parts[0]->dim(d)) {
        ctx.fail("input shapes " + dims_to_string(parts[0]->dims()) + " and " +
                 dims_to_string(p->dims()) + " differ outside the concat axis");
      }
    }
  }
  ctx.set_output(0, concat_tensors(parts, axis));
}

}  // namespace

void check_split_lengths(const KernelContext& ctx, const std::vector<int64_t>& split,
                         const Tensor& x, int64_t axis) {
  const int64_t len = x.dim(size_t(axis));
  for (size_t i = 0; i < split.size(); ++i) {
    if (split[i] < 0) {
      ctx.fail("split[" + std::to_string(i) + "] is " + std::to_string(split[i]) +
               "; the parts' lengths cannot be negative");
    }
  }
  int64_t total = 0;
  for (int64_t p : split) {
    total += p;
    if (total > len) break;  // no overflow
  }
  if (total != len) {
    ctx.fail("the split lengths add up to " +
             (total > len ? "more than " + std::to_string(len) : std::to_string(total)) +
             " but axis " + std::to_string(axis) + " of the input " + dims_to_string(x.dims()) +
             " has length " + std::to_string(len) + "; they must add up to it");
  }
}

namespace {

void split_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), int64_t(x.rank()));
  std::vector<int64_t> split;
  if (ctx.opset() >= 13) {
    if (const Tensor* t = ctx.optional_tensor(1)) split = t->to_int_vector();
  } else {
    split = ctx.attr_ints("split");
  }
  size_t n = ctx.num_outputs();
  int64_t len = x.dim(size_t(axis));
  if (split.empty()) {
    int64_t parts = ctx.attr_int("num_outputs", int64_t(n));
    if (parts <= 0 || uint64_t(parts) != n) {
      ctx.fail("num_outputs is " + std::to_string(parts) + "; the node has " + std::to_string(n) +
               " outputs");
    }
    int64_t each = len / parts + (len % parts != 0);
    for (int64_t i = 0; i < parts; ++i) split.push_back(std::min(each, len - i * each));
  }
  if (split.size() != n)
    ctx.fail("split has " + std::to_string(split.size()) + " parts for " + std::to_string(n) +
             " outputs");
  check_split_lengths(ctx, split, x, axis);
  std::vector<int64_t> start(x.rank(), 0), step(x.rank(), 1);
  for (size_t i = 0; i < n; ++i) {
    Dims od = x.dims();
    od[size_t(axis)] = split[i];
    ctx.set_output(i, slice_tensor(x, start, step, od));
    start[size_t(axis)] += split[i];
  }
}

void slice_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.attr_ints("starts");
    ends = ctx.attr_ints("ends");
    axes = ctx.attr_ints("axes");
  } else {
    starts = ctx.tensor(1).to_int_vector();
    ends = ctx.tensor(2).to_int_vector();
    if (const Tensor* t = ctx.optional_tensor(3)) axes = t->to_int_vector();
    if (const Tensor* t = ctx.optional_tensor(4)) steps = t->to_int_vector();
  }
  size_t r = x.rank();
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    ctx.fail("starts, ends, axes and steps must have the same length");
  }
  std::vector<int64_t> start(r, 0), step(r, 1);
  Dims od = x.dims();
  for (size_t i = 0; i < starts.size(); ++i) {
    size_t a = size_t(normalize_axis(ctx, axes[i], int64_t(r)));
    int64_t d = x.dim(a), s = starts[i], e = ends[i], k = steps[i];
    if (k == 0) ctx.fail("step must not be 0");
    if (s < 0) s += d;
    if (e < 0) e += d;
    // Counts in unsigned arithmetic: a step of INT64_MIN has no int64 negation.
    if (k > 0) {
      s = std::clamp<int64_t>(s, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      od[a] = e > s ? int64_t((uint64_t(e - s) - 1) / uint64_t(k) + 1) : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      od[a] = s > e ? int64_t((uint64_t(s - e) - 1) / (uint64_t(0) - uint64_t(k)) + 1) : 0;
    }
    start[a] = s;
    step[a] = od[a] > 1 ? k : 1;  // a step never taken: keep offsets from overflowing
  }
  ctx.set_output(0, slice_tensor(x, start, step, od));
}

void expand_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  Dims shape = ctx.tensor(1).to_int_vector();
  ctx.set_output(0, expand_tensor(x, broadcast_shapes(x.dims(), shape)));
}

void tile_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  std::vector<int64_t> reps = ctx.tensor(1).to_int_vector();
  if (reps.size() != x.rank()) ctx.fail("repeats must have one entry per input dimension");
  // Tile = expand a [1,d0,1,d1,...] view to [r0,d0,r1,d1,...], then reshape.
  Dims view, big, od;
  for (size_t i = 0; i < x.rank(); ++i) {
    if (reps[i] < 0) ctx.fail("repeats must not be negative, got " + std::to_string(reps[i]));
    view.push_back(1);
    view.push_back(x.dim(i));
    big.push_back(reps[i]);
    big.push_back(x.dim(i));
    od.push_back(checked_mul(ctx, reps[i], x.dim(i), "the tiled size"));
  }
  ctx.set_output(0, expand_tensor(x.reshaped(view), big).reshaped(od));
}

void constant_of_shape_k(KernelContext& ctx) {
  Dims shape = ctx.tensor(0).to_int_vector();
  const ir::Attr* a = ctx.attr("value");
  if (!a || !a->t) {
    ctx.alloc_output(0, DataType::Float, shape);
    return;
  }
  Tensor v = Tensor::from_ir(*a->t);
  if (v.numel() != 1) ctx.fail("value must have one element");
  ctx.set_output(0, expand_tensor(v.reshaped({}), shape));
}

void pad_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  std::string mode = ctx.attr_string("mode", "constant");
  std::vector<int64_t> pads;
  double value = 0;
  Tensor cval;
  size_t r = x.rank();
  if (ctx.opset() < 11) {
    pads = ctx.attr_ints(ctx.opset() < 2 ? "paddings" : "pads");
    value = ctx.attr_float("value", 0);
  } else {
    pads = ctx.tensor(1).to_int_vector();
    if (const Tensor* t = ctx.optional_tensor(2)) cval = *t;
  }
  std::vector<int64_t> axes;
  if (const Tensor* t = ctx.opset() >= 18 ? ctx.optional_tensor(3) : nullptr) {
    axes = t->to_int_vector();
  } else {
    for (size_t i = 0; i < r; ++i) axes.push_back(int64_t(i));
  }
  if (pads.size() != 2 * axes.size()) ctx.fail("pads must have 2 entries per axis");
  std::vector<int64_t> before(r, 0), after(r, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = size_t(normalize_axis(ctx, axes[i], int64_t(r)));
    before[a] = pads[i];
    after[a] = pads[i + axes.size()];
  }
  Dims od(r);
  for (size_t i = 0; i < r; ++i) {
    od[i] = checked_add(ctx, checked_add(ctx, x.dim(i), before[i], "the padded size"), after[i],
                        "the padded size");
    if (od[i] < 0) ctx.fail("pads make a negative dimension");
  }
  Tensor& out = ctx.alloc_output(0, x.dtype(), od);
  if (out.numel() == 0) return;
  auto is = row_major_strides(x.dims());
  auto os = row_major_strides(od);
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T fill{};
    if constexpr (!std::is_same_v<T, std::string>) {
      if (cval.defined() && cval.numel() > 0) {
        std::memcpy(&fill, cval.raw(), sizeof(T));
      } else if (value != 0) {
        Tensor v = cast_tensor(
            Tensor::of<double>(DataType::Double, {}, std::span<const double>(&value, 1)),
            x.dtype());
        std::memcpy(&fill, v.raw(), sizeof(T));
      }
    } else if (cval.defined() && cval.numel() > 0) {
      fill = cval.strings()[0];
    }
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t o = 0; o < out.numel(); ++o) {
      int64_t rem = o, src = 0;
      bool inside = true;
      for (size_t d = 0; d < r; ++d) {
        int64_t c = rem / os[d] - before[d];
        rem %= os[d];
        int64_t n = x.dim(d);
        if (c < 0 || c >= n) {
          if (mode == "constant" || n == 0) {
            inside = false;
            break;
          }
          if (mode == "edge") {
            c = c < 0 ? 0 : n - 1;
          } else if (mode == "reflect") {
            if (n == 1) {
              c = 0;
            } else {
              int64_t period = 2 * (n - 1);
              c = ((c % period) + period) % period;
              if (c >= n) c = period - c;
            }
          } else if (mode == "wrap") {
            c = ((c % n) + n) % n;
          } else {
            ctx.fail("unknown pad mode '" + mode + "'");
          }
        }
        src += c * is[d];
      }
      po[o] = inside ? px[src] : fill;
    }
  });
}

void depth_to_space_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() != 4) ctx.fail("input must be 4-D");
  int64_t b = ctx.attr_int("blocksize", 0);
  if (b <= 0) ctx.fail("blocksize must be positive");
  int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  int64_t bb = checked_mul(ctx, b, b, "blocksize^2");
  if (c % bb) ctx.fail("channels must be a multiple of blocksize^2");
  checked_mul(ctx, h, b, "the output height");
  checked_mul(ctx, w, b, "the output width");
  std::string mode = ctx.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") ctx.fail("mode must be DCR or CRD, not '" + mode + "'");
  bool crd = mode == "CRD";
  Tensor t =
      crd ? x.reshaped({n, c / (b * b), b, b, h, w}) : x.reshaped({n, b, b, c / (b * b), h, w});
  std::vector<int64_t> perm =
      crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
  ctx.set_output(0, transpose_tensor(t, perm).reshaped({n, c / (b * b), h * b, w * b}));
}

void space_to_depth_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() != 4) ctx.fail("input must be 4-D");
  int64_t b = ctx.attr_int("blocksize", 0);
  if (b <= 0) ctx.fail("blocksize must be positive");
  int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  if (h % b || w % b) ctx.fail("height and width must be multiples of blocksize");
  checked_mul(ctx, c, checked_mul(ctx, b, b, "blocksize^2"), "the output channels");
  // SpaceToDepth-28's mode: DCR (the earlier versions' only order) puts the
  // block offset before the channel, CRD after it.
  std::string mode = ctx.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") ctx.fail("mode must be DCR or CRD, not '" + mode + "'");
  Tensor t = x.reshaped({n, c, h / b, b, w / b, b});
  std::vector<int64_t> perm = mode == "CRD" ? std::vector<int64_t>{0, 1, 3, 5, 2, 4}
                                            : std::vector<int64_t>{0, 3, 5, 1, 2, 4};
  ctx.set_output(0, transpose_tensor(t, perm).reshaped({n, c * b * b, h / b, w / b}));
}

void trilu_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() < 2) ctx.fail("input must have rank >= 2");
  int64_t k = 0;
  if (const Tensor* t = ctx.optional_tensor(1)) k = t->scalar_int();
  bool upper = ctx.attr_int("upper", 1) != 0;
  Tensor out = x.clone();
  int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
  int64_t rc = checked_mul(ctx, rows, cols, "the matrix size");
  int64_t mats = rc == 0 ? 0 : x.numel() / rc;
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* po = out.mutable_data<T>();
    for (int64_t m = 0; m < mats; ++m) {
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          bool keep = upper ? (j - i >= k) : (j - i <= k);
          if (!keep) po[(m * rows + i) * cols + j] = T{};
        }
      }
    }
  });
  ctx.set_output(0, out);
}

void eye_like_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() != 2) ctx.fail("input must be 2-D");
  DataType dt = ctx.has_attr("dtype") ? DataType(ctx.attr_int("dtype", 1)) : x.dtype();
  if (dt == DataType::String || ir::element_size(dt) == 0) {
    ctx.fail("dtype " + std::to_string(ctx.attr_int("dtype", 1)) +
             " is not a numeric or bool element type");
  }
  int64_t k = ctx.attr_int("k", 0);
  Tensor one = cast_tensor(Tensor::of<int64_t>(DataType::Int64, {}, std::vector<int64_t>{1}), dt);
  Tensor& out = ctx.alloc_output(0, dt, x.dims());
  // An empty output has no diagonal; its row count alone is no bound on the
  // loop ([2^62, 0] costs no memory).
  if (out.numel() == 0) return;
  size_t es = ir::element_size(dt);
  for (int64_t i = 0; i < x.dim(0); ++i) {
    int64_t j = 0;
    if (__builtin_add_overflow(i, k, &j)) continue;  // a diagonal far outside the matrix
    if (j >= 0 && j < x.dim(1)) {
      std::memcpy(static_cast<char*>(out.mutable_raw()) + size_t(i * x.dim(1) + j) * es, one.raw(),
                  es);
    }
  }
}

}  // namespace

void register_shape_kernels(KernelRegistry& r) {
  r.add("", "Constant", 1, constant_k);
  r.add("", "Identity", 1, identity_k);
  r.add("", "Reshape", 1, reshape_k);
  r.add("", "Shape", 1, shape_k);
  r.add("", "Size", 1, size_k);
  r.add("", "Flatten", 1, flatten_k);
  r.add("", "Squeeze", 1, squeeze_k);
  r.add("", "Unsqueeze", 1, unsqueeze_k);
  r.add("", "Transpose", 1, transpose_k);
  r.add("", "Concat", 1, concat_k);
  r.add("", "Split", 1, split_k);
  r.add("", "Slice", 1, slice_k);
  r.add("", "Expand", 8, expand_k);
  r.add("", "Tile", 6, tile_k);
  r.add("", "ConstantOfShape", 9, constant_of_shape_k);
  r.add("", "Pad", 1, pad_k);
  r.add("", "DepthToSpace", 1, depth_to_space_k);
  r.add("", "SpaceToDepth", 1, space_to_depth_k);
  r.add("", "Trilu", 14, trilu_k);
  r.add("", "EyeLike", 9, eye_like_k);
}

}  // namespace oxs::eval
