// An AVX-512 SGEMM (gemm.h: sgemm_avx512), split over the session's threads. Why it exists:
// Debian's OpenBLAS 0.3.21 does not recognise newer AVX-512 CPUs (AMD Zen 4/5)
// and runs its AVX2 (Haswell) kernel there, at half the FMA width. This is
// the textbook blocked GEMM (BLIS loop order): B is packed in panels of NR
// columns (kept in L1 by the micro-kernel), A in panels of MR rows (L2; once
// per call when it is small), and
// an 8x32 register tile is accumulated with 512-bit FMAs. Edges are packed
// with zeros and stored with masks. Compiled for AVX-512 by function
// attribute only; callers check sgemm_avx512_supported() first.
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>

#include "oxs/eval/fast/shuffles.h"
#include "oxs/eval/math/gemm.h"
#include "oxs/eval/parallel/thread_pool.h"

namespace oxs::eval {

namespace {

using fast::shuffle_in_lanes;
using fast::shuffle_lanes;
using fast::unpack_hi;
using fast::unpack_lo;

constexpr int64_t MR = 8, NR = 32;  // register tile: 8 rows x 2 vectors
// A packed per call from a stored (not transposed) A keeps each row's values
// in runs of KB: panel element (i, kk) at (kk / KB) * KB * MR + i * KB + kk % KB
// (the "row" layout), a plain copy of 16 values per vector. A transposed A
// and a PackedA (Conv's weights; conv/ reads it too) use the "column"
// layout, kk * MR + i, which the row layout with KB = 1 is.
constexpr int64_t KB = 16;
constexpr int64_t KC = 256;  // depth of a packed block
constexpr int64_t MC = 128;  // rows of A per packed block (L2)
constexpr int64_t NC = 512;  // columns of B per packed block (L2)
// A is packed once per call (not once per block of B's columns) when it
// takes at most this many floats, as Conv's weights and most MatMuls' do.
constexpr int64_t kPackOnce = int64_t(1) << 20;

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

// Per-thread packing buffers, 64-byte aligned, allocated once.
float* pack_buffer(int which) {
  thread_local std::unique_ptr<float, FreeDeleter> bufs[2];
  static constexpr size_t sizes[2] = {size_t(MC * KC), size_t(KC * NC)};
  if (!bufs[which]) {
    void* p = std::aligned_alloc(64, sizes[which] * sizeof(float));
    if (!p) throw std::bad_alloc();
    bufs[which].reset(static_cast<float*>(p));
  }
  return bufs[which].get();
}

// A per-thread buffer for all of A, packed (up to kPackOnce floats).
float* whole_a_buffer() {
  thread_local std::unique_ptr<float, FreeDeleter> buf;
  if (!buf) {
    void* p = std::aligned_alloc(64, size_t(kPackOnce) * sizeof(float));
    if (!p) throw std::bad_alloc();
    buf.reset(static_cast<float*>(p));
  }
  return buf.get();
}

// r[i]: 16 consecutive values of row i of an 8-row block; o[q] gets its
// columns 2q and 2q + 1, each as the 8 rows' values in order (the block
// transposed, two columns a vector). Unpacks transpose 4x4 within each
// 128-bit lane, then two rounds of lane shuffles gather the lanes.
__attribute__((target("avx512f"))) inline void transpose_8x16(const __m512* r, __m512* o) {
  __m512 t[8], s[8], lo[4], hi[4];
  for (int p = 0; p < 4; ++p) {  // t[2p], t[2p+1]: rows 2p and 2p+1 interleaved
    t[2 * p] = unpack_lo(r[2 * p], r[2 * p + 1]);
    t[2 * p + 1] = unpack_hi(r[2 * p], r[2 * p + 1]);
  }
  // s[j] (s[4 + j]): lane l holds rows 0-3 (4-7) at column 4l + j.
  for (int h = 0; h < 2; ++h) {
    const __m512* u = t + 4 * h;
    s[4 * h + 0] = shuffle_in_lanes<0x44>(u[0], u[2]);
    s[4 * h + 1] = shuffle_in_lanes<0xEE>(u[0], u[2]);
    s[4 * h + 2] = shuffle_in_lanes<0x44>(u[1], u[3]);
    s[4 * h + 3] = shuffle_in_lanes<0xEE>(u[1], u[3]);
  }
  // lo[j] (hi[j]): lanes 0-1 (2-3) of s[j], then of s[4 + j].
  for (int j = 0; j < 4; ++j) {
    lo[j] = shuffle_lanes<_MM_SHUFFLE(1, 0, 1, 0)>(s[j], s[4 + j]);
    hi[j] = shuffle_lanes<_MM_SHUFFLE(3, 2, 3, 2)>(s[j], s[4 + j]);
  }
  // Columns 2q, 2q + 1: from lane q/2 of s[2(q%2)] and s[2(q%2) + 1].
  o[0] = shuffle_lanes<_MM_SHUFFLE(2, 0, 2, 0)>(lo[0], lo[1]);
  o[1] = shuffle_lanes<_MM_SHUFFLE(2, 0, 2, 0)>(lo[2], lo[3]);
  o[2] = shuffle_lanes<_MM_SHUFFLE(3, 1, 3, 1)>(lo[0], lo[1]);
  o[3] = shuffle_lanes<_MM_SHUFFLE(3, 1, 3, 1)>(lo[2], lo[3]);
  o[4] = shuffle_lanes<_MM_SHUFFLE(2, 0, 2, 0)>(hi[0], hi[1]);
  o[5] = shuffle_lanes<_MM_SHUFFLE(2, 0, 2, 0)>(hi[2], hi[3]);
  o[6] = shuffle_lanes<_MM_SHUFFLE(3, 1, 3, 1)>(hi[0], hi[1]);
  o[7] = shuffle_lanes<_MM_SHUFFLE(3, 1, 3, 1)>(hi[2], hi[3]);
}

// The mask of a vector's first `len` (0..16) lanes.
inline __mmask16 first_lanes(int64_t len) {
  return len >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << len) - 1);
}

