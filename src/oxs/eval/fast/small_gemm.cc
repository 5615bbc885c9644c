// C = alpha * op(A) x op(B) + beta * C when A has very few rows (a batch-1
// classifier: [1, 960] x [960, 1280]^T, a decoder's one new token). The
// blocked SGEMM would pack all of B and compute 8-row tiles for 1 live row;
// here B is read once, straight from where it is stored, and the time is
// that of streaming it from memory (a model's weights are rarely still in
// the caches when its classifier runs). So both forms keep many independent
// streams of B in flight and prefetch ahead of them:
//  - B^T stored (Gemm's transB): each element of C is a dot product of a row
//    of A with a row of B. A group of kGroup rows of B is read side by side
//    (one accumulator per row of A and of B, the loads of A shared); with
//    fewer than 8 rows in the group the next group's rows are prefetched at
//    the same depth (with 8 the hardware prefetcher keeps up on its own and
//    the prefetches only cost time).
//  - B stored plainly: each row of C is a sum of rows of B scaled by A's
//    elements. B is read row after row in column tiles (4 rows side by
//    side), the sums kept in a small buffer that stays in L1, the next 4
//    rows prefetched.
// Columns of C are split over the thread pool; each element of C is summed
// in one fixed order whatever the split (the same instructions on the same
// lanes), so results do not depend on the thread count. The orders:
// B^T: lane l of the element's accumulator sums the products p = l mod 16
// in increasing p (one fused multiply-add each), then the 16 lanes are added
// by sum_ps; B: one fused multiply-add per p, in increasing p. Neither
// depends on how many rows A has nor on whether A is stored transposed (a
// row of C has the bits of that row of A alone), but the two orders differ:
// B read transposed does not give the bits of B stored plainly.
#include <algorithm>
#include <vector>

#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/fast/vec_math.h"
#include "oxs/eval/parallel/thread_pool.h"

