// Checked arithmetic and input checks for kernels. A model is untrusted
// input: every size a kernel computes from attributes or input shapes goes
// through these helpers, which throw oxs::Error (Invalid, naming the node
// through KernelContext::fail) instead of overflowing int64 or indexing past
// a buffer. Kernels call them before touching memory.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "oxs/eval/kernel.h"

namespace oxs::eval {

// a * b and a + b for sizes and offsets; throw naming `what` on int64 overflow.
int64_t checked_mul(const KernelContext& ctx, int64_t a, int64_t b, const char* what);
int64_t checked_add(const KernelContext& ctx, int64_t a, int64_t b, const char* what);
// Product of dims[begin, end) (all must be >= 0).
int64_t checked_product(const KernelContext& ctx, const std::vector<int64_t>& dims, size_t begin,
                        size_t end, const char* what);
inline int64_t checked_product(const KernelContext& ctx, const std::vector<int64_t>& dims,
                               const char* what) {
  return checked_product(ctx, dims, 0, dims.size(), what);
}

// Work a kernel would do (the product of `factors`: e.g. planes x output
// positions x kernel volume) must stay under kMaxKernelWork; huge work that
// can be computed up front is refused before the kernel starts instead of
// running for hours. (Long runs within the cap stop at the run's deadline.)
inline constexpr int64_t kMaxKernelWork = int64_t{1} << 40;
void check_work(const KernelContext& ctx, std::initializer_list<int64_t> factors, const char* what);

// The element count of a scratch buffer (a std::vector a kernel sizes from
// shapes or attributes), the product of `factors`, checked to fit the
// allocation limit like a tensor of `elem_size`-byte elements would: an
// empty input's other dims ([2^31, 0] has 2^31 rows) or a huge attribute
// otherwise ask the machine for any amount, which it may grant and then
// fill. Throws naming `what`; returns the count.
size_t checked_buffer(const KernelContext& ctx, std::initializer_list<int64_t> factors,
                      size_t elem_size, const char* what);

// Rank of input `i` within [lo, hi]; `what` names the input ("X").
void require_rank(const KernelContext& ctx, const Tensor& t, size_t lo, size_t hi,
                  const char* what);
// Input has exactly `n` elements.
void require_numel(const KernelContext& ctx, const Tensor& t, int64_t n, const char* what);
// Same dims.
void require_same_dims(const KernelContext& ctx, const Tensor& a, const Tensor& b,
                       const char* what_a, const char* what_b);
// The element type is `dt`.
void require_dtype(const KernelContext& ctx, const Tensor& t, DataType dt, const char* what);
// An integer attribute in [lo, hi].
int64_t attr_int_in(const KernelContext& ctx, const char* name, int64_t def, int64_t lo,
                    int64_t hi);
// An ints attribute of exactly `n` entries, or `def` when absent.
std::vector<int64_t> attr_ints_of_len(const KernelContext& ctx, const char* name, size_t n,
                                      std::vector<int64_t> def);

// Floating-point values that become integers (a size from a scale, an index
// from a coordinate, a seed from a float attribute): a C++ conversion of NaN,
// an infinity or a value outside the integer type's range is undefined
// behaviour, so each conversion goes through one of these.
//
// Whether `v` truncates to an int64 (NaN and infinities do not).
inline bool fits_int64(double v) {
  return v >= -0x1p63 && v < 0x1p63;
}
// `v` truncated toward zero (like a cast), or an error naming `what` and the
// value when it is NaN, infinite or outside int64's range.
int64_t checked_to_int64(const KernelContext& ctx, double v, const char* what);
// `v` rounded by the caller, as the integer type I, clamped to I's range: for
// kernels whose floating-point sums may land past an integer tensor's range
// (interpolation overshoot, int64 values above 2^53). NaN gives 0.
template <class I>
I saturate_to(double v) {
  static_assert(std::is_integral_v<I>);
  if (std::isnan(v)) return I(0);
  // The largest double below I's max + 1 (a power of two, exact as double).
  constexpr double top = double(std::numeric_limits<I>::max() / 2 + 1) * 2;
  if (v >= top) return std::numeric_limits<I>::max();
  if (v <= double(std::numeric_limits<I>::lowest())) return std::numeric_limits<I>::lowest();
  return static_cast<I>(v);
}
// `v` as shortest round-trip text ("nan", "inf", "1e+30") for messages.
std::string number_text(double v);

// The one element of a scalar-like input (numel must be 1) as double / int64.
double scalar_double(const KernelContext& ctx, const Tensor& t, const char* what);
int64_t scalar_int64(const KernelContext& ctx, const Tensor& t, const char* what);
// The one element of a bool input: any non-zero byte is true (a model's raw
// bytes may hold values other than 0 and 1, which are not valid C++ bools).
bool scalar_bool(const KernelContext& ctx, const Tensor& t, const char* what);
// Element i of a bool tensor read as a byte (never as a C++ bool).
inline bool bool_at(const Tensor& t, int64_t i) {
  return static_cast<const uint8_t*>(t.raw())[i] != 0;
}

}  // namespace oxs::eval
