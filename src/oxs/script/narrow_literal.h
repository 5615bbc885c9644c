// Literals of the narrow element types in ONNX Script source, both ways:
// make_tensor("w", TensorProto.INT4, [3], [7, -8, -1]) and the float8,
// float8e8m0 and float4e2m1 forms with float values, as onnx.helper's
// make_tensor takes them.
//
// Decompiling prints each element's exact value (integers for
// INT4/UINT4/INT2/UINT2, the decoded float for the float kinds); compiling
// maps each value back to its code (bit-exact for every value decompile
// prints: signed zeros, infinities, the canonical NaN). A tensor holding a
// code no value can name (a NaN other than the format's canonical one) is an
// error naming the tensor, so a decompiled model never compiles to other
// bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "oxs/ir/tensor.h"

namespace oxs::script {

bool is_narrow_literal_type(ir::DataType t);

// The values of `t` (a narrow type) as Python literals, appended to `out`
// separated by ", ". Throws oxs::Error (Unsupported) naming t.name when a
// code has no literal that maps back to it.
void append_narrow_values(const ir::Tensor& t, std::string& out);

// A tensor of narrow type `dtype` from numbers; nullopt and `why` when a
// value does not fit (an integer out of range or not whole, NaN for
// float4e2m1). Float values round to the nearest code (ties to the even
// code), saturating at the largest finite value, as make_tensor does.
std::optional<ir::Tensor> narrow_from_numbers(ir::DataType dtype, std::vector<int64_t> dims,
                                              const std::vector<double>& values, std::string* why);

}  // namespace oxs::script