// Loads 16 columns from kb on of `rows` (<= 8) rows starting at src (row
// stride ld), the columns past `len` and the rows past `rows` as zeros, and
// transposes them (transpose_8x16).
__attribute__((target("avx512f"))) inline void load_8x16_transposed(const float* src, int64_t ld,
                                                                    int64_t rows, int64_t len,
                                                                    __m512 scale, bool scaled,
                                                                    __m512* o) {
  const __mmask16 km = first_lanes(len);
  __m512 r[8];
  for (int64_t i = 0; i < 8; ++i) {
    r[i] = _mm512_setzero_ps();
    if (i >= rows) continue;
    r[i] = _mm512_maskz_loadu_ps(km, src + i * ld);
    if (scaled) r[i] = _mm512_mul_ps(r[i], scale);
  }
  transpose_8x16(r, o);
}

// The depth a packed panel of A takes per depth block of kc: kc in the
// column layout, kc rounded up to KB in the row layout.
inline int64_t panel_depth(bool row_layout, int64_t kc) {
  return row_layout ? (kc + KB - 1) / KB * KB : kc;
}

// Column layout: Ap[panel][kk][i] = alpha * A(i0 + panel*MR + i, p0 + kk),
// zero past row m. Vectorised: 8 rows x 16 columns are loaded and transposed
// at a time (A stored) or 8 rows of one column are contiguous (A^T stored);
// the values are those of the scalar loop (one rounding of alpha * a, plain
// 0 padding).
__attribute__((target("avx512f"))) void pack_a_columns(bool ta, const float* a, int64_t lda,
                                                       int64_t i0, int64_t mc, int64_t p0,
                                                       int64_t kc, float alpha, float* ap) {
  const __m512 va = _mm512_set1_ps(alpha);
  for (int64_t ir = 0; ir < mc; ir += MR) {
    const int64_t rows = std::min(MR, mc - ir);
    float* dst = ap + ir * kc;
    if (ta) {
      const __mmask16 rm = first_lanes(rows);
      const float* src = a + p0 * lda + i0 + ir;
      for (int64_t kk = 0; kk < kc; ++kk) {
        const __m512 v = _mm512_maskz_mul_ps(rm, _mm512_maskz_loadu_ps(rm, src + kk * lda), va);
        _mm512_mask_storeu_ps(dst + kk * MR, 0xFF, v);
      }
      continue;
    }
    const float* src = a + (i0 + ir) * lda + p0;
    for (int64_t kb = 0; kb < kc; kb += 16) {
      const int64_t len = std::min<int64_t>(16, kc - kb);
      __m512 o[8];
      load_8x16_transposed(src + kb, lda, rows, len, va, true, o);
      for (int64_t q = 0; 2 * q < len; ++q) {
        _mm512_mask_storeu_ps(dst + (kb + 2 * q) * MR, 2 * q + 1 < len ? 0xFFFF : 0x00FF, o[q]);
      }
    }
  }
}

