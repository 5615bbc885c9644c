// Normalizations that ONNX defines as function-ops: LayerNormalization (17),
// RMSNormalization (23), GroupNormalization (18: scale and bias per group;
// 21: per channel) and MeanVarianceNormalization (9, 13). libonnx 1.12 has
// bodies only up to opset 17, so each has a kernel for every version.
//
// All of them reduce over a set of axes: every element is mapped to its
// "statistics slot" (its index with the reduced axes dropped), sums are
// accumulated per slot in one pass, then the elements are normalized in a
// second pass. Statistics are computed in float (stash_type 1) or double.
#include <cmath>
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

// For each element of a tensor of `dims`, the index of its statistics slot
// when the axes in `reduced` are reduced away; `slots` is the slot count.
struct SlotMap {
  std::vector<int64_t> slot;
  int64_t slots = 1;
};

SlotMap slot_map(const Dims& dims, const std::vector<bool>& reduced) {
  SlotMap m;
  const size_t r = dims.size();
  std::vector<int64_t> kept_stride(r, 0);
  for (size_t i = r; i-- > 0;) {
    if (!reduced[i]) {
      kept_stride[i] = m.slots;
      m.slots *= dims[i];
    }
  }
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  m.slot.resize(static_cast<size_t>(n));
  std::vector<int64_t> idx(r, 0);
  int64_t s = 0;
  for (int64_t e = 0; e < n; ++e) {
    m.slot[size_t(e)] = s;
    for (size_t i = r; i-- > 0;) {  // odometer increment, slot index kept in step
      s += kept_stride[i];
      if (++idx[i] < dims[i]) break;
      s -= kept_stride[i] * idx[i];
      idx[i] = 0;
    }
  }
  return m;
}

int stash_type(const KernelContext& ctx) {
  int64_t s = ctx.attr_int("stash_type", 1);
  if (s != 1 && s != 11) ctx.fail("stash_type must be 1 (float) or 11 (double)");
  return int(s);
}

// `t` broadcast (unidirectionally) to `dims`, as C values.
template <class C>
std::vector<C> broadcast_to(const KernelContext& ctx, const Tensor& t, const Dims& dims,
                            const char* what) {
  if (t.rank() > dims.size()) {
    ctx.fail(std::string(what) + " " + dims_to_string(t.dims()) + " has more dimensions than X " +
             dims_to_string(dims));
  }
  for (size_t i = 0; i < t.rank(); ++i) {
    int64_t d = t.dim(t.rank() - 1 - i), x = dims[dims.size() - 1 - i];
    if (d != 1 && d != x) {
      ctx.fail(std::string(what) + " " + dims_to_string(t.dims()) + " does not broadcast to X " +
               dims_to_string(dims));
    }
  }
  return read_as<C>(expand_tensor(t, dims));
}

// trailing_norm of an empty X: Y is empty, and so are Mean and InvStdDev
// unless the normalized axes are the empty ones (a mean of no elements:
// NaN). The row count is not a loop bound here: X of [2^31, 2^31, 0] has
// 2^62 rows and no elements, and the statistics' size meets the
// allocation limit as a tensor, not a std::vector.
void empty_trailing_norm(KernelContext& ctx, const Tensor& x, int64_t axis, bool rms) {
  ctx.set_output(0, Tensor(x.dtype(), x.dims()));
  if (rms) return;
  Dims sd = x.dims();
  for (size_t i = size_t(axis); i < sd.size(); ++i) sd[i] = 1;
  const DataType st = static_cast<DataType>(stash_type(ctx));
  for (size_t out : {size_t(1), size_t(2)}) {
    if (!ctx.wants_output(out)) continue;
    Tensor t(st, sd);
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (st == DataType::Double) {
        t.mutable_data<double>()[i] = std::nan("");
      } else {
        t.mutable_data<float>()[i] = std::nanf("");
      }
    }
    ctx.set_output(out, t);
  }
}

