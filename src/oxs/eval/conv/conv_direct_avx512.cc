// conv_direct_avx512 (conv_forward.h): a float convolution as an implicit
// GEMM, with no im2col matrix. The input is copied once per call into a
// zero-padded buffer whose columns are split by stride phase
// (xs[c][phase][z][row][col], phase = padded column % stride), so that for
// every kernel tap the 16 output columns of a vector read 16 contiguous
// floats: B(k, output position) = xs[base(position) + koff(k)]. The
// micro-kernel loads its B vectors straight from xs (unmasked: the lanes past
// a segment read other values of the buffer and are never stored) and
// accumulates an 8 x 48 tile (8 output channels, three segments of up to 16
// output columns) with the packed weights' panels, with the sums of
// sgemm_avx512.cc's micro-kernel in the same depth blocks, so the result has
// the bits of the im2col path. Compiled for AVX-512 by function attribute;
// conv_forward calls it only where the AVX-512 SGEMM runs.
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "oxs/eval/conv/conv_forward.h"
#include "oxs/eval/fast/strided_load.h"

namespace oxs::eval::conv_detail {

namespace {

// The packed weights' layout (sgemm_avx512.cc: sgemm_avx512_pack_a): depth
// blocks of KC, panels of MR rows; block pc, panel ir at
// data + pc * m_pad + ir * kc.
constexpr int64_t MR = 8, KC = 256;
constexpr int64_t kWeightBlockBytes = int64_t(1) << 20;  // see conv_direct_avx512
constexpr int64_t kSlack = 16;  // floats past the buffer's end an unmasked load may read

std::atomic<int>& mode_flag() {
  static std::atomic<int> m = [] {
    const char* e = std::getenv("OXS_CONV_DIRECT");
    if (e && std::string_view(e) == "off") return int(ConvDirectMode::Off);
    if (e && std::string_view(e) == "always") return int(ConvDirectMode::Always);
    return int(ConvDirectMode::Auto);
  }();
  return m;
}

std::atomic<int64_t> runs{0};

// The padded, phase-split input's extents.
struct Layout {
  int64_t pz, py, wc;  // padded depth and rows read, columns per phase
  int64_t zs, ps, cs;  // strides of a depth plane, a phase, a channel
  int64_t total;       // floats, slack included
};

Layout layout(const Geom3& g, int64_t cg) {
  Layout l{};
  l.pz = (g.out[0] - 1) * g.s[0] + (g.k[0] - 1) * g.d[0] + 1;
  l.py = (g.out[1] - 1) * g.s[1] + (g.k[1] - 1) * g.d[1] + 1;
  const int64_t px = (g.out[2] - 1) * g.s[2] + (g.k[2] - 1) * g.d[2] + 1;
  l.wc = (px + g.s[2] - 1) / g.s[2];
  l.zs = l.py * l.wc;
  l.ps = l.pz * l.zs;
  l.cs = g.s[2] * l.ps;
  l.total = cg * l.cs + kSlack;
  return l;
}

// Which padded positions along an axis some output reads: o * s + k * d.
std::vector<char> read_positions(int64_t out, int64_t s, int64_t k, int64_t d, int64_t extent) {
  std::vector<char> used(size_t(extent), 0);
  for (int64_t kk = 0; kk < k; ++kk) {
    for (int64_t o = 0; o < out; ++o) used[size_t(o * s + kk * d)] = 1;
  }
  return used;
}

// What fill_xs writes: the depth planes, rows and column phases that some
// output reads (a 1x1 stride-2 conv reads a quarter of its input).
struct ReadSet {
  std::vector<char> z, y, phase;
};

// The lanes [a, b) of a vector (0 <= a <= b <= 16).
inline __mmask16 lanes(int64_t a, int64_t b) {
  return __mmask16(((1u << b) - 1) & ~((1u << a) - 1));
}

// One row of a phase: dst[j] = src[j * s + first] for j in [lo, hi) (src:
// the input row, from its column 0; null for a row in the padding), zeros
// elsewhere in [0, wc); one vector store per 16 columns, no calls.
__attribute__((target("avx512f"))) void fill_row(const float* src, int64_t first, int64_t s,
                                                 int64_t lo, int64_t hi, int64_t wc, float* dst) {
  const __m512 zero = _mm512_setzero_ps();
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  for (int64_t j = 0; j < wc; j += 16) {
    if (src && j >= lo && j + 16 <= hi && s <= 2) {  // the interior: whole vectors
      // (stride 2 reads p[0], p[2], ..., p[30]: not p[31], maybe past the row)
      const float* p = src + j * s + first;
      const __m512 v = s == 1 ? _mm512_loadu_ps(p)
                              : _mm512_permutex2var_ps(_mm512_loadu_ps(p), even,
                                                       _mm512_maskz_loadu_ps(0x7FFF, p + 16));
      _mm512_storeu_ps(dst + j, v);
      continue;
    }
    const int64_t n = std::min<int64_t>(16, wc - j);
    const int64_t a = std::clamp(lo - j, int64_t(0), n), b = std::clamp(hi - j, a, n);
    __m512 v = zero;
    if (src && a < b) {
      if (s == 1) {
        v = _mm512_maskz_loadu_ps(lanes(a, b), fast::float_offset(src, first + j));
      } else if (s == 2) {
        v = fast::load_stride2(zero, a, b, fast::float_offset(src, first + 2 * j));
      } else {
        alignas(64) float tmp[16] = {};
        for (int64_t q = a; q < b; ++q) tmp[q] = src[(j + q) * s + first];
        v = _mm512_load_ps(tmp);
      }
    }
    _mm512_mask_storeu_ps(dst + j, lanes(0, n), v);
  }
}

// Fills channels [c0, c1) of xs from x (the group's channels): the read
// planes, rows and phases; padding as zeros.
void fill_xs(const float* x, const Geom3& g, const Layout& l, const ReadSet& rs, int64_t c0,
             int64_t c1, float* xs) {
  const int64_t s = g.s[2], in_plane = g.in[0] * g.in[1] * g.in[2];
  for (int64_t c = c0; c < c1; ++c) {
    const float* xc = x + c * in_plane;
    for (int64_t ph = 0; ph < s; ++ph) {
      if (!rs.phase[size_t(ph)]) continue;
      // Column j of this phase holds input column j * s + first; [lo, hi)
      // are the columns inside the input.
      const int64_t first = ph - g.p[2];
      const int64_t lo = std::min(l.wc, first >= 0 ? 0 : (-first + s - 1) / s);
      const int64_t hi =
          std::clamp(first > g.in[2] - 1 ? 0 : (g.in[2] - 1 - first) / s + 1, lo, l.wc);
      for (int64_t pz = 0; pz < l.pz; ++pz) {
        if (!rs.z[size_t(pz)]) continue;
        const int64_t iz = pz - g.p[0];
        for (int64_t py = 0; py < l.py; ++py) {
          if (!rs.y[size_t(py)]) continue;
          const int64_t iy = py - g.p[1];
          const bool inside = iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1];
          fill_row(inside ? xc + (iz * g.in[1] + iy) * g.in[2] : nullptr, first, s, lo, hi, l.wc,
                   xs + c * l.cs + ph * l.ps + pz * l.zs + py * l.wc);
        }
      }
    }
  }
}

// Up to 16 consecutive output columns of one output row: B's columns at xs +
// base, Y's at y + out.
struct Segment {
  int64_t base, out;
  __mmask16 mask;
};

// The segments of one tile: Y's tile is 8 rows x up to kTile segments.
constexpr int kTile = 3;
struct TileArgs {
  const float* x[kTile];    // xs + base of each segment
  float* c[kTile];          // Y's columns of each segment, row 0 of the tile
  const float* res[kTile];  // the residual's, on the last block; null: none
  __mmask16 mask[kTile];
};

// Y's tile of 8 rows x NS segments over one depth block of kc: acc = sum over
// kk of ap[kk][i] * xs[base + koff[kk]] (the order of sgemm_avx512.cc's
// micro_kernel), then stored as it does: row_bias + acc on the first block
// (`overwrite`; acc alone without a bias), C + acc after; on the last block
// + the residual and the activation `act`.
template <int NS>
__attribute__((target("avx512f"))) void tile_kernel(int64_t kc, const float* ap,
                                                    const int32_t* koff, const TileArgs& t,
                                                    int64_t ldc, int64_t rows, bool overwrite,
                                                    const float* row_bias, fast::TailAct act) {
  __m512 acc[MR][NS];
  for (int64_t i = 0; i < MR; ++i) {
    for (int h = 0; h < NS; ++h) acc[i][h] = _mm512_setzero_ps();
  }
  const float* x[NS];
  for (int h = 0; h < NS; ++h) x[h] = t.x[h];
  for (int64_t kk = 0; kk < kc; ++kk) {
    const int64_t o = koff[kk];
    __m512 b[NS];
    for (int h = 0; h < NS; ++h) b[h] = _mm512_loadu_ps(x[h] + o);
    const float* a = ap + kk * MR;
    for (int64_t i = 0; i < MR; ++i) {
      const __m512 av = _mm512_set1_ps(a[i]);
      for (int h = 0; h < NS; ++h) acc[i][h] = _mm512_fmadd_ps(av, b[h], acc[i][h]);
    }
  }
  for (int64_t i = 0; i < MR; ++i) {
    if (i >= rows) break;
    for (int h = 0; h < NS; ++h) {
      float* ci = t.c[h] + i * ldc;
      const __mmask16 m = t.mask[h];
      __m512 v = acc[i][h];
      if (overwrite && row_bias) {
        v = _mm512_add_ps(_mm512_set1_ps(row_bias[i]), v);
      } else if (!overwrite) {
        v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, ci), v);
      }
      if (t.res[h]) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, t.res[h] + i * ldc));
      if (act != fast::TailAct::None) v = fast::tail_act(v, act);
      _mm512_mask_storeu_ps(ci, m, v);
    }
  }
}

}  // namespace

