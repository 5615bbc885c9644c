// `oxs check MODEL`: our structural verifier, then libonnx's checker and
// strict shape inference. Problems go to stderr, one per line; success is a
// single "ok: ..." line on stdout.
#include <fmt/core.h>

#include <memory>

#include "oxs/cli/command.h"
#include "oxs/cli/format.h"
#include "oxs/infer/check_model.h"
#include "oxs/onnx/model_io.h"

namespace oxs::cli {
namespace {

struct CheckArgs {
  std::string path;
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

int run_check(const CheckArgs& args) {
  ir::Model model = onnx::load(args.path);
  schema::ConformanceOptions options;
  options.model_dir = directory_of(args.path);
  options.shape_inference = !args.no_shape_inference;
  options.strict = !args.lenient;
  size_t problems = 0;
  for (const infer::CheckIssue& issue : infer::check_model(model, options)) {
    // The verifier's messages start with their location, as they always did.
    const std::string stage = issue.stage == "verifier" ? "" : issue.stage + ": ";
    fmt::print(stderr, "oxs: {}: {}: {}{}\n", issue.note ? "note" : "error", args.path, stage,
               issue.message);
    if (!issue.note) ++problems;
  }
  if (problems) {
    fmt::print(stderr, "oxs: error: {}: {} problem{} found\n", args.path, problems,
               problems == 1 ? "" : "s");
    return kExitProblem;
  }
  fmt::print("ok: {} nodes, opset {}\n", grouped(count_nodes(*model.graph)), opset_summary(model));
  return kExitOk;
}

Run setup_check(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  app.add_option("MODEL", args->path, "the .onnx file")->required();
  app.add_flag("--no-shape-inference", args->no_shape_inference,
               "skip libonnx's shape inference (run only the verifier and the checker)");
  app.add_flag("--lenient", args->lenient,
               "shape inference reports only conflicts, not nodes it cannot infer");
  app.footer(
      "Runs oxs's structural verifier (SSA, definitions before use, subgraph scopes), oxs's\n"
      "op checks (every op, attribute and type against its signature, any opset up to 28),\n"
      "then libonnx's checker and strict shape inference where libonnx knows the opsets\n"
      "(ai.onnx <= 17), oxs's own inference beyond.\n"
      "Exit code 0 when the model is valid, 1 when problems were found.\n\n"
      "Example:\n  oxs check examples/models/mlp.onnx\n  ok: 4 nodes, opset 17\n");
  return [args] { return run_check(*args); };
}

}  // namespace

OXS_COMMAND(check, {"check", "Validate a model (verifier, ONNX checker, shape inference)", 20,
                    setup_check});

}  // namespace oxs::cli
