// Unary elementwise kernels: math functions, activations, predicates, Clip.
// Float16/bfloat16 compute in float and round once. Function-ops (Celu,
// HardSwish, ...) have no kernel here: their schema bodies run instead.
#include <cmath>

#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

// out = f(x) for float types (F gets the compute type and the context).
template <class F>
void unary_float(KernelContext& ctx, F&& f) {
  const Tensor& x = ctx.tensor(0);
  // Element i is read before it is written: x's buffer may be reused.
  Tensor& out = ctx.alloc_output_reusing(0, x.dtype(), x.dims(), {0});
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    const int64_t n = x.numel();
    for (int64_t i = 0; i < n; ++i) po[i] = T(f(C(px[i])));
  });
}

// out = f(x) for floats and integers.
template <class F>
void unary_arith(KernelContext& ctx, F&& f) {
  const Tensor& x = ctx.tensor(0);
  Tensor& out = ctx.alloc_output_reusing(0, x.dtype(), x.dims(), {0});
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    const int64_t n = x.numel();
    for (int64_t i = 0; i < n; ++i) po[i] = T(f(C(px[i])));
  });
}

#define OXS_UNARY_FLOAT(NAME, EXPR)                                  \
  void NAME(KernelContext& ctx) {                                    \
    unary_float(ctx, [&](auto v) -> decltype(v) { return (EXPR); }); \
  }

template <class C>
C sigmoid(C v) {
  return v >= 0 ? C(1) / (C(1) + std::exp(-v)) : std::exp(v) / (C(1) + std::exp(v));
}

OXS_UNARY_FLOAT(exp_k, std::exp(v))
OXS_UNARY_FLOAT(log_k, std::log(v))
OXS_UNARY_FLOAT(sqrt_k, std::sqrt(v))
OXS_UNARY_FLOAT(reciprocal_k, decltype(v)(1) / v)
OXS_UNARY_FLOAT(sin_k, std::sin(v))
OXS_UNARY_FLOAT(cos_k, std::cos(v))
OXS_UNARY_FLOAT(tan_k, std::tan(v))
OXS_UNARY_FLOAT(asin_k, std::asin(v))
OXS_UNARY_FLOAT(acos_k, std::acos(v))
OXS_UNARY_FLOAT(atan_k, std::atan(v))
OXS_UNARY_FLOAT(sinh_k, std::sinh(v))
OXS_UNARY_FLOAT(cosh_k, std::cosh(v))
OXS_UNARY_FLOAT(asinh_k, std::asinh(v))
OXS_UNARY_FLOAT(acosh_k, std::acosh(v))
OXS_UNARY_FLOAT(atanh_k, std::atanh(v))
OXS_UNARY_FLOAT(ceil_k, std::ceil(v))
OXS_UNARY_FLOAT(floor_k, std::floor(v))
OXS_UNARY_FLOAT(round_k, std::nearbyint(v))
void erf_k(KernelContext& ctx) {
  if (fast::erf(ctx)) return;
  unary_float(ctx, [](auto v) -> decltype(v) { return std::erf(v); });
}
OXS_UNARY_FLOAT(sigmoid_k, sigmoid(v))
OXS_UNARY_FLOAT(tanh_k, std::tanh(v))
OXS_UNARY_FLOAT(softsign_k, v / (decltype(v)(1) + std::abs(v)))
OXS_UNARY_FLOAT(softplus_k, v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)))

void abs_k(KernelContext& ctx) {
  unary_arith(ctx, [](auto v) -> decltype(v) {
    using C = decltype(v);
    if constexpr (std::is_unsigned_v<C>) {
      return v;
    } else if constexpr (std::is_integral_v<C>) {
      return v < 0 ? wrap_sub<C>(0, v) : v;
    } else {
      return std::abs(v);
    }
  });
}
void neg_k(KernelContext& ctx) {
  unary_arith(ctx, [](auto v) -> decltype(v) { return wrap_sub<decltype(v)>(0, v); });
}
void sign_k(KernelContext& ctx) {
  unary_arith(ctx, [](auto v) -> decltype(v) {
    using C = decltype(v);
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(v)) return v;
    }
    return v > C(0) ? C(1) : (v < C(0) ? C(-1) : C(0));
  });
}
void relu_k(KernelContext& ctx) {
  if (fast::relu(ctx)) return;
  unary_arith(ctx, [](auto v) -> decltype(v) { return v > decltype(v)(0) ? v : decltype(v)(0); });
}
void leaky_relu_k(KernelContext& ctx) {
  float alpha = ctx.attr_float("alpha", 0.01f);
  unary_float(ctx, [&](auto v) -> decltype(v) { return v >= 0 ? v : v * decltype(v)(alpha); });
}
void elu_k(KernelContext& ctx) {
  float alpha = ctx.attr_float("alpha", 1.0f);
  unary_float(ctx, [&](auto v) -> decltype(v) {
    return v >= 0 ? v : decltype(v)(alpha) * (std::exp(v) - 1);
  });
}
void selu_k(KernelContext& ctx) {
  float alpha = ctx.attr_float("alpha", 1.67326319217681884765625f);
  float gamma = ctx.attr_float("gamma", 1.05070102214813232421875f);
  unary_float(ctx, [&](auto v) -> decltype(v) {
    using C = decltype(v);
    return v > 0 ? C(gamma) * v : C(gamma) * (C(alpha) * std::exp(v) - C(alpha));
  });
}
void hard_sigmoid_k(KernelContext& ctx) {
  float alpha = ctx.attr_float("alpha", 0.2f);
  float beta = ctx.attr_float("beta", 0.5f);
  unary_float(ctx, [&](auto v) -> decltype(v) {
    using C = decltype(v);
    return std::max(C(0), std::min(C(1), C(alpha) * v + C(beta)));
  });
}
void thresholded_relu_k(KernelContext& ctx) {
  float alpha = ctx.attr_float("alpha", 1.0f);
  unary_float(ctx, [&](auto v) -> decltype(v) { return v > decltype(v)(alpha) ? v : 0; });
}
void shrink_k(KernelContext& ctx) {
  float bias = ctx.attr_float("bias", 0.0f);
  float lambd = ctx.attr_float("lambd", 0.5f);
  if (std::isnan(bias) && ir::is_integer(ctx.tensor(0).dtype())) {
    ctx.fail("bias is nan; a " + std::string(ir::dtype_name(ctx.tensor(0).dtype())) +
             " tensor cannot hold x - bias");
  }
  unary_arith(ctx, [&](auto v) -> decltype(v) {
    using C = decltype(v);
    double d = static_cast<double>(v);
    // Integers: x +- bias past the type's range (bias 1e30) is clamped to
    // it; a plain conversion would be undefined.
    auto to_c = [](double r) {
      if constexpr (std::is_integral_v<C>) {
        return saturate_to<C>(r);
      } else {
        return static_cast<C>(r);
      }
    };
    if (d < -lambd) return to_c(d + bias);
    if (d > lambd) return to_c(d - bias);
    return C(0);
  });
}

