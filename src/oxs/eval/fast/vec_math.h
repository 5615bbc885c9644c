// 16-lane float exp and erf for the fast kernels (AVX-512, enabled per
// function by target attribute; callers check avx512_available() first).
// Accuracy: exp within about 1 ulp (Cody-Waite range reduction by ln 2, a
// degree-7 Taylor polynomial on |r| <= ln2/2, scaling by 2^n with scalef,
// which also gives inf / 0 / subnormals at the ends of the range); erf
// within a few ulp (a Taylor series of degree 15 below 0.5, above it
// 1 - erfc with the Chebyshev-fitted erfc of Numerical Recipes' erfcc,
// fractional error < 1.2e-7). NaN stays NaN.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

namespace oxs::eval::fast {

#define OXS_AVX512 __attribute__((target("avx512f,avx512dq")))
// For helpers made of AVX-512F instructions alone, so that code compiled for
// avx512f only (the SGEMM and Conv kernels) inlines them too.
#define OXS_AVX512F __attribute__((target("avx512f")))

// The unmasked forms of max/min/roundscale/scalef start from
// _mm512_undefined_ps(), which GCC 12 flags as maybe-uninitialized under
// -Werror; these masked forms with all lanes on are the same instructions.
constexpr __mmask16 kAll = 0xFFFF;
OXS_AVX512F inline __m512 vmax(__m512 a, __m512 b) {
  return _mm512_mask_max_ps(b, kAll, a, b);
}
OXS_AVX512F inline __m512 vmin(__m512 a, __m512 b) {
  return _mm512_mask_min_ps(b, kAll, a, b);
}

OXS_AVX512 inline __m512 exp_ps(__m512 x) {
  // max/min return their second operand when one is NaN: NaN passes through.
  x = vmax(_mm512_set1_ps(-104.0f), x);
  x = vmin(_mm512_set1_ps(89.0f), x);
  const __m512 xl = _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f));
  const __m512 n =
      _mm512_mask_roundscale_ps(xl, kAll, xl, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // ln 2 = hi + lo with hi exact in few bits, so n * hi is exact.
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.0f / 5040);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_mask_scalef_ps(p, kAll, p, n);
}

OXS_AVX512 inline __m512 erf_ps(__m512 x) {
  const __m512 sign = _mm512_and_ps(x, _mm512_set1_ps(-0.0f));
  const __m512 a = _mm512_andnot_ps(_mm512_set1_ps(-0.0f), x);
  // |x| < 0.5: x * sum_k (-1)^k x^2k / (k! (2k + 1)) * 2 / sqrt(pi).
  const __m512 z = _mm512_mul_ps(x, x);
  __m512 s = _mm512_set1_ps(-1.0f / 75600);  // k = 7: 1 / (5040 * 15)
  s = _mm512_fmadd_ps(s, z, _mm512_set1_ps(1.0f / 9360));
  s = _mm512_fmadd_ps(s, z, _mm512_set1_ps(-1.0f / 1320));
  s = _mm512_fmadd_ps(s, z, _mm512_set1_ps(1.0f / 216));
  s = _mm512_fmadd_ps(s, z, _mm512_set1_ps(-1.0f / 42));
  s = _mm512_fmadd_ps(s, z, _mm512_set1_ps(1.0f / 10));
  s = _mm512_fmadd_ps(s, z, _mm512_set1_ps(-1.0f / 3));
  s = _mm512_fmadd_ps(s, z, _mm512_set1_ps(1.0f));
  const __m512 small = _mm512_mul_ps(_mm512_mul_ps(s, x), _mm512_set1_ps(1.12837916709551257f));
  // |x| >= 0.5: 1 - t exp(-a^2 + P(t)), t = 1 / (1 + a/2).
  const __m512 t = _mm512_div_ps(_mm512_set1_ps(1.0f),
                                 _mm512_fmadd_ps(a, _mm512_set1_ps(0.5f), _mm512_set1_ps(1.0f)));
  __m512 q = _mm512_set1_ps(0.17087277f);
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(-0.82215223f));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(1.48851587f));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(-1.13520398f));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(0.27886807f));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(-0.18628806f));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(0.09678418f));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(0.37409196f));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(1.00002368f));
  q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(-1.26551223f));
  const __m512 erfc = _mm512_mul_ps(t, exp_ps(_mm512_fnmadd_ps(a, a, q)));
  const __m512 big = _mm512_or_ps(_mm512_sub_ps(_mm512_set1_ps(1.0f), erfc), sign);
  const __mmask16 use_small = _mm512_cmp_ps_mask(a, _mm512_set1_ps(0.5f), _CMP_LT_OQ);
  return _mm512_mask_blend_ps(use_small, big, small);
}

