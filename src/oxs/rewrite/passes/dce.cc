// dce: nodes whose outputs nobody reads (and that are no graph output),
// walked backwards so a whole dead chain goes in one sweep; then
// initializers nothing reads and model-local functions nothing calls.
#include <unordered_set>

#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

bool is_dead(const ir::Node& n) {
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    const ir::Value* o = n.output(i);
    if (o && (o->has_uses() || o->is_graph_output())) return false;
  }
  return true;
}

class DeadCodePass : public Pass {
 public:
  DeadCodePass() : Pass("dce") {}
  std::string summary() const override { return "remove unused nodes, initializers, functions"; }
  PassKind kind() const override { return PassKind::Transformation; }

  void run(ir::Model& model, Rewriter& rw, PassStats& stats) override {
    sweep(*model.graph, rw);
    for (const auto& f : model.functions) sweep(*f->body, rw);
    size_t inits = rw.remove_unused_initializers(*model.graph);
    if (inits) stats.applications["dce.initializer"] += inits;
    // Functions called from the graph, subgraphs or other functions.
    std::unordered_set<const ir::Function*> called;
    std::vector<const ir::Function*> stack;
    auto visit_graph = [&](const ir::Graph& g) {
      g.for_each_node_recursive([&](ir::Node* n) {
        const ir::Function* f = model.find_function(n->domain(), n->op_type());
        if (f && called.insert(f).second) stack.push_back(f);
      });
    };
    visit_graph(*model.graph);
    for (const auto& t : model.training_info) {
      if (t.initialization) visit_graph(*t.initialization);
      if (t.algorithm) visit_graph(*t.algorithm);
    }
    while (!stack.empty()) {
      const ir::Function* f = stack.back();
      stack.pop_back();
      visit_graph(*f->body);
    }
    size_t fns = rw.remove_functions_if([&](const ir::Function& f) { return !called.count(&f); });
    if (fns) stats.applications["dce.function"] += fns;
  }

 private:
  void sweep(ir::Graph& g, Rewriter& rw) {
    for (ir::Node* n : g.nodes_reversed()) {
      if (n->is_erased()) continue;
      for (ir::Graph* sub : n->subgraphs()) sweep(*sub, rw);
      if (is_dead(*n)) apply_at(rw, "dce", *n, nullptr, [&] { rw.erase(*n); });
    }
  }
};

}  // namespace

std::unique_ptr<Pass> make_dead_code_pass(const PassOptions& o) {
  check_options("dce", o, {});
  return std::make_unique<DeadCodePass>();
}

}  // namespace oxs::rewrite