// Row layout (KB above) of a stored A: alpha * A(i0 + panel*MR + i, p0 + kk)
// for kk < kc, zeros past row m and in each run's padding past kc.
__attribute__((target("avx512f"))) void pack_a_rows(const float* a, int64_t lda, int64_t i0,
                                                    int64_t mc, int64_t p0, int64_t kc, float alpha,
                                                    float* ap) {
  const __m512 va = _mm512_set1_ps(alpha);
  const int64_t depth = panel_depth(true, kc);
  for (int64_t ir = 0; ir < mc; ir += MR) {
    const int64_t rows = std::min(MR, mc - ir);
    float* dst = ap + ir * depth;
    const float* src = a + (i0 + ir) * lda + p0;
    for (int64_t kb = 0; kb < kc; kb += KB) {
      const __mmask16 km = first_lanes(kc - kb);
      float* out = dst + kb * MR;
      for (int64_t i = 0; i < MR; ++i) {
        const __m512 v =
            i < rows ? _mm512_maskz_mul_ps(km, _mm512_maskz_loadu_ps(km, src + i * lda + kb), va)
                     : _mm512_setzero_ps();
        _mm512_storeu_ps(out + i * KB, v);
      }
    }
  }
}

// alpha * op(A) packed per call: the row layout for a stored A, the column
// layout for A^T.
void pack_a(bool ta, const float* a, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
            float alpha, float* ap) {
  if (ta) return pack_a_columns(true, a, lda, i0, mc, p0, kc, alpha, ap);
  pack_a_rows(a, lda, i0, mc, p0, kc, alpha, ap);
}

// The masks of the two vectors of a tile row holding `cols` (1..32) columns.
inline __mmask16 mask_lo(int64_t cols) {
  return cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
}
inline __mmask16 mask_hi(int64_t cols) {
  return cols >= 32 ? __mmask16(0xFFFF) : cols > 16 ? __mmask16((1u << (cols - 16)) - 1) : 0;
}

// Packs a block of a stored B: Bp[panel][kk][j] = B(p0 + kk, j0 + panel*NR + j),
// zero past column nc.
struct MatrixB {
  bool tb;
  const float* b;
  int64_t ldb;
  // The same matrix from column j0 on (a thread's share of the columns).
  MatrixB from_column(int64_t j0) const { return {tb, tb ? b + j0 * ldb : b + j0, ldb}; }
  // Packs into bp and returns it.
  __attribute__((target("avx512f"))) const float* pack(int64_t p0, int64_t kc, int64_t j0,
                                                       int64_t nc, float* bp) const {
    if (!tb) {
      // Row by row, so the reads are sequential (B is often a weight matrix
      // coming from memory; panel-by-panel reads would touch kc rows at once).
      for (int64_t kk = 0; kk < kc; ++kk) {
        const float* src = b + (p0 + kk) * ldb + j0;
        for (int64_t jr = 0; jr < nc; jr += NR) {
          const int64_t cols = std::min(NR, nc - jr);
          float* dst = bp + jr * kc + kk * NR;
          _mm512_store_ps(dst, _mm512_maskz_loadu_ps(mask_lo(cols), src + jr));
          _mm512_store_ps(dst + 16, _mm512_maskz_loadu_ps(mask_hi(cols), src + jr + 16));
        }
      }
      return bp;
    }
    // B^T stored: column j of B is a row of the stored matrix; 8 of them
    // at a time are read 16 values on and transposed, column pair q going
    // to two rows of the panel (the vector's halves).
    for (int64_t jr = 0; jr < nc; jr += NR) {
      const int64_t cols = std::min(NR, nc - jr);
      float* dst = bp + jr * kc;
      if (cols < NR) std::fill_n(dst, kc * NR, 0.0f);
      for (int64_t g = 0; g < cols; g += 8) {
        const float* src = b + (j0 + jr + g) * ldb + p0;
        const int64_t rows = std::min<int64_t>(8, cols - g);
        for (int64_t kb = 0; kb < kc; kb += 16) {
          const int64_t len = std::min<int64_t>(16, kc - kb);
          __m512 o[8];
          load_8x16_transposed(src + kb, ldb, rows, len, _mm512_setzero_ps(), false, o);
          for (int64_t q = 0; 2 * q < len; ++q) {
            float* out = dst + (kb + 2 * q) * NR + g;
            _mm512_mask_storeu_ps(out, 0x00FF, o[q]);
            if (2 * q + 1 < len) _mm512_mask_storeu_ps(out + NR - 8, 0xFF00, o[q]);
          }
        }
      }
    }
    return bp;
  }
};

