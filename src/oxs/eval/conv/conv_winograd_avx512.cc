// conv_winograd_avx512 (conv_forward.h): a float 3x3 stride-1 convolution
// by Winograd's minimal filtering F(2x2, 3x3). The output is cut into 2x2
// tiles; the 4x4 input patch d of a tile and each filter g are transformed
// (V = B^T d B, U = G g G^T), the 16 positions xi of the 4x4 transforms are
// multiplied as 16 independent products over the channels (M_xi = U_xi x
// V_xi: 16 multiplies per tile and channel pair instead of 36), and Y = A^T
// M A gives the tile's 4 outputs. With
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],
//   G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1],
//   A^T = [1 1 1 0; 0 1 -1 -1].
// U is computed once per weight tensor (in double, then rounded) and kept
// (see winograd_weights). Per call the input is copied into a zero-padded
// buffer; tiles are taken in fixed blocks (their transformed input and
// products stay in L2), each block by one thread: the input transform
// (vectorised across up to 16 tiles of one tile row, from stride-2 loads),
// the 16 products (an 8 x 48 register tile over the whole channel depth)
// and the output transform with the bias, residual and Relu, masked at the
// right and bottom edges. The blocks do not depend on the thread count, so
// neither do the bits. The rounding differs from the direct path's (see
// docs/ARCHITECTURE.md for the error bound the tests hold it to).
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "oxs/eval/conv/conv_forward.h"

namespace oxs::eval::conv_detail {

namespace {

constexpr int64_t MR = 8;        // rows of U per register tile
constexpr int64_t kSlack = 128;  // floats past a buffer's end a vector load may read
// Bytes of transformed input and products per block of tiles.
constexpr int64_t kBlockBytes = int64_t(1) << 19;

std::atomic<int>& mode_flag() {
  static std::atomic<int> m = [] {
    const char* e = std::getenv("OXS_CONV_WINOGRAD");
    if (e && std::string_view(e) == "off") return int(ConvWinogradMode::Off);
    if (e && std::string_view(e) == "on") return int(ConvWinogradMode::On);
    return int(ConvWinogradMode::Auto);
  }();
  return m;
}

std::atomic<int64_t> runs{0};

// The tiling of one call.
struct Plan {
  int64_t th, tw, tiles;  // tile rows, tile columns, tiles
  int64_t ph, pw;         // padded input rows and columns
  int64_t block, ldv;     // tiles per block; row stride of V and M (block rounded to 16)
  int64_t m_pad;
};

Plan plan(const Geom3& g, int64_t cg, int64_t m) {
  Plan p{};
  p.th = (g.out[1] + 1) / 2;
  p.tw = (g.out[2] + 1) / 2;
  p.tiles = p.th * p.tw;
  p.ph = 2 * p.th + 2;
  p.pw = 2 * p.tw + 2;
  p.m_pad = (m + MR - 1) / MR * MR;
  const int64_t per_tile = 16 * (cg + p.m_pad) * int64_t(sizeof(float));
  // Whole 8 x 48 register tiles (3 vectors of 16 tiles) per block.
  p.block = std::clamp<int64_t>(kBlockBytes / per_tile / 48 * 48, 48, 528);
  // A last block of fewer than 48 tiles is spread over the others.
  const int64_t rest = p.tiles % p.block, full = p.tiles / p.block;
  if (full > 0 && rest > 0 && rest < 48) p.block += ((rest + full - 1) / full + 15) / 16 * 16;
  p.block = std::min(p.block, (p.tiles + 15) / 16 * 16);
  p.ldv = p.block;
  return p;
}

// U [16][m_pad / 8][cg][8]: U_xi's rows in panels of 8 (rows past m zero).
struct WinogradWeights {
  int64_t m = 0, cg = 0, m_pad = 0;
  AlignedFloats u;
  bool finite = true;  // every weight finite (else the direct path runs)
};

std::shared_ptr<const WinogradWeights> transform_weights(const float* w, int64_t m, int64_t cg) {
  auto out = std::make_shared<WinogradWeights>();
  out->m = m;
  out->cg = cg;
  out->m_pad = (m + MR - 1) / MR * MR;
  out->u = aligned_zeros(size_t(16 * out->m_pad * cg));
  float* u = out->u.get();
  static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t c = 0; c < cg; ++c) {
      const float* gk = w + (i * cg + c) * 9;
      for (int a = 0; a < 9; ++a) out->finite = out->finite && std::isfinite(gk[a]);
      double t[4][3];  // G g
      for (int r = 0; r < 4; ++r) {
        for (int k = 0; k < 3; ++k) {
          double s = 0;
          for (int a = 0; a < 3; ++a) {
            if (G[r][a] != 0) s += G[r][a] * double(gk[a * 3 + k]);
          }
          t[r][k] = s;
        }
      }
      for (int r = 0; r < 4; ++r) {
        for (int q = 0; q < 4; ++q) {
          double s = 0;  // (G g G^T)[r][q]
          for (int k = 0; k < 3; ++k) {
            if (G[q][k] != 0) s += t[r][k] * G[q][k];
          }
          const int64_t xi = r * 4 + q;
          u[((xi * (out->m_pad / MR) + i / MR) * cg + c) * MR + i % MR] = float(s);
        }
      }
    }
  }
  return out;
}

