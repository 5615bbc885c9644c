// 16-bit floating types of ONNX (IEEE float16 and bfloat16) as storage
// structs that convert to and from float. Kernels compute in float and round
// back, which is what the ONNX reference implementation (numpy) does.
#pragma once

#include <cstdint>
#include <cstring>

namespace oxs::eval {

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(from_float(f)) {}  // NOLINT: implicit on purpose
  operator float() const { return to_float(bits); }

  static uint16_t from_float(float f) {
    uint32_t x = float_to_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;
    if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
    int32_t e = static_cast<int32_t>(exp) - 127 + 15;
    if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
    if (e <= 0) {
      if (e < -10) return static_cast<uint16_t>(sign);
      mant |= 0x800000u;
      uint32_t shift = static_cast<uint32_t>(14 - e);
      uint32_t h = mant >> shift;
      uint32_t rem = mant & ((1u << shift) - 1u);
      uint32_t half = 1u << (shift - 1);
      if (rem > half || (rem == half && (h & 1u))) ++h;
      return static_cast<uint16_t>(sign | h);
    }
    uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into exp: correct
    return static_cast<uint16_t>(sign | h);
  }
  static float to_float(uint16_t h) {
    uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
      if (mant == 0) return bits_to_float(sign);
      float f = static_cast<float>(mant) * (1.0f / 16777216.0f);  // mant * 2^-24
      return sign ? -f : f;
    }
    if (exp == 0x1f) return bits_to_float(sign | 0x7f800000u | (mant << 13));
    return bits_to_float(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(from_float(f)) {}  // NOLINT: implicit on purpose
  operator float() const { return bits_to_float(static_cast<uint32_t>(bits) << 16); }

  static uint16_t from_float(float f) {
    uint32_t x = float_to_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);  // round to nearest even
    return static_cast<uint16_t>((x + rounding) >> 16);
  }
};

}  // namespace oxs::eval
