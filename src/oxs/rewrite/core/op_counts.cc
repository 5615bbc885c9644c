#include "oxs/rewrite/core/op_counts.h"

namespace oxs::rewrite {

OpCounts::OpCounts(const ir::Model& model) {
  add_graph(*model.graph);
  for (const auto& f : model.functions) add_graph(*f->body);
  for (const auto& [k, n] : counts_) initial_total_ += size_t(n);
}

std::string_view OpCounts::key(std::string_view domain, std::string_view op) const {
  if (domain == "ai.onnx") domain = {};
  key_.assign(domain);
  key_ += '\x1f';
  key_ += op;
  return key_;
}

void OpCounts::bump(const ir::Node& n, int64_t delta) {
  std::string_view k = key(n.domain(), n.op_type());
  auto it = counts_.find(k);
  if (it == counts_.end()) it = counts_.emplace(std::string(k), 0).first;
  it->second += delta;
  if (it->second < 0) unreliable_ = true;
}

void OpCounts::add(const ir::Node& n, int64_t delta) {
  bump(n, delta);
  for (const ir::Attr& a : n.attrs()) {
    auto inner = [&](const ir::Graph& g) {
      g.for_each_node_recursive([&](ir::Node* m) { bump(*m, delta); });
    };
    if (a.g) inner(*a.g);
    for (const auto& g : a.graphs) inner(*g);
  }
}

void OpCounts::add_graph(const ir::Graph& g) {
  // Nodes of subgraphs come through add() of their owner.
  for (const ir::Node* n : g.nodes()) add(*n, 1);
}

bool OpCounts::may_have(std::string_view domain, std::string_view op) const {
  if (unreliable_) return true;
  auto it = counts_.find(key(domain, op));
  return it != counts_.end() && it->second > 0;
}

}  // namespace oxs::rewrite
