// The AVX-512 SGEMM (src/oxs/eval/math/sgemm_avx512.cc) and the gemm_f32 front
// against a naive double-precision loop: edge tiles (sizes that are not
// multiples of the 8x32 register tile), depths over one packed block,
// transposes, alpha/beta, leading dimensions wider than the matrix.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "eval/gemm_shape.h"
#include "oxs/eval/math/gemm.h"
#include "oxs/eval/parallel/thread_pool.h"

namespace oxs::eval {
namespace {

using Shape = GemmShape;

using Gemm = void (*)(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t,
                      const float*, int64_t, float, float*, int64_t);

void check(Gemm f, const Shape& s) {
  SCOPED_TRACE(s.describe());
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

// Bit patterns, so that -0 and NaN payloads count.
uint32_t bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// The packed A layouts by their definition (gemm.h): 8-row panels, rows
// past m 0; A^T in the column layout, A in the row layout (runs of 16).
TEST(SgemmPacking, PackABlockIsTheScalarLayoutBitForBit) {
  if (!sgemm_avx512_supported()) GTEST_SKIP() << "this CPU has no AVX-512F";
  for (bool ta : {false, true})
    for (int64_t m : {1, 5, 8, 9, 16, 23})
      for (int64_t kc : {1, 2, 7, 15, 16, 17, 31, 33, 64, 100})
        for (float alpha : {1.0f, -2.0f, 0.3f}) {
          SCOPED_TRACE(::testing::Message()
                       << "ta=" << ta << " m=" << m << " kc=" << kc << " alpha=" << alpha);
          const int64_t lda = (ta ? m : kc) + 3;
          std::vector<float> a = random_floats(size_t((ta ? kc : m) * lda), unsigned(m * kc));
          a[0] = -0.0f;  // alpha * -0 keeps its sign in the product
          const int64_t m_pad = (m + 7) / 8 * 8, d = ta ? kc : (kc + 15) / 16 * 16;
          std::vector<float> want(size_t(m_pad * d), 0.0f), got(want.size(), NAN);
          for (int64_t i = 0; i < m; ++i)
            for (int64_t p = 0; p < kc; ++p) {
              const int64_t at = ta ? (i / 8) * 8 * d + p * 8 + i % 8
                                    : (i / 8) * 8 * d + (p / 16) * 128 + (i % 8) * 16 + p % 16;
              want[size_t(at)] = alpha * a[size_t(ta ? p * lda + i : i * lda + p)];
            }
          sgemm_avx512_pack_a_block(ta, a.data(), lda, m, kc, alpha, got.data());
          for (size_t x = 0; x < want.size(); ++x) ASSERT_EQ(bits(got[x]), bits(want[x])) << x;
        }
}

// A PackedA (Conv's weights) keeps the column layout in depth blocks of 256.
TEST(SgemmPacking, PackedAIsTheColumnLayoutBitForBit) {
  if (!sgemm_avx512_supported()) GTEST_SKIP() << "this CPU has no AVX-512F";
  constexpr int64_t KC = 256;
  for (int64_t m : {1, 8, 13, 40})
    for (int64_t k : {1, 9, 16, 33, 256, 300}) {
      SCOPED_TRACE(::testing::Message() << "m=" << m << " k=" << k);
      const int64_t lda = k + 5;
      std::vector<float> a = random_floats(size_t(m * lda), unsigned(m + k));
      auto packed = sgemm_avx512_pack_a(m, k, a.data(), lda);
      const int64_t m_pad = (m + 7) / 8 * 8;
      ASSERT_EQ(packed->m_pad, m_pad);
      std::vector<float> want(size_t(m_pad * k), 0.0f);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t p = 0; p < k; ++p) {
          const int64_t pc = p / KC * KC, kc = std::min(KC, k - pc);
          want[size_t(pc * m_pad + (i / 8) * 8 * kc + (p - pc) * 8 + i % 8)] =
              a[size_t(i * lda + p)];
        }
      for (size_t x = 0; x < want.size(); ++x)
        ASSERT_EQ(bits(packed->data.get()[x]), bits(want[x])) << x;
    }
}

// The packed B layout by its definition (gemm.h: PackedB): depth blocks of
// 256, each holding 32-column panels with 32 values per depth step.
TEST(SgemmPacking, PackBIsTheScalarLayoutBitForBit) {
  if (!sgemm_avx512_supported()) GTEST_SKIP() << "this CPU has no AVX-512F";
  constexpr int64_t KC = 256, NR = 32;
  for (bool tb : {false, true})
    for (int64_t k : {1, 3, 16, 17, 255, 256, 300})
      for (int64_t n : {1, 7, 8, 9, 31, 32, 33, 70}) {
        SCOPED_TRACE(::testing::Message() << "tb=" << tb << " k=" << k << " n=" << n);
        const int64_t ldb = (tb ? k : n) + 3;
        std::vector<float> b = random_floats(size_t((tb ? n : k) * ldb), unsigned(k * n));
        b[1] = NAN;
        const int64_t n_pad = (n + NR - 1) / NR * NR;
        std::vector<float> want(size_t(k * n_pad), 0.0f);
        for (int64_t p = 0; p < k; ++p)
          for (int64_t j = 0; j < n; ++j) {
            const int64_t pc = p / KC * KC, kc = std::min(KC, k - pc);
            want[size_t(pc * n_pad + (j / NR) * NR * kc + (p - pc) * NR + j % NR)] =
                b[size_t(tb ? j * ldb + p : p * ldb + j)];
          }
        auto packed = sgemm_avx512_pack_b(tb, k, n, b.data(), ldb);
        const float* got = packed->data.get();
        for (size_t x = 0; x < want.size(); ++x) ASSERT_EQ(bits(got[x]), bits(want[x])) << x;
      }
}

// Two threads give the same bits as one, over the edge shapes (columns
// split when C is wide, rows when tall).
TEST(SgemmPacking, TwoThreadsGiveTheBitsOfOne) {
  if (!sgemm_avx512_supported()) GTEST_SKIP() << "this CPU has no AVX-512F";
  ThreadPool pool(2);
  for (Shape s : shapes()) {
    s.m *= 3;  // enough work to split
    s.k += 40;
    SCOPED_TRACE(::testing::Message() << "m=" << s.m << " n=" << s.n << " k=" << s.k
                                      << " ta=" << s.ta << " tb=" << s.tb);
    const int64_t lda = (s.ta ? s.m : s.k) + 3, ldb = (s.tb ? s.k : s.n) + 3, ldc = s.n + 3;
    std::vector<float> a = random_floats(size_t((s.ta ? s.k : s.m) * lda), 1);
    std::vector<float> b = random_floats(size_t((s.tb ? s.n : s.k) * ldb), 2);
    std::vector<float> one = random_floats(size_t(s.m * ldc), 3), two = one;
    sgemm_avx512(s.ta, s.tb, s.m, s.n, s.k, s.alpha, a.data(), lda, b.data(), ldb, s.beta,
                 one.data(), ldc);
    {
      ScopedThreadPool scope(&pool);
      sgemm_avx512(s.ta, s.tb, s.m, s.n, s.k, s.alpha, a.data(), lda, b.data(), ldb, s.beta,
                   two.data(), ldc);
    }
    for (size_t x = 0; x < one.size(); ++x) ASSERT_EQ(bits(one[x]), bits(two[x])) << x;
  }
}

// B [k, n] row-major (ldb) as a RowSource, as Conv's im2col rows are.
struct MatrixRows {
  const float* b;
  int64_t ldb;
  static void fill(const void* self, int64_t p0, int64_t rows, int64_t j0, int64_t len, float* dst,
                   int64_t stride, int64_t row_step) {
    const auto* s = static_cast<const MatrixRows*>(self);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t q = 0; q < len; ++q)
        dst[i * row_step + (q / 32) * stride + q % 32] = s->b[(p0 + i) * s->ldb + j0 + q];
  }
};

// Every entry point at one and at two threads, on a tall C (split by rows:
// B packed once and shared) and a wide one (split by columns: a transposed
// or scaled A packed once and shared): the same bits.
TEST(SgemmPacking, EveryOperandKindGivesTheSameBitsAtTwoThreads) {
  if (!sgemm_avx512_supported()) GTEST_SKIP() << "this CPU has no AVX-512F";
  ThreadPool pool(2);
  for (auto [m, n, k] : std::vector<std::array<int64_t, 3>>{{301, 45, 530}, {45, 301, 530}}) {
    const int64_t ld = std::max(m, std::max(n, k)) + 3, ldc = n + 5;
    std::vector<float> a = random_floats(size_t(ld * ld), 11),
                       b = random_floats(size_t(ld * ld), 12);
    std::vector<float> bias = random_floats(size_t(m), 13),
                       res = random_floats(size_t(m * ldc), 14);
    const GemmEpilogue ep{res.data(), true, ldc};
    const auto packed_b = sgemm_avx512_pack_b(false, k, n, b.data(), ld);
    const auto packed_a = sgemm_avx512_pack_a(m, k, a.data(), ld);
    const MatrixRows src{b.data(), ld};
    const RowSource rows{&src, &MatrixRows::fill};
    std::vector<std::function<void(float*)>> calls;
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (float alpha : {1.0f, 0.5f})
          calls.push_back([&, ta, tb, alpha](float* c) {
            sgemm_avx512(ta, tb, m, n, k, alpha, a.data(), ld, b.data(), ld, 1.0f, c, ldc);
          });
    calls.push_back([&](float* c) {
      sgemm_avx512_packed(true, m, 2.0f, a.data(), ld, *packed_b, 0.0f, c, ldc, &ep);
    });
    calls.push_back(
        [&](float* c) { sgemm_avx512_rows(m, n, k, a.data(), ld, rows, 1.0f, c, ldc); });
    calls.push_back(
        [&](float* c) { sgemm_avx512_rows_packed(*packed_a, n, rows, c, ldc, bias.data(), &ep); });
    calls.push_back([&](float* c) {
      sgemm_avx512_packed_a(*packed_a, n, b.data(), ld, c, ldc, bias.data(), &ep);
    });
    for (size_t i = 0; i < calls.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << "m=" << m << " n=" << n << " call " << i);
      std::vector<float> one = random_floats(size_t(m * ldc), 15), two = one;
      calls[i](one.data());
      {
        ScopedThreadPool scope(&pool);
        calls[i](two.data());
      }
      for (size_t x = 0; x < one.size(); ++x) ASSERT_EQ(bits(one[x]), bits(two[x])) << x;
    }
  }
}

