// Convolutions: Conv, ConvInteger, QLinearConv (conv_forward.h: im2col +
// OpenBLAS GEMM, or direct loops), ConvTranspose (GEMM + col2im). Also the
// window geometry of window.h.
#include <cmath>

#include "oxs/eval/conv/conv_forward.h"
#include "oxs/eval/conv/conv_fusion.h"
#include "oxs/eval/fast/packed_weights.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/math/gemm.h"
#include "oxs/eval/validate/checked.h"
#include "oxs/eval/validate/run_limits.h"
#include "oxs/eval/window.h"

namespace oxs::eval {

int64_t Window::out_numel() const {
  int64_t n = 1;
  for (int64_t v : out) n *= v;
  return n;
}
int64_t Window::kernel_numel() const {
  int64_t n = 1;
  for (int64_t v : kernel) n *= v;
  return n;
}

Window make_window(const KernelContext& ctx, const std::vector<int64_t>& spatial,
                   const std::vector<int64_t>& kernel, bool ceil_mode) {
  Window w;
  size_t r = spatial.size();
  w.in = spatial;
  w.kernel = kernel;
  if (kernel.size() != r) ctx.fail("kernel rank does not match the input's spatial rank");
  w.strides = ctx.attr_ints("strides", std::vector<int64_t>(r, 1));
  w.dilations = ctx.attr_ints("dilations", std::vector<int64_t>(r, 1));
  std::vector<int64_t> pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * r, 0));
  if (w.strides.size() != r || w.dilations.size() != r || pads.size() != 2 * r) {
    ctx.fail("strides, dilations or pads do not match the spatial rank");
  }
  std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  w.pad_begin.assign(pads.begin(), pads.begin() + long(r));
  w.pad_end.assign(pads.begin() + long(r), pads.end());
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
      auto_pad != "VALID") {
    ctx.fail("auto_pad is '" + auto_pad + "'; it must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  w.out.resize(r);
  for (size_t i = 0; i < r; ++i) {
    if (w.strides[i] <= 0 || w.dilations[i] <= 0)
      ctx.fail("strides and dilations must be positive");
    if (kernel[i] <= 0) ctx.fail("kernel sizes must be positive, not " + std::to_string(kernel[i]));
    if (w.pad_begin[i] < 0 || w.pad_end[i] < 0) ctx.fail("pads must not be negative");
    int64_t ek = checked_add(ctx, checked_mul(ctx, kernel[i] - 1, w.dilations[i], "kernel extent"),
                             1, "kernel extent");
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      int64_t o = spatial[i] / w.strides[i] + (spatial[i] % w.strides[i] != 0);
      int64_t total = std::max<int64_t>(
          0,
          checked_add(ctx, checked_mul(ctx, std::max<int64_t>(o - 1, 0), w.strides[i], "padding"),
                      ek - spatial[i], "padding"));
      w.pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[i] = total - w.pad_begin[i];
      w.out[i] = o;
      continue;
    }
    if (auto_pad == "VALID") w.pad_begin[i] = w.pad_end[i] = 0;
    int64_t span = checked_add(ctx, checked_add(ctx, spatial[i], w.pad_begin[i], "padded size"),
                               w.pad_end[i], "padded size") -
                   ek;
    if (span < 0) ctx.fail("the kernel is larger than the padded input");
    if (ceil_mode) {
      int64_t o = span / w.strides[i] + (span % w.strides[i] != 0) + 1;
      // The last window must start inside the input or its begin padding.
      if (checked_mul(ctx, o - 1, w.strides[i], "output size") >= spatial[i] + w.pad_begin[i]) --o;
      w.out[i] = o;
    } else {
      w.out[i] = span / w.strides[i] + 1;
    }
  }
  checked_product(ctx, w.in, "input size");
  checked_product(ctx, w.out, "output size");
  checked_product(ctx, w.kernel, "kernel volume");
  return w;
}