namespace oxs::eval::fast {

namespace {

// Rows of B^T read side by side for M rows of A (M * kGroup accumulators
// plus the M loads of A within the 32 vector registers). Measured on a
// Sapphire Rapids core streaming B from memory (bench/gemv.sh): 8 rows
// beat 4, 12 and 16 for one row of A; 6 rows with prefetching beat 4 for
// four rows of A.
template <int M>
constexpr int kGroup = M <= 2 ? 8 : 6;

// sums[i * R + r] = sum_p a[i * lda + p] * b[r][p] for the R = kGroup<M>
// rows b[r] of B^T; `next` are the rows to prefetch.
template <int M>
OXS_AVX512 void dot_group(const float* a, int64_t lda, const float* const* b,
                          const float* const* next, int64_t k, float* sums) {
  constexpr int R = kGroup<M>;
  __m512 acc[M][R];
  for (int i = 0; i < M; ++i) {
    for (int r = 0; r < R; ++r) acc[i][r] = _mm512_setzero_ps();
  }
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) {
    __m512 x[M];
    for (int i = 0; i < M; ++i) x[i] = _mm512_loadu_ps(a + i * lda + p);
    for (int r = 0; r < R; ++r) {
      if constexpr (R < 8) _mm_prefetch(reinterpret_cast<const char*>(next[r] + p), _MM_HINT_T0);
      __m512 y = _mm512_loadu_ps(b[r] + p);
      // Keeps y in a register: GCC would fold the load into each of the M
      // multiply-adds, M loads of the same line (1.3x-1.7x slower for 2-3
      // rows of A when B is in L2).
      if constexpr (M > 1) asm("" : "+v"(y));
      for (int i = 0; i < M; ++i) acc[i][r] = _mm512_fmadd_ps(x[i], y, acc[i][r]);
    }
  }
  if (p < k) {  // the zero lanes add +0 to each sum: the lanes' order is kept
    const __mmask16 m = first_lanes(k - p);
    __m512 x[M];
    for (int i = 0; i < M; ++i) x[i] = _mm512_maskz_loadu_ps(m, a + i * lda + p);
    for (int r = 0; r < R; ++r) {
      const __m512 y = _mm512_maskz_loadu_ps(m, b[r] + p);
      for (int i = 0; i < M; ++i) acc[i][r] = _mm512_fmadd_ps(x[i], y, acc[i][r]);
    }
  }
  for (int i = 0; i < M; ++i) {
    for (int r = 0; r < R; ++r) sums[i * R + r] = sum_ps(acc[i][r]);
  }
}

// C[:, j0:j1) for B^T stored (rows of B^T at b + j * ldb); A's rows at
// a + i * lda, contiguous.
template <int M>
void dots(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t n, int64_t k,
          int64_t j0, int64_t j1, float alpha, float beta, float* c, int64_t ldc) {
  constexpr int R = kGroup<M>;
  const float* rows[R];
  const float* next[R];
  float sums[M * R];
  for (int64_t j = j0; j < j1; j += R) {
    // A short last group repeats its last row (computed, not stored) and
    // prefetches its own rows again.
    for (int r = 0; r < R; ++r) {
      rows[r] = b + std::min(j + r, n - 1) * ldb;
      next[r] = j + R + r < n ? b + (j + R + r) * ldb : rows[r];
    }
    dot_group<M>(a, lda, rows, next, k, sums);
    const int64_t cols = std::min<int64_t>(R, j1 - j);
    for (int i = 0; i < M; ++i) {
      float* ci = c + i * ldc + j;
      for (int64_t r = 0; r < cols; ++r) {
        const float v = alpha * sums[i * R + r];
        ci[r] = beta == 0 ? v : v + beta * ci[r];
      }
    }
  }
}

// Columns of B summed per pass over a tile: M rows of sums stay in L1.
constexpr int64_t kTile = 1024;
// Rows of B read side by side in a pass (8 was no faster, and its 4 x 8
// broadcasts of A would not fit the registers). The rows of the next pass
// are prefetched: without it a pass's 4 streams lose about 15% (one row of
// A) to 30% (four rows); two or four passes ahead was no better.
constexpr int64_t kRowsPerPass = 4;

// s[i][q] += sum_{u < P} x(i, p + u) * B[p + u, j + q] for q in [0, cols),
// one fused multiply-add per row in increasing row order; `ahead` is the
// distance (in floats) of the rows to prefetch.
template <int M, int P>
OXS_AVX512 void add_rows(const float* x, int64_t xr, int64_t xc, const float* b, int64_t ldb,
                         int64_t p, int64_t j, int64_t cols, int64_t ahead, bool first, float* s) {
  __m512 xv[M][P];
  for (int i = 0; i < M; ++i) {
    for (int u = 0; u < P; ++u) xv[i][u] = _mm512_set1_ps(x[i * xr + (p + u) * xc]);
  }
  const float* row = b + p * ldb + j;
  for (int64_t q = 0; q < cols; q += 16) {
    const __mmask16 m = first_lanes(cols - q);
    __m512 acc[M];
    for (int i = 0; i < M; ++i) {
      acc[i] = first ? _mm512_setzero_ps() : _mm512_load_ps(s + i * kTile + q);
    }
    for (int u = 0; u < P; ++u) {
      const float* r = row + u * ldb + q;
      if (ahead) _mm_prefetch(reinterpret_cast<const char*>(r + ahead), _MM_HINT_T0);
      const __m512 y = _mm512_maskz_loadu_ps(m, r);
      for (int i = 0; i < M; ++i) acc[i] = _mm512_fmadd_ps(xv[i][u], y, acc[i]);
    }
    for (int i = 0; i < M; ++i) _mm512_store_ps(s + i * kTile + q, acc[i]);
  }
}

// C[:, j0:j1) for B stored [k, n]; A(i, p) at x[i * xr + p * xc].
template <int M>
void combinations(const float* x, int64_t xr, int64_t xc, const float* b, int64_t ldb, int64_t k,
                  int64_t j0, int64_t j1, float alpha, float beta, float* c, int64_t ldc) {
  alignas(64) float s[M * kTile];
  for (int64_t j = j0; j < j1; j += kTile) {
    const int64_t cols = std::min(kTile, j1 - j);
    int64_t p = 0;
    for (; p + kRowsPerPass <= k; p += kRowsPerPass) {
      // Prefetch the next pass's rows; not past the last row of B.
      const int64_t ahead = p + 2 * kRowsPerPass <= k ? kRowsPerPass * ldb : 0;
      add_rows<M, kRowsPerPass>(x, xr, xc, b, ldb, p, j, cols, ahead, p == 0, s);
    }
    for (; p < k; ++p) add_rows<M, 1>(x, xr, xc, b, ldb, p, j, cols, 0, p == 0, s);
    for (int i = 0; i < M; ++i) {
      float* ci = c + i * ldc + j;
      for (int64_t q = 0; q < cols; ++q) {
        const float v = alpha * s[i * kTile + q];
        ci[q] = beta == 0 ? v : v + beta * ci[q];
      }
    }
  }
}

template <int M>
void small_gemm(bool ta, bool tb, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const double flops = 2.0 * M * double(k);
  if (tb) {
    // The dot products read A's rows contiguous: gather A^T's columns once.
    std::vector<float> packed;
    if (ta) {
      packed.resize(size_t(M * k));
      for (int i = 0; i < M; ++i) {
        for (int64_t p = 0; p < k; ++p) packed[size_t(i * k + p)] = a[p * lda + i];
      }
      a = packed.data();
      lda = k;
    }
    constexpr int R = kGroup<M>;
    parallel_for((n + R - 1) / R, flops * R, [&](int64_t g0, int64_t g1) {
      dots<M>(a, lda, b, ldb, n, k, g0 * R, std::min(g1 * R, n), alpha, beta, c, ldc);
    });
  } else {
    const int64_t xr = ta ? 1 : lda, xc = ta ? lda : 1;
    parallel_for((n + 15) / 16, flops * 16, [&](int64_t v0, int64_t v1) {
      combinations<M>(a, xr, xc, b, ldb, k, v0 * 16, std::min(v1 * 16, n), alpha, beta, c, ldc);
    });
  }
}

}  // namespace

bool small_m_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                  int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (!enabled() || m <= 0 || m > kSmallGemmRows || n <= 0 || k <= 0) return false;
  static_assert(kSmallGemmRows == 4);
  switch (m) {
    case 1:
      small_gemm<1>(ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      break;
    case 2:
      small_gemm<2>(ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      break;
    case 3:
      small_gemm<3>(ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      break;
    default:
      small_gemm<4>(ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      break;
  }
  return true;
}

}  // namespace oxs::eval::fast
