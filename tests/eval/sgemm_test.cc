// The AVX-512 SGEMM (src/oxs/eval/math/sgemm_avx512.cc) and the gemm_f32 front
// against a naive double-precision loop: edge tiles (sizes that are not
// multiples of the 8x32 register tile), depths over one packed block,
// transposes, alpha/beta, leading dimensions wider than the matrix.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "oxs/eval/math/gemm.h"

namespace oxs::eval {
namespace {

struct Shape {
  int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;
};

using Gemm = void (*)(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t,
                      const float*, int64_t, float, float*, int64_t);

void check(Gemm f, const Shape& s) {
  SCOPED_TRACE(::testing::Message()
               << "m=" << s.m << " n=" << s.n << " k=" << s.k << " ta=" << s.ta << " tb=" << s.tb
               << " alpha=" << s.alpha << " beta=" << s.beta);
  std::mt19937 rng(unsigned(s.m * 131 + s.n * 7 + s.k));
  std::uniform_real_distribution<float> u(-1, 1);
  // Leading dimensions 3 wider than needed, to catch row-stride mistakes.
  const int64_t lda = (s.ta ? s.m : s.k) + 3, ldb = (s.tb ? s.k : s.n) + 3, ldc = s.n + 3;
  std::vector<float> a(size_t((s.ta ? s.k : s.m) * lda)), b(size_t((s.tb ? s.n : s.k) * ldb));
  std::vector<float> c(size_t(s.m * ldc));
  for (auto& v : a) v = u(rng);
  for (auto& v : b) v = u(rng);
  for (auto& v : c) v = u(rng);
  if (s.beta == 0) std::fill(c.begin(), c.end(), NAN);  // beta 0 must ignore C, NaN included
  std::vector<float> want = c;
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < s.k; ++p) {
        double x = s.ta ? a[size_t(p * lda + i)] : a[size_t(i * lda + p)];
        double y = s.tb ? b[size_t(j * ldb + p)] : b[size_t(p * ldb + j)];
        acc += x * y;
      }
      double old = s.beta == 0 ? 0.0 : double(c[size_t(i * ldc + j)]);
      want[size_t(i * ldc + j)] = float(s.alpha * acc + s.beta * old);
    }
  }
  f(s.ta, s.tb, s.m, s.n, s.k, s.alpha, a.data(), lda, b.data(), ldb, s.beta, c.data(), ldc);
  double tol = 1e-5 * double(s.k + 1);
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      size_t at = size_t(i * ldc + j);
      if (j >= s.n) {  // the padding columns must be left alone
        if (std::isnan(want[at])) {
          ASSERT_TRUE(std::isnan(c[at])) << "padding written at " << i << "," << j;
        } else {
          ASSERT_EQ(c[at], want[at]) << "padding written at " << i << "," << j;
        }
        continue;
      }
      ASSERT_NEAR(c[at], want[at], tol) << "at " << i << "," << j;
    }
  }
}

std::vector<Shape> shapes() {
  std::vector<Shape> v;
  for (int64_t m : {1, 7, 8, 9, 33, 130})
    for (int64_t n : {1, 15, 16, 17, 32, 33, 100})
      for (int64_t k : {1, 5, 64}) v.push_back({m, n, k, false, false, 1, 0});
  // Depth over one packed block (256), rows over one (128), columns over one (2048).
  v.push_back({20, 40, 600, false, false, 1, 1});
  v.push_back({300, 50, 70, false, false, 1, 0});
  v.push_back({9, 2100, 30, false, false, 1, 1});
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      v.push_back({13, 37, 29, ta, tb, 1, 0});
      v.push_back({13, 37, 300, ta, tb, 0.5f, 1});
      v.push_back({24, 64, 17, ta, tb, -2, 0.25f});
    }
  v.push_back({5, 6, 0, false, false, 1, 0});  // empty depth: C = beta * C
  v.push_back({5, 6, 0, false, false, 1, 0.5f});
  return v;
}

TEST(Sgemm, Avx512KernelMatchesNaiveLoop) {
  if (!sgemm_avx512_supported()) GTEST_SKIP() << "this CPU has no AVX-512F";
  for (const Shape& s : shapes()) check(&sgemm_avx512, s);
}

TEST(Sgemm, GemmF32MatchesNaiveLoop) {  // whichever implementation gemm_f32 picks
  for (const Shape& s : shapes()) check(&gemm_f32, s);
}

TEST(Sgemm, GemmF32ThroughOpenBlasMatchesNaiveLoop) {
  struct Restore {
    ~Restore() { set_sgemm_avx512_enabled(true); }
  } restore;
  set_sgemm_avx512_enabled(false);
  for (const Shape& s : shapes()) check(&gemm_f32, s);
}

}  // namespace
}  // namespace oxs::eval
