// Compile-time dispatch on element types: dispatch_*(dtype, f) calls the
// generic lambda f with a value of the C++ type of `dtype` (a tag; use
// decltype). Kernels are templates over the element type, so inner loops have
// no per-element virtual calls. float16/bfloat16 compute in float
// (compute_t / to_compute).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "oxs/eval/half.h"
#include "oxs/ir/dtype.h"
#include "oxs/ir/error.h"

namespace oxs::eval {

template <class T>
struct ComputeType {
  using type = T;
};
template <>
struct ComputeType<Half> {
  using type = float;
};
template <>
struct ComputeType<BFloat16> {
  using type = float;
};
template <class T>
using compute_t = typename ComputeType<T>::type;
template <class T>
inline compute_t<T> to_compute(T v) {
  return static_cast<compute_t<T>>(v);
}
template <class T>
constexpr bool is_float_v =
    std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <class T>
constexpr ir::DataType dtype_of();
template <>
constexpr ir::DataType dtype_of<float>() {
  return ir::DataType::Float;
}
template <>
constexpr ir::DataType dtype_of<double>() {
  return ir::DataType::Double;
}
template <>
constexpr ir::DataType dtype_of<Half>() {
  return ir::DataType::Float16;
}
template <>
constexpr ir::DataType dtype_of<BFloat16>() {
  return ir::DataType::BFloat16;
}
template <>
constexpr ir::DataType dtype_of<int8_t>() {
  return ir::DataType::Int8;
}
template <>
constexpr ir::DataType dtype_of<int16_t>() {
  return ir::DataType::Int16;
}
template <>
constexpr ir::DataType dtype_of<int32_t>() {
  return ir::DataType::Int32;
}
template <>
constexpr ir::DataType dtype_of<int64_t>() {
  return ir::DataType::Int64;
}
template <>
constexpr ir::DataType dtype_of<uint8_t>() {
  return ir::DataType::Uint8;
}
template <>
constexpr ir::DataType dtype_of<uint16_t>() {
  return ir::DataType::Uint16;
}
template <>
constexpr ir::DataType dtype_of<uint32_t>() {
  return ir::DataType::Uint32;
}
template <>
constexpr ir::DataType dtype_of<uint64_t>() {
  return ir::DataType::Uint64;
}
template <>
constexpr ir::DataType dtype_of<bool>() {
  return ir::DataType::Bool;
}
template <>
constexpr ir::DataType dtype_of<std::string>() {
  return ir::DataType::String;
}

[[noreturn]] void throw_bad_dtype(ir::DataType t, const char* what);

// Floating types only.
template <class F>
void dispatch_float(ir::DataType t, F&& f) {
  switch (t) {
    case ir::DataType::Float:
      return f(float{});
    case ir::DataType::Double:
      return f(double{});
    case ir::DataType::Float16:
      return f(Half{});
    case ir::DataType::BFloat16:
      return f(BFloat16{});
    default:
      throw_bad_dtype(t, "a floating-point type");
  }
}

// Signed and unsigned integers (not bool).
template <class F>
void dispatch_int(ir::DataType t, F&& f) {
  switch (t) {
    case ir::DataType::Int8:
      return f(int8_t{});
    case ir::DataType::Int16:
      return f(int16_t{});
    case ir::DataType::Int32:
      return f(int32_t{});
    case ir::DataType::Int64:
      return f(int64_t{});
    case ir::DataType::Uint8:
      return f(uint8_t{});
    case ir::DataType::Uint16:
      return f(uint16_t{});
    case ir::DataType::Uint32:
      return f(uint32_t{});
    case ir::DataType::Uint64:
      return f(uint64_t{});
    default:
      throw_bad_dtype(t, "an integer type");
  }
}

// Floats and integers (no bool, no string).
template <class F>
void dispatch_arith(ir::DataType t, F&& f) {
  if (ir::is_floating(t)) return dispatch_float(t, f);
  if (ir::is_integer(t)) return dispatch_int(t, f);
  throw_bad_dtype(t, "a numeric type");
}

// Numeric and bool.
template <class F>
void dispatch_numeric(ir::DataType t, F&& f) {
  if (t == ir::DataType::Bool) return f(bool{});
  if (ir::is_floating(t)) return dispatch_float(t, f);
  if (ir::is_integer(t)) return dispatch_int(t, f);
  throw_bad_dtype(t, "a numeric or bool type");
}

// Everything, strings included.
template <class F>
void dispatch_all(ir::DataType t, F&& f) {
  if (t == ir::DataType::String) return f(std::string{});
  dispatch_numeric(t, f);
}

// By element size only, for ops that move bytes (Transpose, Gather, ...).
template <class F>
void dispatch_bytes(size_t size, F&& f) {
  switch (size) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    case 8:
      return f(uint64_t{});
    default:
      // complex128 (16 bytes) reaches here from a model: not a bug of oxs.
      throw Error(ErrorKind::Unsupported, "elements of " + std::to_string(size) +
                                              " bytes (complex128) are not supported here");
  }
}

// For ops that move elements without looking at them (Transpose, Gather,
// Concat, ...): an unsigned type of the element's size, or std::string. The
// sub-byte types are held one element a byte (convert/narrow.h).
template <class F>
void dispatch_copy(ir::DataType t, F&& f) {
  if (t == ir::DataType::String) return f(std::string{});
  dispatch_bytes(ir::is_sub_byte(t) ? 1 : ir::element_size(t), f);
}

}  // namespace oxs::eval
