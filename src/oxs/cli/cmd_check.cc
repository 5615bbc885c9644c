// `oxs check MODEL`: our structural verifier, then libonnx's checker and
// strict shape inference. Problems go to stderr, one per line; success is a
// single "ok: ..." line on stdout.
#include <fmt/core.h>

#include <memory>

#include "oxs/cli/command.h"
#include "oxs/cli/format.h"
#include "oxs/ir/call_graph.h"
#include "oxs/ir/printable.h"
#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"
#include "oxs/schema/conformance.h"

namespace oxs::cli {
namespace {

struct CheckArgs {
  std::string path;
  onnx::LoadOptions load;
  bool no_shape_inference = false;
  bool lenient = false;
};

int64_t count_nodes(const ir::Graph& g) {
  int64_t n = 0;
  g.for_each_node_recursive([&n](ir::Node*) { ++n; });
  return n;
}

std::string opset_summary(const ir::Model& m) {
  std::string main = "none";
  std::string others;
  for (const ir::OpsetImport& imp : m.opset_imports) {
    if (imp.domain.empty() || imp.domain == "ai.onnx") {
      main = std::to_string(imp.version);
    } else {
      others += (others.empty() ? "" : ", ") + imp.domain + " " + std::to_string(imp.version);
    }
  }
  return others.empty() ? main : main + " (" + others + ")";
}

int report_problems(const CheckArgs& args, size_t problems) {
  fmt::print(stderr, "oxs: error: {}: {} problem{} found\n", ir::printable(args.path), problems,
             problems == 1 ? "" : "s");
  return kExitProblem;
}

int run_check(const CheckArgs& args) {
  ir::Model model = onnx::load(args.path, args.load);
  size_t problems = 0;
  for (const ir::VerifyIssue& issue : ir::verify(model)) {
    fmt::print(stderr, "oxs: error: {}: {}: {}\n", ir::printable(args.path),
               ir::printable(issue.where), ir::printable_lines(issue.message));
    ++problems;
  }
  // libonnx's shape inference expands each call to a local function
  // recursively, on this thread's stack: recursion would never end, and a
  // very deep chain would overflow the stack. The verifier reported cycles.
  const ir::CallGraphSummary calls = ir::analyze_calls(model);
  if (!calls.cycles.empty()) {
    fmt::print(stderr,
               "oxs: note: {}: the onnx checker and shape inference were skipped: the model's "
               "functions call themselves\n",
               ir::printable(args.path));
    return report_problems(args, problems);
  }
  if (calls.max_depth > ir::kMaxExpandedCallDepth) {
    fmt::print(stderr,
               "oxs: error: {}: function calls nest {} deep ({} -> ... -> {}); oxs check runs the "
               "onnx checker and shape inference on at most {} nested calls, so they were "
               "skipped\n",
               ir::printable(args.path), calls.max_depth,
               ir::printable(ir::function_label(*calls.deepest_chain.front())),
               ir::printable(ir::function_label(*calls.deepest_chain.back())),
               ir::kMaxExpandedCallDepth);
    return report_problems(args, problems + 1);
  }
  schema::ConformanceOptions options;
  options.model_dir = directory_of(args.path);
  options.shape_inference = !args.no_shape_inference;
  options.strict = !args.lenient;
  for (const schema::ConformanceIssue& issue : schema::check_conformance(model, options)) {
    // Our own op lookup, or one of libonnx's stages.
    const std::string stage = issue.stage == "schema" ? "op schema" : "onnx " + issue.stage;
    if (issue.limitation) {
      fmt::print(stderr, "oxs: note: {}: {}: {}\n", ir::printable(args.path), stage,
                 ir::printable_lines(issue.message));
      continue;
    }
    fmt::print(stderr, "oxs: error: {}: {}: {}\n", ir::printable(args.path), stage,
               ir::printable_lines(issue.message));
    ++problems;
  }
  if (problems) return report_problems(args, problems);
  fmt::print("ok: {} nodes, opset {}\n", grouped(count_nodes(*model.graph)), opset_summary(model));
  return kExitOk;
}

Run setup_check(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  app.add_option("MODEL", args->path, "the .onnx file")->required();
  add_load_options(app, args->load);
  app.add_flag("--no-shape-inference", args->no_shape_inference,
               "skip libonnx's shape inference (run only the verifier and the checker)");
  app.add_flag("--lenient", args->lenient,
               "shape inference reports only conflicts, not nodes it cannot infer");
  app.footer(
      "Runs oxs's structural verifier (SSA, definitions before use, subgraph scopes), then\n"
      "libonnx's checker (ops against their schemas) and strict shape inference.\n"
      "Exit code 0 when the model is valid, 1 when problems were found.\n\n"
      "Example:\n  oxs check examples/models/mlp.onnx\n  ok: 4 nodes, opset 17\n");
  return [args] { return run_check(*args); };
}

}  // namespace

OXS_COMMAND(check, {"check", "Validate a model (verifier, ONNX checker, shape inference)", 20,
                    setup_check});

}  // namespace oxs::cli