void not_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.dtype() != DataType::Bool) ctx.fail("input must be bool");
  Tensor& out = ctx.alloc_output(0, DataType::Bool, x.dims());
  for (int64_t i = 0; i < x.numel(); ++i) out.mutable_data<bool>()[i] = !x.data<bool>()[i];
}

template <class F>
void predicate_float(KernelContext& ctx, F&& f) {
  const Tensor& x = ctx.tensor(0);
  Tensor& out = ctx.alloc_output(0, DataType::Bool, x.dims());
  bool* po = out.mutable_data<bool>();
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) po[i] = f(C(px[i]));
  });
}
void isnan_k(KernelContext& ctx) {
  predicate_float(ctx, [](auto v) { return std::isnan(v); });
}
void isinf_k(KernelContext& ctx) {
  bool neg = ctx.attr_int("detect_negative", 1) != 0;
  bool pos = ctx.attr_int("detect_positive", 1) != 0;
  predicate_float(ctx, [&](auto v) { return std::isinf(v) && (v > 0 ? pos : neg); });
}

void clip_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  Tensor& out = ctx.alloc_output_reusing(0, x.dtype(), x.dims(), {0});
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    C lo, hi;
    if constexpr (std::is_floating_point_v<C>) {
      lo = -std::numeric_limits<C>::infinity();
      hi = std::numeric_limits<C>::infinity();
    } else {
      lo = std::numeric_limits<C>::lowest();
      hi = std::numeric_limits<C>::max();
    }
    if (ctx.opset() < 11) {
      if (ctx.has_attr("min")) lo = C(ctx.attr_float("min", 0));
      if (ctx.has_attr("max")) hi = C(ctx.attr_float("max", 0));
    } else {
      for (size_t i : {size_t(1), size_t(2)}) {
        const Tensor* t = ctx.optional_tensor(i);
        if (!t) continue;
        if (t->dtype() != x.dtype() || t->numel() != 1)
          ctx.fail("min and max must be scalars of the input's type");
        (i == 1 ? lo : hi) = C(t->data<T>()[0]);
      }
    }
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      C v = C(px[i]);
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(v)) {
          po[i] = px[i];
          continue;
        }
      }
      // min(max(v, lo), hi): with lo > hi every element becomes hi (spec).
      C c = v < lo ? lo : v;
      po[i] = T(c > hi ? hi : c);
    }
  });
}

}  // namespace

void register_math_kernels(KernelRegistry& r) {
  r.add("", "Exp", 1, exp_k);
  r.add("", "Log", 1, log_k);
  r.add("", "Sqrt", 1, sqrt_k);
  r.add("", "Reciprocal", 1, reciprocal_k);
  r.add("", "Sin", 7, sin_k);
  r.add("", "Cos", 7, cos_k);
  r.add("", "Tan", 7, tan_k);
  r.add("", "Asin", 7, asin_k);
  r.add("", "Acos", 7, acos_k);
  r.add("", "Atan", 7, atan_k);
  r.add("", "Sinh", 9, sinh_k);
  r.add("", "Cosh", 9, cosh_k);
  r.add("", "Asinh", 9, asinh_k);
  r.add("", "Acosh", 9, acosh_k);
  r.add("", "Atanh", 9, atanh_k);
  r.add("", "Ceil", 1, ceil_k);
  r.add("", "Floor", 1, floor_k);
  r.add("", "Round", 11, round_k);
  r.add("", "Erf", 9, erf_k);
  r.add("", "Sigmoid", 1, sigmoid_k);
  r.add("", "Tanh", 1, tanh_k);
  r.add("", "Softsign", 1, softsign_k);
  r.add("", "Softplus", 1, softplus_k);
  r.add("", "Abs", 1, abs_k);
  r.add("", "Neg", 1, neg_k);
  r.add("", "Sign", 9, sign_k);
  r.add("", "Relu", 1, relu_k);
  r.add("", "LeakyRelu", 1, leaky_relu_k);
  r.add("", "Elu", 1, elu_k);
  r.add("", "Selu", 1, selu_k);
  r.add("", "HardSigmoid", 1, hard_sigmoid_k);
  r.add("", "ThresholdedRelu", 10, thresholded_relu_k);
  r.add("", "Shrink", 9, shrink_k);
  r.add("", "Not", 1, not_k);
  r.add("", "IsNaN", 9, isnan_k);
  r.add("", "IsInf", 10, isinf_k);
  r.add("", "Clip", 1, clip_k);
}

}  // namespace oxs::eval
