// fast::small_m_gemm (src/oxs/eval/fast/small_gemm.cc), the path of
// gemm_f32 for 1 to 4 rows of A: against a double-precision loop within the
// float32 error bound of a sum of k products, for every transpose, rows
// 1..4, column counts around its groups of 6 and 8 rows of B^T and its
// 1024-column tiles, depths that are not multiples of 16 (nor of 4), alpha
// and beta, leading dimensions wider than the matrices; and the same bits
// at any thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "eval/gemm_shape.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/parallel/thread_pool.h"

namespace oxs::eval {
namespace {

using Shape = GemmShape;

// Operands in storage order, with leading dimensions 3 wider than needed (to
// catch row-stride mistakes).
struct Operands {
  int64_t lda, ldb, ldc;
  std::vector<float> a, b, c;
};

Operands operands(const Shape& s, unsigned seed) {
  Operands o;
  o.lda = (s.ta ? s.m : s.k) + 3;
  o.ldb = (s.tb ? s.k : s.n) + 3;
  o.ldc = s.n + 3;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  o.a.resize(size_t((s.ta ? s.k : s.m) * o.lda));
  o.b.resize(size_t((s.tb ? s.n : s.k) * o.ldb));
  o.c.resize(size_t(s.m * o.ldc));
  for (auto* v : {&o.a, &o.b, &o.c}) {
    for (float& x : *v) x = u(rng);
  }
  if (s.beta == 0) std::fill(o.c.begin(), o.c.end(), NAN);  // beta 0 must ignore C, NaN included
  return o;
}

std::vector<float> run(const Shape& s, Operands o) {
  const bool done = fast::small_m_gemm(s.ta, s.tb, s.m, s.n, s.k, s.alpha, o.a.data(), o.lda,
                                       o.b.data(), o.ldb, s.beta, o.c.data(), o.ldc);
  EXPECT_TRUE(done) << "the small-m path declined " << s.describe();
  return o.c;
}

// C against the double loop: each element within the bound of float32
// rounding of its computation (k fused multiply-adds and at most 4 lane
// additions along any path of the sum, then alpha, beta and one addition),
// (k + 8) units of roundoff of the sum of magnitudes; the padding columns
// untouched.
void check(const Shape& s) {
  SCOPED_TRACE(s.describe());
  const Operands o = operands(s, unsigned(s.m * 131 + s.n * 7 + s.k));
  const std::vector<float> c = run(s, o);
  const double u = std::ldexp(1.0, -24);
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < o.ldc; ++j) {
      const size_t at = size_t(i * o.ldc + j);
      if (j >= s.n) {
        ASSERT_EQ(std::isnan(c[at]), std::isnan(o.c[at])) << "padding written at " << i << "," << j;
        if (!std::isnan(o.c[at])) {
          ASSERT_EQ(c[at], o.c[at]) << "padding written at " << i << "," << j;
        }
        continue;
      }
      double acc = 0, mag = 0;
      for (int64_t p = 0; p < s.k; ++p) {
        const double x = s.ta ? o.a[size_t(p * o.lda + i)] : o.a[size_t(i * o.lda + p)];
        const double y = s.tb ? o.b[size_t(j * o.ldb + p)] : o.b[size_t(p * o.ldb + j)];
        acc += x * y;
        mag += std::fabs(x * y);
      }
      const double old = s.beta == 0 ? 0.0 : double(o.c[at]);
      const double want = s.alpha * acc + s.beta * old;
      const double bound =
          double(s.k + 8) * u * (std::fabs(s.alpha) * mag + std::fabs(s.beta * old)) + 1e-30;
      ASSERT_NEAR(c[at], want, bound) << "at " << i << "," << j;
    }
  }
}

TEST(SmallGemm, MatchesTheDoubleLoopWithinFloatRounding) {
  if (!fast::enabled()) GTEST_SKIP() << "this CPU has no AVX-512F/DQ (the fast paths are off)";
  for (int64_t m = 1; m <= fast::kSmallGemmRows; ++m) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        // Columns: one, fewer than a group, around groups of 6 and 8, a
        // short last vector; depths: 1, under a vector, 16 + 1, 4 * 83 + 1.
        for (int64_t n : {1, 5, 13, 17, 48, 101}) {
          for (int64_t k : {1, 7, 17, 333}) check({m, n, k, ta, tb, 1, 0});
        }
        check({m, 37, 29, ta, tb, 0.5f, 1});
        check({m, 64, 300, ta, tb, -2, 0.25f});
        // Over one column tile of the plain-B path, and a depth past 1024.
        check({m, 1100, 19, ta, tb, 1.5f, -1});
        check({m, 23, 1031, ta, tb, 1, 0});
      }
    }
  }
}

TEST(SmallGemm, MobilenetClassifierShapes) {
  if (!fast::enabled()) GTEST_SKIP() << "this CPU has no AVX-512F/DQ (the fast paths are off)";
  check({1, 1280, 960, false, true, 1, 1});
  check({1, 1000, 1280, false, true, 1, 1});
  check({1, 1000, 1280, false, false, 1, 0});  // MatMul with a [K, N] weight
}

// Each row of C is summed in the same order whatever else is computed with
// it: the bits of a row alone (m = 1), and of any thread count.
TEST(SmallGemm, SameBitsForAnyRowCountAndThreadCount) {
  if (!fast::enabled()) GTEST_SKIP() << "this CPU has no AVX-512F/DQ (the fast paths are off)";
  ThreadPool pool(3);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (int64_t m = 2; m <= fast::kSmallGemmRows; ++m) {
        const Shape s{m, 1301, 333, ta, tb, 0.75f, 0.5f};
        SCOPED_TRACE(s.describe());
        const Operands o = operands(s, 9);
        const std::vector<float> one = run(s, o);
        std::vector<float> threads;
        {
          ScopedThreadPool scope(&pool);
          ASSERT_GE(parallel_threads((s.n + 7) / 8, 2.0 * double(s.m * s.k * 8)), 3);
          threads = run(s, o);
        }
        ASSERT_EQ(one, threads) << "3 threads changed the bits";
        for (int64_t i = 0; i < m; ++i) {
          // Row i alone: A's row i (column i when transposed) as a 1-row A.
          const Shape r{1, s.n, s.k, false, tb, s.alpha, s.beta};
          Operands oi = operands(r, 9);
          for (int64_t p = 0; p < s.k; ++p) {
            oi.a[size_t(p)] = ta ? o.a[size_t(p * o.lda + i)] : o.a[size_t(i * o.lda + p)];
          }
          oi.b = o.b;  // same ldb: r's ldb is o.ldb
          for (int64_t j = 0; j < s.n; ++j) oi.c[size_t(j)] = o.c[size_t(i * o.ldc + j)];
          const std::vector<float> alone = run(r, oi);
          for (int64_t j = 0; j < s.n; ++j) {
            ASSERT_EQ(alone[size_t(j)], one[size_t(i * o.ldc + j)]) << "row " << i << " col " << j;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace oxs::eval
