// Softmax and LayerNormalization over contiguous float rows (fast_kernels.h).
#include <atomic>
#include <cmath>
#include <limits>

#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/fast/vec_math.h"
#include "oxs/eval/kernel.h"
#include "oxs/eval/parallel/thread_pool.h"

namespace oxs::eval::fast {

namespace {

std::atomic<bool>& enabled_flag() {
  static std::atomic<bool> on{__builtin_cpu_supports("avx512f") &&
                              __builtin_cpu_supports("avx512dq")};
  return on;
}

OXS_AVX512 void softmax_row(const float* x, float* y, int64_t len, bool log) {
  const float inf = std::numeric_limits<float>::infinity();
  __m512 mx = _mm512_set1_ps(-inf);
  for (int64_t i = 0; i < len; i += 16) {
    const __m512 v = _mm512_mask_loadu_ps(_mm512_set1_ps(-inf), first_lanes(len - i), x + i);
    mx = vmax(v, mx);  // a NaN lane keeps the old max (as `v > mx` does)
  }
  const float m = max_ps(mx);
  const __m512 mv = _mm512_set1_ps(m);
  __m512 acc = _mm512_setzero_ps();
  for (int64_t i = 0; i < len; i += 16) {
    const __mmask16 k = first_lanes(len - i);
    const __m512 e = exp_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mv));
    acc = _mm512_add_ps(acc, _mm512_maskz_mov_ps(k, e));
    if (!log) _mm512_mask_storeu_ps(y + i, k, e);
  }
  const float sum = sum_ps(acc);
  if (log) {
    // (x - max) - log(sum): x - max is exact for x near max, where the
    // result is small; subtracting max + log(sum) at once would lose it.
    const __m512 ls = _mm512_set1_ps(std::log(sum));
    for (int64_t i = 0; i < len; i += 16) {
      const __mmask16 k = first_lanes(len - i);
      const __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mv);
      _mm512_mask_storeu_ps(y + i, k, _mm512_sub_ps(d, ls));
    }
    return;
  }
  const __m512 inv = _mm512_set1_ps(1.0f / sum);
  for (int64_t i = 0; i < len; i += 16) {
    const __mmask16 k = first_lanes(len - i);
    _mm512_mask_storeu_ps(y + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, y + i), inv));
  }
}

// y = (x - mean) / sqrt(var + eps) * scale + bias over one row.
OXS_AVX512 void layer_norm_row(const float* x, float* y, int64_t len, float eps, const float* scale,
                               const float* bias) {
  __m512 acc = _mm512_setzero_ps();
  for (int64_t i = 0; i < len; i += 16) {
    acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(first_lanes(len - i), x + i));
  }
  const float mean = sum_ps(acc) / float(len);
  const __m512 mv = _mm512_set1_ps(mean);
  acc = _mm512_setzero_ps();
  for (int64_t i = 0; i < len; i += 16) {
    const __mmask16 k = first_lanes(len - i);
    const __m512 d = _mm512_maskz_sub_ps(k, _mm512_maskz_loadu_ps(k, x + i), mv);
    acc = _mm512_fmadd_ps(d, d, acc);
  }
  const float var = sum_ps(acc) / float(len);
  const __m512 is = _mm512_set1_ps(1.0f / std::sqrt(var + eps));
  for (int64_t i = 0; i < len; i += 16) {
    const __mmask16 k = first_lanes(len - i);
    const __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mv);
    __m512 v = _mm512_mul_ps(_mm512_mul_ps(d, is), _mm512_maskz_loadu_ps(k, scale + i));
    if (bias) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(k, bias + i));
    _mm512_mask_storeu_ps(y + i, k, v);
  }
}

// Whether `t` (Scale or B) has exactly the normalized dims of x (from
// `axis` on), after leading 1s.
bool covers_trailing(const Tensor& t, const Dims& xd, size_t axis) {
  const size_t tail = xd.size() - axis;
  if (t.rank() < tail) return false;
  for (size_t i = 0; i < t.rank(); ++i) {
    const size_t from_end = t.rank() - 1 - i;
    if (from_end < tail) {
      if (t.dim(i) != xd[xd.size() - 1 - from_end]) return false;
    } else if (t.dim(i) != 1) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool enabled() {
  return enabled_flag();
}

void set_enabled(bool on) {
  enabled_flag() = on && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}

bool softmax_rows(const Tensor& x, Tensor& y, int64_t rows, int64_t len, bool log) {
  if (!enabled() || x.dtype() != DataType::Float || len <= 0) return false;
  const float* px = x.data<float>();
  float* py = y.mutable_data<float>();
  parallel_for(rows, double(len) * 8, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) softmax_row(px + r * len, py + r * len, len, log);
  });
  return true;
}

bool layer_norm(KernelContext& ctx) {
  if (!enabled() || ctx.num_inputs() < 2) return false;
  const Tensor& x = ctx.tensor(0);
  if (x.dtype() != DataType::Float || ctx.attr_int("stash_type", 1) != 1) return false;
  if (ctx.wants_output(1) || ctx.wants_output(2)) return false;
  const int64_t r = int64_t(x.rank());
  int64_t axis = ctx.attr_int("axis", -1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return false;  // the reference kernel reports it
  const Tensor& scale = ctx.tensor(1);
  const Tensor* bias = ctx.optional_tensor(2);
  if (scale.dtype() != DataType::Float || !covers_trailing(scale, x.dims(), size_t(axis))) {
    return false;
  }
  if (bias && (bias->dtype() != DataType::Float || !covers_trailing(*bias, x.dims(), size_t(axis))))
    return false;
  // Empty X: the reference kernel (its row count is not bounded by the
  // element count then, and may overflow).
  if (x.numel() == 0) return false;
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? rows : cols) *= x.dim(size_t(i));
  const float eps = ctx.attr_float("epsilon", 1e-5f);
  // A row of y is written after its row of x is read (twice): y may take
  // x's buffer when x dies here.
  Tensor& y = ctx.alloc_output_reusing(0, DataType::Float, x.dims(), {0});
  const float* px = x.data<float>();
  float* py = y.mutable_data<float>();
  const float* ps = scale.data<float>();
  const float* pb = bias ? bias->data<float>() : nullptr;
  parallel_for(rows, double(cols) * 6, [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      layer_norm_row(px + row * cols, py + row * cols, cols, eps, ps, pb);
    }
  });
  return true;
}

}  // namespace oxs::eval::fast
