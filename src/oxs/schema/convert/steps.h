// oxs's own ai.onnx version converter for the opsets libonnx 1.12 does not
// know: one step at a time between 17 and 28, up or down, over the IR (the
// graph, its subgraphs and the model's functions), one pass over the nodes
// per step. An op whose version changed at a step is adapted (adapters.h),
// bumped as it is when the step only added types, or, going down, checked
// against the older version: attributes, inputs and element types it lacks
// are refused with the node, op and what is missing, and ops that do not
// exist yet at the target opset are refused by name.
#pragma once

#include <cstdint>

#include "oxs/ir/model.h"

namespace oxs::schema::convert {

// Converts `model` in place from ai.onnx opset `from` to `to` (both within
// 17..28) and updates the opset imports (model and functions). Throws
// oxs::Error (Unsupported) naming the node that cannot be converted; the
// model is then partly converted and must be dropped.
void convert_steps(ir::Model& model, int64_t from, int64_t to);

// Throws oxs::Error (Unsupported) when the model (graph, subgraphs,
// functions) uses ai.onnx ops that do not exist yet at opset `target`,
// naming the first such node and every such op with the opset it came in.
// One pass over the nodes.
void refuse_ops_newer_than(const ir::Model& model, int64_t target);

}  // namespace oxs::schema::convert