// Y = (X - mean) * inv_std * scale + bias over the trailing axes from `axis`
// (LayerNormalization), or X * inv_rms * scale (RMSNormalization, rms=true).
template <class C>
void trailing_norm(KernelContext& ctx, bool rms) {
  const Tensor& x = ctx.tensor(0);
  const int64_t r = int64_t(x.rank());
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", -1), r);
  const C eps = C(ctx.attr_float("epsilon", 1e-5f));
  std::vector<C> scale = broadcast_to<C>(ctx, ctx.tensor(1), x.dims(), "Scale");
  const Tensor* bias_t = rms ? nullptr : ctx.optional_tensor(2);
  std::vector<C> bias;
  if (bias_t) bias = broadcast_to<C>(ctx, *bias_t, x.dims(), "B");
  if (x.numel() == 0) return empty_trailing_norm(ctx, x, axis, rms);
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? rows : cols) *= x.dim(size_t(i));
  std::vector<C> xd = read_as<C>(x);
  std::vector<C> y(xd.size()), mean(static_cast<size_t>(rows)), inv(static_cast<size_t>(rows));
  for (int64_t row = 0; row < rows; ++row) {
    const C* p = xd.data() + row * cols;
    C m = 0;
    if (!rms) {
      for (int64_t c = 0; c < cols; ++c) m += p[c];
      m /= C(cols);
    }
    C var = 0;
    for (int64_t c = 0; c < cols; ++c) var += (p[c] - m) * (p[c] - m);
    var /= C(cols);
    C is = C(1) / std::sqrt(var + eps);
    mean[size_t(row)] = m;
    inv[size_t(row)] = is;
    for (int64_t c = 0; c < cols; ++c) {
      size_t e = size_t(row * cols + c);
      // The normalized value is rounded to X's type before scaling, as the
      // function body casts it back before Mul.
      C v = round_to(x.dtype(), (p[c] - m) * is) * scale[e];
      y[e] = bias_t ? v + bias[e] : v;
    }
  }
  ctx.set_output(0, write_as(x.dtype(), x.dims(), y));
  Dims sd = x.dims();
  for (int64_t i = axis; i < r; ++i) sd[size_t(i)] = 1;
  DataType st = static_cast<DataType>(stash_type(ctx));
  if (!rms && ctx.wants_output(1)) ctx.set_output(1, write_as(st, sd, mean));
  if (!rms && ctx.wants_output(2)) ctx.set_output(2, write_as(st, sd, inv));
}

void layer_norm_k(KernelContext& ctx) {
  if (fast::layer_norm(ctx)) return;
  if (stash_type(ctx) == 11) return trailing_norm<double>(ctx, false);
  trailing_norm<float>(ctx, false);
}

void rms_norm_k(KernelContext& ctx) {
  if (stash_type(ctx) == 11) return trailing_norm<double>(ctx, true);
  trailing_norm<float>(ctx, true);
}

