// Float Add/Sub/Mul/Div with numpy broadcasting, Relu, HardSwish and Erf
// (fast_kernels.h). Bit-identical to the reference kernels: the same IEEE
// operations per element, min/max chosen to return what the reference's
// comparisons return for NaN and signed zeros.
#include <vector>

#include "oxs/eval/broadcast.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/fast/vec_math.h"
#include "oxs/eval/kernel.h"
#include "oxs/eval/parallel/thread_pool.h"

namespace oxs::eval::fast {

namespace {

// Cost per element for parallel_for (memory-bound loops).
constexpr double kElementCost = 1.0;

template <Binary K>
OXS_AVX512 inline __m512 apply(__m512 a, __m512 b) {
  if constexpr (K == Binary::Add) return _mm512_add_ps(a, b);
  if constexpr (K == Binary::Sub) return _mm512_sub_ps(a, b);
  if constexpr (K == Binary::Mul) return _mm512_mul_ps(a, b);
  if constexpr (K == Binary::Div) return _mm512_div_ps(a, b);
}

// y[i] = a[i * sa] op b[i * sb] for i < n, sa and sb 0 (broadcast) or 1.
template <Binary K>
OXS_AVX512 void binary_run(const float* a, int64_t sa, const float* b, int64_t sb, float* y,
                           int64_t n) {
  const __m512 a0 = _mm512_set1_ps(a[0]), b0 = _mm512_set1_ps(b[0]);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = first_lanes(n - i);
    const __m512 va = sa ? _mm512_maskz_loadu_ps(k, a + i) : a0;
    const __m512 vb = sb ? _mm512_maskz_loadu_ps(k, b + i) : b0;
    _mm512_mask_storeu_ps(y + i, k, apply<K>(va, vb));
  }
}

template <Binary K>
void binary_typed(const float* pa, const float* pb, float* py, const std::vector<int64_t>& dims,
                  const std::vector<int64_t>& sa, const std::vector<int64_t>& sb) {
  // The innermost collapsed dim is the run; the others are walked.
  const size_t r = dims.size();
  const int64_t len = dims[r - 1], ia = sa[r - 1], ib = sb[r - 1];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < r; ++d) rows *= dims[d];
  if (rows == 1) {  // one long run: split it into vector-aligned chunks
    const int64_t vecs = (len + 15) / 16;
    parallel_for(vecs, 16 * kElementCost, [&](int64_t v0, int64_t v1) {
      const int64_t b = v0 * 16, e = std::min(len, v1 * 16);
      binary_run<K>(pa + b * ia, ia, pb + b * ib, ib, py + b, e - b);
    });
    return;
  }
  parallel_for(rows, double(len) * kElementCost, [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> idx(r, 0);
    int64_t oa = 0, ob = 0, rem = r0;  // the operands' offsets at row r0
    for (size_t d = r - 1; d-- > 0;) {
      idx[d] = rem % dims[d];
      rem /= dims[d];
      oa += idx[d] * sa[d];
      ob += idx[d] * sb[d];
    }
    for (int64_t row = r0; row < r1; ++row) {
      binary_run<K>(pa + oa, ia, pb + ob, ib, py + row * len, len);
      for (size_t d = r - 1; d-- > 0;) {
        oa += sa[d];
        ob += sb[d];
        if (++idx[d] < dims[d]) break;
        oa -= sa[d] * dims[d];
        ob -= sb[d] * dims[d];
        idx[d] = 0;
      }
    }
  });
}

OXS_AVX512 void relu_span(const float* x, float* y, int64_t n) {
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = first_lanes(n - i);
    // max(x, 0) returns its second operand for NaN and for -0: as `x > 0 ? x : 0`.
    _mm512_mask_storeu_ps(y + i, k, vmax(_mm512_maskz_loadu_ps(k, x + i), zero));
  }
}

OXS_AVX512 void hard_swish_span(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = first_lanes(n - i);
    _mm512_mask_storeu_ps(y + i, k, hard_swish_vec(_mm512_maskz_loadu_ps(k, x + i)));
  }
}