namespace {

// The reverse: x[c, window position] += col[...].
template <class T>
void col2im(const T* col, int64_t channels, const Window& w, T* x) {
  using C = compute_t<T>;
  const size_t r = w.rank();
  const int64_t K = w.kernel_numel(), P = w.out_numel();
  int64_t in_n = 1;
  for (int64_t v : w.in) in_n *= v;
  std::vector<int64_t> kidx(r), oidx(r);
  for (int64_t c = 0; c < channels; ++c) {
    T* xc = x + c * in_n;
    for (int64_t k = 0; k < K; ++k) {
      int64_t rem = k;
      for (size_t d = r; d-- > 0;) {
        kidx[d] = rem % w.kernel[d];
        rem /= w.kernel[d];
      }
      const T* src = col + (c * K + k) * P;
      std::fill(oidx.begin(), oidx.end(), 0);
      for (int64_t p = 0; p < P; ++p) {
        int64_t off = 0;
        bool inside = true;
        for (size_t d = 0; d < r; ++d) {
          int64_t i = oidx[d] * w.strides[d] - w.pad_begin[d] + kidx[d] * w.dilations[d];
          if (i < 0 || i >= w.in[d]) {
            inside = false;
            break;
          }
          off = off * w.in[d] + i;
        }
        if (inside) xc[off] = T(C(xc[off]) + C(src[p]));
        for (size_t d = r; d-- > 0;) {
          if (++oidx[d] < w.out[d]) break;
          oidx[d] = 0;
        }
      }
    }
  }
}

std::vector<int64_t> spatial_of(const Tensor& t) {
  return {t.dims().begin() + 2, t.dims().end()};
}

// Conv over same-typed x, w (float/double via BLAS, ints via loops).
// `packed`: W packed per group for the AVX-512 SGEMM (fast/packed_weights.h).
// `tail`: a fused Add/Relu (conv_fusion.h), applied (and marked so) when X
// is float and the residual a float tensor of Y's shape.
Tensor conv(KernelContext& ctx, const Tensor& x, const Tensor& wt, const Tensor* bias,
            const conv_detail::PackedGroups* packed = nullptr, FusedTail* tail = nullptr) {
  if (x.rank() < 3 || wt.rank() != x.rank()) ctx.fail("X and W must have the same rank >= 3");
  int64_t n = x.dim(0), c = x.dim(1), m = wt.dim(0);
  int64_t group = ctx.attr_int("group", 1);
  if (group <= 0 || c % group || m % group || wt.dim(1) * group != c) {
    ctx.fail("channels " + std::to_string(c) + " and weights " + dims_to_string(wt.dims()) +
             " do not match group " + std::to_string(group));
  }
  std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape", spatial_of(wt));
  if (kernel != spatial_of(wt)) ctx.fail("kernel_shape does not match W's spatial dimensions");
  if (bias && bias->numel() != m) ctx.fail("B must have one value per output channel");
  if (bias && bias->dtype() != x.dtype()) ctx.fail("B must have the element type of X");
  Window w = make_window(ctx, spatial_of(x), kernel, false);
  check_work(ctx, {n, m, w.out_numel(), std::max<int64_t>(wt.dim(1), 1), w.kernel_numel()},
             "the convolution");
  Dims od{n, m};
  od.insert(od.end(), w.out.begin(), w.out.end());
  // conv_forward writes every element (the bias or zeros first, or GEMMs
  // that store whole rows).
  Tensor out = Tensor::uninitialized(x.dtype(), od);
  GemmEpilogue ep;
  bool with_tail = false;
  if (tail && x.dtype() == DataType::Float) {
    const Value* r = tail->residual;
    with_tail = !r || (r->is_tensor() && r->tensor().dtype() == DataType::Float &&
                       r->tensor().dims() == od);
    if (with_tail) {
      ep.residual = r ? r->tensor().data<float>() : nullptr;
      ep.relu = tail->relu;
      ep.hard_swish = tail->hard_swish;
    }
  }
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    conv_detail::conv_forward(x.data<T>(), wt.data<T>(), bias ? bias->data<T>() : nullptr,
                              out.mutable_data<T>(), n, c, m, group, w, packed,
                              with_tail ? &ep : nullptr);
  });
  if (with_tail) tail->applied = true;
  return out;
}