// A B packed once (sgemm_avx512_pack_b): depth block pc holds all columns as
// panels of NR, panel p at data + pc * n_pad + p * NR * kc, so any column
// offset that is a multiple of NR is a pointer into it.
// (Also a B packed per call in that layout, shared by the threads.)
struct PrepackedB {
  const float* data;
  int64_t n_pad;
  int64_t j_base = 0;
  PrepackedB from_column(int64_t j0) const { return {data, n_pad, j_base + j0}; }
  const float* pack(int64_t p0, int64_t kc, int64_t j0, int64_t, float*) const {
    return data + p0 * n_pad + (j_base + j0) * kc;
  }
};

// Packs a block of a B that a RowSource produces row by row.
struct SourceB {
  const RowSource& src;
  int64_t j_base = 0;
  SourceB from_column(int64_t j0) const { return {src, j_base + j0}; }
  const float* pack(int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* bp) const {
    src.fill(src.self, p0, kc, j_base + j0, nc, bp, kc * NR, NR);
    if (int64_t tail = nc % NR) {  // zero the last panel past column nc
      float* last = bp + (nc - tail) * kc;
      for (int64_t kk = 0; kk < kc; ++kk)
        std::fill(last + kk * NR + tail, last + (kk + 1) * NR, 0.0f);
    }
    return bp;
  }
};

// C[rows, cols] (+)= Ap-panel x Bp-panel over kc (the panel in the row
// layout with runs of kKB, the column layout when kKB is 1, or A itself when
// kKB is 0: 8 rows a_rs apart, all present); `overwrite` ignores the
// old C (beta = 0 on the first depth block) and then adds row_bias[i] to row
// i when given (the same sum as adding the products to a C holding it).
// Then (on the last depth block) `res`, C's tile of the epilogue's residual
// (or null), is added and the activation `act` applied. kHalf: cols <= 16, so
// only the panel's first vector is computed (a narrow last panel, as for
// 7x7 or 14x14 conv outputs, costs half).
template <bool kHalf, int64_t kKB>
__attribute__((target("avx512f"))) void micro_kernel(int64_t kc, const float* ap, int64_t a_rs,
                                                     const float* bp, float* c, int64_t ldc,
                                                     int64_t rows, int64_t cols, bool overwrite,
                                                     const float* row_bias, const float* res,
                                                     int64_t res_ld, fast::TailAct act) {
  __m512 acc[MR][2];
  for (int64_t i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  const int64_t run_len = kKB == 0 ? kc : kKB, rs = kKB == 0 ? a_rs : kKB;
  for (int64_t k0 = 0; k0 < kc; k0 += run_len) {
    const int64_t run = kKB == 1 ? 1 : std::min(run_len, kc - k0);
    const float* ar = ap + k0 * MR;
    const float* br = bp + k0 * NR;
    for (int64_t kk = 0; kk < run; ++kk) {
      const __m512 b0 = _mm512_load_ps(br + kk * NR);
      const __m512 b1 = kHalf ? b0 : _mm512_load_ps(br + kk * NR + 16);
      for (int64_t i = 0; i < MR; ++i) {
        const __m512 av = _mm512_set1_ps(ar[i * rs + kk]);
        acc[i][0] = _mm512_fmadd_ps(av, b0, acc[i][0]);
        if (!kHalf) acc[i][1] = _mm512_fmadd_ps(av, b1, acc[i][1]);
      }
    }
  }
  const __mmask16 m0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32  ? __mmask16(0xFFFF)
                       : cols > 16 ? __mmask16((1u << (cols - 16)) - 1)
                                   : 0;
  for (int64_t i = 0; i < MR; ++i) {
    if (i >= rows) break;
    float* ci = c + i * ldc;
    __m512 v0 = acc[i][0], v1 = acc[i][1];
    if (overwrite && row_bias) {
      const __m512 bv = _mm512_set1_ps(row_bias[i]);
      v0 = _mm512_add_ps(bv, v0);
      v1 = _mm512_add_ps(bv, v1);
    } else if (!overwrite) {
      v0 = _mm512_add_ps(_mm512_maskz_loadu_ps(m0, ci), v0);
      v1 = _mm512_add_ps(_mm512_maskz_loadu_ps(m1, ci + 16), v1);
    }
    if (res) {
      const float* ri = res + i * res_ld;
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, ri));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, ri + 16));
    }
    if (act != fast::TailAct::None) {
      v0 = fast::tail_act(v0, act);
      if (!kHalf) v1 = fast::tail_act(v1, act);
    }
    _mm512_mask_storeu_ps(ci, m0, v0);
    _mm512_mask_storeu_ps(ci + 16, m1, v1);
  }
}

