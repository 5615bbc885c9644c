// Conversions of Cast from opset 19 on (shared by CastLike and the
// quantization kernels).
#pragma once

#include "oxs/eval/convert/narrow.h"
#include "oxs/eval/tensor.h"

namespace oxs::eval {

// `t` converted to `to` as Cast-19 and later do: like cast_tensor, but float
// to bfloat16 rounds to nearest even, the float8 formats round to nearest
// even (out-of-range values saturate to the largest finite value when
// `saturate`, else become infinity or NaN), and float8e8m0 rounds as
// `e8m0_rounding` says (Cast-24's round_mode).
Tensor cast_rounding(const Tensor& t, DataType to, bool saturate = true,
                     E8M0Rounding e8m0_rounding = E8M0Rounding::Up);

}  // namespace oxs::eval
