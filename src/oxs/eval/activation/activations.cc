// Activations that ONNX defines as function-ops (Celu, HardSwish, Mish,
// Gelu, Swish, SwiGLU). libonnx 1.12 has bodies for the first two only up to
// opset 17 and none for the later ones, so each has a kernel for every
// version. Float16/bfloat16 compute in float and round once.
#include <cmath>
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

// Y = f(X) elementwise, f called with the computation type.
template <class F>
void unary(KernelContext& ctx, F&& f) {
  const Tensor& x = ctx.tensor(0);
  dispatch_compute(x.dtype(), [&](auto tag) {
    using C = decltype(tag);
    std::vector<C> v = read_as<C>(x);
    for (C& e : v) e = C(f(e));
    ctx.set_output(0, write_as(x.dtype(), x.dims(), v));
  });
}

template <class C>
C sigmoid(C v) {
  return v >= 0 ? C(1) / (C(1) + std::exp(-v)) : std::exp(v) / (C(1) + std::exp(v));
}

template <class C>
C softplus(C v) {  // log(1 + e^v) without overflow for large v
  return v > C(0) ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
}

void celu_k(KernelContext& ctx) {
  const double alpha = ctx.attr_float("alpha", 1.0f);
  if (alpha == 0) ctx.fail("alpha must not be 0");
  unary(ctx, [&](auto v) {
    using C = decltype(v);
    C a = C(alpha);
    return std::max(C(0), v) + std::min(C(0), a * (std::exp(v / a) - C(1)));
  });
}

void hard_swish_k(KernelContext& ctx) {
  if (fast::hard_swish(ctx)) return;
  unary(ctx, [](auto v) {
    using C = decltype(v);
    return v * std::max(C(0), std::min(C(1), v / C(6) + C(0.5)));
  });
}

void mish_k(KernelContext& ctx) {
  unary(ctx, [](auto v) { return v * std::tanh(softplus(v)); });
}

void gelu_k(KernelContext& ctx) {
  std::string approx = ctx.attr_string("approximate", "none");
  if (approx == "none") {
    unary(ctx, [](auto v) {
      using C = decltype(v);
      return C(0.5) * v * (C(1) + std::erf(v / std::sqrt(C(2))));
    });
  } else if (approx == "tanh") {
    unary(ctx, [](auto v) {
      using C = decltype(v);
      const C k = std::sqrt(C(2) / C(M_PI));
      return C(0.5) * v * (C(1) + std::tanh(k * (v + C(0.044715) * v * v * v)));
    });
  } else {
    ctx.fail("approximate must be \"none\" or \"tanh\", not \"" + approx + "\"");
  }
}

void swish_k(KernelContext& ctx) {
  const double alpha = ctx.attr_float("alpha", 1.0f);
  unary(ctx, [&](auto v) {
    using C = decltype(v);
    return v * sigmoid(C(alpha) * v);
  });
}

// Y = Swish_alpha(A) * B, A and B of one shape (no broadcasting).
void swiglu_k(KernelContext& ctx) {
  const Tensor& a = ctx.tensor(0);
  const Tensor& b = ctx.tensor(1);
  require_same_dtype(ctx, a, b);
  if (a.dims() != b.dims()) {
    ctx.fail("A " + dims_to_string(a.dims()) + " and B " + dims_to_string(b.dims()) +
             " must have the same shape (SwiGLU does not broadcast)");
  }
  const double alpha = ctx.attr_float("alpha", 1.0f);
  dispatch_compute(a.dtype(), [&](auto tag) {
    using C = decltype(tag);
    std::vector<C> va = read_as<C>(a);
    const std::vector<C> vb = read_as<C>(b);
    for (size_t i = 0; i < va.size(); ++i) va[i] = va[i] * sigmoid(C(alpha) * va[i]) * vb[i];
    ctx.set_output(0, write_as(a.dtype(), a.dims(), va));
  });
}

}  // namespace

void register_activation_kernels(KernelRegistry& r) {
  r.add("", "Celu", 12, celu_k);
  r.add("", "HardSwish", 14, hard_swish_k);
  r.add("", "Mish", 18, mish_k);
  r.add("", "Gelu", 20, gelu_k);
  r.add("", "Swish", 24, swish_k);
  r.add("", "SwiGLU", 28, swiglu_k);
}

}  // namespace oxs::eval
