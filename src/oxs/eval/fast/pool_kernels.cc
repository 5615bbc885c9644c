// MaxPool and AveragePool over float [N, C, H, W] (fast_kernels.h) with
// AVX-512: 16 output columns at a time, each window element one masked load
// (stride 1), two loads and a permute (stride 2, strided_load.h) or a masked
// gather (other strides), the padding's lanes masked off; planes are split
// over the thread pool.
//
// MaxPool gives the reference kernel's bits: window elements are visited in
// the same row-major order with the same rule (a larger value replaces the
// maximum, so the first of equal values (+0/-0) stays; a NaN always
// replaces it, so the last NaN wins), and a window wholly in the padding
// gives -inf. AveragePool and GlobalAveragePool sum in float (the reference
// in double), so they agree within float32 rounding.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/fast/strided_load.h"
#include "oxs/eval/kernel.h"
#include "oxs/eval/parallel/thread_pool.h"
#include "oxs/eval/window.h"

namespace oxs::eval::fast {

namespace {

struct PoolGeom {
  int64_t H, W, OH, OW, KH, KW, SH, SW, DH, DW, PH, PW, PH_end, PW_end;
  bool include_pad;
};

// The lanes of the 16 output columns from ox0 whose input column for kernel
// column kx lies inside [lo, hi) (and whose output column exists).
__attribute__((target("avx512f"))) inline __mmask16 columns_in(const __m512i& ix, int64_t lo,
                                                               int64_t hi, __mmask16 valid) {
  const __mmask16 ge = _mm512_cmp_epi32_mask(ix, _mm512_set1_epi32(int(lo)), _MM_CMPINT_NLT);
  const __mmask16 lt = _mm512_cmp_epi32_mask(ix, _mm512_set1_epi32(int(hi)), _MM_CMPINT_LT);
  return __mmask16(ge & lt & valid);
}

// One plane: y[OH, OW] from x[H, W].
template <bool kMax>
__attribute__((target("avx512f"))) void pool_plane(const float* x, float* y, const PoolGeom& g) {
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i col_step = _mm512_mullo_epi32(lane, _mm512_set1_epi32(int(g.SW)));
  const __m512 neg_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t oy = 0; oy < g.OH; ++oy) {
    const int64_t iy0 = oy * g.SH - g.PH;
    for (int64_t ox0 = 0; ox0 < g.OW; ox0 += 16) {
      const int64_t n = std::min<int64_t>(16, g.OW - ox0);
      const __mmask16 valid = n == 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
      // Input column of each lane for kernel column 0.
      const __m512i ix0 = _mm512_add_epi32(_mm512_set1_epi32(int(ox0 * g.SW - g.PW)), col_step);
      const __m512 fill = kMax ? neg_inf : _mm512_setzero_ps();  // for lanes in the padding
      __m512 acc = fill;
      __m512 count = _mm512_setzero_ps();
      for (int64_t ky = 0; ky < g.KH; ++ky) {
        const int64_t iy = iy0 + ky * g.DH;
        const bool row_in = iy >= 0 && iy < g.H;
        const bool row_padded = iy >= -g.PH && iy < g.H + g.PH_end;
        if (!row_in && !(g.include_pad && row_padded)) continue;
        const float* row = x + iy * g.W;
        for (int64_t kx = 0; kx < g.KW; ++kx) {
          const __m512i ix = _mm512_add_epi32(ix0, _mm512_set1_epi32(int(kx * g.DW)));
          if (!kMax && g.include_pad) {
            const __mmask16 pm = row_padded ? columns_in(ix, -g.PW, g.W + g.PW_end, valid) : 0;
            count = _mm512_mask_add_ps(count, pm, count, _mm512_set1_ps(1.0f));
          }
          if (!row_in) continue;
          const __mmask16 m = columns_in(ix, 0, g.W, valid);
          if (!m) continue;
          const int64_t start = ox0 * g.SW - g.PW + kx * g.DW;  // lane 0's input column
          __m512 v;
          if (g.SW == 1) {
            v = _mm512_mask_loadu_ps(fill, m, float_offset(row, start));
          } else if (g.SW == 2) {
            const int64_t a = start >= 0 ? 0 : std::min<int64_t>(16, (1 - start) / 2);
            const int64_t b = std::clamp<int64_t>((g.W - start + 1) / 2, a, 16);
            v = load_stride2(fill, a, b, float_offset(row, start));
          } else {
            v = _mm512_mask_i32gather_ps(fill, m, ix, row, 4);
          }
          if constexpr (kMax) {
            // v > acc ? v : acc, then a NaN element replaces the maximum.
            acc = _mm512_mask_max_ps(acc, 0xFFFF, v, acc);  // (unmasked: GCC 12 warns)
            acc = _mm512_mask_mov_ps(acc, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v);
          } else {
            acc = _mm512_mask_add_ps(acc, m, acc, v);
            if (!g.include_pad) count = _mm512_mask_add_ps(count, m, count, _mm512_set1_ps(1.0f));
          }
        }
      }
      if constexpr (!kMax) {
        // No element (a window wholly in the padding): 0, as the reference.
        const __mmask16 any = _mm512_cmp_ps_mask(count, _mm512_setzero_ps(), _CMP_NEQ_OQ);
        acc = _mm512_maskz_div_ps(any, acc, count);
      }
      _mm512_mask_storeu_ps(y + oy * g.OW + ox0, valid, acc);
    }
  }
}

}  // namespace