void set_conv_direct_mode(ConvDirectMode mode) {
  mode_flag() = int(mode);
}

int64_t conv_direct_runs() {
  return runs.load();
}

ConvDirectMode conv_direct_mode() {
  return ConvDirectMode(mode_flag().load());
}

bool conv_direct_applies(const Geom3& g, int64_t cg) {
  const ConvDirectMode mode = conv_direct_mode();
  // (No input channels: the im2col path writes the bias alone.)
  if (mode == ConvDirectMode::Off || cg <= 0) return false;
  // The buffer is about the (read part of the) padded input: refuse pads or
  // strides that would make it much larger than the input, and offsets past
  // 32 bits (estimated in double first: hostile pads could overflow int64).
  double e[3];  // the padded extents read along each axis
  for (int i = 0; i < 3; ++i) {
    e[i] = double(g.out[i] - 1) * double(g.s[i]) + double(g.k[i] - 1) * double(g.d[i]) + 1;
  }
  const double est = double(cg) * e[0] * e[1] * (e[2] + double(g.s[2])) + kSlack;
  if (est >= double(int64_t(1) << 31)) return false;
  const Layout l = layout(g, cg);
  const int64_t in_n = cg * g.in[0] * g.in[1] * g.in[2];
  if (l.total >= (int64_t(1) << 31) || l.total > 4 * in_n + (int64_t(1) << 20)) return false;
  if (mode == ConvDirectMode::Always) return true;
  // Lanes used: a row of OW output columns takes ceil(OW / 16) vectors.
  // Below 3/4 (OW = 7: 7/16) the im2col path, whose panels run across
  // rows, wastes less.
  const int64_t OW = g.out[2], vectors = (OW + 15) / 16;
  return 4 * OW >= 3 * 16 * vectors;
}