// A read in place (alpha 1, not transposed), packed in the row layout
// (alpha 2: every product and sum scales exactly by 2) or in the column
// layout (transposed): the same sums in the same order, so the same bits.
TEST(SgemmPacking, InPlaceAndPackedAGiveTheSameBits) {
  if (!sgemm_avx512_supported()) GTEST_SKIP() << "this CPU has no AVX-512F";
  // (1030 x 1030: over the 1M floats that are packed once per call, so A is
  // packed per depth and row block.)
  std::vector<std::array<int64_t, 3>> shapes{{1030, 5, 1030}};
  for (int64_t m : {8, 13, 130})
    for (int64_t n : {5, 32, 70})
      for (int64_t k : {1, 17, 300}) shapes.push_back({m, n, k});
  for (auto [m, n, k] : shapes) {
    SCOPED_TRACE(::testing::Message() << "m=" << m << " n=" << n << " k=" << k);
    std::vector<float> b = random_floats(size_t(k * n), 7);
    std::vector<float> plain = random_floats(size_t(m * k), 8);
    std::vector<std::vector<float>> results;
    for (int path = 0; path < 4; ++path) {  // in place (lda k, k + 3), row, column layout
      const bool ta = path == 3;
      const float alpha = path == 2 ? 2.0f : 1.0f;
      const int64_t ld = ta ? m : path == 1 ? k + 3 : k;
      std::vector<float> a(size_t((ta ? k : m) * ld), NAN);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t p = 0; p < k; ++p)
          a[size_t(ta ? p * ld + i : i * ld + p)] = plain[size_t(i * k + p)];
      std::vector<float> c(size_t(m * n), NAN);
      sgemm_avx512(ta, false, m, n, k, alpha, a.data(), ld, b.data(), n, 0.0f, c.data(), n);
      for (float& v : c) v /= alpha;
      results.push_back(c);
    }
    for (size_t r = 1; r < results.size(); ++r)
      for (size_t x = 0; x < results[0].size(); ++x)
        ASSERT_EQ(bits(results[r][x]), bits(results[0][x])) << "path " << r << " at " << x;
  }
}

}  // namespace
}  // namespace oxs::eval
