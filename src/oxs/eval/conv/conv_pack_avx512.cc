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

// Lanes [0, n) of v to the packed positions [q, q + n) (position q at
// dst[(q / 32) * stride + q % 32]): one masked store, or two when the
// positions cross into the next panel.
__attribute__((target("avx512f"))) inline void store_panel(float* dst, int64_t stride, int64_t q,
                                                           int64_t n, __m512 v) {
  const int64_t off = q & 31, in_first = std::min<int64_t>(n, 32 - off);
  float* panel = dst + (q >> 5) * stride;
  _mm512_mask_storeu_ps(panel + off, first(in_first), v);
  if (n > in_first) {
    // Lane i >= in_first goes to next panel's position i - in_first.
    float* next = dst + ((q >> 5) + 1) * stride;
    _mm512_mask_storeu_ps(const_cast<float*>(float_offset(next, -in_first)),
                          __mmask16(first(n) & ~first(in_first)), v);
  }
}

// Where a block of columns starts: output column j0's position.
struct ColumnStart {
  int64_t ox, oy, oz;
};

// One row (c, kz, ky, kx) of the im2col matrix, columns [j0, j0 + len),
// into the packed panels; [lo, hi) are the output columns whose input column
// is inside the input for this kx.
__attribute__((target("avx512f"))) void fill_row(const Im2colRows& s, int64_t c, int64_t kz,
                                                 int64_t ky, int64_t kx, int64_t lo, int64_t hi,
                                                 const ColumnStart& start, int64_t len, float* dst,
                                                 int64_t stride) {
  const Geom3& g = s.g;
  const int64_t OW = g.out[2], OH = g.out[1], sx = g.s[2];
  const int64_t ix_base = kx * g.d[2] - g.p[2];  // input column of output column 0
  const float* xc = s.x + c * g.in[0] * g.in[1] * g.in[2];
  const __m512i lane_step =
      _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                         _mm512_set1_epi32(int(sx)));
  // The output row of column j0 and its input depth/row, stepped as we go.
  int64_t ox = start.ox, oy = start.oy;
  int64_t iz = start.oz * g.s[0] - g.p[0] + kz * g.d[0];
  int64_t iy = oy * g.s[1] - g.p[1] + ky * g.d[1];
  const int64_t iy0 = -g.p[1] + ky * g.d[1];
  bool row_in = iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1];
  auto next_row = [&] {  // steps to the next output row
    iy += g.s[1];
    if (++oy == OH) {
      oy = 0;
      iy = iy0;
      iz += g.s[0];
    }
    row_in = iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1];
  };
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
      next_row();
    }
  }
  // Any other layout: output row by output row, 16 columns at a time, each
  // vector stored into the one or two panels its positions fall in.
  const __m512 zero = _mm512_setzero_ps();
  while (q < len) {
    const int64_t cnt = std::min(len - q, OW - ox);  // this row's columns
    const float* row = row_in ? xc + (iz * g.in[1] + iy) * g.in[2] : nullptr;
    for (int64_t u = 0; u < cnt; u += 16) {
      const int64_t n = std::min<int64_t>(16, cnt - u), o = ox + u;
      __m512 v = zero;
      if (row) {
        // Lanes [a, b) hold output columns inside [lo, hi).
        const int64_t a = std::clamp(lo - o, int64_t(0), n);
        const int64_t b = std::clamp(hi - o, a, n);
        const float* base = float_offset(row, o * sx + ix_base);
        if (sx == 1) {
          v = _mm512_maskz_loadu_ps(__mmask16(first(b) & ~first(a)), base);
        } else if (sx == 2) {
          v = fast::load_stride2(zero, a, b, base);
        } else {
          v = _mm512_mask_i32gather_ps(zero, __mmask16(first(b) & ~first(a)), lane_step, base, 4);
        }
      }
      store_panel(dst, stride, q + u, n, v);
    }
    q += cnt;
    ox += cnt;
    if (ox == OW) {
      ox = 0;
      next_row();
    }
  }
}

}  // namespace

void Im2colRows::fill(const void* self, int64_t p0, int64_t rows, int64_t j0, int64_t len,
                      float* dst, int64_t stride, int64_t row_step) {
  const Im2colRows& s = *static_cast<const Im2colRows*>(self);
  const Geom3& g = s.g;
  // Decoded once per block (divisions are slow); rows step (c, kz, ky, kx).
  const int64_t r = j0 / g.out[2];
  const ColumnStart start{j0 % g.out[2], r % g.out[1], r / g.out[1]};
  int64_t kx = p0 % g.k[2], t = p0 / g.k[2], ky = t % g.k[1], t2 = t / g.k[1];
  int64_t kz = t2 % g.k[0], c = t2 / g.k[0];
  for (int64_t i = 0; i < rows; ++i) {
    int64_t lo, hi;
    inside_range(g, kx, lo, hi);
    fill_row(s, c, kz, ky, kx, lo, hi, start, len, dst + i * row_step, stride);
    if (++kx < g.k[2]) continue;
    kx = 0;
    if (++ky < g.k[1]) continue;
    ky = 0;
    if (++kz < g.k[0]) continue;
    kz = 0;
    ++c;
  }
}

}  // namespace oxs::eval::conv_detail
