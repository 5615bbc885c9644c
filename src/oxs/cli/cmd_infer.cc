// `oxs infer MODEL -o OUT`: runs type and shape inference (infer/, libonnx's
// inference functions over the IR) and writes the model with every inferred
// type recorded: intermediate values as value_info, refined graph outputs.
// What onnx.shape_inference.infer_shapes_path does, on our IR.
#include <fmt/core.h>

#include <memory>
#include <unordered_set>

#include "oxs/cli/command.h"
#include "oxs/cli/progress.h"
#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"

namespace oxs::cli {
namespace {

struct InferArgs {
  std::string model;
  std::string output;
  bool no_data_propagation = false;
  bool lenient = false;
  Verbosity verbosity;
};

bool fully_known(const ir::Type& t) {
  if (t.is_none()) return false;
  if (t.is_tensor()) return t.shape() && t.shape()->is_static();
  return !t.element() || fully_known(*t.element());
}

struct Tally {
  size_t typed = 0, static_shapes = 0, untyped = 0;
};

// Lists every typed node output of `g` (and its subgraphs) as value_info.
void annotate(ir::Graph& g, Tally& tally) {
  std::unordered_set<const ir::Value*> listed(g.value_info.begin(), g.value_info.end());
  for (ir::Node* n : g.nodes()) {
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      ir::Value* v = n->output(i);
      if (!v) continue;
      if (v->type().is_none()) {
        ++tally.untyped;
        continue;
      }
      ++tally.typed;
      tally.static_shapes += fully_known(v->type()) ? 1 : 0;
      if (!v->is_graph_output() && listed.insert(v).second) g.value_info.push_back(v);
    }
    for (ir::Graph* sub : n->subgraphs()) annotate(*sub, tally);
  }
}

int run_infer(const InferArgs& args) {
  ir::Model model = load_model(args.model, {}, args.verbosity);
  infer::Options options;
  options.data_propagation = !args.no_data_propagation;
  options.unknown_ops_are_errors = !args.lenient;
  Progress inferring("inferring types of " + args.model, args.verbosity);
  infer::run(model, options);
  inferring.done();
  Tally tally;
  annotate(*model.graph, tally);
  save_model(model, args.output, {}, args.verbosity);
  fmt::print("wrote {}: {} values typed ({} with static shapes), {} unknown\n", args.output,
             tally.typed, tally.static_shapes, tally.untyped);
  return kExitOk;
}

Run setup_infer(CLI::App& app) {
  auto args = std::make_shared<InferArgs>();
  app.add_option("MODEL", args->model, "the .onnx model")->required();
  add_verbosity_options(app, args->verbosity);
  app.add_option("-o,--output", args->output, "where to write the model with inferred types")
      ->required();
  app.add_flag("--no-data-propagation", args->no_data_propagation,
               "do not track known shape values between nodes (Shape -> Gather -> Reshape)");
  app.add_flag("--lenient", args->lenient, "leave nodes of unknown ops untyped instead of failing");
  app.footer(
      "Infers the type and shape of every value (libonnx's inference functions, with data\n"
      "propagation of shape values) and writes them as value_info; a contradiction with\n"
      "what the model declares is an error naming the node.\n\n"
      "Example:\n  oxs infer examples/models/mlp.onnx -o mlp_inferred.onnx\n");
  return [args] { return run_infer(*args); };
}

}  // namespace

OXS_COMMAND(infer,
            {"infer", "Infer types and shapes and write them into the model", 35, setup_infer});

}  // namespace oxs::cli
