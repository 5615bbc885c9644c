// Converting a model between versions of the ai.onnx opset (`oxs convert
// --opset N`), up or down, across every opset oxs knows (1-28). Steps within
// 1-17 go through libonnx 1.12's version converter (its adapters, completed
// by ours for the steps down it lacks where its step up is a plain
// compatible one); it works on libonnx's old graph IR, which drops
// model-local functions, so models with functions are refused on that part.
// Steps between 17 and 28 are oxs's own, over the IR (schema/convert/): one
// pass per step, subgraphs and functions included. A conversion that
// crosses 17 takes both. The result is checked (checker and strict shape
// inference at the target opset) before it is returned. Speaks protobuf
// internally; callers see the IR only.
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
// ai.onnx opset `target`. Throws oxs::Error: Unsupported ("cannot convert
// from opset A to B: node 'n' (Op): why", or the functions), Usage for a
// target outside 1..28, Unsupported when the converted model fails the
// checker.
OpsetConversion convert_opset(ir::Model model, int64_t target, const std::string& model_dir);

}  // namespace oxs::schema