void conv_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& w = ctx.tensor(1);
  require_same_dtype(ctx, x, w);
  const int64_t group = ctx.attr_int("group", 1);
  ctx.set_output(0, conv(ctx, x, w, ctx.optional_tensor(2),
                         fast::packed_conv_weights(ctx, 1, w, group), ctx.fused_tail()));
}

void conv_integer_k(KernelContext& ctx) {
  // Subtracting the zero point before padding with 0 is padding with the
  // zero point (ONNX 1.23's reading). x's zero point is per tensor; w's per
  // tensor or one per output channel (w's first dimension).
  auto shifted = [&](size_t i, size_t zp) {
    Tensor t = cast_tensor(ctx.tensor(i), DataType::Int32).clone();  // modified below
    if (const Tensor* z = ctx.optional_tensor(zp)) {
      const char* name = i == 0 ? "x_zero_point" : "w_zero_point";
      int32_t* p = t.mutable_data<int32_t>();
      if (i == 1 && z->numel() != 1 && t.rank() > 0) {
        if (z->rank() != 1 || z->numel() != t.dim(0)) {
          ctx.fail(std::string(name) + " has shape " + dims_to_string(z->dims()) +
                   "; it must have one value or one per output channel (" +
                   std::to_string(t.dim(0)) + ")");
        }
        const Tensor zv = cast_tensor(*z, DataType::Int32);
        const int64_t per = t.dim(0) ? t.numel() / t.dim(0) : 0;
        for (int64_t k = 0; k < t.numel(); ++k) p[k] -= zv.data<int32_t>()[k / per];
      } else {
        const auto zv = int32_t(scalar_int64(ctx, *z, name));
        for (int64_t k = 0; k < t.numel(); ++k) p[k] -= zv;
      }
    }
    return t;
  };
  Tensor x = shifted(0, 2), w = shifted(1, 3);
  ctx.set_output(0, conv(ctx, x, w, nullptr));
}

