#include "oxs/infer/check_model.h"

#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"

namespace oxs::infer {

std::vector<CheckIssue> check_model(const ir::Model& model,
                                    const schema::ConformanceOptions& options) {
  std::vector<CheckIssue> out;
  for (const ir::VerifyIssue& issue : ir::verify(model)) {
    out.push_back({"verifier", issue.where + ": " + issue.message});
  }
  bool own_inference = false;
  size_t problems = out.size();
  for (const schema::ConformanceIssue& issue : schema::check_conformance(model, options)) {
    const std::string stage = issue.stage == "schema" ? "op schema" : "onnx " + issue.stage;
    out.push_back({stage, issue.message, issue.limitation});
    if (issue.limitation) {
      own_inference = own_inference || issue.stage == "checker";
    } else {
      ++problems;
    }
  }
  if (own_inference && problems == 0 && options.shape_inference) {
    // Inference writes types into the graph: run it on a copy, made by a
    // round trip through the wire format (the IR has no deep model copy).
    try {
      ir::Model copy =
          onnx::load_from_bytes(onnx::save_to_bytes(model), options.model_dir, "<model>");
      Options o;
      o.unknown_ops_are_errors = true;
      run(copy, o);
    } catch (const Error& e) {
      out.push_back({"oxs shape inference", e.message()});
    }
  }
  return out;
}

}  // namespace oxs::infer
