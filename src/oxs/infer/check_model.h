// The whole of `oxs check` as a library call: ir::verify (structure), then
// schema::check_conformance (oxs's op, attribute and type checks for any
// opset up to ONNX 1.23's; libonnx's checker and strict inference where
// libonnx knows the opsets), and, for the models libonnx cannot judge
// (ai.onnx 18+, IR 9+ element types), oxs's own inference (infer::run).
#pragma once

#include <string>
#include <vector>

#include "oxs/ir/model.h"
#include "oxs/schema/conformance.h"

namespace oxs::infer {

struct CheckIssue {
  std::string stage;  // "verifier", "op schema", "onnx checker", "onnx shape inference",
                      // "oxs shape inference"
  std::string message;
  bool note = false;  // not a problem of the model (a limitation of a stage)
};

// Checks `model` without changing it (inference runs on a copy when
// needed). Errors and notes in the order found.
std::vector<CheckIssue> check_model(const ir::Model& model,
                                    const schema::ConformanceOptions& options);

}  // namespace oxs::infer
