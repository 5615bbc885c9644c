// Helpers shared by kernel files (not part of the public API).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "oxs/eval/dispatch.h"
#include "oxs/eval/kernel.h"

namespace oxs::eval {

// Axis in [-rank, rank) (or [-rank-1, rank] with `inclusive`) to [0, rank).
int64_t normalize_axis(const KernelContext& ctx, int64_t axis, int64_t rank,
                       bool inclusive = false);
// `t` converted to `to` (shares t's buffer when the type is already `to`:
// clone() before writing). Cast semantics: saturating nothing,
// numpy-like conversions; strings parse/print numbers).
Tensor cast_tensor(const Tensor& t, DataType to);
// Same element type check with a clear message.
void require_same_dtype(const KernelContext& ctx, const Tensor& a, const Tensor& b);
// Split/SplitToSequence: every part length is >= 0 and they add up to `x`'s
// length along `axis`; otherwise a clear error (slicing would read past x).
void check_split_lengths(const KernelContext& ctx, const std::vector<int64_t>& split,
                         const Tensor& x, int64_t axis);

// Wrapping integer arithmetic (numpy semantics; no signed-overflow UB).
template <class T>
inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class T>
inline T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <class T>
inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(
        static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}
// Integer division truncating toward zero; x/0 gives 0 and MIN/-1 wraps,
// instead of trapping.
template <class T>
inline T safe_div(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return wrap_sub<T>(0, a);
    }
    return static_cast<T>(a / b);
  } else {
    return a / b;
  }
}

// Float-aware min/max that propagate NaN (ONNX Min/Max, reductions).
template <class C>
inline C nan_max(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
  }
  return a < b ? b : a;
}
template <class C>
inline C nan_min(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
  }
  return b < a ? b : a;
}

}  // namespace oxs::eval

namespace oxs::eval {
// Shared tensor helpers (shape_ops.cc).
Tensor transpose_tensor(const Tensor& x, const std::vector<int64_t>& perm);
Tensor concat_tensors(const std::vector<const Tensor*>& parts, int64_t axis);
Tensor slice_tensor(const Tensor& x, const std::vector<int64_t>& start,
                    const std::vector<int64_t>& step, const Dims& od);
Tensor expand_tensor(const Tensor& x, const Dims& od);
}  // namespace oxs::eval

namespace oxs::eval {
// numpy matmul of two same-typed tensors (matmul.cc); with `perm_a`
// (`perm_b`) the operand is `a` (`b`) permuted by it, read in place (a
// Transpose folded into the MatMul, KernelContext::input_perm).
Tensor matmul_tensors(const KernelContext& ctx, const Tensor& a, const Tensor& b,
                      const std::vector<int64_t>* perm_a = nullptr,
                      const std::vector<int64_t>* perm_b = nullptr);
}  // namespace oxs::eval
