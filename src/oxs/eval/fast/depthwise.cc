// Depthwise convolution of one float plane with AVX-512
// (conv_forward.h: depthwise_avx512). The reference (conv_detail::depthwise)
// walks the whole output once per filter tap, with inner loops as short as
// the output row (7 for mobilenet's last stages); this keeps 16 outputs of
// each of four rows in registers and adds the taps in the reference's order
// (kz, ky, kx ascending), each output only for the taps inside the input, so
// every output gets the very same sums: bit-identical results.
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

// Input column offsets from `ix0` of 16 lanes at stride SX (0: any, in
// `step`): one vector of taps (zero in the lanes outside `in`).
template <int SX>
OXS_AVX512 inline __m512 load_taps(const float* xrow, int64_t ix0, __mmask16 in,
                                   const __m512i& step) {
  if constexpr (SX == 1) {
    return _mm512_maskz_loadu_ps(in, at(xrow, ix0));
  } else if constexpr (SX == 2) {
    // Lanes [a, b) of `in` (contiguous): loads and a permute.
    const int64_t a = __builtin_ctz(in), b = 32 - __builtin_clz(uint32_t(in));
    return fast::load_stride2(_mm512_setzero_ps(), a, b, at(xrow, ix0));
  } else {
    const __m512i ix = _mm512_add_epi32(_mm512_set1_epi32(int(ix0)), step);
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), in, ix, xrow, 4);
  }
}

// y (holding the bias) += the taps, then + res (laid out as y; or null) and
// the activation `act`, as the tail of a fused Conv (conv_fusion.h). Four output
// rows at a time, so four independent sums hide the add latency; each
// output still takes its taps in the reference's order.
template <int SX>
OXS_AVX512 void plane(const float* xc, const float* wj, const Geom3& g, float* y, const float* res,
                      fast::TailAct act, const __mmask16* masks) {
  constexpr int64_t R = 4;
  const int64_t OW = g.out[2], OH = g.out[1], sx = g.s[2], KX = g.k[2];
  const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i step = _mm512_mullo_epi32(lanes, _mm512_set1_epi32(int(sx)));
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t oz = 0; oz < g.out[0]; ++oz) {
    for (int64_t oy0 = 0; oy0 < OH; oy0 += R) {
      const int64_t rows = std::min(R, OH - oy0);
      for (int64_t ox0 = 0, block = 0; ox0 < OW; ox0 += 16, ++block) {
        const __mmask16 live = fast::first_lanes(OW - ox0);
        const __mmask16* bm = masks + block * KX;
        __m512 acc[R];
        for (int64_t r = 0; r < R; ++r) {
          acc[r] =
              r < rows ? _mm512_maskz_loadu_ps(live, y + (oz * OH + oy0 + r) * OW + ox0) : zero;
        }
        for (int64_t kz = 0; kz < g.k[0]; ++kz) {
          const int64_t iz = oz * g.s[0] - g.p[0] + kz * g.d[0];
          if (iz < 0 || iz >= g.in[0]) continue;
          for (int64_t ky = 0; ky < g.k[1]; ++ky) {
            const float* xrow[R];  // null: the row reads padding
            for (int64_t r = 0; r < R; ++r) {
              const int64_t iy = (oy0 + r) * g.s[1] - g.p[1] + ky * g.d[1];
              xrow[r] = r < rows && iy >= 0 && iy < g.in[1] ? xc + (iz * g.in[1] + iy) * g.in[2]
                                                            : nullptr;
            }
            const float* wrow = wj + (kz * g.k[1] + ky) * KX;
            for (int64_t kx = 0; kx < KX; ++kx) {
              const __mmask16 in = bm[kx];
              if (!in) continue;
              const int64_t ix0 = ox0 * sx - g.p[2] + kx * g.d[2];
              const __m512 wv = _mm512_set1_ps(wrow[kx]);
              for (int64_t r = 0; r < R; ++r) {
                if (!xrow[r]) continue;
                const __m512 prod = _mm512_mul_ps(wv, load_taps<SX>(xrow[r], ix0, in, step));
                acc[r] = _mm512_mask_add_ps(acc[r], in, acc[r], prod);
              }
            }
          }
        }
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t at_row = (oz * OH + oy0 + r) * OW + ox0;
          __m512 v = acc[r];
          if (res) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(live, res + at_row));
          v = fast::tail_act(v, act);
          _mm512_mask_storeu_ps(y + at_row, live, v);
        }
      }
    }
  }
}

}  // namespace

bool depthwise_avx512(const float* xc, const float* wj, const Geom3& g, float* y, const float* res,
                      bool relu, bool hard_swish) {
  if (!fast::enabled()) return false;
  const fast::TailAct act = relu         ? fast::TailAct::Relu
                            : hard_swish ? fast::TailAct::HardSwish
                                         : fast::TailAct::None;
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
  if (g.s[2] == 1) {
    plane<1>(xc, wj, g, y, res, act, masks);
  } else if (g.s[2] == 2) {
    plane<2>(xc, wj, g, y, res, act, masks);
  } else {
    plane<0>(xc, wj, g, y, res, act, masks);
  }
  return true;
}

}  // namespace oxs::eval::conv_detail