// The left operand: alpha * op(A) packed per call, or a PackedA (packed
// once, alpha 1) from row i_base on.
struct ARows {
  bool ta;
  const float* a;
  int64_t lda;
  float alpha;
  const PackedA* pre = nullptr;
  int64_t i_base = 0;
  const float* row_bias = nullptr;  // added to C's rows (beta 0 only)
  ARows from_row(int64_t i0) const {
    ARows r = *this;
    if (row_bias) r.row_bias = row_bias + i0;
    if (pre) {
      r.i_base += i0;
    } else {
      r.a = ta ? a + i0 : a + i0 * lda;
    }
    return r;
  }
};

// The BLIS loop nest over packed blocks; B comes from `pb` (MatrixB,
// PrepackedB or SourceB). beta is 0 or 1 here. `ep`'s residual has c's
// origin, and its rows are ep.residual_ld apart (ldc when -1).
template <class PackB>
void blocked(int64_t m, int64_t n, int64_t k, const ARows& A, const PackB& pb, float beta, float* c,
             int64_t ldc, GemmEpilogue ep = {}) {
  const bool ta = A.ta;
  const float* a = A.a;
  const int64_t lda = A.lda;
  const float alpha = A.alpha;
  float* bp = pack_buffer(1);
  const int64_t res_ld = ep.residual_ld < 0 ? ldc : ep.residual_ld;
  // All of A packed up front: block (pc, ic) at whole + pc * m_pad + ic *
  // depth (the layout of a PackedA too, with the column layout's depth kc).
  int64_t m_pad = (m + MR - 1) / MR * MR;
  const bool row_layout = !A.pre && !ta;
  // A read in place: all but a last panel of fewer than MR rows, which is
  // packed (the row layout) per depth block.
  // (Measured on shapes of bench/eval.sh: faster than packing even when the
  // rows are 4 KiB apart and share L1 sets.)
  const bool direct = row_layout && alpha == 1;
  const float* whole = nullptr;
  if (A.pre) {
    m_pad = A.pre->m_pad;
    whole = A.pre->data.get();
  } else if (!direct && m_pad * panel_depth(row_layout, k) <= kPackOnce) {
    float* w = whole_a_buffer();
    for (int64_t pc = 0; pc < k; pc += KC) {
      pack_a(ta, a, lda, 0, m, pc, std::min(KC, k - pc), alpha, w + pc * m_pad);
    }
    whole = w;
  }
  float* ap_buf = whole ? nullptr : pack_buffer(0);
  const float* ap = ap_buf;
  for (int64_t jc = 0; jc < n; jc += NC) {
    const int64_t nc = std::min(NC, n - jc);
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = std::min(KC, k - pc), depth = panel_depth(row_layout, kc);
      const bool overwrite = pc == 0 && beta == 0, last = pc + kc >= k;
      const float* bpk = pb.pack(pc, kc, jc, nc, bp);
      for (int64_t ic = 0; ic < m; ic += MC) {
        const int64_t mc = std::min(MC, m - ic);
        if (A.pre) {
          ap = A.pre->data.get() + pc * m_pad + (A.i_base + ic) * kc;
        } else if (whole) {
          ap = whole + pc * m_pad + ic * depth;
        } else if (direct) {
          // The last panel, when short, packed where its rows would be.
          if (int64_t edge = mc % MR) {
            pack_a_rows(a, lda, ic + mc - edge, edge, pc, kc, 1.0f, ap_buf + (mc - edge) * depth);
          }
        } else {
          pack_a(ta, a, lda, ic, mc, pc, kc, alpha, ap_buf);
        }
        for (int64_t jr = 0; jr < nc; jr += NR) {
          for (int64_t ir = 0; ir < mc; ir += MR) {
            const int64_t tile = (ic + ir) * ldc + jc + jr;
            const float* res =
                last && ep.residual ? ep.residual + (ic + ir) * res_ld + jc + jr : nullptr;
            const int64_t cols = std::min(NR, nc - jr);
            const bool in_place = direct && ir + MR <= mc;
            auto kernel = in_place ? (cols <= 16 ? micro_kernel<true, 0> : micro_kernel<false, 0>)
                          : row_layout
                              ? (cols <= 16 ? micro_kernel<true, KB> : micro_kernel<false, KB>)
                              : (cols <= 16 ? micro_kernel<true, 1> : micro_kernel<false, 1>);
            kernel(kc, in_place ? a + (ic + ir) * lda + pc : ap + ir * depth, lda, bpk + jr * kc,
                   c + tile, ldc, std::min(MR, mc - ir), cols, overwrite,
                   A.row_bias ? A.row_bias + ic + ir : nullptr, res, res_ld,
                   last ? ep.act() : fast::TailAct::None);
          }
        }
      }
    }
  }
}

