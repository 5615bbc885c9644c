#include "oxs/rewrite/core/op_index.h"

#include <algorithm>
#include <iterator>

namespace oxs::rewrite {

namespace {
bool is_default_domain(std::string_view d) {
  return d.empty() || d == "ai.onnx";
}

bool has_subgraphs(const ir::Node& n) {
  for (const ir::Attr& a : n.attrs()) {
    if (a.g || !a.graphs.empty()) return true;
  }
  return false;
}
}  // namespace

OpIndex::OpIndex(const ir::Model& model) {
  added_graph(*model.graph);
  for (const auto& f : model.functions) added_graph(*f->body);
  initial_total_ = next_order_;
}

std::string_view OpIndex::key(std::string_view domain, std::string_view op) const {
  key_.assign(domain);
  key_ += '\x1f';
  key_ += op;
  return key_;
}

OpIndex::Bucket& OpIndex::bucket(const ir::Node& n) {
  auto& map = is_default_domain(n.domain()) ? default_ : other_;
  std::string_view k =
      is_default_domain(n.domain()) ? std::string_view(n.op_type()) : key(n.domain(), n.op_type());
  auto it = map.find(k);
  if (it == map.end()) it = map.emplace(std::string(k), Bucket{}).first;
  return it->second;
}

const OpIndex::Bucket* OpIndex::find(std::string_view domain, std::string_view op) const {
  const auto& map = is_default_domain(domain) ? default_ : other_;
  auto it = map.find(is_default_domain(domain) ? op : key(domain, op));
  return it == map.end() ? nullptr : &it->second;
}

void OpIndex::add_one(const ir::Node& n) {
  Bucket& b = bucket(n);
  ++b.count;
  b.nodes.push_back({next_order_++, const_cast<ir::Node*>(&n)});
}

void OpIndex::added(const ir::Node& n) {
  add_one(n);
  // Pre-order, as the driver visits them: a node before its subgraphs' nodes.
  for (const ir::Attr& a : n.attrs()) {
    auto inner = [&](const ir::Graph& g) {
      g.for_each_node_recursive([&](ir::Node* m) { add_one(*m); });
    };
    if (a.g) inner(*a.g);
    for (const auto& g : a.graphs) inner(*g);
  }
}

void OpIndex::added_graph(const ir::Graph& g) {
  for (const ir::Node* n : g.nodes()) added(*n);
}

void OpIndex::erased(const ir::Node& n) {
  Bucket& b = bucket(n);
  if (--b.count < 0) unreliable_ = true;
  b.has_erased = true;
  if (has_subgraphs(n)) {
    // Their nodes go with it, unmarked: the lists cannot tell.
    exact_ = false;
    for (const ir::Attr& a : n.attrs()) {
      auto inner = [&](const ir::Graph& g) {
        g.for_each_node_recursive([&](ir::Node* m) {
          if (--bucket(*m).count < 0) unreliable_ = true;
        });
      };
      if (a.g) inner(*a.g);
      for (const auto& g : a.graphs) inner(*g);
    }
  }
}

void OpIndex::changed(const ir::Node& n) {
  ++bucket(n).count;  // perhaps under a new op type (high is safe)
  exact_ = false;
}

void OpIndex::drop_erased() {
  if (!exact_) {
    // The lists are not used any more; free them.
    for (auto* map : {&default_, &other_}) {
      for (auto& [k, b] : *map) {
        b.nodes = {};
        b.has_erased = false;
      }
    }
    return;
  }
  for (auto* map : {&default_, &other_}) {
    for (auto& [k, b] : *map) {
      if (!b.has_erased) continue;
      std::erase_if(b.nodes, [](const auto& e) { return e.second->is_erased(); });
      b.has_erased = false;
    }
  }
}

size_t OpIndex::total() const {
  int64_t n = 0;
  for (const auto* map : {&default_, &other_}) {
    for (const auto& [k, b] : *map) n += std::max<int64_t>(b.count, 0);
  }
  return size_t(n);
}

bool OpIndex::may_have(std::string_view domain, std::string_view op) const {
  if (unreliable_) return true;
  const Bucket* b = find(domain, op);
  return b && b->count > 0;
}

std::optional<std::vector<ir::Node*>> OpIndex::nodes_of(
    const std::vector<std::pair<std::string, std::string>>& ops) const {
  if (!exact_ || unreliable_) return std::nullopt;
  // Each list is in order already: merge them (linear per list).
  std::vector<std::pair<uint64_t, ir::Node*>> all, part, merged;
  std::vector<const Bucket*> seen;
  for (const auto& [domain, op] : ops) {
    const Bucket* b = find(domain, op);
    if (!b || b->nodes.empty() || std::find(seen.begin(), seen.end(), b) != seen.end()) continue;
    seen.push_back(b);
    part.clear();
    for (const auto& e : b->nodes) {
      if (!e.second->is_erased()) part.push_back(e);
    }
    if (all.empty()) {
      all.swap(part);
      continue;
    }
    merged.clear();
    merged.reserve(all.size() + part.size());
    std::merge(all.begin(), all.end(), part.begin(), part.end(), std::back_inserter(merged));
    all.swap(merged);
  }
  std::vector<ir::Node*> out;
  out.reserve(all.size());
  for (const auto& e : all) out.push_back(e.second);
  return out;
}

}  // namespace oxs::rewrite
