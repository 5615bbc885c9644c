// Depthwise convolution across channels with AVX-512 (conv_forward.h:
// depthwise_channels_avx512). The per-plane kernel (depthwise.cc) puts 16
// output columns of one plane in a vector: planes narrower than 16 (7x7,
// 14x14 in mobilenet's late stages) leave lanes idle, and a stride costs a
// permute per tap. Here a vector holds one pixel of 16 channels: the input
// planes of 16 channels are transposed, a band of rows at a time, into rows
// of pixels of 16 floats, each output pixel sums its taps with one load and
// one multiply-add pair per tap whatever the stride, and each output row is
// transposed back into the planes as it is stored. Every output takes its
// taps in the reference's order (ky, kx ascending), only those inside the
// input, after the bias (or 0): bit-identical to depthwise().
#include <algorithm>
#include <cstdint>
#include <vector>

#include "oxs/eval/conv/conv_forward.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/fast/shuffles.h"
#include "oxs/eval/fast/vec_math.h"
#include "oxs/eval/parallel/thread_pool.h"

namespace oxs::eval::conv_detail {

namespace {

constexpr int64_t kLanes = 16;
// Floats of transposed input per band (a band re-reads the rows it shares
// with the previous one): 256 KB, so a band stays in L2 while its rows are
// read once per tap.
constexpr int64_t kBandFloats = int64_t(1) << 16;
// Widest input or output row (in floats of 16 channels) the buffers take;
// wider rows go to the per-plane kernel.
constexpr int64_t kMaxRowFloats = int64_t(1) << 18;

// acc + w * x, rounded twice as the reference's `y += w * x`. The masked
// add is a builtin GCC does not contract into a fused multiply-add (it
// would the vector `+` of _mm512_add_ps, C++ allowing contraction).
OXS_AVX512 inline __m512 add_product(__m512 acc, __m512 w, __m512 x) {
  return _mm512_mask_add_ps(acc, fast::kAll, acc, _mm512_mul_ps(w, x));
}

// One block of nc <= 16 channels from c0, and the buffers it works in.
struct Block {
  const float* x;  // the batch element's input planes
  const Geom3& g;
  int64_t c0, nc;
  float* band;      // transposed input rows [band_rows][IW][16]
  float* row;       // one output row [OW rounded up to 16][16]
  const float* wt;  // the block's weights [KY * KX][16]
  __m512 bias;
};

// Input rows [r0, r1) of the block into b.band, pixel-major.
OXS_AVX512 void fill_band(const Block& b, int64_t r0, int64_t r1) {
  const int64_t IW = b.g.in[2], plane = b.g.in[1] * IW;
  for (int64_t iy = r0; iy < r1; ++iy) {
    float* dst = b.band + (iy - r0) * IW * kLanes;
    for (int64_t ix = 0; ix < IW; ix += kLanes) {
      const int64_t n = std::min(kLanes, IW - ix);
      const __mmask16 live = fast::first_lanes(n);
      __m512 v[16];
      for (int64_t l = 0; l < kLanes; ++l) {
        v[l] = l < b.nc ? _mm512_maskz_loadu_ps(live, b.x + (b.c0 + l) * plane + iy * IW + ix)
                        : _mm512_setzero_ps();
      }
      fast::transpose16(v);
      for (int64_t j = 0; j < n; ++j) _mm512_storeu_ps(dst + (ix + j) * kLanes, v[j]);
    }
  }
}

// The taps of one output row: the input rows (in the band) its valid kernel
// rows read, ascending.
struct RowTaps {
  const float* rows[64];
  int64_t ky[64];
  int64_t count = 0;
};

// Output pixels [ox, ox + n) of the row (n <= 8), each an independent sum
// so that eight chains of adds overlap. kEdge: some read padding, and each
// pixel takes only its kernel columns inside the input. kFull: n is 8.
template <bool kEdge, bool kFull>
OXS_AVX512 inline void pixels(const Block& b, const RowTaps& t, int64_t ox, int64_t n) {
  constexpr int R = 8;
  if constexpr (kFull) n = R;
  const Geom3& g = b.g;
  const int64_t KX = g.k[2];
  __m512 acc[R];
  for (int i = 0; i < R; ++i) acc[i] = b.bias;
  const int64_t ix0 = ox * g.s[2] - g.p[2];
  for (int64_t r = 0; r < t.count; ++r) {
    const float* w = b.wt + t.ky[r] * KX * kLanes;
    for (int64_t kx = 0; kx < KX; ++kx, w += kLanes) {
      const __m512 wv = _mm512_loadu_ps(w);
      const int64_t ix = ix0 + kx * g.d[2];
      for (int i = 0; i < R; ++i) {
        if (i >= n) break;
        const int64_t at = ix + i * g.s[2];
        if (kEdge && (at < 0 || at >= g.in[2])) continue;
        acc[i] = add_product(acc[i], wv, _mm512_loadu_ps(t.rows[r] + at * kLanes));
      }
    }
  }
  for (int i = 0; i < R; ++i) {
    if (i < n) _mm512_storeu_ps(b.row + (ox + i) * kLanes, acc[i]);
  }
}

// b.row (output row oy) into the block's output planes of y, with the
// epilogue: + residual (laid out as y), then Relu or HardSwish.
OXS_AVX512 void store_row(const Block& b, int64_t oy, float* y, const GemmEpilogue* ep) {
  const int64_t OW = b.g.out[2], P = b.g.out[1] * OW;
  const __m512 zero = _mm512_setzero_ps();
  const float* res = ep ? ep->residual : nullptr;
  const fast::TailAct act = ep ? ep->act() : fast::TailAct::None;
  for (int64_t ox = 0; ox < OW; ox += kLanes) {
    const int64_t n = std::min(kLanes, OW - ox);
    const __mmask16 live = fast::first_lanes(n);
    __m512 v[16];
    for (int64_t j = 0; j < kLanes; ++j) {
      v[j] = j < n ? _mm512_loadu_ps(b.row + (ox + j) * kLanes) : zero;
    }
    fast::transpose16(v);
    for (int64_t l = 0; l < b.nc; ++l) {
      const int64_t at = (b.c0 + l) * P + oy * OW + ox;
      __m512 o = v[l];
      if (res) o = _mm512_mask_add_ps(o, fast::kAll, o, _mm512_maskz_loadu_ps(live, res + at));
      o = fast::tail_act(o, act);
      _mm512_mask_storeu_ps(y + at, live, o);
    }
  }
}

// Output rows [oy0, oy1) of the block, whose input rows are in the band
// from input row r0.
OXS_AVX512 void rows(const Block& b, int64_t oy0, int64_t oy1, int64_t r0, float* y,
                     const GemmEpilogue* ep) {
  const Geom3& g = b.g;
  const int64_t IW = g.in[2], OW = g.out[2], KX = g.k[2];
  // Output columns whose every kernel column lies inside the input.
  int64_t lo0, hi0, lo1, hi1;
  inside_range(g, 0, lo0, hi0);
  inside_range(g, KX - 1, lo1, hi1);
  const int64_t xlo = lo0, xhi = std::max(lo0, hi1);
  for (int64_t oy = oy0; oy < oy1; ++oy) {
    RowTaps t;
    for (int64_t ky = 0; ky < g.k[1]; ++ky) {
      const int64_t iy = oy * g.s[1] - g.p[1] + ky * g.d[1];
      if (iy < 0 || iy >= g.in[1]) continue;
      t.rows[t.count] = b.band + (iy - r0) * IW * kLanes;
      t.ky[t.count++] = ky;
    }
    for (int64_t ox = 0; ox < OW; ox += 8) {
      const int64_t n = std::min<int64_t>(8, OW - ox);
      if (ox < xlo || ox + n > xhi) {
        pixels<true, false>(b, t, ox, n);
      } else if (n == 8) {
        pixels<false, true>(b, t, ox, n);
      } else {
        pixels<false, false>(b, t, ox, n);
      }
    }
    store_row(b, oy, y, ep);
  }
}

// How output rows are grouped: band_out of them read at most band_rows
// input rows.
struct Bands {
  int64_t band_out, band_rows;
};

// Channel blocks [b0, b1) (16 channels each, the last maybe fewer).
OXS_AVX512 void run_blocks(const float* x, const float* w, const float* bias, int64_t c,
                           const Geom3& g, float* y, const GemmEpilogue* ep, const Bands& bands,
                           int64_t b0, int64_t b1) {
  const int64_t IH = g.in[1], OW = g.out[2], OH = g.out[1], K = g.k[1] * g.k[2];
  const int64_t ext = (g.k[1] - 1) * g.d[1] + 1, row_floats = g.in[2] * kLanes;
  const int64_t out_floats = (OW + kLanes - 1) / kLanes * kLanes * kLanes;
  // Buffers of this range of blocks, 64-byte aligned.
  std::vector<float> buf(size_t(bands.band_rows * row_floats + out_floats + K * kLanes + 16));
  float* band =
      reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(buf.data()) + 63) & ~uintptr_t(63));
  float* row = band + bands.band_rows * row_floats;
  float* wt = row + out_floats;
  for (int64_t blk = b0; blk < b1; ++blk) {
    const int64_t c0 = blk * kLanes, nc = std::min(kLanes, c - c0);
    for (int64_t t = 0; t < K; ++t) {
      for (int64_t l = 0; l < kLanes; ++l) wt[t * kLanes + l] = l < nc ? w[(c0 + l) * K + t] : 0;
    }
    __m512 bv = _mm512_setzero_ps();
    if (bias) bv = _mm512_maskz_loadu_ps(fast::first_lanes(nc), bias + c0);
    const Block b{x, g, c0, nc, band, row, wt, bv};
    for (int64_t oy0 = 0; oy0 < OH; oy0 += bands.band_out) {
      const int64_t oy1 = std::min(OH, oy0 + bands.band_out);
      // The input rows these output rows read, clamped to the input.
      const int64_t r0 = std::clamp<int64_t>(oy0 * g.s[1] - g.p[1], 0, IH);
      const int64_t r1 = std::clamp<int64_t>((oy1 - 1) * g.s[1] - g.p[1] + ext, r0, IH);
      fill_band(b, r0, r1);
      rows(b, oy0, oy1, r0, y, ep);
    }
  }
}

}  // namespace