OXS_AVX512 void erf_span(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = first_lanes(n - i);
    _mm512_mask_storeu_ps(y + i, k, erf_ps(_mm512_maskz_loadu_ps(k, x + i)));
  }
}

bool unary(KernelContext& ctx, void (*span)(const float*, float*, int64_t)) {
  if (!enabled()) return false;
  const Tensor& x = ctx.tensor(0);
  if (x.dtype() != DataType::Float) return false;
  Tensor& y = ctx.alloc_output_reusing(0, DataType::Float, x.dims(), {0});
  const float* px = x.data<float>();
  float* py = y.mutable_data<float>();
  const int64_t vecs = (x.numel() + 15) / 16;
  parallel_for(vecs, 16 * kElementCost, [&](int64_t v0, int64_t v1) {
    const int64_t b = v0 * 16, e = std::min(x.numel(), v1 * 16);
    span(px + b, py + b, e - b);
  });
  return true;
}

}  // namespace

bool binary(Binary op, const Tensor& a, const Tensor& b, Tensor& out) {
  if (!enabled() || a.dtype() != DataType::Float || b.dtype() != DataType::Float ||
      out.numel() == 0) {
    return false;
  }
  const Dims& od = out.dims();
  const std::vector<int64_t> sa0 = broadcast_strides(a.dims(), od);
  const std::vector<int64_t> sb0 = broadcast_strides(b.dims(), od);
  // Collapse adjacent dims both operands walk alike (contiguously, or not at
  // all); size-1 dims go away.
  std::vector<int64_t> dims, sa, sb;
  for (size_t d = 0; d < od.size(); ++d) {
    if (od[d] == 1) continue;
    if (!dims.empty() && sa.back() == sa0[d] * od[d] && sb.back() == sb0[d] * od[d]) {
      dims.back() *= od[d];
      sa.back() = sa0[d];
      sb.back() = sb0[d];
      continue;
    }
    dims.push_back(od[d]);
    sa.push_back(sa0[d]);
    sb.push_back(sb0[d]);
  }
  if (dims.empty()) dims = {1}, sa = {1}, sb = {1};
  // The run (innermost dim) must be contiguous or broadcast in each operand.
  if (sa.back() > 1 || sb.back() > 1) return false;
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* py = out.mutable_data<float>();
  switch (op) {
    case Binary::Add:
      binary_typed<Binary::Add>(pa, pb, py, dims, sa, sb);
      break;
    case Binary::Sub:
      binary_typed<Binary::Sub>(pa, pb, py, dims, sa, sb);
      break;
    case Binary::Mul:
      binary_typed<Binary::Mul>(pa, pb, py, dims, sa, sb);
      break;
    case Binary::Div:
      binary_typed<Binary::Div>(pa, pb, py, dims, sa, sb);
      break;
  }
  return true;
}

bool relu(KernelContext& ctx) {
  return unary(ctx, relu_span);
}

bool hard_swish(KernelContext& ctx) {
  return unary(ctx, hard_swish_span);
}

bool erf(KernelContext& ctx) {
  return unary(ctx, erf_span);
}

void unary_span(Unary op, const float* x, float* y, int64_t n) {
  switch (op) {
    case Unary::Relu:
      return relu_span(x, y, n);
    case Unary::HardSwish:
      return hard_swish_span(x, y, n);
    case Unary::Erf:
      return erf_span(x, y, n);
  }
}

void binary_span(Binary op, const float* a, int64_t sa, const float* b, int64_t sb, float* y,
                 int64_t n) {
  if (n <= 0) return;
  switch (op) {
    case Binary::Add:
      return binary_run<Binary::Add>(a, sa, b, sb, y, n);
    case Binary::Sub:
      return binary_run<Binary::Sub>(a, sa, b, sb, y, n);
    case Binary::Mul:
      return binary_run<Binary::Mul>(a, sa, b, sb, y, n);
    case Binary::Div:
      return binary_run<Binary::Div>(a, sa, b, sb, y, n);
  }
}

}  // namespace oxs::eval::fast
