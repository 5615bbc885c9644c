// `oxs info MODEL`: a summary of a model without reading its weights
// (sizes come from dtypes and dims, not from the data).
#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <memory>

#include "oxs/cli/command.h"
#include "oxs/cli/format.h"
#include "oxs/cli/json_out.h"
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

// What `info` reports, gathered once and printed as text or JSON.
struct InfoData {
  std::vector<const ir::Graph*> graphs;
  std::vector<std::pair<std::string, int64_t>> ops;  // by count, descending
  int64_t total_nodes = 0;
  TensorTally inline_data, external_data;
};

InfoData gather(const ir::Model& model) {
  InfoData d;
  d.graphs = all_graphs(*model.graph);
  std::map<std::string, int64_t> per_op;
  for (const ir::Graph* sub : d.graphs) {
    for (const ir::Node* n : sub->nodes()) {
      ++per_op[op_key(*n)];
      ++d.total_nodes;
    }
    for (const ir::Value* v : sub->initializers()) {
      const auto& t = v->const_value();
      if (!t) continue;
      (t->encoding == ir::Tensor::Encoding::External ? d.external_data : d.inline_data).add(*t);
    }
    for (const auto& sparse : sub->sparse_initializers) {
      if (sparse) d.inline_data.add(sparse->values);
    }
  }
  d.ops.assign(per_op.begin(), per_op.end());
  std::stable_sort(d.ops.begin(), d.ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return d;
}

Json info_json(const std::string& path, const ir::Model& model, const InfoData& d) {
  const ir::Graph& g = *model.graph;
  Json j = json_document("info");
  j["file"] = path;
  j["ir_version"] = model.ir_version;
  Json opsets = Json::object();
  for (const ir::OpsetImport& imp : model.opset_imports) {
    opsets[imp.domain.empty() ? std::string("ai.onnx") : imp.domain] = imp.version;
  }
  j["opsets"] = opsets;
  j["producer"] = {{"name", model.producer_name}, {"version", model.producer_version}};
  j["domain"] = model.domain;
  j["model_version"] = model.model_version;
  j["doc_string"] = model.doc_string;
  Json meta = Json::object();
  for (const auto& [k, v] : model.metadata_props) meta[k] = v;
  j["metadata_props"] = meta;
  j["graph"] = g.name();
  Json inputs = Json::array(), outputs = Json::array();
  for (const ir::Value* v : g.inputs()) {
    if (!v->is_initializer()) inputs.push_back(json_value(*v));
  }
  for (const ir::Value* v : g.outputs()) outputs.push_back(json_value(*v));
  j["inputs"] = inputs;
  j["outputs"] = outputs;
  Json by_op = Json::object();
  for (const auto& [op, count] : d.ops) by_op[op] = count;
  j["nodes"] = {{"total", d.total_nodes},
                {"in_subgraphs", d.total_nodes - static_cast<int64_t>(g.num_nodes())},
                {"subgraphs", d.graphs.size() - 1},
                {"by_op", by_op}};
  Json functions = Json::array();
  for (const auto& f : model.functions) {
    if (!f) continue;
    functions.push_back(
        {{"domain", f->domain}, {"name", f->name}, {"nodes", f->body ? f->body->num_nodes() : 0}});
  }
  j["functions"] = functions;
  auto tally = [](const TensorTally& t) {
    return Json{{"count", t.count}, {"parameters", t.parameters}, {"bytes", t.bytes}};
  };
  j["initializers"] = {
      {"count", d.inline_data.count + d.external_data.count},
      {"parameters", d.inline_data.parameters + d.external_data.parameters},
      {"bytes", d.inline_data.bytes + d.external_data.bytes},
      {"inline", tally(d.inline_data)},
      {"external", tally(d.external_data)},
  };
  return j;
}

void print_info_text(const std::string& path, const ir::Model& model, const InfoData& d) {
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
  if (!model.metadata_props.empty()) {
    fmt::print("metadata:     {}\n", model.metadata_props.size());
    for (const auto& [k, v] : model.metadata_props) {
      fmt::print("  {}: {}\n", ir::printable(k), ir::printable(v));
    }
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

  const int64_t in_subgraphs = d.total_nodes - static_cast<int64_t>(g.num_nodes());
  const size_t subgraphs = d.graphs.size() - 1;
  fmt::print("nodes:        {}{}\n", grouped(d.total_nodes),
             in_subgraphs ? fmt::format(" ({} in {} subgraph{})", grouped(in_subgraphs), subgraphs,
                                        subgraphs == 1 ? "" : "s")
                          : "");
  size_t width = 0;
  for (const auto& [op, count] : d.ops) width = std::max(width, op.size());
  for (const auto& [op, count] : d.ops) fmt::print("  {:<{}}  {}\n", op, width, grouped(count));

  fmt::print("functions:    {}\n", model.functions.size());
  for (const auto& f : model.functions) {
    if (!f) continue;
    fmt::print("  {} ({} nodes)\n",
               ir::printable(f->domain.empty() ? f->name : f->domain + "." + f->name),
               f->body ? f->body->num_nodes() : 0);
  }

  const int64_t count = d.inline_data.count + d.external_data.count;
  fmt::print("initializers: {} ({} parameters, {})\n", grouped(count),
             grouped(d.inline_data.parameters + d.external_data.parameters),
             human_bytes(d.inline_data.bytes + d.external_data.bytes));
  if (count) {
    fmt::print("  inline:     {} tensors, {}\n", grouped(d.inline_data.count),
               human_bytes(d.inline_data.bytes));
    fmt::print("  external:   {} tensors, {}\n", grouped(d.external_data.count),
               human_bytes(d.external_data.bytes));
  }
}

struct InfoArgs {
  std::string path;
  bool json = false;
  onnx::LoadOptions load;
};

int run_info(const InfoArgs& args) {
  ir::Model model = onnx::load(args.path, args.load);
  InfoData d = gather(model);
  if (args.json) {
    print_json(info_json(args.path, model, d));
  } else {
    print_info_text(args.path, model, d);
  }
  return kExitOk;
}

Run setup_info(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  app.add_option("MODEL", args->path, "the .onnx file")->required();
  app.add_flag("--json", args->json, "print the summary as JSON (schema: docs/json.md)");
  add_load_options(app, args->load);
  app.footer(
      "Prints versions, producer, metadata, graph inputs and outputs with types, node counts per "
      "op type,\n"
      "functions and initializer sizes. Weights are not read.\n\n"
      "Example:\n  oxs info examples/models/mlp.onnx\n");
  return [args] { return run_info(*args); };
}

}  // namespace

OXS_COMMAND(info,
            {"info", "Summarize a model: versions, inputs, outputs, ops, weights", 10, setup_info});

}  // namespace oxs::cli
