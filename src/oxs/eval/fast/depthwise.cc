// Depthwise convolution of one float plane with AVX-512
// (conv_forward.h: depthwise_avx512). The reference (conv_detail::depthwise)
// walks the whole output once per filter tap, with inner loops as short as
// the output row (7 for mobilenet's last stages); this keeps 16 outputs of a
// row in a register and adds the taps in the reference's order (kz, ky, kx
// ascending), each output only for the taps inside the input, so every
// output gets the very same sums: bit-identical results.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "oxs/eval/conv/conv_forward.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/fast/vec_math.h"

namespace oxs::eval::conv_detail {

namespace {

// base + off floats as an address, without forming an out-of-range pointer
// in C++ terms (masked lanes are never read).
inline const float* at(const float* base, int64_t off) {
  return reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(base) +
                                        uintptr_t(off * int64_t(sizeof(float))));
}

// The lanes of 16 consecutive columns from `first` that are inside [0, W).
inline __mmask16 window_mask(int64_t first, int64_t W) {
  const int64_t lo = std::max<int64_t>(0, -first), hi = std::min<int64_t>(16, W - first);
  if (hi <= lo) return 0;
  return __mmask16(fast::first_lanes(hi) & ~fast::first_lanes(lo));
}

OXS_AVX512 void plane(const float* xc, const float* wj, const Geom3& g, float* y) {
  const int64_t OW = g.out[2], W = g.in[2], sx = g.s[2];
  const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i step = _mm512_mullo_epi32(lanes, _mm512_set1_epi32(int(sx)));
  const __m512i wv_hi = _mm512_set1_epi32(int(W));
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  for (int64_t oz = 0; oz < g.out[0]; ++oz) {
    for (int64_t oy = 0; oy < g.out[1]; ++oy) {
      float* yr = y + (oz * g.out[1] + oy) * OW;
      for (int64_t ox0 = 0; ox0 < OW; ox0 += 16) {
        const __mmask16 live = fast::first_lanes(OW - ox0);
        __m512 acc = _mm512_maskz_loadu_ps(live, yr + ox0);
        for (int64_t kz = 0; kz < g.k[0]; ++kz) {
          const int64_t iz = oz * g.s[0] - g.p[0] + kz * g.d[0];
          if (iz < 0 || iz >= g.in[0]) continue;
          for (int64_t ky = 0; ky < g.k[1]; ++ky) {
            const int64_t iy = oy * g.s[1] - g.p[1] + ky * g.d[1];
            if (iy < 0 || iy >= g.in[1]) continue;
            const float* xrow = xc + (iz * g.in[1] + iy) * W;
            const float* wrow = wj + (kz * g.k[1] + ky) * g.k[2];
            for (int64_t kx = 0; kx < g.k[2]; ++kx) {
              const int64_t ix0 = ox0 * sx - g.p[2] + kx * g.d[2];
              const __m512i ix = _mm512_add_epi32(_mm512_set1_epi32(int(ix0)), step);
              const __mmask16 in = _mm512_mask_cmpge_epi32_mask(live, ix, _mm512_setzero_si512()) &
                                   _mm512_cmplt_epi32_mask(ix, wv_hi);
              if (!in) continue;
              __m512 x;
              if (sx == 1) {
                x = _mm512_maskz_loadu_ps(in, at(xrow, ix0));
              } else if (sx == 2) {
                // Two contiguous vectors, even lanes picked (no gather): the
                // loads cover input columns [ix0, ix0 + 32) inside the row.
                const __mmask16 lo = window_mask(ix0, W), hi = window_mask(ix0 + 16, W);
                const __m512 a = _mm512_maskz_loadu_ps(lo, at(xrow, ix0));
                const __m512 b = _mm512_maskz_loadu_ps(hi, at(xrow, ix0 + 16));
                x = _mm512_maskz_permutex2var_ps(in, a, even, b);
              } else {
                x = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), in, ix, xrow, 4);
              }
              const __m512 prod = _mm512_mul_ps(_mm512_set1_ps(wrow[kx]), x);
              acc = _mm512_mask_add_ps(acc, in, acc, prod);
            }
          }
        }
        _mm512_mask_storeu_ps(yr + ox0, live, acc);
      }
    }
  }
}

}  // namespace

bool depthwise_avx512(const float* xc, const float* wj, const Geom3& g, float* y) {
  if (!fast::enabled()) return false;
  // Lane indices are 32-bit: input columns and their offsets must fit.
  constexpr int64_t lim = std::numeric_limits<int32_t>::max() / 4;
  const int64_t reach = (g.out[2] + 16) * g.s[2] + g.k[2] * g.d[2] + g.p[2];
  if (g.in[2] > lim || reach > lim || g.s[2] > lim) return false;
  plane(xc, wj, g, y);
  return true;
}

}  // namespace oxs::eval::conv_detail
