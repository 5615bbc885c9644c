// Whether a model conforms to the ONNX spec as the linked libonnx judges it:
// its checker (node signatures against the op schemas, attribute types,
// opset imports, model-local functions) and its strict shape inference.
// Complements ir::verify (our structural checks); this file only reports,
// it never changes the model. Speaks IR only; libonnx stays inside the .cc.
#pragma once

#include <string>
#include <vector>

#include "oxs/ir/model.h"

namespace oxs::schema {

struct ConformanceOptions {
  // Directory that external data locations are relative to (the model's
  // directory); the checker confirms those files exist.
  std::string model_dir;
  // Run libonnx's shape inference after the checker passed.
  bool shape_inference = true;
  // Inference errors in any node are issues (libonnx "strict mode"), and
  // inferred types must agree with declared ones.
  bool strict = true;
  bool data_propagation = false;
};

struct ConformanceIssue {
  std::string stage;    // "schema", "checker" or "shape inference"
  std::string message;  // libonnx's message, on one line
  // A limitation of libonnx 1.12 rather than a problem of the model (e.g.
  // its shape inference cannot handle map types, as ZipMap produces): the
  // stage was skipped; report it as a note, not an error.
  bool limitation = false;
};

// Empty when the model passes. Stages run in order and a stage runs only
// when the previous ones found nothing: "schema" (every node whose op does
// not exist at the imported opset, every unknown attribute name and missing
// required attribute, with suggestions for misspelt names),
// libonnx's "checker", then "shape inference". libonnx stops at its first
// problem, so those two report at most one issue each.
std::vector<ConformanceIssue> check_conformance(const ir::Model& model,
                                                const ConformanceOptions& options = {});

}  // namespace oxs::schema
