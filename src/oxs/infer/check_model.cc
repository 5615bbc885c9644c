#include "oxs/infer/check_model.h"

#include "oxs/infer/infer.h"
#include "oxs/ir/call_graph.h"
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
  // libonnx's shape inference expands each call to a local function
  // recursively, on this thread's stack: recursion would never end and a very
  // deep chain would overflow the stack. The verifier reported the cycles.
  const ir::CallGraphSummary calls = ir::analyze_calls(model);
  if (!calls.cycles.empty()) {
    out.push_back({"onnx checker",
                   "the onnx checker and shape inference were skipped: the model's functions "
                   "call themselves",
                   true});
    return out;
  }
  if (calls.max_depth > ir::kMaxExpandedCallDepth) {
    out.push_back(
        {"onnx checker", "function calls nest " + std::to_string(calls.max_depth) + " deep (" +
                             ir::function_label(*calls.deepest_chain.front()) + " -> ... -> " +
                             ir::function_label(*calls.deepest_chain.back()) +
                             "); the onnx checker and shape inference run on at most " +
                             std::to_string(ir::kMaxExpandedCallDepth) +
                             " nested calls, so they were skipped"});
    return out;
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
