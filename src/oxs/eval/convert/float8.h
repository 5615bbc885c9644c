// The 8-bit float formats of ONNX (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ):
// decoding a byte to float and encoding a float with round-to-nearest-even,
// saturating or not as Cast's `saturate` says. Encoding searches the sorted
// table of the format's finite values, so it is exact for every input.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "oxs/ir/dtype.h"

namespace oxs::eval {

struct Float8Format {
  int exp_bits, man_bits, bias;
  bool fnuz;     // no negative zero, no infinity, NaN is 0x80
  bool has_inf;  // E5M2: IEEE-like infinities and NaNs
};

inline bool is_float8(ir::DataType t) {
  return t == ir::DataType::Float8E4M3FN || t == ir::DataType::Float8E4M3FNUZ ||
         t == ir::DataType::Float8E5M2 || t == ir::DataType::Float8E5M2FNUZ;
}

inline Float8Format float8_format(ir::DataType t) {
  switch (t) {
    case ir::DataType::Float8E4M3FN:
      return {4, 3, 7, false, false};
    case ir::DataType::Float8E4M3FNUZ:
      return {4, 3, 8, true, false};
    case ir::DataType::Float8E5M2:
      return {5, 2, 15, false, true};
    default:
      return {5, 2, 16, true, false};
  }
}

inline float float8_decode(const Float8Format& f, uint8_t b) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (f.fnuz && b == 0x80) return nan;
  const int e = (b >> f.man_bits) & ((1 << f.exp_bits) - 1);
  const int m = b & ((1 << f.man_bits) - 1);
  const int emax = (1 << f.exp_bits) - 1;
  if (!f.fnuz && !f.has_inf && e == emax && m == (1 << f.man_bits) - 1) return nan;  // E4M3FN
  if (f.has_inf && e == emax) {
    if (m != 0) return nan;
    return (b & 0x80) ? -std::numeric_limits<float>::infinity()
                      : std::numeric_limits<float>::infinity();
  }
  float v = e == 0 ? std::ldexp(float(m), 1 - f.bias - f.man_bits)
                   : std::ldexp(1.0f + float(m) / float(1 << f.man_bits), e - f.bias);
  return (b & 0x80) ? -v : v;
}

// Codes 0..n of the non-negative finite values, ascending (code i has value
// float8_decode(i) for i up to the largest finite code).
inline int float8_max_code(const Float8Format& f) {
  if (f.has_inf) return 0x7B;  // E5M2: 0x7C is infinity
  if (!f.fnuz) return 0x7E;    // E4M3FN: 0x7F is NaN
  return 0x7F;                 // FNUZ formats
}

// `x` is a double so that a double input is rounded once, not through float.
inline uint8_t float8_encode(const Float8Format& f, double x, bool saturate) {
  // E5M2 has several NaNs: 0x7E is float16's quiet NaN cut to a byte, the
  // one ONNX's reference produces. NaN keeps its sign where the format has one.
  const uint8_t nan_code = f.fnuz ? 0x80 : f.has_inf ? 0x7E : 0x7F;
  if (std::isnan(x)) return uint8_t(nan_code | (!f.fnuz && std::signbit(x) ? 0x80 : 0));
  const bool neg = std::signbit(x);
  const double a = std::fabs(x);
  const int top = float8_max_code(f);
  const double maxv = float8_decode(f, uint8_t(top));
  auto with_sign = [&](uint8_t code) -> uint8_t {
    if (code == 0 && f.fnuz) return 0;  // no negative zero
    return neg ? uint8_t(code | 0x80) : code;
  };
  auto overflow = [&]() -> uint8_t {
    if (saturate) return with_sign(uint8_t(top));
    if (f.has_inf) return with_sign(0x7C);
    return nan_code | (f.fnuz ? 0 : (neg ? 0x80 : 0));
  };
  if (std::isinf(a)) return overflow();
  // Values at or beyond the midpoint between the largest value and the next
  // (unrepresentable) one round past it: RNE ties go to the even code.
  const double ulp = maxv - float8_decode(f, uint8_t(top - 1));
  const double threshold = maxv + ulp / 2;
  if (a > threshold || (a == threshold && (top & 1))) return overflow();
  if (a >= maxv) return with_sign(uint8_t(top));
  // Binary search for the first code whose value is >= a.
  int lo = 0, hi = top;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (float8_decode(f, uint8_t(mid)) < a) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return with_sign(0);
  const double up = float8_decode(f, uint8_t(lo)), down = float8_decode(f, uint8_t(lo - 1));
  int code;
  if (a - down < up - a) {
    code = lo - 1;
  } else if (up - a < a - down) {
    code = lo;
  } else {
    code = (lo & 1) ? lo - 1 : lo;  // tie: even code
  }
  return with_sign(uint8_t(code));
}

}  // namespace oxs::eval
