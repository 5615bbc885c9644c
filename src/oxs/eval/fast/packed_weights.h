// Constant weights packed once per session for the AVX-512 SGEMM: MatMul's
// and Gemm's right operand, Conv's filters (one packed matrix per group).
// The packed copy lives in the node's kernel state (KernelContext::
// state_slot) with a reference to the weight's buffer, so a later call with
// the same data pointer is the same tensor (the buffer cannot have been
// freed and reused meanwhile); another tensor is packed afresh. Only inputs
// that are initializers are packed (activations change on every run).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "oxs/eval/math/gemm.h"

namespace oxs::eval {
class KernelContext;
class Tensor;
}  // namespace oxs::eval

namespace oxs::eval::fast {

// B [k, n] (B^T [n, k] when tb) of input `input`, packed; null when the
// input is not a float initializer or the AVX-512 SGEMM is off.
const PackedB* packed_weight_b(const KernelContext& ctx, size_t input, const Tensor& b, bool tb,
                               int64_t k, int64_t n);

// Conv's W [m, c/group, kernel...] of input `input` as `group` packed
// matrices [m/group, c/group * kernel]; null as above, and for depthwise
// convs (one input channel per group), which do not use the GEMM.
const std::vector<std::shared_ptr<const PackedA>>* packed_conv_weights(const KernelContext& ctx,
                                                                       size_t input,
                                                                       const Tensor& w,
                                                                       int64_t group);

}  // namespace oxs::eval::fast