// A buffer of at least n floats, 64-byte aligned, kept by the calling
// thread for operands packed once and read by all threads of a loop.
float* shared_pack_buffer(int which, int64_t n) {
  thread_local std::unique_ptr<float, FreeDeleter> bufs[2];
  thread_local int64_t sizes[2] = {0, 0};
  if (sizes[which] < n) {
    bufs[which].reset();
    void* p = std::aligned_alloc(64, size_t((n + 15) / 16 * 16) * sizeof(float));
    if (!p) throw std::bad_alloc();
    bufs[which].reset(static_cast<float*>(p));
    sizes[which] = n;
  }
  return bufs[which].get();
}

// `blocked` split over the current thread pool: by panels of NR columns when
// C is at least as wide as tall, else by panels of MR rows, a few ranges of
// panels per thread. An operand every range would pack whole (all of B for
// rows, all of A for columns) is packed once first, by the threads together
// over its depth blocks, and read by all. Every element of C is computed by
// one thread with the same depth blocks in the same order and the same
// packed values, so the result depends neither on the thread count nor on
// the split.
template <class PackB>
void blocked_parallel(int64_t m, int64_t n, int64_t k, const ARows& A, const PackB& pb, float beta,
                      float* c, int64_t ldc, const GemmEpilogue* ep = nullptr) {
  // The epilogue from C's row i0, column j0 on.
  auto ep_at = [&](int64_t i0, int64_t j0) {
    GemmEpilogue e = ep ? *ep : GemmEpilogue{};
    if (e.residual) e.residual += i0 * (e.residual_ld < 0 ? ldc : e.residual_ld) + j0;
    return e;
  };
  const double flops = 2.0 * double(m) * double(n) * double(k);
  const int64_t blocks = (k + KC - 1) / KC;
  if (n >= m) {
    const int64_t panels = (n + NR - 1) / NR;
    const double cost = flops / double(panels);
    // An A that each range would pack whole (transposed or scaled), as
    // blocked does when it is small: packed once, in the column layout.
    const int64_t m_pad = (m + MR - 1) / MR * MR;
    if (!A.pre && (A.ta || A.alpha != 1) && m_pad * k <= kPackOnce &&
        parallel_threads(panels, cost) > 1) {
      auto packed = std::make_shared<PackedA>();
      packed->m = m;
      packed->k = k;
      packed->m_pad = m_pad;
      float* buf = shared_pack_buffer(0, m_pad * k);
      packed->data = std::shared_ptr<float>(std::shared_ptr<float>(), buf);  // not owned
      parallel_for(blocks, double(m) * double(KC), [&](int64_t b0, int64_t b1) {
        for (int64_t pc = b0 * KC; pc < std::min(k, b1 * KC); pc += KC) {
          pack_a_columns(A.ta, A.a, A.lda, 0, m, pc, std::min(KC, k - pc), A.alpha,
                         buf + pc * m_pad);
        }
      });
      ARows pre{false, nullptr, 0, 1.0f, packed.get(), 0, A.row_bias};
      return blocked_parallel(m, n, k, pre, pb, beta, c, ldc, ep);
    }
    parallel_for(panels, cost, [&](int64_t p0, int64_t p1) {
      const int64_t j0 = p0 * NR, j1 = std::min(n, p1 * NR);
      blocked(m, j1 - j0, k, A, pb.from_column(j0), beta, c + j0, ldc, ep_at(0, j0));
    });
    return;
  }
  const int64_t panels = (m + MR - 1) / MR;
  const double cost = flops / double(panels);
  if constexpr (!std::is_same_v<PackB, PrepackedB>) {
    // Each range would pack all of B: packed once instead (when small).
    const int64_t n_pad = (n + NR - 1) / NR * NR;
    if (k * n_pad <= kPackOnce && parallel_threads(panels, cost) > 1) {
      float* buf = shared_pack_buffer(1, k * n_pad);
      parallel_for(blocks, double(n) * double(KC), [&](int64_t b0, int64_t b1) {
        for (int64_t pc = b0 * KC; pc < std::min(k, b1 * KC); pc += KC) {
          pb.pack(pc, std::min(KC, k - pc), 0, n, buf + pc * n_pad);
        }
      });
      return blocked_parallel(m, n, k, A, PrepackedB{buf, n_pad}, beta, c, ldc, ep);
    }
  }
  parallel_for(panels, cost, [&](int64_t p0, int64_t p1) {
    const int64_t i0 = p0 * MR, i1 = std::min(m, p1 * MR);
    blocked(i1 - i0, n, k, A.from_row(i0), pb, beta, c + i0 * ldc, ldc, ep_at(i0, 0));
  });
}

