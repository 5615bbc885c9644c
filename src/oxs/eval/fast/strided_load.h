// Loads of every other float into a 16-lane vector for the stride-2 windows
// of pooling and Conv's im2col (fast/pool_kernels.cc,
// conv/conv_pack_avx512.cc): two masked loads and one permute, instead of a
// gather (which microcode mitigations make several times slower on recent
// Intel CPUs). Callers are compiled for AVX-512 (target attribute).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace oxs::eval::fast {

// base + off elements, without forming an out-of-range pointer in C++ terms
// (lanes that would read outside the data are masked off).
inline const float* float_offset(const float* base, int64_t off) {
  return reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(base) +
                                        uintptr_t(off * int64_t(sizeof(float))));
}

// Lanes [a, b) (0 <= a <= b <= 16) of the result are base[2 * lane]; the
// others are v's. Reads only base[2a .. 2b - 2].
__attribute__((target("avx512f"))) inline __m512 load_stride2(__m512 v, int64_t a, int64_t b,
                                                              const float* base) {
  if (a >= b) return v;
  const uint32_t hi_bits = uint32_t(2 * b - 1) >= 32 ? ~0u : (1u << (2 * b - 1)) - 1;
  const uint32_t in = hi_bits & ~((1u << (2 * a)) - 1);  // 2a <= 30
  const __m512 lo = _mm512_maskz_loadu_ps(__mmask16(in), base);
  const __m512 hi = _mm512_maskz_loadu_ps(__mmask16(in >> 16), float_offset(base, 16));
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __mmask16 lanes = __mmask16(((1u << b) - 1) & ~((1u << a) - 1));
  return _mm512_mask_mov_ps(v, lanes, _mm512_permutex2var_ps(lo, even, hi));
}

}  // namespace oxs::eval::fast