// The transformed weights of each packed weight tensor, kept while the
// session's packed weights (the key) live: looked up by address, checked
// by the weak reference (a freed key's address may be reused).
std::shared_ptr<const WinogradWeights> winograd_weights(const std::shared_ptr<const PackedA>& key,
                                                        const float* w, int64_t m, int64_t cg) {
  struct Entry {
    std::weak_ptr<const PackedA> key;
    std::shared_ptr<const WinogradWeights> u;
  };
  static std::mutex mu;
  static std::unordered_map<const PackedA*, Entry> cache;
  static size_t swept_at = 16;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key.get());
  if (it != cache.end() && it->second.key.lock() == key && it->second.u->m == m &&
      it->second.u->cg == cg) {
    return it->second.u;
  }
  auto u = transform_weights(w, m, cg);
  cache[key.get()] = Entry{key, u};
  if (cache.size() >= 2 * swept_at) {  // drop expired entries (amortised linear)
    for (auto e = cache.begin(); e != cache.end();) {
      e = e->second.key.expired() ? cache.erase(e) : std::next(e);
    }
    swept_at = std::max<size_t>(16, cache.size());
  }
  return u;
}

// The lanes [0, n) (0 <= n <= 16).
inline __mmask16 first_lanes(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
}

// Channels [c0, c1) of the padded input: xp[c][py][px] = x[c][py - pt][px - pl]
// inside the input, 0 elsewhere.
void fill_padded(const float* x, const Geom3& g, const Plan& p, int64_t c0, int64_t c1, float* xp) {
  const int64_t ih = g.in[1], iw = g.in[2], pt = g.p[1], pl = g.p[2];
  const int64_t n = std::clamp<int64_t>(std::min(iw, p.pw - pl), 0, p.pw);
  for (int64_t c = c0; c < c1; ++c) {
    for (int64_t py = 0; py < p.ph; ++py) {
      float* row = xp + (c * p.ph + py) * p.pw;
      const int64_t iy = py - pt;
      if (iy < 0 || iy >= ih || n == 0) {
        std::memset(row, 0, size_t(p.pw) * sizeof(float));
        continue;
      }
      std::memset(row, 0, size_t(pl) * sizeof(float));
      std::memcpy(row + pl, x + (c * ih + iy) * iw, size_t(n) * sizeof(float));
      std::memset(row + pl + n, 0, size_t(p.pw - pl - n) * sizeof(float));
    }
  }
}

