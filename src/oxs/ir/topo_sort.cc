#include "oxs/ir/topo_sort.h"

#include <functional>
#include <queue>
#include <unordered_map>

#include "oxs/ir/error.h"

namespace oxs::ir {

namespace {

// Calls f(v) for every value read by `n`, including values its subgraphs
// read from outside themselves.
void for_each_read(const Node* n, const std::function<void(Value*)>& f) {
  for (size_t i = 0; i < n->num_inputs(); ++i) {
    if (Value* v = n->input(i)) f(v);
  }
  for (Graph* sub : n->subgraphs()) {
    sub->for_each_node_recursive([&](Node* m) {
      for (size_t i = 0; i < m->num_inputs(); ++i) {
        if (Value* v = m->input(i)) f(v);
      }
    });
  }
}

}  // namespace

std::vector<Node*> topological_order(const Graph& g) {
  std::vector<Node*> nodes;
  nodes.reserve(g.num_nodes());
  std::unordered_map<const Node*, size_t> index;
  index.reserve(g.num_nodes());
  for (Node* n : g.nodes()) {
    index.emplace(n, nodes.size());
    nodes.push_back(n);
  }
  std::vector<std::vector<size_t>> successors(nodes.size());
  std::vector<size_t> indegree(nodes.size(), 0);
  for (size_t k = 0; k < nodes.size(); ++k) {
    for_each_read(nodes[k], [&](Value* v) {
      Node* p = v->producer();
      if (!p || p->graph() != &g) return;
      auto it = index.find(p);
      if (it == index.end()) return;
      successors[it->second].push_back(k);
      ++indegree[k];
    });
  }
  // Smallest original position first: a sorted graph keeps its order.
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (indegree[k] == 0) ready.push(k);
  }
  std::vector<Node*> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    size_t k = ready.top();
    ready.pop();
    order.push_back(nodes[k]);
    for (size_t s : successors[k]) {
      if (--indegree[s] == 0) ready.push(s);
    }
  }
  if (order.size() != nodes.size()) {
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (indegree[k] > 0) {
        throw Error(ErrorKind::Invalid, "the graph has a cycle through this node",
                    {.node = nodes[k]->display_name()});
      }
    }
  }
  return order;
}

void topological_sort(Graph& g) {
  std::vector<Node*> order = topological_order(g);
  g.reorder_nodes(order);
  for (Node* n : order) {
    for (Graph* sub : n->subgraphs()) topological_sort(*sub);
  }
}

}  // namespace oxs::ir