void qlinear_conv_k(KernelContext& ctx) {
  // x's scale and zero point are per tensor; w's per tensor or one per
  // output channel (W's first dimension).
  auto dequant = [&](size_t xi, size_t si, size_t zi) {
    Tensor x = cast_tensor(ctx.tensor(xi), DataType::Double).clone();  // modified below
    Tensor s = cast_tensor(ctx.tensor(si), DataType::Double);
    Tensor z = cast_tensor(ctx.tensor(zi), DataType::Double);
    const char* sname = xi == 0 ? "x_scale" : "w_scale";
    int64_t per_channel = xi == 0 || x.rank() == 0 ? 1 : x.dim(0);
    if (s.numel() != 1 && s.numel() != per_channel) {
      ctx.fail(std::string(sname) + " has " + std::to_string(s.numel()) +
               " values; it must have one" +
               (xi == 0 ? std::string()
                        : " or one per output channel (" + std::to_string(per_channel) + ")"));
    }
    if (z.numel() != 1 && z.numel() != s.numel()) {
      ctx.fail(std::string(xi == 0 ? "x" : "w") +
               "_zero_point must have one value or one per scale");
    }
    double* p = x.mutable_data<double>();
    int64_t per = s.numel() > 1 ? x.numel() / s.numel() : x.numel();
    for (int64_t k = 0; k < x.numel(); ++k) {
      int64_t j = s.numel() > 1 ? k / per : 0;
      p[k] = (p[k] - z.data<double>()[z.numel() > 1 ? j : 0]) * s.data<double>()[j];
    }
    return x;
  };
  Tensor x = dequant(0, 1, 2), w = dequant(3, 4, 5);
  Tensor bias;
  if (const Tensor* b = ctx.optional_tensor(8)) {
    bias = cast_tensor(*b, DataType::Double).clone();  // modified below
    double sx = scalar_double(ctx, ctx.tensor(1), "x_scale");
    Tensor sw = cast_tensor(ctx.tensor(4), DataType::Double);
    if (sw.numel() != 1 && sw.numel() != bias.numel()) {
      ctx.fail("B must have one value per output channel (as w_scale)");
    }
    for (int64_t k = 0; k < bias.numel(); ++k) {
      bias.mutable_data<double>()[k] *= sx * sw.data<double>()[sw.numel() > 1 ? k : 0];
    }
  }
  Tensor y = conv(ctx, x, w, bias.defined() ? &bias : nullptr);
  double sy = scalar_double(ctx, ctx.tensor(6), "y_scale");
  double zy = scalar_double(ctx, ctx.tensor(7), "y_zero_point");
  if (!(sy != 0) || !std::isfinite(sy)) ctx.fail("y_scale must be finite and non-zero");
  DataType odt = ctx.tensor(7).dtype();
  Tensor& out = ctx.alloc_output(0, odt, y.dims());
  for (int64_t k = 0; k < y.numel(); ++k) {
    double v = std::nearbyint(y.data<double>()[k] / sy) + zy;
    if (std::isnan(v)) v = 0;  // no integer for NaN
    if (odt == DataType::Uint8) {
      out.mutable_data<uint8_t>()[k] = uint8_t(std::clamp(v, 0.0, 255.0));
    } else {
      out.mutable_data<int8_t>()[k] = int8_t(std::clamp(v, -128.0, 127.0));
    }
  }
}

