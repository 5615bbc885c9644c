// Converting a model between versions of the ai.onnx opset (`oxs convert
// --opset N`), up or down, through libonnx 1.12's version converter: its
// adapters know how each op changed between opsets, completed by ours for the
// steps down that it lacks where its step up is a plain compatible one (the
// node stays if the older version takes its types). That converter works on
// libonnx's old graph IR (onnx/common/ir.h), which is quadratic in places and
// drops model-local functions, so models with functions are refused rather
// than converted into something else, and the result is checked (libonnx's
// checker and strict shape inference at the target opset) before it is
// returned. Speaks protobuf internally; callers see the IR only.
#pragma once

#include <cstdint>
#include <string>

#include "oxs/ir/model.h"

namespace oxs::schema {

struct OpsetConversion {
  ir::Model model;
  int64_t from = 0;  // the model's ai.onnx opset
  int64_t to = 0;
};

// Converts `model` (read from a file in `model_dir`, for external data) to
// ai.onnx opset `target`. Throws oxs::Error: Unsupported naming the op that
// has no conversion (or the functions), Usage for a target outside the
// opsets libonnx knows, Invalid when the converted model fails the checker.
OpsetConversion convert_opset(const ir::Model& model, int64_t target, const std::string& model_dir);

}  // namespace oxs::schema
