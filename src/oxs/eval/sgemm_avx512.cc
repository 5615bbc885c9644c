// A single-threaded AVX-512 SGEMM (gemm.h: sgemm_avx512). Why it exists:
// Debian's OpenBLAS 0.3.21 does not recognise newer AVX-512 CPUs (AMD Zen 4/5)
// and runs its AVX2 (Haswell) kernel there, at half the FMA width. This is
// the textbook blocked GEMM (BLIS loop order): B is packed in panels of NR
// columns (kept in L1 by the micro-kernel), A in panels of MR rows (L2), and
// an 8x32 register tile is accumulated with 512-bit FMAs. Edges are packed
// with zeros and stored with masks. Compiled for AVX-512 by function
// attribute only; callers check sgemm_avx512_supported() first.
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "oxs/eval/gemm.h"

namespace oxs::eval {

namespace {

constexpr int64_t MR = 8, NR = 32;  // register tile: 8 rows x 2 vectors
constexpr int64_t KC = 256;         // depth of a packed block
constexpr int64_t MC = 128;         // rows of A per packed block (L2)
constexpr int64_t NC = 2048;        // columns of B per packed block

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

// Ap[panel][kk][i] = alpha * A(i0 + panel*MR + i, p0 + kk), zero past row m.
void pack_a(bool ta, const float* a, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
            float alpha, float* ap) {
  for (int64_t ir = 0; ir < mc; ir += MR) {
    const int64_t rows = std::min(MR, mc - ir);
    float* dst = ap + ir * kc;
    for (int64_t kk = 0; kk < kc; ++kk) {
      for (int64_t i = 0; i < MR; ++i) {
        float v = 0;
        if (i < rows) {
          int64_t row = i0 + ir + i, col = p0 + kk;
          v = alpha * (ta ? a[col * lda + row] : a[row * lda + col]);
        }
        dst[kk * MR + i] = v;
      }
    }
  }
}

// Bp[panel][kk][j] = B(p0 + kk, j0 + panel*NR + j), zero past column n.
__attribute__((target("avx512f"))) void pack_b(bool tb, const float* b, int64_t ldb, int64_t p0,
                                               int64_t kc, int64_t j0, int64_t nc, float* bp) {
  for (int64_t jr = 0; jr < nc; jr += NR) {
    const int64_t cols = std::min(NR, nc - jr);
    float* dst = bp + jr * kc;
    if (!tb) {
      const __mmask16 m0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
      const __mmask16 m1 = cols >= 32  ? __mmask16(0xFFFF)
                           : cols > 16 ? __mmask16((1u << (cols - 16)) - 1)
                                       : 0;
      for (int64_t kk = 0; kk < kc; ++kk) {
        const float* src = b + (p0 + kk) * ldb + j0 + jr;
        _mm512_store_ps(dst + kk * NR, _mm512_maskz_loadu_ps(m0, src));
        _mm512_store_ps(dst + kk * NR + 16, _mm512_maskz_loadu_ps(m1, src + 16));
      }
    } else {
      for (int64_t kk = 0; kk < kc; ++kk) {
        for (int64_t j = 0; j < NR; ++j) {
          dst[kk * NR + j] = j < cols ? b[(j0 + jr + j) * ldb + p0 + kk] : 0.0f;
        }
      }
    }
  }
}

// C[rows, cols] (+)= Ap-panel x Bp-panel over kc; `overwrite` ignores the
// old C (beta = 0 on the first depth block).
__attribute__((target("avx512f"))) void micro_kernel(int64_t kc, const float* ap, const float* bp,
                                                     float* c, int64_t ldc, int64_t rows,
                                                     int64_t cols, bool overwrite) {
  __m512 acc[MR][2];
  for (int64_t i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t kk = 0; kk < kc; ++kk) {
    const __m512 b0 = _mm512_load_ps(bp + kk * NR);
    const __m512 b1 = _mm512_load_ps(bp + kk * NR + 16);
    const float* a = ap + kk * MR;
    for (int64_t i = 0; i < MR; ++i) {
      const __m512 av = _mm512_set1_ps(a[i]);
      acc[i][0] = _mm512_fmadd_ps(av, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(av, b1, acc[i][1]);
    }
  }
  const __mmask16 m0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32  ? __mmask16(0xFFFF)
                       : cols > 16 ? __mmask16((1u << (cols - 16)) - 1)
                                   : 0;
  for (int64_t i = 0; i < rows; ++i) {
    float* ci = c + i * ldc;
    if (overwrite) {
      _mm512_mask_storeu_ps(ci, m0, acc[i][0]);
      _mm512_mask_storeu_ps(ci + 16, m1, acc[i][1]);
    } else {
      _mm512_mask_storeu_ps(ci, m0, _mm512_add_ps(_mm512_maskz_loadu_ps(m0, ci), acc[i][0]));
      _mm512_mask_storeu_ps(ci + 16, m1,
                            _mm512_add_ps(_mm512_maskz_loadu_ps(m1, ci + 16), acc[i][1]));
    }
  }
}

}  // namespace

bool sgemm_avx512_supported() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
}

void sgemm_avx512(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                  int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (beta != 0 && beta != 1) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] *= beta;
    }
  }
  if (k <= 0) {
    if (beta == 0) {
      for (int64_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, 0.0f);
    }
    return;
  }
  float* ap = pack_buffer(0);
  float* bp = pack_buffer(1);
  for (int64_t jc = 0; jc < n; jc += NC) {
    const int64_t nc = std::min(NC, n - jc);
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = std::min(KC, k - pc);
      const bool overwrite = pc == 0 && beta == 0;
      pack_b(tb, b, ldb, pc, kc, jc, nc, bp);
      for (int64_t ic = 0; ic < m; ic += MC) {
        const int64_t mc = std::min(MC, m - ic);
        pack_a(ta, a, lda, ic, mc, pc, kc, alpha, ap);
        for (int64_t jr = 0; jr < nc; jr += NR) {
          for (int64_t ir = 0; ir < mc; ir += MR) {
            micro_kernel(kc, ap + ir * kc, bp + jr * kc, c + (ic + ir) * ldc + jc + jr, ldc,
                         std::min(MR, mc - ir), std::min(NR, nc - jr), overwrite);
          }
        }
      }
    }
  }
}

}  // namespace oxs::eval
