// GEMV benchmark (bench/gemv.sh): C[m, n] = A[m, k] x op(B) through
// gemm_f32 (fast::small_m_gemm for m <= 4), one thread unless THREADS is
// given. B is cycled over `copies` matrices so that, with copies * k * n * 4
// bytes past the L2 cache, every call streams its weights from L3 or
// memory, as a model's classifier does (the rest of the model evicts them);
// copies = 1 keeps B hot in L2 when it fits.
//   oxs_gemv_bench M N K TRANSB COPIES [REPEAT [THREADS]]
//       prints "cpu_ms <per call> wall_ms <per call> gb_per_s <B bytes / time>"
// TRANSB = read: no product, B's bytes only read (summed as 8 rows of K
// side by side, one thread), the machine's read bandwidth for the same
// bytes and copies, to compare the products with.
// Each figure is the least of 15 rounds of REPEAT calls; GB/s is over the
// process's CPU time with one thread (steadier on a shared machine), over
// wall time with more.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "oxs/eval/fast/vec_math.h"
#include "oxs/eval/math/gemm.h"
#include "oxs/eval/parallel/thread_pool.h"

namespace {

// Sum of b [rows, k] read as 8 rows side by side (rows a multiple of 8).
OXS_AVX512 float read_rows(const float* b, int64_t rows, int64_t k) {
  __m512 acc[8];
  for (auto& v : acc) v = _mm512_setzero_ps();
  for (int64_t r = 0; r + 8 <= rows; r += 8) {
    for (int64_t p = 0; p + 16 <= k; p += 16) {
      for (int u = 0; u < 8; ++u) {
        acc[u] = _mm512_add_ps(acc[u], _mm512_loadu_ps(b + (r + u) * k + p));
      }
    }
  }
  for (int u = 1; u < 8; ++u) acc[0] = _mm512_add_ps(acc[0], acc[u]);
  return oxs::eval::fast::sum_ps(acc[0]);
}

double seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s M N K TRANSB COPIES [REPEAT [THREADS]]\n", argv[0]);
    return 2;
  }
  const int64_t m = std::stoll(argv[1]), n = std::stoll(argv[2]), k = std::stoll(argv[3]);
  const bool read_only = std::string(argv[4]) == "read";
  const bool tb = !read_only && std::stoi(argv[4]) != 0;
  const int copies = std::max(1, std::stoi(argv[5]));
  const int repeat = argc > 6 ? std::max(1, std::stoi(argv[6])) : 200;
  const int threads = argc > 7 ? std::max(1, std::stoi(argv[7])) : 1;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> a(size_t(m * k)), c(size_t(m * n));
  std::vector<std::vector<float>> bs(size_t(copies), std::vector<float>(size_t(k * n)));
  for (float& v : a) v = u(rng);
  for (auto& b : bs) {
    for (float& v : b) v = u(rng);
  }
  std::unique_ptr<oxs::eval::ThreadPool> pool;
  if (threads > 1) pool = std::make_unique<oxs::eval::ThreadPool>(threads);
  oxs::eval::ScopedThreadPool scope(pool.get());
  const int64_t ldb = tb ? k : n;
  double cpu = 1e30, wall = 1e30;
  for (int round = 0; round < 15; ++round) {
    const double c0 = seconds(CLOCK_PROCESS_CPUTIME_ID), w0 = seconds(CLOCK_MONOTONIC);
    for (int r = 0; r < repeat; ++r) {
      const float* b = bs[size_t(r % copies)].data();
      if (read_only) {
        c[0] += read_rows(b, n, k);
      } else {
        oxs::eval::gemm_f32(false, tb, m, n, k, 1.0f, a.data(), k, b, ldb, 0.0f, c.data(), n);
      }
    }
    cpu = std::min(cpu, (seconds(CLOCK_PROCESS_CPUTIME_ID) - c0) / repeat);
    wall = std::min(wall, (seconds(CLOCK_MONOTONIC) - w0) / repeat);
  }
  std::printf("cpu_ms %.4f wall_ms %.4f gb_per_s %.2f\n", cpu * 1e3, wall * 1e3,
              double(k * n) * 4 / (threads > 1 ? wall : cpu) * 1e-9);
  if (!std::isfinite(c[0])) std::printf("(not finite)\n");  // keeps the sums alive
  return 0;
}