// Up to 16 tiles that one vector holds: n1 consecutive tiles of tile row ty
// from column tx (lanes [0, n1)), and when tile rows have at most 8 tiles
// (two_rows) the first n2 tiles of row ty + 1 (lanes [8, 8 + n2)); col is
// the first tile's column in V and M (the n1 + n2 tiles are consecutive).
struct Run {
  int64_t ty, tx, col, n1, n2;
  bool two_rows;
  // The lanes in use, and whether they are [0, n1 + n2).
  __mmask16 lanes() const {
    return two_rows ? __mmask16(((1u << n1) - 1) | (((1u << n2) - 1) << 8))
                    : __mmask16((1u << n1) - 1);
  }
  bool prefix() const { return !two_rows || n2 == 0 || n1 == 8; }
};

// Calls fn(run) for the runs covering tiles [t0, t1) in order.
template <class F>
void for_each_run(const Plan& p, int64_t t0, int64_t t1, F&& fn) {
  const bool two_rows = p.tw <= 8;
  for (int64_t t = t0; t < t1;) {
    Run r{t / p.tw, t % p.tw, t - t0, 0, 0, two_rows};
    if (two_rows) {
      r.n1 = std::min(p.tw - r.tx, t1 - t);
      if (r.n1 == p.tw - r.tx) r.n2 = std::clamp<int64_t>(t1 - t - r.n1, 0, p.tw);
    } else {
      r.n1 = std::min({int64_t(16), p.tw - r.tx, t1 - t});
    }
    fn(r);
    t += r.n1 + r.n2;
  }
}

// Stores the lanes of `run` of v to dst's consecutive columns.
__attribute__((target("avx512f"))) inline void store_run(float* dst, const Run& run, __m512 v) {
  if (run.prefix()) {
    _mm512_mask_storeu_ps(dst, first_lanes(run.n1 + run.n2), v);
  } else {
    _mm512_mask_compressstoreu_ps(dst, run.lanes(), v);
  }
}

// V[xi][c][col + q] = (B^T d B)[xi] of the run's tiles, for channels
// [c0, c1) of cg.
__attribute__((target("avx512f"))) void input_transform(const float* xp, const Plan& p, int64_t cg,
                                                        int64_t c0, int64_t c1, const Run& run,
                                                        float* v) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  const int64_t plane = p.ph * p.pw, vs = cg * p.ldv;
  // The second half of each 32-column window: the next 16 columns, or the
  // next tile row's first columns.
  const int64_t second = run.two_rows ? 2 * p.pw - 2 * run.tx : 16;
  for (int64_t c = c0; c < c1; ++c) {
    const float* base = xp + c * plane + 2 * run.ty * p.pw + 2 * run.tx;
    __m512 t[4][4];  // B^T d, built row by row of d
    __m512 d[4][4];
    for (int i = 0; i < 4; ++i) {
      const float* r = base + i * p.pw;
      const __m512 a = _mm512_loadu_ps(r), b = _mm512_loadu_ps(r + second);
      const __m512 a2 = _mm512_loadu_ps(r + 2), b2 = _mm512_loadu_ps(r + second + 2);
      d[i][0] = _mm512_permutex2var_ps(a, even, b);
      d[i][1] = _mm512_permutex2var_ps(a, odd, b);
      d[i][2] = _mm512_permutex2var_ps(a2, even, b2);
      d[i][3] = _mm512_permutex2var_ps(a2, odd, b2);
    }
    for (int j = 0; j < 4; ++j) {
      t[0][j] = _mm512_sub_ps(d[0][j], d[2][j]);
      t[1][j] = _mm512_add_ps(d[1][j], d[2][j]);
      t[2][j] = _mm512_sub_ps(d[2][j], d[1][j]);
      t[3][j] = _mm512_sub_ps(d[1][j], d[3][j]);
    }
    float* vc = v + c * p.ldv + run.col;
    for (int i = 0; i < 4; ++i) {
      store_run(vc + (i * 4 + 0) * vs, run, _mm512_sub_ps(t[i][0], t[i][2]));
      store_run(vc + (i * 4 + 1) * vs, run, _mm512_add_ps(t[i][1], t[i][2]));
      store_run(vc + (i * 4 + 2) * vs, run, _mm512_sub_ps(t[i][2], t[i][1]));
      store_run(vc + (i * 4 + 3) * vs, run, _mm512_sub_ps(t[i][1], t[i][3]));
    }
  }
}

