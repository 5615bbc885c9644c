// finish()'s cleanups: Identity nodes go (graph outputs keep their names), then
// nodes whose outputs nobody reads (one reverse pass: a node's readers come
// after it, so when we reach it every dead reader is already gone), then
// unused initializers. Linear in the size of the model.
#include "oxs/builder/builder.h"

namespace oxs::builder {

namespace {

void remove_identities(ir::Graph& g) {
  for (ir::Node* n : g.nodes()) {
    if (n->op_type() != "Identity" || !n->domain().empty() || n->num_inputs() != 1 ||
        n->num_outputs() != 1 || !n->input(0) || !n->output(0)) {
      continue;
    }
    ir::Value* x = n->input(0);
    ir::Value* y = n->output(0);
    if (!y->is_graph_output()) {
      y->replace_all_uses_with(x);
      g.remove(n);
      continue;
    }
    // y is a graph output: x may take its place (and its name) only if x is
    // a plain value of this graph.
    bool x_plain = x->producer() && x->graph() == &g && !x->is_graph_output() &&
                   !x->is_graph_input() && !x->is_initializer();
    if (!x_plain) continue;
    std::string name = y->name();
    y->replace_all_uses_with(x, /*include_graph_outputs=*/true);
    if (x->type().is_none()) x->set_type(y->type());
    y->set_name("");
    x->set_name(std::move(name));
    g.remove(n);
  }
}

void remove_dead(ir::Graph& g, bool identity);

void clean_graph(ir::Graph& g, bool identity) {
  if (identity) remove_identities(g);
  remove_dead(g, identity);
}

void remove_dead(ir::Graph& g, bool identity) {
  for (ir::Node* n : g.nodes_reversed()) {
    bool live = n->num_outputs() == 0;
    for (size_t i = 0; i < n->num_outputs() && !live; ++i) {
      const ir::Value* v = n->output(i);
      live = v && (v->has_uses() || v->is_graph_output());
    }
    if (!live) {
      g.remove(n);
      continue;
    }
    // Cleaning a body may free outer values it read: before earlier nodes.
    for (ir::Graph* sub : n->subgraphs()) clean_graph(*sub, identity);
  }
  g.remove_initializers_if(
      [](ir::Value* v) { return !v->has_uses() && !v->is_graph_output() && !v->is_graph_input(); });
  std::erase_if(g.value_info,
                [](ir::Value* v) { return v->producer() && v->producer()->is_erased(); });
  g.collect_garbage();
}

}  // namespace

void remove_unused(ir::Model& model, bool identity) {
  clean_graph(*model.graph, identity);
  for (auto& fn : model.functions) clean_graph(*fn->body, identity);
}

}  // namespace oxs::builder
