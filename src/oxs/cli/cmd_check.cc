// `oxs check MODEL`: our structural verifier, then libonnx's checker and
// strict shape inference. Problems go to stderr, one per line; success is a
// single "ok: ..." line on stdout.
#include <fmt/core.h>

#include <memory>
#include <optional>
#include <string_view>

#include "oxs/cli/command.h"
#include "oxs/cli/format.h"
#include "oxs/cli/json_out.h"
#include "oxs/eval/tensor.h"
#include "oxs/infer/check_model.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printable.h"
#include "oxs/onnx/model_io.h"

namespace oxs::cli {
namespace {

struct CheckArgs {
  std::string path;
  onnx::LoadOptions load;
  bool no_shape_inference = false;
  bool lenient = false;
  bool json = false;
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

// A Loop of at least this many trips runs for longer than any machine
// could: at a microsecond per trip, 2^40 trips take 12 days.
constexpr int64_t kEndlessTrips = int64_t{1} << 40;

// The value of `v` when it is a constant scalar of the model: an
// initializer that is not a graph input, or the output of a Constant node.
std::optional<eval::Tensor> constant_scalar(const ir::Value* v) {
  if (!v) return std::nullopt;
  std::shared_ptr<const ir::Tensor> t;
  if (v->const_value() && !v->is_graph_input()) {
    t = v->const_value();
  } else if (const ir::Node* p = v->producer();
             p && p->op_type() == "Constant" && p->domain().empty()) {
    if (const ir::Attr* a = p->attr("value"); a && !a->is_reference()) t = a->t;
  }
  if (!t) return std::nullopt;
  try {
    eval::Tensor e = eval::Tensor::from_ir(*t);
    if (e.numel() != 1) return std::nullopt;
    return e;
  } catch (const Error&) {
    return std::nullopt;  // unreadable: the other checks say why
  }
}

bool constant_true(const ir::Value* v) {
  std::optional<eval::Tensor> t = constant_scalar(v);
  return t && t->dtype() == ir::DataType::Bool && t->get_as_double(0) != 0;
}

// Whether a Loop body's condition output stays true when it entered true:
// the body's condition input passed through (directly or by Identity), or a
// constant true.
bool body_keeps_condition(const ir::Graph& body) {
  if (body.inputs().size() < 2 || body.outputs().empty()) return false;
  const ir::Value* out = body.outputs()[0];
  for (int hops = 0; out && hops < 64; ++hops) {
    if (out == body.inputs()[1]) return true;
    const ir::Node* p = out->producer();
    if (!p || p->op_type() != "Identity" || !p->domain().empty()) break;
    out = p->input(0);
  }
  return constant_true(out);
}

// Loops whose constant trip count (2^40 or more) and condition that stays
// true make them run longer than any machine could: `oxs run` stops them
// only at --max-seconds or Ctrl-C, so `oxs check` says so before anyone
// runs one (a warning: the model is valid).
std::vector<std::string> endless_loops(const ir::Model& model) {
  std::vector<std::string> found;
  auto visit = [&found](ir::Node* n) {
    if (n->op_type() != "Loop" || !n->domain().empty()) return;
    const ir::Attr* body = n->attr("body");
    if (!body || !body->g) return;
    std::optional<eval::Tensor> trips = constant_scalar(n->input(0));
    if (!trips || trips->dtype() != ir::DataType::Int64) return;
    const int64_t m = trips->scalar_int();
    if (m < kEndlessTrips) return;
    const ir::Value* cond = n->num_inputs() > 1 ? n->input(1) : nullptr;
    if ((cond && !constant_true(cond)) || !body_keeps_condition(*body->g)) return;
    int log2 = 0;
    while (log2 < 62 && (int64_t{1} << (log2 + 1)) <= m) ++log2;
    found.push_back("node '" + n->display_name() + "' (Loop) runs " + std::to_string(m) +
                    " trips (2^" + std::to_string(log2) + " or more) with a condition that stays " +
                    "true: no machine finishes it; `oxs run` stops it only at --max-seconds or " +
                    "Ctrl-C (Python: run(..., timeout=))");
  };
  model.graph->for_each_node_recursive(visit);
  for (const auto& f : model.functions) {
    if (f->body) f->body->for_each_node_recursive(visit);
  }
  return found;
}

int report_problems(const CheckArgs& args, size_t problems) {
  fmt::print(stderr, "oxs: error: {}: {} problem{} found\n", ir::printable(args.path), problems,
             problems == 1 ? "" : "s");
  return kExitProblem;
}

int run_check(const CheckArgs& args) {
  ir::Model model = onnx::load(args.path, args.load);
  size_t problems = 0;
  Json issues = Json::array();
  // One problem (or a note or warning): a line on stderr, or an entry of
  // the JSON list. Only errors are problems.
  auto emit = [&](const char* severity, const std::string& stage, const std::string& message) {
    if (args.json) {
      issues.push_back({{"severity", severity}, {"stage", stage}, {"message", message}});
    } else {
      // The verifier's messages start with their location, as they always did.
      const std::string prefix = stage == "verifier" ? "" : stage + ": ";
      fmt::print(stderr, "oxs: {}: {}: {}{}\n", severity, ir::printable(args.path), prefix,
                 ir::printable_lines(message));
    }
    if (std::string_view(severity) == "error") ++problems;
  };
  schema::ConformanceOptions options;
  options.model_dir = directory_of(args.path);
  options.shape_inference = !args.no_shape_inference;
  options.strict = !args.lenient;
  for (const infer::CheckIssue& issue : infer::check_model(model, options)) {
    emit(issue.note ? "note" : "error", issue.stage, issue.message);
  }
  for (const std::string& message : endless_loops(model)) emit("warning", "run time", message);
  if (args.json) {
    Json j = json_document("check");
    j["file"] = args.path;
    j["valid"] = problems == 0;
    j["nodes"] = count_nodes(*model.graph);
    j["opset"] = opset_summary(model);
    j["problems"] = problems;
    j["issues"] = issues;
    print_json(j);
    return problems ? kExitProblem : kExitOk;
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
  app.add_flag("--json", args->json, "print the result as JSON on stdout (schema: docs/json.md)");
  app.footer(
      "Runs oxs's structural verifier (SSA, definitions before use, subgraph scopes), oxs's\n"
      "op checks (every op, attribute and type against its signature, any opset up to 28),\n"
      "then libonnx's checker and strict shape inference where libonnx knows the opsets\n"
      "(ai.onnx <= 17), oxs's own inference beyond. Warns about a Loop that no machine could\n"
      "finish (a constant trip count of 2^40 or more with a condition that stays true).\n"
      "Exit code 0 when the model is valid (warnings included), 1 when problems were found.\n\n"
      "Example:\n  oxs check examples/models/mlp.onnx\n  ok: 4 nodes, opset 17\n");
  return [args] { return run_check(*args); };
}

}  // namespace

OXS_COMMAND(check, {"check", "Validate a model (verifier, ONNX checker, shape inference)", 20,
                    setup_check});

}  // namespace oxs::cli