// GroupNormalization: statistics per (instance, group of channels); scale
// and bias per group (opset 18) or per channel (21).
template <class C>
void group_norm_typed(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() < 2) ctx.fail("X must be at least 2-D [N, C, ...], is " + dims_to_string(x.dims()));
  const int64_t groups = ctx.required_attr("num_groups").i;
  const int64_t n = x.dim(0), ch = x.dim(1);
  if (groups <= 0 || ch % groups != 0) {
    ctx.fail("num_groups " + std::to_string(groups) + " must divide the channel count " +
             std::to_string(ch));
  }
  const bool per_channel = ctx.opset() >= 21;
  const int64_t want = per_channel ? ch : groups;
  const Tensor& st = ctx.tensor(1);
  const Tensor& bt = ctx.tensor(2);
  if (st.numel() != want || bt.numel() != want || st.rank() != 1 || bt.rank() != 1) {
    ctx.fail(std::string("scale and bias must have shape [") + std::to_string(want) +
             "] (one per " + (per_channel ? "channel" : "group") + "), got " +
             dims_to_string(st.dims()) + " and " + dims_to_string(bt.dims()));
  }
  if (x.numel() == 0) {
    // Nothing to normalize; the loops below run over N x num_groups, which
    // an empty X does not bound (C = 0 lets any num_groups divide it).
    ctx.set_output(0, Tensor(x.dtype(), x.dims()));
    return;
  }
  const C eps = C(ctx.attr_float("epsilon", 1e-5f));
  std::vector<C> xd = read_as<C>(x), scale = read_as<C>(st), bias = read_as<C>(bt);
  const int64_t spatial = ch == 0 || n == 0 ? 0 : x.numel() / (n * ch);
  const int64_t per_group = ch / groups * spatial;
  std::vector<C> y(xd.size());
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t base = (b * groups + g) * per_group;
      C m = 0, var = 0;
      for (int64_t e = 0; e < per_group; ++e) m += xd[size_t(base + e)];
      m /= C(std::max<int64_t>(per_group, 1));
      for (int64_t e = 0; e < per_group; ++e) {
        C d = xd[size_t(base + e)] - m;
        var += d * d;
      }
      var /= C(std::max<int64_t>(per_group, 1));
      const C is = C(1) / std::sqrt(var + eps);
      for (int64_t e = 0; e < per_group; ++e) {
        const int64_t c = g * (ch / groups) + e / std::max<int64_t>(spatial, 1);
        const size_t k = size_t(per_channel ? c : g);
        C v = round_to(x.dtype(), (xd[size_t(base + e)] - m) * is);
        y[size_t(base + e)] = v * scale[k] + bias[k];
      }
    }
  }
  ctx.set_output(0, write_as(x.dtype(), x.dims(), y));
}

void group_norm_k(KernelContext& ctx) {
  if (stash_type(ctx) == 11) return group_norm_typed<double>(ctx);
  group_norm_typed<float>(ctx);
}

// MeanVarianceNormalization: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9)
// over `axes` (default N, H, W).
void mvn_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const int64_t r = int64_t(x.rank());
  std::vector<bool> reduced(size_t(r), false);
  for (int64_t a : ctx.attr_ints("axes", {0, 2, 3}))
    reduced[size_t(normalize_axis(ctx, a, r))] = true;
  if (x.numel() == 0) {  // the slot count (kept dims) is no bound when X is empty
    ctx.set_output(0, Tensor(x.dtype(), x.dims()));
    return;
  }
  dispatch_compute(x.dtype(), [&](auto tag) {
    using C = decltype(tag);
    SlotMap sm = slot_map(x.dims(), reduced);
    std::vector<C> xd = read_as<C>(x);
    std::vector<C> sum(size_t(sm.slots)), sq(size_t(sm.slots));
    std::vector<int64_t> count(size_t(sm.slots));
    for (size_t e = 0; e < xd.size(); ++e) {
      size_t s = size_t(sm.slot[e]);
      sum[s] += xd[e];
      sq[s] += xd[e] * xd[e];
      ++count[s];
    }
    std::vector<C> y(xd.size());
    for (size_t e = 0; e < xd.size(); ++e) {
      size_t s = size_t(sm.slot[e]);
      C m = sum[s] / C(count[s]);
      C var = std::max(C(0), sq[s] / C(count[s]) - m * m);  // no NaN from rounding
      y[e] = (xd[e] - m) / (std::sqrt(var) + C(1e-9));
    }
    ctx.set_output(0, write_as(x.dtype(), x.dims(), y));
  });
}

}  // namespace

void register_norm_function_kernels(KernelRegistry& r) {
  r.add("", "LayerNormalization", 17, layer_norm_k);
  r.add("", "RMSNormalization", 23, rms_norm_k);
  r.add("", "GroupNormalization", 18, group_norm_k);
  r.add("", "MeanVarianceNormalization", 9, mvn_k);
}

}  // namespace oxs::eval
