// Full-width AVX-512 shuffles for the transposes of the SGEMM packing
// (math/sgemm_avx512.cc) and the channel-major depthwise conv
// (fast/depthwise_channels.cc), in their masked forms: GCC 12 flags the
// unmasked intrinsics' undefined start value (-Wmaybe-uninitialized).
// Callers are compiled for AVX-512 (target attribute).
#pragma once

#include <immintrin.h>

namespace oxs::eval::fast {

__attribute__((target("avx512f"))) inline __m512 unpack_lo(__m512 a, __m512 b) {
  return _mm512_mask_unpacklo_ps(_mm512_setzero_ps(), 0xFFFF, a, b);
}
__attribute__((target("avx512f"))) inline __m512 unpack_hi(__m512 a, __m512 b) {
  return _mm512_mask_unpackhi_ps(_mm512_setzero_ps(), 0xFFFF, a, b);
}
// The same on pairs of floats (64-bit units).
__attribute__((target("avx512f"))) inline __m512 unpack_lo_pairs(__m512 a, __m512 b) {
  return _mm512_castpd_ps(
      _mm512_mask_unpacklo_pd(_mm512_setzero_pd(), 0xFF, _mm512_castps_pd(a), _mm512_castps_pd(b)));
}
__attribute__((target("avx512f"))) inline __m512 unpack_hi_pairs(__m512 a, __m512 b) {
  return _mm512_castpd_ps(
      _mm512_mask_unpackhi_pd(_mm512_setzero_pd(), 0xFF, _mm512_castps_pd(a), _mm512_castps_pd(b)));
}
template <int kImm>
__attribute__((target("avx512f"))) inline __m512 shuffle_in_lanes(__m512 a, __m512 b) {
  return _mm512_mask_shuffle_ps(_mm512_setzero_ps(), 0xFFFF, a, b, kImm);
}
// 128-bit lanes: two of a, then two of b, as kImm picks.
template <int kImm>
__attribute__((target("avx512f"))) inline __m512 shuffle_lanes(__m512 a, __m512 b) {
  return _mm512_mask_shuffle_f32x4(_mm512_setzero_ps(), 0xFFFF, a, b, kImm);
}

// r[0..16) transposed in place: r[j]'s lane i becomes r[i]'s lane j.
__attribute__((target("avx512f"))) inline void transpose16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = unpack_lo(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = unpack_hi(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    r[4 * i] = unpack_lo_pairs(t[4 * i], t[4 * i + 2]);
    r[4 * i + 1] = unpack_hi_pairs(t[4 * i], t[4 * i + 2]);
    r[4 * i + 2] = unpack_lo_pairs(t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = unpack_hi_pairs(t[4 * i + 1], t[4 * i + 3]);
  }
  // r[4i + j]'s 128-bit lane L now holds rows 4i..4i+3 of column 4L + j.
  for (int j = 0; j < 4; ++j) {
    const __m512 a = shuffle_lanes<0x88>(r[j], r[4 + j]);
    const __m512 b = shuffle_lanes<0xdd>(r[j], r[4 + j]);
    const __m512 c = shuffle_lanes<0x88>(r[8 + j], r[12 + j]);
    const __m512 d = shuffle_lanes<0xdd>(r[8 + j], r[12 + j]);
    t[j] = shuffle_lanes<0x88>(a, c);
    t[8 + j] = shuffle_lanes<0xdd>(a, c);
    t[4 + j] = shuffle_lanes<0x88>(b, d);
    t[12 + j] = shuffle_lanes<0xdd>(b, d);
  }
  for (int i = 0; i < 16; ++i) r[i] = t[i];
}

}  // namespace oxs::eval::fast