void conv_direct_avx512(const float* x, int64_t cg, const Geom3& g, const PackedA& a, float* y,
                        const float* bias, const GemmEpilogue* ep) {
  runs.fetch_add(1, std::memory_order_relaxed);
  const Layout l = layout(g, cg);
  const int64_t K = g.k[0] * g.k[1] * g.k[2], CK = cg * K, m = a.m, m_pad = a.m_pad;
  const int64_t OW = g.out[2], OH = g.out[1], P = g.out[0] * OH * OW;
  // (aligned_scratch<0> holds only values copied from inputs or zeros, so
  // the lanes that read past what a call wrote see ordinary numbers.)
  float* xs = aligned_scratch<0>(size_t(l.total));
  ReadSet rs{read_positions(g.out[0], g.s[0], g.k[0], g.d[0], l.pz),
             read_positions(g.out[1], g.s[1], g.k[1], g.d[1], l.py),
             std::vector<char>(size_t(g.s[2]))};
  for (int64_t kx = 0; kx < g.k[2]; ++kx) rs.phase[size_t(kx * g.d[2] % g.s[2])] = 1;
  parallel_for(cg, double(l.cs), [&](int64_t c0, int64_t c1) { fill_xs(x, g, l, rs, c0, c1, xs); });
  // koff[(c, kz, ky, kx)]: the tap's offset from its output position's base.
  thread_local std::vector<int32_t> koff;
  koff.resize(size_t(CK));
  for (int64_t c = 0, k = 0; c < cg; ++c) {
    for (int64_t kz = 0; kz < g.k[0]; ++kz) {
      for (int64_t ky = 0; ky < g.k[1]; ++ky) {
        for (int64_t kx = 0; kx < g.k[2]; ++kx, ++k) {
          const int64_t px = kx * g.d[2];  // padded column of output column 0
          koff[size_t(k)] = int32_t(c * l.cs + (px % g.s[2]) * l.ps + kz * g.d[0] * l.zs +
                                    ky * g.d[1] * l.wc + px / g.s[2]);
        }
      }
    }
  }
  thread_local std::vector<Segment> segs;
  segs.clear();
  for (int64_t oz = 0; oz < g.out[0]; ++oz) {
    for (int64_t oy = 0; oy < OH; ++oy) {
      const int64_t row_base = oz * g.s[0] * l.zs + oy * g.s[1] * l.wc;
      for (int64_t ox = 0; ox < OW; ox += 16) {
        const int64_t n = std::min<int64_t>(16, OW - ox);
        segs.push_back(
            {row_base + ox, (oz * OH + oy) * OW + ox, __mmask16(n == 16 ? 0xFFFF : (1u << n) - 1)});
      }
    }
  }
  // Tiles of kTile segments; a remainder of one segment joins the tile
  // before it as two tiles of two (one segment alone uses a third of the
  // kernel's loads of A).
  const int64_t nseg = int64_t(segs.size());
  thread_local std::vector<int64_t> tile_start;
  tile_start.clear();
  for (int64_t t = 0; t < nseg; t += kTile) tile_start.push_back(t);
  if (nseg % kTile == 1 && nseg > kTile) tile_start.back() -= 1;
  tile_start.push_back(nseg);
  const int64_t tiles = int64_t(tile_start.size()) - 1;
  const float* ad = a.data.get();
  const float* residual = ep ? ep->residual : nullptr;
  const fast::TailAct act = ep ? ep->act() : fast::TailAct::None;
  const int32_t* kt = koff.data();
  const Segment* sg = segs.data();
  const int64_t* ts0 = tile_start.data();
  constexpr decltype(&tile_kernel<1>) kernels[kTile] = {tile_kernel<1>, tile_kernel<2>,
                                                        tile_kernel<3>};
  // Column tiles split over the threads; each output element is computed by
  // one thread with the same blocks in the same order, so the bits do not
  // depend on the thread count.
  // Rows of W per pass over the tiles: the packed weights in equal blocks
  // small enough to stay in L2 while every tile reads all of the block.
  const int64_t w_bytes = m_pad * CK * int64_t(sizeof(float));
  const int64_t passes = (w_bytes + kWeightBlockBytes - 1) / kWeightBlockBytes;
  const int64_t mc = (m_pad / MR + passes - 1) / passes * MR;
  parallel_for(tiles, 2.0 * double(m) * double(CK) * 16 * kTile, [&](int64_t t0, int64_t t1) {
    for (int64_t ic = 0; ic < m; ic += mc) {
      for (int64_t t = t0; t < t1; ++t) {
        const int ns = int(ts0[t + 1] - ts0[t]);
        const Segment* ts = sg + ts0[t];
        for (int64_t pc = 0; pc < CK; pc += KC) {
          const int64_t kc = std::min(KC, CK - pc);
          const bool overwrite = pc == 0, last = pc + kc >= CK;
          for (int64_t ir = ic; ir < std::min(m, ic + mc); ir += MR) {
            TileArgs ta{};
            for (int h = 0; h < ns; ++h) {
              const int64_t o = ir * P + ts[h].out;
              ta.x[h] = xs + ts[h].base;
              ta.c[h] = y + o;
              ta.res[h] = last && residual ? residual + o : nullptr;
              ta.mask[h] = ts[h].mask;
            }
            kernels[ns - 1](kc, ad + pc * m_pad + ir * kc, kt + pc, ta, P, std::min(MR, m - ir),
                            overwrite, bias ? bias + ir : nullptr,
                            last ? act : fast::TailAct::None);
          }
        }
      }
    }
  });
}

}  // namespace oxs::eval::conv_detail
