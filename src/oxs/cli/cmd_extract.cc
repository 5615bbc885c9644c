// `oxs extract MODEL --inputs a,b --outputs c -o SUB`: the subgraph that
// computes the given outputs from the given inputs, as a model of its own
// (what onnx.utils.extract_model does). The nodes are found by one backward
// walk from the outputs that stops at the inputs (linear); a value the
// outputs need that is neither computed from the inputs nor an initializer is
// an error naming it, rather than a model that fails the checker.
#include <fmt/core.h>

#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "oxs/cli/command.h"
#include "oxs/cli/progress.h"
#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"
#include "oxs/schema/suggest.h"

namespace oxs::cli {
namespace {

struct ExtractArgs {
  std::string model;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string output;
  Verbosity verbosity;
};

// Every value of the main graph by name.
std::unordered_map<std::string, ir::Value*> values_by_name(const ir::Graph& g) {
  std::unordered_map<std::string, ir::Value*> out;
  for (ir::Value* v : g.inputs()) out[v->name()] = v;
  for (ir::Value* v : g.initializers()) out[v->name()] = v;
  for (const ir::Node* n : g.nodes()) {
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      if (ir::Value* v = n->output(i)) out[v->name()] = v;
    }
  }
  return out;
}

ir::Value* find_value(const std::unordered_map<std::string, ir::Value*>& values,
                      const std::string& name, const char* flag) {
  auto it = values.find(name);
  if (it != values.end()) return it->second;
  std::vector<std::string> names;
  names.reserve(values.size());
  for (const auto& [n, v] : values) names.push_back(n);
  throw Error(ErrorKind::Usage, std::string(flag) + ": the main graph has no value named '" + name +
                                    "'" + schema::did_you_mean(schema::closest_names(name, names)));
}

// Values of the main graph that `n` reads: its inputs and what the nodes of
// its subgraphs read from outside them.
void reads_of(const ir::Node& n, const ir::Graph& main, std::vector<ir::Value*>& out) {
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    if (n.input(i)) out.push_back(n.input(i));
  }
  for (const ir::Graph* sub : n.subgraphs()) {
    sub->for_each_node_recursive([&](ir::Node* inner) {
      for (size_t i = 0; i < inner->num_inputs(); ++i) {
        ir::Value* v = inner->input(i);
        if (v && v->graph() == &main) out.push_back(v);
      }
    });
  }
}

