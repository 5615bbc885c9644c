// `oxs info MODEL`: a summary of a model without reading its weights
// (sizes come from dtypes and dims, not from the data).
#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <memory>

#include "oxs/cli/command.h"
#include "oxs/cli/format.h"
#include "oxs/ir/printable.h"
#include "oxs/onnx/model_io.h"

namespace oxs::cli {
namespace {

struct TensorTally {
  int64_t count = 0;
  int64_t parameters = 0;
  int64_t bytes = 0;
  void add(const ir::Tensor& t) {
    ++count;
    const int64_t n = t.numel();
    if (n > 0) parameters += n;
    if (t.dtype() == ir::DataType::String) {
      for (const std::string& s : t.strings) bytes += static_cast<int64_t>(s.size());
    } else if (int64_t b = t.expected_nbytes(); b > 0) {
      bytes += b;
    }
  }
};

// The main graph and every subgraph below it.
std::vector<const ir::Graph*> all_graphs(const ir::Graph& main) {
  std::vector<const ir::Graph*> out{&main};
  for (size_t i = 0; i < out.size(); ++i) {
    for (const ir::Node* n : out[i]->nodes()) {
      for (const ir::Graph* sub : n->subgraphs()) out.push_back(sub);
    }
  }
  return out;
}

std::string op_key(const ir::Node& n) {
  return ir::printable(
      n.domain().empty() || n.domain() == "ai.onnx" ? n.op_type() : n.domain() + "." + n.op_type());
}

int run_info(const std::string& path, const onnx::LoadOptions& load) {
  ir::Model model = onnx::load(path, load);
  const ir::Graph& g = *model.graph;

  fmt::print("file:         {}\n", ir::printable(path));
  fmt::print("ir_version:   {}\n", model.ir_version);
  fmt::print("opsets:       {}\n", opsets_text(model.opset_imports));
  if (!model.producer_name.empty() || !model.producer_version.empty()) {
    fmt::print("producer:     {}{}{}\n", ir::printable(model.producer_name),
               model.producer_version.empty() ? "" : " ", ir::printable(model.producer_version));
  }
  if (!model.domain.empty()) fmt::print("domain:       {}\n", ir::printable(model.domain));
  if (model.has_model_version || model.model_version) {
    fmt::print("model_version: {}\n", model.model_version);
  }
  fmt::print("graph:        {}\n", g.name().empty() ? "(unnamed)" : ir::printable(g.name()));

  size_t real_inputs = 0;
  for (const ir::Value* v : g.inputs()) real_inputs += v->is_initializer() ? 0 : 1;
  fmt::print("inputs:       {}\n", real_inputs);
  for (const ir::Value* v : g.inputs()) {
    if (!v->is_initializer()) fmt::print("  {}\n", value_text(*v));
  }
  fmt::print("outputs:      {}\n", g.outputs().size());
  for (const ir::Value* v : g.outputs()) fmt::print("  {}\n", value_text(*v));

  // Nodes per op type, over the main graph and its subgraphs.
  std::vector<const ir::Graph*> graphs = all_graphs(g);
  std::map<std::string, int64_t> per_op;
  int64_t total = 0;
  for (const ir::Graph* sub : graphs) {
    for (const ir::Node* n : sub->nodes()) {
      ++per_op[op_key(*n)];
      ++total;
    }
  }
  const int64_t in_subgraphs = total - static_cast<int64_t>(g.num_nodes());
  fmt::print("nodes:        {}{}\n", grouped(total),
             in_subgraphs ? fmt::format(" ({} in {} subgraph{})", grouped(in_subgraphs),
                                        graphs.size() - 1, graphs.size() == 2 ? "" : "s")
                          : "");
  std::vector<std::pair<std::string, int64_t>> ops(per_op.begin(), per_op.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  size_t width = 0;
  for (const auto& [op, count] : ops) width = std::max(width, op.size());
  for (const auto& [op, count] : ops) fmt::print("  {:<{}}  {}\n", op, width, grouped(count));

  fmt::print("functions:    {}\n", model.functions.size());
  for (const auto& f : model.functions) {
    if (!f) continue;
    fmt::print("  {} ({} nodes)\n",
               ir::printable(f->domain.empty() ? f->name : f->domain + "." + f->name),
               f->body ? f->body->num_nodes() : 0);
  }

  TensorTally inline_data, external_data;
  for (const ir::Graph* sub : graphs) {
    for (const ir::Value* v : sub->initializers()) {
      const auto& t = v->const_value();
      if (!t) continue;
      (t->encoding == ir::Tensor::Encoding::External ? external_data : inline_data).add(*t);
    }
    for (const auto& sparse : sub->sparse_initializers) {
      if (sparse) inline_data.add(sparse->values);
    }
  }
  const int64_t count = inline_data.count + external_data.count;
  fmt::print("initializers: {} ({} parameters, {})\n", grouped(count),
             grouped(inline_data.parameters + external_data.parameters),
             human_bytes(inline_data.bytes + external_data.bytes));
  if (count) {
    fmt::print("  inline:     {} tensors, {}\n", grouped(inline_data.count),
               human_bytes(inline_data.bytes));
    fmt::print("  external:   {} tensors, {}\n", grouped(external_data.count),
               human_bytes(external_data.bytes));
  }
  return kExitOk;
}

Run setup_info(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto load = std::make_shared<onnx::LoadOptions>();
  app.add_option("MODEL", *path, "the .onnx file")->required();
  add_load_options(app, *load);
  app.footer(
      "Prints versions, producer, graph inputs and outputs with types, node counts per op type,\n"
      "functions and initializer sizes. Weights are not read.\n\n"
      "Example:\n  oxs info examples/models/mlp.onnx\n");
  return [path, load] { return run_info(*path, *load); };
}

}  // namespace

OXS_COMMAND(info,
            {"info", "Summarize a model: versions, inputs, outputs, ops, weights", 10, setup_info});

}  // namespace oxs::cli
