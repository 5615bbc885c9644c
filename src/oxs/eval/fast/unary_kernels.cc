// Elementwise float fast paths (fast_kernels.h): Erf.
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/fast/vec_math.h"
#include "oxs/eval/kernel.h"
#include "oxs/eval/parallel/thread_pool.h"

namespace oxs::eval::fast {

namespace {

OXS_AVX512 void erf_span(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, erf_ps(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 k = first_lanes(n - i);
    _mm512_mask_storeu_ps(y + i, k, erf_ps(_mm512_maskz_loadu_ps(k, x + i)));
  }
}

}  // namespace

bool erf(KernelContext& ctx) {
  if (!enabled()) return false;
  const Tensor& x = ctx.tensor(0);
  if (x.dtype() != DataType::Float) return false;
  Tensor& y = ctx.alloc_output(0, DataType::Float, x.dims());
  const float* px = x.data<float>();
  float* py = y.mutable_data<float>();
  // Ranges of whole vectors per thread.
  const int64_t vecs = (x.numel() + 15) / 16;
  parallel_for(vecs, 16 * 30, [&](int64_t v0, int64_t v1) {
    const int64_t b = v0 * 16, e = std::min(x.numel(), v1 * 16);
    erf_span(px + b, py + b, e - b);
  });
  return true;
}

}  // namespace oxs::eval::fast