// out[i][0 .. 16 * NS) = sum over c of up[c][i] * v[c][...] for the 8 rows
// i of one panel (rows of out ld apart, v's rows ld apart).
template <int NS>
__attribute__((target("avx512f"))) void product_tile(int64_t cg, const float* up, const float* v,
                                                     int64_t ld, float* out) {
  __m512 acc[MR][NS];
  for (int64_t i = 0; i < MR; ++i) {
    for (int h = 0; h < NS; ++h) acc[i][h] = _mm512_setzero_ps();
  }
  for (int64_t c = 0; c < cg; ++c) {
    __m512 b[NS];
    for (int h = 0; h < NS; ++h) b[h] = _mm512_loadu_ps(v + c * ld + 16 * h);
    const float* a = up + c * MR;
    for (int64_t i = 0; i < MR; ++i) {
      const __m512 av = _mm512_set1_ps(a[i]);
      for (int h = 0; h < NS; ++h) acc[i][h] = _mm512_fmadd_ps(av, b[h], acc[i][h]);
    }
  }
  for (int64_t i = 0; i < MR; ++i) {
    for (int h = 0; h < NS; ++h) _mm512_storeu_ps(out + i * ld + 16 * h, acc[i][h]);
  }
}

// Y's tiles of the run, output channels [i0, i1), from the products
// mm[xi][i][col + q]: A^T M A + bias, + residual, the activation; masked to the
// output's extent.
__attribute__((target("avx512f"))) void output_transform(const float* mm, const Plan& p,
                                                         const Geom3& g, int64_t i0, int64_t i1,
                                                         const float* bias, const float* residual,
                                                         fast::TailAct act, const Run& run,
                                                         float* y) {
  const __m512i lo_idx = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i hi_idx =
      _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  const int64_t OH = g.out[1], OW = g.out[2], P = OH * OW, ty = run.ty, tx = run.tx;
  // The interleaved halves: lanes 0-7 of the tiles (lo) go to output
  // columns 2tx.. of row 2ty + r; lanes 8-15 (hi) to the next 16 columns,
  // or with two tile rows to columns 0.. of row 2ty + 2 + r.
  int64_t lo_off[2], hi_off[2];
  __mmask16 lo_mask[2], hi_mask[2];
  for (int64_t r = 0; r < 2; ++r) {
    const int64_t row = 2 * ty + r;
    lo_off[r] = row * OW + 2 * tx;
    // Output columns of row `row` from 2tx on that the run covers.
    const int64_t cols = row < OH ? std::min(2 * run.n1, OW - 2 * tx) : 0;
    lo_mask[r] = first_lanes(std::min<int64_t>(cols, 16));
    if (run.two_rows) {  // (n1 <= 8: lo holds all of row ty's part)
      hi_off[r] = (row + 2) * OW;
      hi_mask[r] = first_lanes(row + 2 < OH ? std::min(2 * run.n2, OW) : 0);
    } else {
      hi_off[r] = lo_off[r] + 16;
      hi_mask[r] = first_lanes(std::max<int64_t>(cols - 16, 0));
    }
  }
  const bool prefix = run.prefix();
  const __mmask16 sel = run.lanes();
  const int64_t ms = p.m_pad * p.ldv;
  for (int64_t i = i0; i < i1; ++i) {
    const float* mi = mm + i * p.ldv + run.col;
    __m512 s[2][4];  // A^T M
    for (int j = 0; j < 4; ++j) {
      __m512 mv[4];
      for (int k = 0; k < 4; ++k) {
        const float* src = mi + (k * 4 + j) * ms;
        mv[k] = prefix ? _mm512_loadu_ps(src) : _mm512_maskz_expandloadu_ps(sel, src);
      }
      s[0][j] = _mm512_add_ps(_mm512_add_ps(mv[0], mv[1]), mv[2]);
      s[1][j] = _mm512_sub_ps(_mm512_sub_ps(mv[1], mv[2]), mv[3]);
    }
    const __m512 bv = _mm512_set1_ps(bias ? bias[i] : 0.0f);
    for (int64_t r = 0; r < 2; ++r) {
      __m512 y0 = _mm512_add_ps(_mm512_add_ps(s[r][0], s[r][1]), s[r][2]);
      __m512 y1 = _mm512_sub_ps(_mm512_sub_ps(s[r][1], s[r][2]), s[r][3]);
      if (bias) {
        y0 = _mm512_add_ps(bv, y0);
        y1 = _mm512_add_ps(bv, y1);
      }
      __m512 lo = _mm512_permutex2var_ps(y0, lo_idx, y1);
      __m512 hi = _mm512_permutex2var_ps(y0, hi_idx, y1);
      const int64_t lo_at = i * P + lo_off[r], hi_at = i * P + hi_off[r];
      if (residual) {
        lo = _mm512_add_ps(lo, _mm512_maskz_loadu_ps(lo_mask[r], residual + lo_at));
        hi = _mm512_add_ps(hi, _mm512_maskz_loadu_ps(hi_mask[r], residual + hi_at));
      }
      if (act != fast::TailAct::None) {
        lo = fast::tail_act(lo, act);
        hi = fast::tail_act(hi, act);
      }
      _mm512_mask_storeu_ps(y + lo_at, lo_mask[r], lo);
      _mm512_mask_storeu_ps(y + hi_at, hi_mask[r], hi);
    }
  }
}

}  // namespace

