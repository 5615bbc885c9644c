// The builder over libonnx's node test models: every model without graph
// attributes is rebuilt node by node through Builder::make_node (checks and
// inference at each node), and what the builder infers for the outputs must
// agree with the declared outputs; finish() (cleanups + verifier) must accept
// the result. Proves that checks accept every valid test node and that the
// builder path (names, constants, attributes) carries all of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <unordered_map>

#include "oxs/onnx/model_io.h"
#include "oxs/opsets.h"

namespace oxs::builder {
namespace {

namespace fs = std::filesystem;

const char* kNodeDir = "/usr/share/libonnx-testdata/data/node";

bool has_graph_attr(const ir::Graph& g) {
  for (ir::Node* n : g.nodes()) {
    for (const auto& a : n->attrs()) {
      if (a.g || !a.graphs.empty()) return true;
    }
  }
  return false;
}

TEST(BuilderConformance, RebuildNodeTestModels) {
  ASSERT_TRUE(fs::is_directory(kNodeDir)) << "install libonnx-testdata";
  size_t rebuilt = 0, skipped = 0, outputs = 0, exact = 0;
  for (const auto& entry : fs::directory_iterator(kNodeDir)) {
    std::string name = entry.path().filename().string();
    std::string path = (entry.path() / "model.onnx").string();
    if (!fs::exists(path)) continue;
    ir::Model src = onnx::load(path);
    if (has_graph_attr(*src.graph) || !src.functions.empty()) {
      ++skipped;  // bodies are rebuilt by the subgraph tests, not here
      continue;
    }
    try {
      Builder b;
      for (const auto& imp : src.opset_imports) b.use_opset(imp.domain, imp.version);
      std::unordered_map<const ir::Value*, Var> vm;
      for (ir::Value* in : src.graph->inputs()) {
        vm[in] = in->is_initializer() ? b.constant(*in->const_value(), in->name())
                                      : b.input(in->name(), in->type());
      }
      for (ir::Value* init : src.graph->initializers()) {
        if (!init->is_graph_input()) vm[init] = b.constant(*init->const_value(), init->name());
      }
      for (ir::Node* n : src.graph->nodes()) {
        std::vector<Var> ins;
        for (size_t i = 0; i < n->num_inputs(); ++i) {
          ins.push_back(n->input(i) ? vm.at(n->input(i)) : Var());
        }
        std::vector<ir::Attr> attrs;
        for (const auto& a : n->attrs()) attrs.push_back(a.clone());
        OpOptions opts{.domain = n->domain(), .name = n->name(), .num_outputs = n->num_outputs()};
        for (size_t i = 0; i < n->num_outputs(); ++i) {
          opts.output_names.push_back(n->output(i) ? n->output(i)->name() : std::string());
        }
        auto outs = b.make_node(n->op_type(), ins, std::move(attrs), opts);
        for (size_t i = 0; i < n->num_outputs(); ++i) {
          if (n->output(i)) vm[n->output(i)] = outs[i];
        }
      }
      for (ir::Value* out : src.graph->outputs()) {
        Var v = vm.at(out);
        ++outputs;
        if (v.type() == out->type()) ++exact;
        // No contradiction with what the model declares.
        EXPECT_NO_THROW(infer::merge_types(out->type(), v.type(), out->name())) << name;
        b.output(v, out->name(), out->type());
      }
      ir::Model m = b.finish();
      EXPECT_EQ(m.graph->outputs().size(), src.graph->outputs().size()) << name;
      ++rebuilt;
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.message();
    }
  }
  std::cout << "rebuilt " << rebuilt << " node models (" << skipped
            << " with subgraphs skipped); outputs " << outputs << ", inferred exactly " << exact
            << "\n";
  EXPECT_GT(rebuilt, 800u);
  EXPECT_GT(exact * 10, outputs * 8);
}

}  // namespace
}  // namespace oxs::builder