bool depthwise_channels_avx512(const float* x, const float* w, const float* bias, int64_t c,
                               const Geom3& g, float* y, const GemmEpilogue* ep) {
  if (!fast::enabled()) return false;
  // Two spatial dims at most (the depth axis one plane, read whole), and
  // kernel rows as many as RowTaps holds.
  if (g.in[0] != 1 || g.k[0] != 1 || g.out[0] != 1 || g.p[0] != 0) return false;
  if (g.k[1] > 64 || g.k[1] < 1 || g.k[2] < 1) return false;
  // Strides, dilations and pads this large are the per-plane kernel's
  // (products with them stay far from overflow here).
  constexpr int64_t big = int64_t(1) << 24;
  for (int i = 1; i < 3; ++i) {
    if (g.s[i] > big || g.d[i] > big || g.p[i] > big) return false;
  }
  const int64_t IW = g.in[2], IH = g.in[1], OW = g.out[2], OH = g.out[1];
  const int64_t ext = (g.k[1] - 1) * g.d[1] + 1;  // input rows one output row reads
  const int64_t row_floats = IW * kLanes;
  if (IW > kMaxRowFloats / kLanes || OW > kMaxRowFloats / kLanes) return false;
  if (std::min(ext, IH) * row_floats > kMaxRowFloats) return false;
  // Output rows per band: as many as keep the band within kBandFloats, at
  // least one.
  const int64_t cap_rows =
      std::max(std::min(ext, IH), kBandFloats / std::max<int64_t>(row_floats, 1));
  const int64_t band_out =
      std::clamp<int64_t>(cap_rows >= ext ? (cap_rows - ext) / g.s[1] + 1 : 1, 1, OH);
  const int64_t band_rows = std::min(IH, (band_out - 1) * g.s[1] + ext);
  const int64_t K = g.k[1] * g.k[2], P = OH * OW;
  const int64_t blocks = (c + kLanes - 1) / kLanes;
  const Bands bands{band_out, band_rows};
  parallel_for(blocks, double(P * K * kLanes),
               [&](int64_t b0, int64_t b1) { run_blocks(x, w, bias, c, g, y, ep, bands, b0, b1); });
  return true;
}

}  // namespace oxs::eval::conv_detail