void set_conv_winograd_mode(ConvWinogradMode mode) {
  mode_flag() = int(mode);
}

ConvWinogradMode conv_winograd_mode() {
  return ConvWinogradMode(mode_flag().load());
}

int64_t conv_winograd_runs() {
  return runs.load();
}

bool conv_winograd_applies(const Geom3& g, int64_t cg, int64_t mg, int64_t group) {
  const ConvWinogradMode mode = conv_winograd_mode();
  if (mode == ConvWinogradMode::Off || group != 1 || cg <= 0 || mg <= 0) return false;
  if (g.k[0] != 1 || g.k[1] != 3 || g.k[2] != 3 || g.out[0] != 1 || g.in[0] != 1) return false;
  for (int i = 1; i < 3; ++i) {
    if (g.s[i] != 1 || g.d[i] != 1) return false;
  }
  // The padded copy: refuse pads that make it much larger than the input,
  // and offsets past 32 bits (estimated in double first).
  const double est = double(cg) * (double(g.out[1]) + 3) * (double(g.out[2]) + 3);
  if (est >= double(int64_t(1) << 31)) return false;
  if (est > 4.0 * double(cg * g.in[1] * g.in[2]) + double(int64_t(1) << 20)) return false;
  // A block's transformed input and products (at least 48 tiles) per
  // thread: refuse channel counts that would make them huge.
  if (double(cg + mg) * 16 * 48 * sizeof(float) > double(int64_t(1) << 26)) return false;
  if (mode == ConvWinogradMode::On) return true;
  // Fewer than 16 tiles (outputs smaller than about 8x8) leave most lanes of
  // the products' vectors idle.
  const int64_t tiles = ((g.out[1] + 1) / 2) * ((g.out[2] + 1) / 2);
  return cg >= 16 && mg >= 16 && tiles >= 16;
}

// Whether x[0, n) holds only finite values (x * 0 is 0 for those, NaN for
// Inf and NaN).
__attribute__((target("avx512f"))) bool all_finite(const float* x, int64_t n) {
  const __m512 zero = _mm512_setzero_ps();
  __m512 acc = zero;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_loadu_ps(x + i), zero));
  if (i < n)
    acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_maskz_loadu_ps(first_lanes(n - i), x + i), zero));
  return _mm512_cmp_ps_mask(acc, acc, _CMP_UNORD_Q) == 0;
}