bool pool_2d(KernelContext& ctx, bool max) {
  if (!enabled()) return false;
  const Tensor& x = ctx.tensor(0);
  if (x.dtype() != DataType::Float || x.rank() != 4 || (max && ctx.wants_output(1))) return false;
  const std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape");
  if (kernel.size() != 2) return false;
  const std::vector<int64_t> spatial{x.dim(2), x.dim(3)};
  const Window w = make_window(ctx, spatial, kernel, ctx.attr_int("ceil_mode", 0) != 0);
  PoolGeom g{spatial[0],     spatial[1],     w.out[0],
             w.out[1],       kernel[0],      kernel[1],
             w.strides[0],   w.strides[1],   w.dilations[0],
             w.dilations[1], w.pad_begin[0], w.pad_begin[1],
             w.pad_end[0],   w.pad_end[1],   ctx.attr_int("count_include_pad", 0) != 0};
  // Lane offsets are 32-bit: the largest column index must fit.
  const int64_t limit = int64_t(1) << 30;
  if (g.W + g.PW_end >= limit || (g.OW + 16) * g.SW + g.PW + g.KW * g.DW >= limit) return false;
  const int64_t planes = x.dim(0) * x.dim(1);
  Tensor& y = ctx.alloc_output_uninitialized(0, DataType::Float, {x.dim(0), x.dim(1), g.OH, g.OW});
  const float* px = x.data<float>();
  float* py = y.mutable_data<float>();
  parallel_for(planes, double(g.OH * g.OW * g.KH * g.KW), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      if (max) {
        pool_plane<true>(px + p * g.H * g.W, py + p * g.OH * g.OW, g);
      } else {
        pool_plane<false>(px + p * g.H * g.W, py + p * g.OH * g.OW, g);
      }
    }
  });
  return true;
}

namespace {

// The mean of x[0, n) summed in float over 4 x 16 lanes.
__attribute__((target("avx512f"))) float plane_mean(const float* x, int64_t n) {
  __m512 s[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                 _mm512_setzero_ps()};
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    for (int u = 0; u < 4; ++u) s[u] = _mm512_add_ps(s[u], _mm512_loadu_ps(x + i + 16 * u));
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1);
    s[0] = _mm512_add_ps(s[0], _mm512_maskz_loadu_ps(m, x + i));
  }
  const __m512 t = _mm512_add_ps(_mm512_add_ps(s[0], s[1]), _mm512_add_ps(s[2], s[3]));
  alignas(64) float lanes[16];  // (_mm512_reduce_add_ps trips GCC 12's -Wuninitialized)
  _mm512_store_ps(lanes, t);
  float sum = 0;
  for (float v : lanes) sum += v;
  return sum / float(n);
}

}  // namespace

bool global_average_pool(const Tensor& x, Tensor& y) {
  if (!enabled() || x.dtype() != DataType::Float) return false;
  const int64_t planes = y.numel(), len = planes ? x.numel() / planes : 0;
  if (len == 0) return false;
  const float* px = x.data<float>();
  float* py = y.mutable_data<float>();
  parallel_for(planes, double(len), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) py[p] = plane_mean(px + p * len, len);
  });
  return true;
}

}  // namespace oxs::eval::fast
