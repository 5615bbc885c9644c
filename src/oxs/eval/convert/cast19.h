// Conversions of Cast from opset 19 on (shared by CastLike and the
// quantization kernels).
#pragma once

#include "oxs/eval/tensor.h"

namespace oxs::eval {

// `t` converted to `to` as Cast-19 and later do: like cast_tensor, but float
// to bfloat16 rounds to nearest even, and the float8 formats are converted
// (rounding to nearest even; out-of-range values saturate to the largest
// finite value when `saturate`, else become infinity or NaN).
Tensor cast_rounding(const Tensor& t, DataType to, bool saturate = true);

}  // namespace oxs::eval
