#include "oxs/eval/convert/narrow.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "oxs/eval/convert/float8.h"
#include "oxs/eval/half.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

bool is_sub_byte_int(DataType t) {
  return t == DataType::Int4 || t == DataType::Uint4 || t == DataType::Int2 || t == DataType::Uint2;
}

// The narrow types whose values widen to float.
bool is_narrow_float(DataType t) {
  return is_float8(t) || t == DataType::Float8E8M0 || t == DataType::Float4E2M1;
}

// FLOAT4E2M1's non-negative values by code (sign bit clear), ascending.
constexpr double kFloat4Values[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

// Round to nearest even, then wrap to int64; NaN and values past int64 give
// 0 (undefined for Cast, and QuantizeLinear clamps before it gets here).
int64_t round_to_int64(double d) {
  double r = std::nearbyint(d);
  if (std::isnan(r) || r >= 9.2e18 || r <= -9.2e18) return 0;
  return static_cast<int64_t>(r);
}

}  // namespace

bool is_narrow_type(DataType t) {
  return is_sub_byte_int(t) || is_narrow_float(t);
}

void unpack_sub_byte(DataType t, std::span<const std::byte> packed, int64_t n, uint8_t* out) {
  const int bits = static_cast<int>(ir::element_bits(t));
  const int per = 8 / bits;
  const unsigned mask = (1u << bits) - 1;
  const bool sign = t == DataType::Int4 || t == DataType::Int2;
  for (int64_t i = 0; i < n; ++i) {
    const auto byte = static_cast<unsigned>(packed[size_t(i / per)]);
    unsigned v = (byte >> (bits * int(i % per))) & mask;
    if (sign && (v >> (bits - 1))) v |= ~mask;  // sign-extend into the byte
    out[i] = static_cast<uint8_t>(v);
  }
}

void pack_sub_byte(DataType t, const uint8_t* in, int64_t n, std::byte* out) {
  const int bits = static_cast<int>(ir::element_bits(t));
  const int per = 8 / bits;
  const unsigned mask = (1u << bits) - 1;
  const int64_t nbytes = ir::packed_nbytes(t, n);
  std::memset(out, 0, size_t(nbytes));
  for (int64_t i = 0; i < n; ++i) {
    auto& b = out[size_t(i / per)];
    b |= static_cast<std::byte>((in[i] & mask) << (bits * int(i % per)));
  }
}

uint8_t wrap_sub_byte_int(DataType t, int64_t v) {
  const int bits = static_cast<int>(ir::element_bits(t));
  const auto mask = static_cast<uint64_t>((1u << bits) - 1);
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if ((t == DataType::Int4 || t == DataType::Int2) && (u >> (bits - 1))) u |= ~mask;
  return static_cast<uint8_t>(u);
}

uint8_t float4e2m1_encode(double x) {
  if (std::isnan(x)) return 0x8;
  const uint8_t sign = std::signbit(x) ? 0x8 : 0;
  const double a = std::fabs(x);
  if (a >= kFloat4Values[7]) return sign | 7;
  int lo = 0;  // the largest code whose value is <= a
  while (lo < 7 && kFloat4Values[lo + 1] <= a) ++lo;
  int code = lo;
  if (a > kFloat4Values[lo]) {
    const double down = a - kFloat4Values[lo], up = kFloat4Values[lo + 1] - a;
    if (up < down || (up == down && (lo & 1))) code = lo + 1;  // ties to the even code
  }
  return static_cast<uint8_t>(sign | code);
}

uint8_t float8e8m0_encode(float x, bool saturate, E8M0Rounding mode) {
  constexpr uint8_t kNaN = 0xFF, kMax = 0xFE, kMin = 0x00;
  if (std::isnan(x)) return kNaN;
  const float a = std::fabs(x);
  if (std::isinf(a)) return saturate ? kMax : kNaN;
  if (a == 0) return saturate ? kMin : kNaN;
  int e = 0;
  const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int k = e - 1;                      // 2^k <= a < 2^(k+1)
  if (m != 0.5f) {
    if (mode == E8M0Rounding::Up || (mode == E8M0Rounding::Nearest && m >= 0.75f)) ++k;
  }
  const int code = k + 127;
  if (code > kMax) return saturate ? kMax : kNaN;
  if (code < kMin) return saturate ? kMin : kNaN;
  return static_cast<uint8_t>(code);
}

Tensor cast_narrow(const Tensor& t, DataType to, NarrowCastOptions options) {
  if (t.dtype() == to) return t;
  const DataType from = t.dtype();
  // Narrow sources widen exactly, then go on as a wide type.
  if (from == DataType::Int4 || from == DataType::Int2) {
    return cast_narrow(t.bitcast(DataType::Int8), to, options);
  }
  if (from == DataType::Uint4 || from == DataType::Uint2) {
    return cast_narrow(t.bitcast(DataType::Uint8), to, options);
  }
  if (is_narrow_float(from)) {
    Tensor f(DataType::Float, t.dims());
    const uint8_t* p = t.data<uint8_t>();
    float* pf = f.mutable_data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) pf[i] = ir::low_precision_to_float(from, p[i]);
    return cast_narrow(f, to, options);
  }
  if (!is_narrow_type(to)) return cast_tensor(t, to);

  Tensor out(to, t.dims());
  uint8_t* po = out.mutable_data<uint8_t>();
  const int64_t n = t.numel();
  if (is_sub_byte_int(to)) {
    if (ir::is_integer(from) || from == DataType::Bool) {
      const Tensor w = cast_tensor(t, DataType::Int64);
      const int64_t* pw = w.data<int64_t>();
      for (int64_t i = 0; i < n; ++i) po[i] = wrap_sub_byte_int(to, pw[i]);
    } else {
      const Tensor w = cast_tensor(t, DataType::Double);
      const double* pw = w.data<double>();
      for (int64_t i = 0; i < n; ++i) po[i] = wrap_sub_byte_int(to, round_to_int64(pw[i]));
    }
    return out;
  }
  if (to == DataType::Float4E2M1) {
    const Tensor w = cast_tensor(t, DataType::Double);
    const double* pw = w.data<double>();
    for (int64_t i = 0; i < n; ++i) po[i] = float4e2m1_encode(pw[i]);
    return out;
  }
  if (to == DataType::Float8E8M0) {
    // E8M0 rounds on float's bits, as Cast-24 defines it.
    const Tensor w = cast_tensor(t, DataType::Float);
    const float* pw = w.data<float>();
    for (int64_t i = 0; i < n; ++i) {
      po[i] = float8e8m0_encode(pw[i], options.saturate, options.e8m0_rounding);
    }
    return out;
  }
  // Doubles round once, straight to float8.
  const Tensor w = cast_tensor(t, DataType::Double);
  const double* pw = w.data<double>();
  const Float8Format f = float8_format(to);
  for (int64_t i = 0; i < n; ++i) po[i] = float8_encode(f, pw[i], options.saturate);
  return out;
}

}  // namespace oxs::eval