// HardSwish, y = v * max(0, min(1, v / 6 + 0.5)), with the operations of
// the reference kernel (activation/activations.cc), for one float: the
// fused Conv/MatMul tails use it where AVX-512 is not.
inline float hard_swish_one(float v) {
  return v * std::max(0.0f, std::min(1.0f, v / 6.0f + 0.5f));
}

// The same for 16 lanes, bit-identical to hard_swish_one for every input
// (tests/eval/hard_swish_test.cc checks all 2^32), used by the HardSwish
// kernel and by every fused epilogue, without a division: for v outside
// [-3, 3] the clamps give 1 (v >= 3: v / 6 >= 0.5) or +0 (v <= -3), which w,
// v clamped to [-3, 3], gives too; for w, q = RN(w * RN(1/6)) is within an
// ulp of w / 6, the remainder w - 6q is exact (an FMA), and q + rem * RN(1/6)
// rounds to RN(w / 6) (Markstein's correction). t = RN(w / 6) + 0.5 then
// lies in [+0, 1] (monotone in w: 0 at -3, 1 at 3), so the clamps on t are
// no-ops. A NaN v gives w = -3 and v * 0: v's NaN, as v * 1 does.
OXS_AVX512F inline __m512 hard_swish_vec(__m512 v) {
  const __m512 c = _mm512_set1_ps(1.0f / 6.0f);
  const __m512 w = vmin(vmax(v, _mm512_set1_ps(-3.0f)), _mm512_set1_ps(3.0f));
  const __m512 q = _mm512_mul_ps(w, c);
  const __m512 rem = _mm512_fnmadd_ps(q, _mm512_set1_ps(6.0f), w);
  const __m512 t = _mm512_add_ps(_mm512_fmadd_ps(rem, c, q), _mm512_set1_ps(0.5f));
  return _mm512_mul_ps(v, t);
}

// What a fused Conv/MatMul tail (math/gemm.h: GemmEpilogue) applies after
// its residual: nothing, Relu (`v > 0 ? v : 0`) or HardSwish.
enum class TailAct : uint8_t { None, Relu, HardSwish };

inline float tail_act(float v, TailAct a) {
  if (a == TailAct::Relu) return v > 0 ? v : 0.0f;
  if (a == TailAct::HardSwish) return hard_swish_one(v);
  return v;
}

// max(v, 0) returns its second operand for NaN and -0: 0, as Relu's
// `v > 0 ? v : 0`.
OXS_AVX512F inline __m512 tail_act(__m512 v, TailAct a) {
  if (a == TailAct::Relu) return vmax(v, _mm512_setzero_ps());
  if (a == TailAct::HardSwish) return hard_swish_vec(v);
  return v;
}

// Horizontal sum and max of 16 lanes, pairwise in a fixed order (lane i
// with i + 8, then + 4, + 2, + 1): four dependent steps instead of sixteen
// (a row of Softmax or LayerNorm waited on them). max_ps: for lanes that are
// not NaN.
template <int kImm>
OXS_AVX512 inline __m512 swap_lanes128(__m512 v) {
  return _mm512_mask_shuffle_f32x4(_mm512_setzero_ps(), kAll, v, v, kImm);
}
template <int kImm>
OXS_AVX512 inline __m512 swap_in_lanes(__m512 v) {
  return _mm512_mask_permute_ps(_mm512_setzero_ps(), kAll, v, kImm);
}
OXS_AVX512 inline float sum_ps(__m512 v) {
  v = _mm512_add_ps(v, swap_lanes128<_MM_SHUFFLE(1, 0, 3, 2)>(v));
  v = _mm512_add_ps(v, swap_lanes128<_MM_SHUFFLE(2, 3, 0, 1)>(v));
  v = _mm512_add_ps(v, swap_in_lanes<_MM_SHUFFLE(1, 0, 3, 2)>(v));
  v = _mm512_add_ps(v, swap_in_lanes<_MM_SHUFFLE(2, 3, 0, 1)>(v));
  return _mm512_cvtss_f32(v);
}
OXS_AVX512 inline float max_ps(__m512 v) {
  v = vmax(v, swap_lanes128<_MM_SHUFFLE(1, 0, 3, 2)>(v));
  v = vmax(v, swap_lanes128<_MM_SHUFFLE(2, 3, 0, 1)>(v));
  v = vmax(v, swap_in_lanes<_MM_SHUFFLE(1, 0, 3, 2)>(v));
  v = vmax(v, swap_in_lanes<_MM_SHUFFLE(2, 3, 0, 1)>(v));
  return _mm512_cvtss_f32(v);
}

// The mask of the first n lanes (none for n <= 0, all for n >= 16).
inline __mmask16 first_lanes(int64_t n) {
  return n <= 0 ? __mmask16(0) : n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
}

}  // namespace oxs::eval::fast
