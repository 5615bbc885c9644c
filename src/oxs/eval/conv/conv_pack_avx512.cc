// Im2colRows::fill (conv_forward.h): one row of Conv's im2col matrix written
// into the packed panels of the AVX-512 SGEMM. Each 16-column vector of the
// destination is gathered by masked loads (one per output row it touches;
// masked-off lanes are the padding and read nothing), then stored once: no
// per-element bounds checks and no separate zeroing pass. Compiled for
// AVX-512 by function attribute; only sgemm_avx512_rows calls it, which runs
// only where AVX-512 is present.
#include <immintrin.h>

#include <cstdint>

#include "oxs/eval/conv/conv_forward.h"
#include "oxs/eval/fast/strided_load.h"

namespace oxs::eval::conv_detail {

namespace {

inline __mmask16 first(int64_t n) {  // the first min(max(n, 0), 16) lanes
  return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}

using fast::float_offset;

}  // namespace

__attribute__((target("avx512f"))) void Im2colRows::fill(const void* self, int64_t p, int64_t j0,
                                                         int64_t len, float* dst, int64_t stride) {
  const Im2colRows& s = *static_cast<const Im2colRows*>(self);
  const Geom3& g = s.g;
  const int64_t kx = p % g.k[2], t = p / g.k[2], ky = t % g.k[1], t2 = t / g.k[1];
  const int64_t kz = t2 % g.k[0], c = t2 / g.k[0];
  const int64_t OW = g.out[2], OH = g.out[1], sx = g.s[2];
  int64_t lo, hi;  // output columns whose input column is inside the row
  inside_range(g, kx, lo, hi);
  const int64_t ix_base = kx * g.d[2] - g.p[2];  // input column of output column 0
  const float* xc = s.x + c * g.in[0] * g.in[1] * g.in[2];
  const __m512i lane_step =
      _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                         _mm512_set1_epi32(int(sx)));
  // The output row of column j0 and its input depth/row, stepped as we go.
  const int64_t r = j0 / OW;
  int64_t ox = j0 % OW, oy = r % OH;
  int64_t iz = (r / OH) * g.s[0] - g.p[0] + kz * g.d[0];
  int64_t iy = oy * g.s[1] - g.p[1] + ky * g.d[1];
  const int64_t iy0 = -g.p[1] + ky * g.d[1];
  bool row_in = iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1];
  int64_t q = 0;
  if (OW % 16 == 0 && ox == 0 && OW <= 16 * 64) {
    // Whole output rows of whole vectors (the common case): the padding
    // mask of each vector is the same in every row, so compute it once.
    __mmask16 masks[64];
    int8_t lane_a[64], lane_b[64];  // masks[v] as the lane range [a, b)
    const int64_t nv = OW / 16;
    for (int64_t v = 0; v < nv; ++v) {
      const int64_t a = std::clamp(lo - v * 16, int64_t(0), int64_t(16));
      const int64_t b = std::clamp(hi - v * 16, a, int64_t(16));
      masks[v] = __mmask16(first(b) & ~first(a));
      lane_a[v] = int8_t(a);
      lane_b[v] = int8_t(b);
    }
    for (; len - q >= OW; q += OW) {
      if (!row_in) {
        for (int64_t v = 0; v < nv; ++v) {
          const int64_t qv = q + v * 16;
          _mm512_storeu_ps(dst + (qv >> 5) * stride + (qv & 31), _mm512_setzero_ps());
        }
      } else {
        const float* row = xc + (iz * g.in[1] + iy) * g.in[2];
        for (int64_t v = 0; v < nv; ++v) {
          const int64_t qv = q + v * 16;
          const float* base = float_offset(row, v * 16 * sx + ix_base);
          const __m512 x =
              sx == 1 ? _mm512_maskz_loadu_ps(masks[v], base)
              : sx == 2
                  ? fast::load_stride2(_mm512_setzero_ps(), lane_a[v], lane_b[v], base)
                  : _mm512_mask_i32gather_ps(_mm512_setzero_ps(), masks[v], lane_step, base, 4);
          _mm512_storeu_ps(dst + (qv >> 5) * stride + (qv & 31), x);
        }
      }
      iy += g.s[1];
      if (++oy == OH) {
        oy = 0;
        iy = iy0;
        iz += g.s[0];
      }
      row_in = iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1];
    }
  }
  for (; q < len; q += 16) {
    const int64_t n = std::min<int64_t>(16, len - q);
    __m512 v = _mm512_setzero_ps();
    for (int64_t l = 0; l < n;) {  // lanes [l, l + cnt) come from the current output row
      const int64_t cnt = std::min(n - l, OW - ox);
      if (row_in) {
        // Lane i holds output column ox + i - l, inside when in [lo, hi).
        const int64_t a = std::clamp(lo - ox + l, l, l + cnt);
        const int64_t b = std::clamp(hi - ox + l, a, l + cnt);
        const __mmask16 m = __mmask16(first(b) & ~first(a));
        if (m) {
          const float* base =
              float_offset(xc, (iz * g.in[1] + iy) * g.in[2] + (ox - l) * sx + ix_base);
          v = sx == 1   ? _mm512_mask_loadu_ps(v, m, base)
              : sx == 2 ? fast::load_stride2(v, a, b, base)
                        : _mm512_mask_i32gather_ps(v, m, lane_step, base, 4);
        }
      }
      l += cnt;
      ox += cnt;
      if (ox == OW) {  // next output row
        ox = 0;
        iy += g.s[1];
        if (++oy == OH) {
          oy = 0;
          iy = iy0;
          iz += g.s[0];
        }
        row_in = iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1];
      }
    }
    _mm512_mask_storeu_ps(dst + (q >> 5) * stride + (q & 31), first(n), v);
  }
}

}  // namespace oxs::eval::conv_detail
