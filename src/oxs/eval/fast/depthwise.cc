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
#include "oxs/eval/fast/strided_load.h"
#include "oxs/eval/fast/vec_math.h"

namespace oxs::eval::conv_detail {

namespace {

// base + off floats as an address, without forming an out-of-range pointer
// in C++ terms (masked lanes are never read).
inline const float* at(const float* base, int64_t off) {
  return reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(base) +
                                        uintptr_t(off * int64_t(sizeof(float))));
}

// Which lanes of output vector `block` (16 columns from block * 16) read an
// input column inside the row for kernel column kx; the same in every row.
__mmask16 column_mask(const Geom3& g, int64_t block, int64_t kx) {
  const int64_t ox0 = block * 16, live = std::min<int64_t>(16, g.out[2] - ox0);
  __mmask16 m = 0;
  for (int64_t i = 0; i < live; ++i) {
    const int64_t ix = (ox0 + i) * g.s[2] - g.p[2] + kx * g.d[2];
    if (ix >= 0 && ix < g.in[2]) m = __mmask16(m | (1u << i));
  }
  return m;
}

// y (holding the bias) += the taps, then + res (laid out as y; or null) and
// Relu when asked, as the tail of a fused Conv (conv_fusion.h).
OXS_AVX512 void plane(const float* xc, const float* wj, const Geom3& g, float* y, const float* res,
                      bool relu, const __mmask16* masks) {
  const int64_t OW = g.out[2], sx = g.s[2], KX = g.k[2];
  const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i step = _mm512_mullo_epi32(lanes, _mm512_set1_epi32(int(sx)));
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t oz = 0; oz < g.out[0]; ++oz) {
    for (int64_t oy = 0; oy < g.out[1]; ++oy) {
      const int64_t row = (oz * g.out[1] + oy) * OW;
      float* yr = y + row;
      for (int64_t ox0 = 0, block = 0; ox0 < OW; ox0 += 16, ++block) {
        const __mmask16 live = fast::first_lanes(OW - ox0);
        const __mmask16* bm = masks + block * KX;
        __m512 acc = _mm512_maskz_loadu_ps(live, yr + ox0);
        for (int64_t kz = 0; kz < g.k[0]; ++kz) {
          const int64_t iz = oz * g.s[0] - g.p[0] + kz * g.d[0];
          if (iz < 0 || iz >= g.in[0]) continue;
          for (int64_t ky = 0; ky < g.k[1]; ++ky) {
            const int64_t iy = oy * g.s[1] - g.p[1] + ky * g.d[1];
            if (iy < 0 || iy >= g.in[1]) continue;
            const float* xrow = xc + (iz * g.in[1] + iy) * g.in[2];
            const float* wrow = wj + (kz * g.k[1] + ky) * KX;
            for (int64_t kx = 0; kx < KX; ++kx) {
              const __mmask16 in = bm[kx];
              if (!in) continue;
              const int64_t ix0 = ox0 * sx - g.p[2] + kx * g.d[2];
              __m512 x;
              if (sx == 1) {
                x = _mm512_maskz_loadu_ps(in, at(xrow, ix0));
              } else if (sx == 2) {
                // Lanes [a, b) of `in` (contiguous): loads and a permute.
                const int64_t a = __builtin_ctz(in), b = 32 - __builtin_clz(uint32_t(in));
                x = fast::load_stride2(zero, a, b, at(xrow, ix0));
              } else {
                const __m512i ix = _mm512_add_epi32(_mm512_set1_epi32(int(ix0)), step);
                x = _mm512_mask_i32gather_ps(zero, in, ix, xrow, 4);
              }
              const __m512 prod = _mm512_mul_ps(_mm512_set1_ps(wrow[kx]), x);
              acc = _mm512_mask_add_ps(acc, in, acc, prod);
            }
          }
        }
        if (res) acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(live, res + row + ox0));
        if (relu) acc = fast::vmax(acc, zero);  // `v > 0 ? v : 0`
        _mm512_mask_storeu_ps(yr + ox0, live, acc);
      }
    }
  }
}

}  // namespace

bool depthwise_avx512(const float* xc, const float* wj, const Geom3& g, float* y, const float* res,
                      bool relu) {
  if (!fast::enabled()) return false;
  // Lane indices are 32-bit: input columns and their offsets must fit; the
  // column masks are kept for up to 64 vectors x 16 kernel columns.
  constexpr int64_t lim = std::numeric_limits<int32_t>::max() / 4;
  const int64_t reach = (g.out[2] + 16) * g.s[2] + g.k[2] * g.d[2] + g.p[2];
  const int64_t blocks = (g.out[2] + 15) / 16;
  if (g.in[2] > lim || reach > lim || g.s[2] > lim || blocks > 64 || g.k[2] > 16) return false;
  __mmask16 masks[64 * 16];
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t kx = 0; kx < g.k[2]; ++kx) masks[b * g.k[2] + kx] = column_mask(g, b, kx);
  }
  plane(xc, wj, g, y, res, relu, masks);
  return true;
}

}  // namespace oxs::eval::conv_detail