// A 64-byte-aligned array of n floats (at least one), for packed operands.
std::shared_ptr<float> aligned_floats(int64_t n) {
  const size_t bytes = (size_t(std::max<int64_t>(1, n)) * sizeof(float) + 63) / 64 * 64;
  void* mem = std::aligned_alloc(64, bytes);
  if (!mem) throw std::bad_alloc();
  return std::shared_ptr<float>(static_cast<float*>(mem), [](float* q) { std::free(q); });
}

// C = beta * C for the cases the blocked loop does not cover.
void scale_c(int64_t m, int64_t n, float beta, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0 ? 0.0f : beta * c[i * ldc + j];
  }
}

// C = C + residual, then the activation, as the micro-kernel's epilogue does (for
// products of depth 0).
void apply_epilogue(int64_t m, int64_t n, float* c, int64_t ldc, const GemmEpilogue* ep) {
  if (!ep) return;
  const int64_t res_ld = ep->residual_ld < 0 ? ldc : ep->residual_ld;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float v = c[i * ldc + j];
      if (ep->residual) v += ep->residual[i * res_ld + j];
      c[i * ldc + j] = fast::tail_act(v, ep->act());
    }
  }
}

// C = row_bias (per row, when given) or zeros, then the epilogue, for
// products of depth 0.
void fill_rows(int64_t m, int64_t n, const float* row_bias, float* c, int64_t ldc,
               const GemmEpilogue* ep) {
  for (int64_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, row_bias ? row_bias[i] : 0.0f);
  apply_epilogue(m, n, c, ldc, ep);
}

}  // namespace