int run_extract(const ExtractArgs& args) {
  if (args.outputs.empty()) throw Error(ErrorKind::Usage, "extract: give --outputs NAME,...");
  ir::Model model = load_model(args.model, {}, args.verbosity);
  ir::Graph& g = *model.graph;
  auto values = values_by_name(g);

  std::unordered_set<const ir::Value*> stop;
  std::vector<ir::Value*> in_values, out_values;
  for (const auto& name : args.inputs) {
    ir::Value* v = find_value(values, name, "--inputs");
    if (v->is_initializer() && !v->is_graph_input()) {
      throw Error(ErrorKind::Usage,
                  "--inputs: '" + name + "' is an initializer; it is kept as one when used");
    }
    if (!stop.insert(v).second)
      throw Error(ErrorKind::Usage, "--inputs names '" + name + "' twice");
    in_values.push_back(v);
  }
  for (const auto& name : args.outputs) out_values.push_back(find_value(values, name, "--outputs"));

  // Backward walk from the outputs to the inputs.
  std::unordered_set<const ir::Node*> needed;
  std::unordered_set<const ir::Value*> seen;
  std::vector<ir::Value*> stack(out_values.begin(), out_values.end());
  std::vector<ir::Value*> reads;
  while (!stack.empty()) {
    ir::Value* v = stack.back();
    stack.pop_back();
    if (!seen.insert(v).second || stop.count(v)) continue;
    ir::Node* p = v->producer();
    if (!p) {
      if (v->is_initializer()) continue;
      throw Error(ErrorKind::Usage, "the outputs need graph input '" + v->name() +
                                        "', which --inputs does not list; add it to --inputs");
    }
    if (!needed.insert(p).second) continue;
    reads.clear();
    reads_of(*p, g, reads);
    stack.insert(stack.end(), reads.begin(), reads.end());
  }

  // Inputs computed by a node become graph inputs of the same name, typed:
  // from the model's annotations, else (as for untyped outputs) from shape
  // inference.
  bool untyped = false;
  for (ir::Value* v : in_values) untyped = untyped || v->type().is_none();
  for (ir::Value* v : out_values) untyped = untyped || v->type().is_none();
  if (untyped) {
    infer::Options options;
    options.unknown_ops_are_errors = false;
    infer::run(model, options);
  }
  for (ir::Value* v : in_values) {
    if (v->type().is_none()) {
      throw Error(ErrorKind::Input, "the type of '" + v->name() +
                                        "' is unknown (neither annotated nor inferable), and a "
                                        "graph input needs one");
    }
  }
  for (ir::Value*& v : in_values) {
    if (v->is_graph_input()) continue;
    const std::string name = v->name();
    v->set_name(g.names().unique_value(name + "_extracted_from"));
    ir::Value* input = g.add_input(name, v->type());
    input->doc_string = v->doc_string;
    v->replace_all_uses_with(input);
    v = input;
  }
  std::unordered_set<const ir::Value*> new_inputs(in_values.begin(), in_values.end());
  // Outputs named among the inputs are the new graph inputs.
  for (ir::Value*& v : out_values) {
    for (ir::Value* in : in_values) {
      if (in->name() == v->name()) v = in;
    }
  }
  while (!g.outputs().empty()) g.remove_output(g.outputs().size() - 1);
  for (ir::Value* v : out_values) g.add_output(v);

  std::unordered_set<const ir::Value*> dropped;
  for (ir::Node* n : g.nodes_reversed()) {
    if (needed.count(n)) continue;
    for (size_t i = 0; i < n->num_outputs(); ++i) dropped.insert(n->output(i));
    g.remove(n);
  }
  for (size_t i = g.inputs().size(); i-- > 0;) {
    ir::Value* v = g.inputs()[i];
    if (new_inputs.count(v)) continue;
    if (v->is_initializer()) {
      if (v->has_uses() || v->is_graph_output()) {
        g.demote_input_to_initializer(i);
        continue;
      }
    }
    dropped.insert(v);
    g.remove_input(i);
  }
  g.remove_initializers_if([&](ir::Value* v) {
    const bool unused = !v->has_uses() && !v->is_graph_output() && !v->is_graph_input();
    if (unused) dropped.insert(v);
    return unused;
  });
  std::erase_if(g.value_info, [&](ir::Value* v) { return dropped.count(v) > 0; });
  std::erase_if(g.value_info_overrides,
                [&](const ir::Graph::ValueInfoOverride& o) { return dropped.count(o.value) > 0; });
  g.collect_garbage();

  std::vector<ir::VerifyIssue> issues = ir::verify(model);
  if (!issues.empty()) {
    throw Error(ErrorKind::Internal, "the extracted graph fails verification: " + issues[0].where +
                                         ": " + issues[0].message);
  }
  save_model(model, args.output, {}, args.verbosity);
  fmt::print("wrote {}: {} node{}, {} input{}, {} output{}\n", args.output, g.num_nodes(),
             g.num_nodes() == 1 ? "" : "s", g.inputs().size(), g.inputs().size() == 1 ? "" : "s",
             g.outputs().size(), g.outputs().size() == 1 ? "" : "s");
  return kExitOk;
}

Run setup_extract(CLI::App& app) {
  auto args = std::make_shared<ExtractArgs>();
  app.add_option("MODEL", args->model, "the .onnx model")->required();
  add_verbosity_options(app, args->verbosity);
  app.add_option("--inputs", args->inputs,
                 "values that become the inputs (comma-separated; graph inputs or intermediate "
                 "values)")
      ->delimiter(',');
  app.add_option("--outputs", args->outputs, "values that become the outputs (comma-separated)")
      ->delimiter(',')
      ->required();
  app.add_option("-o,--output", args->output, "where to write the extracted model")->required();
  app.footer(
      "Keeps the nodes between the inputs and the outputs, the initializers they use and the\n"
      "model's functions. Inputs keep the model's order; intermediate values named in\n"
      "--inputs follow, typed as the model annotates them.\n\n"
      "Example:\n  oxs extract examples/models/mlp.onnx --inputs H --outputs logits -o "
      "head.onnx\n");
  return [args] { return run_extract(*args); };
}

}  // namespace

OXS_COMMAND(extract,
            {"extract", "Extract the subgraph between values as a model", 36, setup_extract});

}  // namespace oxs::cli
