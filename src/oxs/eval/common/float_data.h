// Helpers for kernels that compute in one floating type (float or double)
// whatever the element type of their tensors: read a numeric tensor as a
// vector of C, write a vector of C back as a tensor of a floating type. The
// newer ONNX ops (attention, normalizations, grid sampling) are defined by
// their numpy reference in the input precision; computing in float (double
// for double inputs) and rounding once at the end stays within the backend
// tolerances and keeps the kernels free of per-type code.
#pragma once

#include <type_traits>
#include <vector>

#include "oxs/eval/dispatch.h"
#include "oxs/eval/tensor.h"

namespace oxs::eval {

// The computation type for floating element type T: double for double,
// float otherwise.
template <class T>
using float_compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The elements of a numeric or bool tensor as C.
template <class C>
std::vector<C> read_as(const Tensor& t) {
  std::vector<C> out(static_cast<size_t>(t.numel()));
  dispatch_numeric(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<C>(to_compute(p[i]));
  });
  return out;
}

// A tensor of floating type `dtype` and shape `dims` holding `values`
// (rounded to the element type).
template <class C>
Tensor write_as(DataType dtype, Dims dims, const std::vector<C>& values) {
  Tensor t(dtype, std::move(dims));
  dispatch_float(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = t.mutable_data<T>();
    const size_t n = static_cast<size_t>(t.numel());
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(static_cast<compute_t<T>>(values[i]));
  });
  return t;
}

// Calls f with the computation type (float or double) for floating dtype `t`.
template <class F>
void dispatch_compute(DataType t, F&& f) {
  if (t == DataType::Double) return f(double{});
  dispatch_float(t, [&](auto) { f(float{}); });
}

// Rounds v to element type `t` (float16, bfloat16, float, double) and back.
template <class C>
C round_to(DataType t, C v) {
  switch (t) {
    case DataType::Float16:
      return static_cast<C>(static_cast<float>(Half(static_cast<float>(v))));
    case DataType::BFloat16:
      return static_cast<C>(static_cast<float>(BFloat16(static_cast<float>(v))));
    case DataType::Float:
      return static_cast<C>(static_cast<float>(v));
    default:
      return v;
  }
}

}  // namespace oxs::eval