bool sgemm_avx512_supported() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
}

void sgemm_avx512(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                  int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0 || (beta != 0 && beta != 1)) {
    scale_c(m, n, beta, c, ldc);
    if (k <= 0) return;
    beta = 1;
  }
  blocked_parallel(m, n, k, ARows{ta, a, lda, alpha}, MatrixB{tb, b, ldb}, beta, c, ldc);
}

std::shared_ptr<const PackedB> sgemm_avx512_pack_b(bool tb, int64_t k, int64_t n, const float* b,
                                                   int64_t ldb) {
  auto p = std::make_shared<PackedB>();
  p->k = k;
  p->n = n;
  p->n_pad = (n + NR - 1) / NR * NR;
  p->data = aligned_floats(k * p->n_pad);
  const MatrixB src{tb, b, ldb};
  for (int64_t pc = 0; pc < k; pc += KC) {
    src.pack(pc, std::min(KC, k - pc), 0, n, p->data.get() + pc * p->n_pad);
  }
  return p;
}

void sgemm_avx512_packed(bool ta, int64_t m, float alpha, const float* a, int64_t lda,
                         const PackedB& b, float beta, float* c, int64_t ldc,
                         const GemmEpilogue* ep) {
  const int64_t n = b.n, k = b.k;
  if (m <= 0 || n <= 0) return;
  if (k <= 0 || (beta != 0 && beta != 1)) {
    scale_c(m, n, beta, c, ldc);
    if (k <= 0) return apply_epilogue(m, n, c, ldc, ep);
    beta = 1;
  }
  blocked_parallel(m, n, k, ARows{ta, a, lda, alpha}, PrepackedB{b.data.get(), b.n_pad}, beta, c,
                   ldc, ep);
}

void sgemm_avx512_rows(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                       const RowSource& b, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) return scale_c(m, n, beta, c, ldc);
  blocked_parallel(m, n, k, ARows{false, a, lda, 1.0f}, SourceB{b}, beta, c, ldc);
}

void sgemm_avx512_pack_a_block(bool ta, const float* a, int64_t lda, int64_t m, int64_t kc,
                               float alpha, float* ap) {
  pack_a(ta, a, lda, 0, m, 0, kc, alpha, ap);
}

std::shared_ptr<const PackedA> sgemm_avx512_pack_a(int64_t m, int64_t k, const float* a,
                                                   int64_t lda) {
  auto p = std::make_shared<PackedA>();
  p->m = m;
  p->k = k;
  p->m_pad = (m + MR - 1) / MR * MR;
  p->data = aligned_floats(k * p->m_pad);
  for (int64_t pc = 0; pc < k; pc += KC) {
    pack_a_columns(false, a, lda, 0, m, pc, std::min(KC, k - pc), 1.0f,
                   p->data.get() + pc * p->m_pad);
  }
  return p;
}

void sgemm_avx512_rows_packed(const PackedA& a, int64_t n, const RowSource& b, float* c,
                              int64_t ldc, const float* row_bias, const GemmEpilogue* ep) {
  if (a.m <= 0 || n <= 0) return;
  if (a.k <= 0) return fill_rows(a.m, n, row_bias, c, ldc, ep);
  blocked_parallel(a.m, n, a.k, ARows{false, nullptr, 0, 1.0f, &a, 0, row_bias}, SourceB{b}, 0.0f,
                   c, ldc, ep);
}

void sgemm_avx512_packed_a(const PackedA& a, int64_t n, const float* b, int64_t ldb, float* c,
                           int64_t ldc, const float* row_bias, const GemmEpilogue* ep) {
  if (a.m <= 0 || n <= 0) return;
  if (a.k <= 0) return fill_rows(a.m, n, row_bias, c, ldc, ep);
  blocked_parallel(a.m, n, a.k, ARows{false, nullptr, 0, 1.0f, &a, 0, row_bias},
                   MatrixB{false, b, ldb}, 0.0f, c, ldc, ep);
}

}  // namespace oxs::eval
