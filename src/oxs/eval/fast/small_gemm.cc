// C = alpha * op(A) x op(B) + beta * C when A has very few rows (a batch-1
// classifier: [1, 960] x [960, 1280]^T). The blocked SGEMM would pack all of
// B and compute 8-row tiles for 1 live row; here each row of C is a set of
// dot products (B^T stored) or a sum of scaled rows of B, read once,
// straight from B. Columns are split over the thread pool; each element is
// summed in one fixed order, so results do not depend on the thread count.
#include <algorithm>

#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/fast/vec_math.h"
#include "oxs/eval/parallel/thread_pool.h"

namespace oxs::eval::fast {

namespace {

// sum_p x[p] * y[p].
OXS_AVX512 float dot(const float* x, const float* y, int64_t k) {
  __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                   _mm512_setzero_ps()};
  int64_t p = 0;
  for (; p + 64 <= k; p += 64) {
    for (int u = 0; u < 4; ++u) {
      acc[u] =
          _mm512_fmadd_ps(_mm512_loadu_ps(x + p + 16 * u), _mm512_loadu_ps(y + p + 16 * u), acc[u]);
    }
  }
  for (; p < k; p += 16) {
    const __mmask16 m = first_lanes(k - p);
    acc[0] =
        _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + p), _mm512_maskz_loadu_ps(m, y + p), acc[0]);
  }
  return sum_ps(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
}

// out[j] = sum_p x[p * xs] * B[p, j] for j in [j0, j1).
OXS_AVX512 void row_combination(const float* x, int64_t xs, const float* b, int64_t ldb, int64_t k,
                                int64_t j0, int64_t j1, float* out) {
  for (int64_t j = j0; j < j1; j += 64) {
    const int64_t cols = std::min<int64_t>(64, j1 - j);
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                     _mm512_setzero_ps()};
    for (int64_t p = 0; p < k; ++p) {
      const __m512 xv = _mm512_set1_ps(x[p * xs]);
      const float* row = b + p * ldb + j;
      for (int u = 0; u < 4; ++u) {
        const __mmask16 m = first_lanes(cols - 16 * u);
        acc[u] = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(m, row + 16 * u), acc[u]);
      }
    }
    for (int u = 0; u < 4; ++u) {
      _mm512_mask_storeu_ps(out + j - j0 + 16 * u, first_lanes(cols - 16 * u), acc[u]);
    }
  }
}

}  // namespace

bool small_m_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                  int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (!enabled() || m <= 0 || m > kSmallGemmRows || n <= 0 || k <= 0) return false;
  parallel_for(n, double(m) * double(k) * 2, [&](int64_t j0, int64_t j1) {
    std::vector<float> sums(size_t(j1 - j0));
    for (int64_t i = 0; i < m; ++i) {
      const float* x = ta ? a + i : a + i * lda;
      const int64_t xs = ta ? lda : 1;
      if (tb) {
        std::vector<float> xrow;
        const float* xr = x;
        if (xs != 1) {  // gather the column of A once
          xrow.resize(size_t(k));
          for (int64_t p = 0; p < k; ++p) xrow[size_t(p)] = x[p * xs];
          xr = xrow.data();
        }
        for (int64_t j = j0; j < j1; ++j) sums[size_t(j - j0)] = dot(xr, b + j * ldb, k);
      } else {
        row_combination(x, xs, b, ldb, k, j0, j1, sums.data());
      }
      float* ci = c + i * ldc;
      for (int64_t j = j0; j < j1; ++j) {
        const float v = alpha * sums[size_t(j - j0)];
        ci[j] = beta == 0 ? v : v + beta * ci[j];
      }
    }
  });
  return true;
}

}  // namespace oxs::eval::fast