void conv_transpose_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& wt = ctx.tensor(1);
  require_same_dtype(ctx, x, wt);
  if (x.rank() < 3 || wt.rank() != x.rank()) ctx.fail("X and W must have the same rank >= 3");
  size_t r = x.rank() - 2;
  int64_t n = x.dim(0), c = x.dim(1);
  int64_t group = ctx.attr_int("group", 1);
  if (group <= 0 || c % group || wt.dim(0) != c)
    ctx.fail("W's first dimension must equal X's channels");
  int64_t mg = wt.dim(1), m = mg * group, cg = c / group;
  std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape", spatial_of(wt));
  if (kernel != spatial_of(wt)) ctx.fail("kernel_shape does not match W's spatial dimensions");
  if (const Tensor* b = ctx.optional_tensor(2); b && b->numel() != mg * group) {
    ctx.fail("B must have one value per output channel");
  }
  std::vector<int64_t> strides = ctx.attr_ints("strides", std::vector<int64_t>(r, 1));
  std::vector<int64_t> dil = ctx.attr_ints("dilations", std::vector<int64_t>(r, 1));
  std::vector<int64_t> opad = ctx.attr_ints("output_padding", std::vector<int64_t>(r, 0));
  std::vector<int64_t> pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * r, 0));
  std::vector<int64_t> oshape = ctx.attr_ints("output_shape");
  std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  if (kernel.size() != r || strides.size() != r || dil.size() != r || opad.size() != r ||
      pads.size() != 2 * r) {
    ctx.fail("attribute lengths do not match the spatial rank");
  }
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
      auto_pad != "VALID") {
    ctx.fail("auto_pad is '" + auto_pad + "'; it must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  for (size_t i = 0; i < r; ++i) {
    if (kernel[i] <= 0 || strides[i] <= 0 || dil[i] <= 0 || opad[i] < 0 || pads[i] < 0 ||
        pads[i + r] < 0) {
      ctx.fail(
          "kernel sizes, strides and dilations must be positive, pads and output_padding "
          "non-negative");
    }
  }
  if (oshape.size() > r) oshape.erase(oshape.begin(), oshape.begin() + long(oshape.size() - r));
  if (!oshape.empty() && oshape.size() != r) {
    ctx.fail("output_shape has " + std::to_string(oshape.size()) + " values; X has " +
             std::to_string(r) + " spatial dimensions");
  }
  Window w;  // the geometry of the equivalent forward conv from output to input
  w.kernel = kernel;
  w.strides = strides;
  w.dilations = dil;
  w.out = spatial_of(x);
  w.in.resize(r);
  w.pad_begin.resize(r);
  w.pad_end.resize(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t ek = checked_add(ctx, checked_mul(ctx, kernel[i] - 1, dil[i], "kernel extent"), 1,
                             "kernel extent");
    int64_t full = checked_add(
        ctx,
        checked_add(
            ctx,
            checked_mul(ctx, strides[i], std::max<int64_t>(x.dim(i + 2) - 1, 0), "output size"),
            opad[i], "output size"),
        ek, "output size");
    if (!oshape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      int64_t target =
          !oshape.empty() ? oshape[i] : checked_mul(ctx, x.dim(i + 2), strides[i], "output size");
      if (target < 0) ctx.fail("output_shape must not be negative");
      int64_t total = full - target;
      if (auto_pad == "SAME_UPPER" || (oshape.empty() ? false : auto_pad != "SAME_LOWER")) {
        w.pad_begin[i] = total / 2;
        w.pad_end[i] = total - total / 2;
      } else {
        w.pad_begin[i] = total - total / 2;
        w.pad_end[i] = total / 2;
      }
      w.in[i] = target;
    } else {
      if (auto_pad == "VALID") pads.assign(2 * r, 0);
      w.pad_begin[i] = pads[i];
      w.pad_end[i] = pads[i + r];
      w.in[i] = full - pads[i] - pads[i + r];
    }
    if (w.in[i] < 0) ctx.fail("the output size would be negative");
  }
  Dims od{n, m};
  od.insert(od.end(), w.in.begin(), w.in.end());
  Tensor out(x.dtype(), od);
  checked_product(ctx, w.kernel, "kernel volume");
  checked_mul(ctx, mg, w.kernel_numel(), "columns");
  check_work(ctx, {n, group, mg * w.kernel_numel(), w.out_numel(), std::max<int64_t>(cg, 1)},
             "ConvTranspose");
  const int64_t K = w.kernel_numel(), P = w.out_numel();
  int64_t on = 1;
  for (int64_t v : w.in) on *= v;
  const Tensor* bias = ctx.optional_tensor(2);
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    Tensor col_t(x.dtype(), {mg * K, P});
    T* col = col_t.mutable_data<T>();
    const T* px = x.data<T>();
    const T* pw = wt.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t g = 0; g < group; ++g) {
        // col[mg*K, P] = W_g^T [mg*K, cg] x X_g [cg, P]
        gemm<T>(true, false, mg * K, P, cg, C(1), pw + g * cg * mg * K, mg * K,
                px + (b * c + g * cg) * P, P, C(0), col, P);
        col2im(col, mg, w, po + (b * m + g * mg) * on);
      }
    }
    if (bias) {
      const T* pb = bias->data<T>();
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t j = 0; j < m; ++j) {
          T* row = po + (b * m + j) * on;
          for (int64_t p = 0; p < on; ++p) row[p] = T(C(row[p]) + C(pb[j]));
        }
      }
    }
  });
  ctx.set_output(0, out);
}

}  // namespace

void register_conv_kernels(KernelRegistry& r) {
  r.add("", "Conv", 1, conv_k);
  r.add("", "ConvInteger", 10, conv_integer_k);
  r.add("", "QLinearConv", 10, qlinear_conv_k);
  r.add("", "ConvTranspose", 1, conv_transpose_k);
}

}  // namespace oxs::eval
