// Fast paths of hot float32 kernels (AVX-512, split over the session's
// thread pool by rows or planes, so results do not depend on the thread
// count). The reference kernels (reduce.cc's Softmax, norm/'s
// LayerNormalization, math.cc's Erf, nn_pool.cc's MaxPool and AveragePool) call these first
// and run their own code when they return false: another element type, a
// layout or an attribute the fast path does not cover, or a CPU without
// AVX-512. Results agree with the reference kernels (and with the ops'
// function bodies) within float32 rounding: sums are taken in another order
// and exp/erf are polynomial approximations of about 1-3 ulp.
#pragma once

#include <cstdint>

namespace oxs::eval {
class KernelContext;
class Tensor;
}  // namespace oxs::eval

namespace oxs::eval::fast {

// Whether the fast paths run (default: yes when the CPU has AVX-512).
// Tests turn them off to compare with the reference kernels.
bool enabled();
void set_enabled(bool on);

// Softmax / LogSoftmax over contiguous rows: x, y [rows, len].
bool softmax_rows(const Tensor& x, Tensor& y, int64_t rows, int64_t len, bool log);

// LayerNormalization with float X, float stash type, Scale (and B) covering
// exactly the normalized axes; only output Y wanted.
bool layer_norm(KernelContext& ctx);

// Erf of a float tensor (sets output 0).
bool erf(KernelContext& ctx);

// MaxPool (`max`) or AveragePool of a float [N, C, H, W]; MaxPool without
// the Indices output.
bool pool_2d(KernelContext& ctx, bool max);
// GlobalAveragePool of a float x into y ([N, C, 1...]): each plane summed in
// float (the reference sums in double).
bool global_average_pool(const Tensor& x, Tensor& y);

// out = a op b for float a, b with numpy broadcasting (`out` allocated with
// the broadcast shape); false for other types or when the innermost run is
// strided in an operand.
enum class Binary { Add, Sub, Mul, Div };
bool binary(Binary op, const Tensor& a, const Tensor& b, Tensor& out);

// C = alpha * op(A) x op(B) + beta * C (row-major, as gemm_f32) when A has
// at most kSmallGemmRows rows: dot products / row combinations read
// straight from B instead of the packed SGEMM.
inline constexpr int64_t kSmallGemmRows = 4;
bool small_m_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                  int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// Relu and HardSwish of a float tensor (set output 0), bit-identical to the
// reference kernels.
bool relu(KernelContext& ctx);
bool hard_swish(KernelContext& ctx);

// The span loops of the kernels above, for fused elementwise chains
// (fast/elementwise_chain.h): y[i] = op(x[i]), and y[i] = a[i * sa] op
// b[i * sb] (sa, sb 0 or 1), for i < n; y may be x, a or b. Only where
// enabled() (AVX-512). The same code as the kernels', so the same bits.
enum class Unary { Relu, HardSwish, Erf };
void unary_span(Unary op, const float* x, float* y, int64_t n);
void binary_span(Binary op, const float* a, int64_t sa, const float* b, int64_t sb, float* y,
                 int64_t n);

}  // namespace oxs::eval::fast
