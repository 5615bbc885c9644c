// Which IR version a model needs for what it uses (opsets, element types).
#pragma once

#include <cstdint>

#include "oxs/ir/model.h"

namespace oxs::schema {

// The lowest IR version a model may declare given what it uses: its opset
// imports (and its functions') by ONNX's release table (ai.onnx 19 needs IR
// 9, 21 IR 10, 23 IR 11, 24 IR 12, 25+ IR 13; ai.onnx.ml 4 IR 9, 5 IR 10) and
// the element types of its values and tensors (float8 IR 9, int4 IR 10,
// float4 IR 11, float8e8m0 IR 12, int2 IR 13). Never below 8.
int64_t min_ir_version(const ir::Model& model);

}  // namespace oxs::schema
