// Conversions of Cast from opset 19 on (shared by CastLike and the
// quantization kernels).
#pragma once

#include "oxs/eval/tensor.h"

namespace oxs::eval {

// `t` converted to `to` as Cast-19 and later do: like cast_tensor, but float
// to bfloat16 rounds to nearest even.
Tensor cast_rounding(const Tensor& t, DataType to);

}  // namespace oxs::eval