bool conv_winograd_avx512(const float* x, const float* w, int64_t cg, int64_t m, const Geom3& g,
                          const std::shared_ptr<const PackedA>& key, float* y, const float* bias,
                          const GemmEpilogue* ep) {
  const auto wu = winograd_weights(key, w, m, cg);
  // Inf and NaN: Winograd's transforms mix them into outputs the direct sums
  // keep finite (Inf - Inf), so such a conv takes the direct path.
  if (!wu->finite || !all_finite(x, cg * g.in[1] * g.in[2])) return false;
  runs.fetch_add(1, std::memory_order_relaxed);
  const Plan p = plan(g, cg, m);
  float* xp = aligned_scratch<0>(size_t(cg * p.ph * p.pw + kSlack));
  parallel_for(cg, double(p.ph * p.pw),
               [&](int64_t c0, int64_t c1) { fill_padded(x, g, p, c0, c1, xp); });
  const float* u = wu->u.get();
  const float* residual = ep ? ep->residual : nullptr;
  const fast::TailAct act = ep ? ep->act() : fast::TailAct::None;
  const int64_t blocks = (p.tiles + p.block - 1) / p.block, panels = p.m_pad / MR;
  const size_t vn = size_t(16 * cg * p.ldv), mn = size_t(16 * p.m_pad * p.ldv);
  constexpr decltype(&product_tile<1>) kernels[3] = {product_tile<1>, product_tile<2>,
                                                     product_tile<3>};
  // The products of tiles [t0, t1) (transformed in v) for the panels [pi0,
  // pi1) of output channels, into mm, then those channels' outputs.
  auto products = [&](const float* v, float* mm, int64_t t0, int64_t t1, int64_t pi0, int64_t pi1) {
    const int64_t nv = (t1 - t0 + 15) / 16;
    for (int64_t xi = 0; xi < 16; ++xi) {
      const float* vx = v + xi * cg * p.ldv;
      for (int64_t pi = pi0; pi < pi1; ++pi) {
        const float* up = u + (xi * panels + pi) * cg * MR;
        float* out = mm + (xi * p.m_pad + pi * MR) * p.ldv;
        for (int64_t j = 0; j < nv;) {
          // Groups of 3 vectors; 4 left are 2 + 2 (1 alone is the slowest).
          const int ns = nv - j == 4 ? 2 : int(std::min<int64_t>(3, nv - j));
          kernels[ns - 1](cg, up, vx + 16 * j, p.ldv, out + 16 * j);
          j += ns;
        }
      }
    }
    const int64_t i0 = pi0 * MR, i1 = std::min(m, pi1 * MR);
    for_each_run(p, t0, t1, [&](const Run& run) {
      output_transform(mm, p, g, i0, i1, bias, residual, act, run, y);
    });
  };
  const double block_cost = 32.0 * double(p.block) * double(m) * double(cg);
  const int threads = parallel_threads(blocks * panels, block_cost / double(panels));
  if (threads <= 1 || blocks >= 4 * threads) {  // blocks split over the threads
    parallel_for(blocks, block_cost, [&](int64_t b0, int64_t b1) {
      float* v = aligned_scratch<1>(vn + mn + kSlack);
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t t0 = b * p.block, t1 = std::min(p.tiles, t0 + p.block);
        for_each_run(p, t0, t1, [&](const Run& run) { input_transform(xp, p, cg, 0, cg, run, v); });
        products(v, v + vn, t0, t1, 0, panels);
      }
    });
    return true;
  }
  // Few blocks (a 14x14 or 7x7 output is one): each block's input is
  // transformed by the threads together (split by channels), then its
  // output channels' panels are split.
  float* vs = aligned_scratch<2>(vn + kSlack);
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t t0 = b * p.block, t1 = std::min(p.tiles, t0 + p.block);
    parallel_for(cg, 64.0 * double(t1 - t0), [&](int64_t c0, int64_t c1) {
      for_each_run(p, t0, t1, [&](const Run& run) { input_transform(xp, p, cg, c0, c1, run, vs); });
    });
    parallel_for(panels, block_cost / double(panels), [&](int64_t pi0, int64_t pi1) {
      products(vs, aligned_scratch<1>(vn + mn + kSlack) + vn, t0, t1, pi0, pi1);
    });
  }
  return true;
}

}  // namespace oxs::eval::conv_detail
