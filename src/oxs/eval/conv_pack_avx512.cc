// Im2colRows::fill (conv_forward.h): one row of Conv's im2col matrix written
// into the packed panels of the AVX-512 SGEMM, with masked 512-bit loads and
// stores. Compiled for AVX-512 by function attribute; only
// sgemm_avx512_rows calls it, which runs only where AVX-512 is present.
#include <immintrin.h>

#include "oxs/eval/conv_forward.h"

namespace oxs::eval::conv_detail {

namespace {

inline __mmask16 first(int64_t n) {  // the first min(max(n, 0), 16) lanes
  return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}

// Writes a run of logical columns into the panel layout: column q goes to
// dst[(q / 32) * stride + q % 32].
struct PanelWriter {
  float* dst;
  int64_t stride;
  int64_t q = 0;

  // Calls put(d, n) for each piece of n <= 32 columns that is contiguous in dst.
  template <class Put>
  __attribute__((target("avx512f"), always_inline)) void pieces(int64_t n, Put put) {
    while (n > 0) {
      const int64_t off = q & 31, chunk = std::min(n, 32 - off);
      put(dst + (q >> 5) * stride + off, chunk);
      q += chunk;
      n -= chunk;
    }
  }
};

__attribute__((target("avx512f"), always_inline)) inline void zeros(PanelWriter& out, int64_t n) {
  out.pieces(
      n, [](float* d, int64_t c) __attribute__((target("avx512f"))) {
        _mm512_mask_storeu_ps(d, first(c), _mm512_setzero_ps());
        if (c > 16) _mm512_mask_storeu_ps(d + 16, first(c - 16), _mm512_setzero_ps());
      });
}

// dst columns = src[0], src[s], src[2s], ...
__attribute__((target("avx512f"), always_inline)) inline void copy(PanelWriter& out,
                                                                   const float* src, int64_t s,
                                                                   int64_t n) {
  if (s == 1) {
    out.pieces(
        n, [&](float* d, int64_t c) __attribute__((target("avx512f"))) {
          for (int64_t i = 0; i < c; i += 16) {
            const __mmask16 m = first(c - i);
            _mm512_mask_storeu_ps(d + i, m, _mm512_maskz_loadu_ps(m, src + i));
          }
          src += c;
        });
  } else if (s == 2) {  // two loads and a permute pick the even lanes
    const __m512i even =
        _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    out.pieces(
        n, [&](float* d, int64_t c) __attribute__((target("avx512f"))) {
          for (int64_t i = 0; i < c; i += 16) {
            const int64_t k = std::min<int64_t>(16, c - i), used = 2 * k - 1;  // source floats read
            const __m512 lo = _mm512_maskz_loadu_ps(first(used), src + 2 * i);
            const __m512 hi = _mm512_maskz_loadu_ps(first(used - 16), src + 2 * i + 16);
            _mm512_mask_storeu_ps(d + i, first(k), _mm512_permutex2var_ps(lo, even, hi));
          }
          src += 2 * c;
        });
  } else {
    out.pieces(n, [&](float* d, int64_t c) {
      for (int64_t i = 0; i < c; ++i) d[i] = src[i * s];
      src += c * s;
    });
  }
}

}  // namespace

__attribute__((target("avx512f"))) void Im2colRows::fill(const void* self, int64_t p, int64_t j0,
                                                         int64_t len, float* dst, int64_t stride) {
  const Im2colRows& s = *static_cast<const Im2colRows*>(self);
  const Geom3& g = s.g;
  const int64_t kx = p % g.k[2], t = p / g.k[2], ky = t % g.k[1], t2 = t / g.k[1];
  const int64_t kz = t2 % g.k[0], c = t2 / g.k[0];
  const int64_t OW = g.out[2], OH = g.out[1];
  int64_t lo, hi;
  inside_range(g, kx, lo, hi);
  const int64_t ix_base = kx * g.d[2] - g.p[2];  // input column of output column 0
  const float* xc = s.x + c * g.in[0] * g.in[1] * g.in[2];
  PanelWriter out{dst, stride};
  const int64_t r = j0 / OW;
  int64_t ox = j0 % OW, left = len;
  // Input depth/row of the current output row, stepped instead of divided.
  int64_t oy = r % OH;
  int64_t iz = (r / OH) * g.s[0] - g.p[0] + kz * g.d[0];
  int64_t iy = oy * g.s[1] - g.p[1] + ky * g.d[1];
  const int64_t iy0 = -g.p[1] + ky * g.d[1];
  while (left > 0) {
    const int64_t end = std::min(OW, ox + left);  // this output row's part
    if (iz < 0 || iz >= g.in[0] || iy < 0 || iy >= g.in[1]) {
      zeros(out, end - ox);
    } else {
      const int64_t a = std::clamp(lo, ox, end), b = std::clamp(hi, a, end);
      const float* row = xc + (iz * g.in[1] + iy) * g.in[2];
      zeros(out, a - ox);
      copy(out, row + a * g.s[2] + ix_base, g.s[2], b - a);
      zeros(out, end - b);
    }
    left -= end - ox;
    ox = 0;
    iy += g.s[1];
    if (++oy == OH) {
      oy = 0;
      iy = iy0;
      iz += g.s[0];
    }
  }
}

}  // namespace oxs::eval::conv_detail
