// C = alpha * op(A) * op(B) + beta * C (row-major) for every element type:
// OpenBLAS (or an AVX-512 kernel, see below) for float and double, plain
// loops (accumulating in the compute type, wrapping integers) for the rest.
// Shared by MatMul, Gemm and Conv.
#pragma once

#include <cstdint>
#include <memory>

#include "oxs/eval/dispatch.h"
#include "oxs/eval/fast/vec_math.h"

namespace oxs::eval {

// The AVX-512 SGEMM of sgemm_avx512.cc, split over the current thread pool
// (parallel/thread_pool.h); same contract as gemm_f32. Call it only when
// sgemm_avx512_supported(). gemm_f32 uses it instead of OpenBLAS whenever the
// CPU has AVX-512; OXS_SGEMM=openblas in the environment turns it off.
bool sgemm_avx512_supported();
void sgemm_avx512(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                  int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
// Whether gemm_f32 would call sgemm_avx512 for this product.
bool gemm_f32_uses_avx512(int64_t m, int64_t n, int64_t k);
// Lets tests and comparisons turn the AVX-512 SGEMM off and on again (it
// starts on unless OXS_SGEMM=openblas).
void set_sgemm_avx512_enabled(bool on);

// A right operand B [k, n] that is not stored anywhere (Conv's im2col
// matrix): fill(self, p0, rows, j0, len, dst, stride, row_step) writes
// B(p0 + i, j0 + q) for i in [0, rows), q in [0, len) to
// dst[i * row_step + (q / 32) * stride + q % 32] (the packed panel layout).
struct RowSource {
  const void* self;
  void (*fill)(const void* self, int64_t p0, int64_t rows, int64_t j0, int64_t len, float* dst,
               int64_t stride, int64_t row_step);
};
// C = A [m, k] (row-major, lda) x B + beta * C, beta 0 or 1, with the
// AVX-512 kernel; B is built while packing, never stored whole.
void sgemm_avx512_rows(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                       const RowSource& b, float beta, float* c, int64_t ldc);

// B [k, n] (B^T stored when tb) packed once into the panels sgemm_avx512
// reads, for a constant right operand (MatMul/Gemm weights) used on every
// run: a session packs it on the first run and keeps it.
struct PackedB {
  int64_t k = 0, n = 0, n_pad = 0;
  std::shared_ptr<float> data;
};
std::shared_ptr<const PackedB> sgemm_avx512_pack_b(bool tb, int64_t k, int64_t n, const float* b,
                                                   int64_t ldb);

// The packing of sgemm_avx512, exposed for tests: one depth block of
// alpha * op(A) (m rows, kc deep; A(i, p) at a[i * lda + p], or a[p * lda + i]
// when ta) as panels of 8 rows, rows past m zero. A^T: the column layout,
// ap[(i / 8) * 8 * kc + p * 8 + i % 8]; A: the row layout, with d = kc
// rounded up to 16, ap[(i / 8) * 8 * d + (p / 16) * 128 + (i % 8) * 16 +
// p % 16], zeros past kc. ap holds (m + 7) / 8 * 8 * d floats.
void sgemm_avx512_pack_a_block(bool ta, const float* a, int64_t lda, int64_t m, int64_t kc,
                               float alpha, float* ap);

// A [m, k] (row-major, alpha 1) packed once, for a constant left operand
// (Conv's weights, one per group): depth blocks of 256 (the last shorter),
// block pc at data + pc * m_pad holding panels of 8 rows, panel p at
// p * 8 * kc, its element (i, kk) at kk * 8 + i (the column layout above).
struct PackedA {
  int64_t m = 0, k = 0, m_pad = 0;
  std::shared_ptr<float> data;
};
std::shared_ptr<const PackedA> sgemm_avx512_pack_a(int64_t m, int64_t k, const float* a,
                                                   int64_t lda);
// What the two calls below do to C's values as they store them (Conv's
// fused Add and Relu or HardSwish, conv/conv_fusion.h): add `residual` (laid
// out as C, rows residual_ld apart; none when null), then max(v, 0) when
// `relu`, or HardSwish (fast::hard_swish_vec) when `hard_swish` (never both).
// The sums are those of separate passes: (A x B + row_bias) + residual.
struct GemmEpilogue {
  const float* residual = nullptr;
  bool relu = false;
  // The residual's row stride: -1 for C's ldc; 0 repeats one row for
  // every row of C (MatMul's bias, matmul.cc).
  int64_t residual_ld = -1;
  bool hard_swish = false;
  fast::TailAct act() const {
    return relu ? fast::TailAct::Relu : hard_swish ? fast::TailAct::HardSwish : fast::TailAct::None;
  }
};
// C = alpha * op(A) [m, k] x B + beta * C with a packed B, then the
// epilogue when given (beta 0 or 1 then).
void sgemm_avx512_packed(bool ta, int64_t m, float alpha, const float* a, int64_t lda,
                         const PackedB& b, float beta, float* c, int64_t ldc,
                         const GemmEpilogue* ep = nullptr);
// C [m, n] = A x B + row_bias (one value per row of C; zeros when null),
// C's old contents ignored, then the epilogue when given.
void sgemm_avx512_rows_packed(const PackedA& a, int64_t n, const RowSource& b, float* c,
                              int64_t ldc, const float* row_bias, const GemmEpilogue* ep = nullptr);
void sgemm_avx512_packed_a(const PackedA& a, int64_t n, const float* b, int64_t ldb, float* c,
                           int64_t ldc, const float* row_bias, const GemmEpilogue* ep = nullptr);

void gemm_f32(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
              int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void gemm_f64(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
              int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, compute_t<T> alpha, const T* a,
          int64_t lda, const T* b, int64_t ldb, compute_t<T> beta, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    gemm_f32(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    gemm_f64(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    using C = compute_t<T>;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        C acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          C x = C(ta ? a[p * lda + i] : a[i * lda + p]);
          C y = C(tb ? b[j * ldb + p] : b[p * ldb + j]);
          if constexpr (std::is_integral_v<C>) {
            using U = std::make_unsigned_t<C>;
            acc = C(U(acc) + U(x) * U(y));
          } else {
            acc += x * y;
          }
        }
        C prev = beta == C(0) ? C(0) : C(c[i * ldc + j]);
        if constexpr (std::is_integral_v<C>) {
          using U = std::make_unsigned_t<C>;
          c[i * ldc + j] = T(C(U(alpha) * U(acc) + U(beta) * U(prev)));
        } else {
          c[i * ldc + j] = T(alpha * acc + beta * prev);
        }
      }
    }
  }
}

}  // namespace oxs::eval
