#include "oxs/rewrite/driver/greedy.h"

#include "oxs/rewrite/core/op_index.h"
#include "oxs/rewrite/driver/pointer_set.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace oxs::rewrite {

namespace {

void collect(const ir::Graph& g, std::vector<ir::Node*>& out, bool recurse) {
  for (ir::Node* n : g.nodes()) {
    out.push_back(n);
    if (!recurse) continue;
    // (Node::subgraphs() would allocate for every node.)
    for (const ir::Attr& a : n->attrs()) {
      if (a.g) collect(*a.g, out, recurse);
      for (const auto& sub : a.graphs) collect(*sub, out, recurse);
    }
  }
}

std::string key(const std::string& domain, const std::string& op) {
  return domain + "\x1f" + op;
}

bool is_default_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx";
}

// Heterogeneous lookup: the op type of a node is looked up without a copy.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};
using RuleIndex = std::unordered_map<std::string, std::vector<Rule*>, StringHash, std::equal_to<>>;

// The nodes to visit: first every candidate in graph order, or in the
// op-type index's order (the order of its walk, then of creation) (a plain vector:
// no set operation per node, which on a large graph is a cache miss each),
// then the nodes re-queued by changes, first in first out, each once while
// queued. A re-queued node may also be still ahead in the first sweep; it is
// then visited twice, which a rule that no longer applies costs little.
// Only nodes that some rule can start from are queued (`wanted`); a node no
// rule starts from would be popped for nothing, after a set insert and erase
// each a cache miss on a large graph. Nodes re-queued during the first sweep
// wait in a plain vector until it ends, and those erased meanwhile (on a
// chain of rewrites, most) never reach the set; the order is the same.
class Worklist : public RewriteListener {
 public:
  Worklist(std::vector<ir::Node*> initial, std::function<bool(const ir::Node&)> wanted)
      : initial_(std::move(initial)), wanted_(std::move(wanted)) {}
  void push(ir::Node& n) {
    if (n.is_erased() || !wanted_(n)) return;
    if (!swept_) {
      deferred_.push_back(&n);
    } else if (queued_.insert(&n)) {
      queue_.push_back(&n);
    }
  }
  ir::Node* pop() {
    while (next_ < initial_.size()) {
      ir::Node* n = initial_[next_++];
      if (!n->is_erased()) return n;
    }
    if (!swept_) {
      // (Erased nodes keep their memory until the pass ends.)
      swept_ = true;
      for (ir::Node* n : deferred_) {
        if (!n->is_erased() && queued_.insert(n)) queue_.push_back(n);
      }
      deferred_ = {};
    }
    while (!queue_.empty()) {
      ir::Node* n = queue_.front();
      queue_.pop_front();
      queued_.erase(n);
      if (!n->is_erased()) return n;
    }
    return nullptr;
  }
  void node_created(ir::Node& n) override {
    push(n);
    for (ir::Graph* sub : n.subgraphs()) {
      std::vector<ir::Node*> inner;
      collect(*sub, inner, true);
      for (ir::Node* m : inner) push(*m);
    }
  }
  void node_changed(ir::Node& n) override {
    push(n);
    // A consumer's pattern may now match through this node.
    for (size_t i = 0; i < n.num_outputs(); ++i) {
      if (!n.output(i)) continue;
      for (const ir::Use& u : n.output(i)->uses()) push(*u.user);
    }
  }
  void node_erased(ir::Node& n) override {
    // Producers of its inputs lost a user (single-use conditions change).
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      if (n.input(i) && n.input(i)->producer()) push(*n.input(i)->producer());
    }
  }

 private:
  std::vector<ir::Node*> initial_;
  std::function<bool(const ir::Node&)> wanted_;
  size_t next_ = 0;
  bool swept_ = false;
  std::vector<ir::Node*> deferred_;
  std::deque<ir::Node*> queue_;
  PointerSet queued_;
};

}  // namespace

std::vector<ir::Node*> all_nodes(const ir::Model& model, bool recurse) {
  std::vector<ir::Node*> out;
  out.reserve(model.graph->num_nodes());
  collect(*model.graph, out, recurse);
  if (recurse) {
    for (const auto& f : model.functions) collect(*f->body, out, true);
  }
  return out;
}

DriverResult apply_rules(ir::Model& model, const std::vector<Rule*>& rules, Rewriter& rw,
                         const DriverOptions& options) {
  DriverResult result;
  if (rules.empty()) return result;
  // The op-type index: (domain, op) -> rules by benefit; plus rules for any op.
  std::vector<Rule*> ordered(rules);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const Rule* a, const Rule* b) { return a->benefit() > b->benefit(); });
  // ai.onnx ops are indexed by op type alone, other domains by domain+op.
  RuleIndex by_op, by_domain_op;
  std::vector<Rule*> any_op;
  for (Rule* r : ordered) {
    auto ops = r->root_ops();
    if (ops.empty()) any_op.push_back(r);
    for (const auto& op : ops) {
      if (is_default_domain(r->root_domain()))
        by_op[op].push_back(r);
      else
        by_domain_op[key(r->root_domain(), op)].push_back(r);
    }
  }
  auto candidates = [&](const ir::Node& n) -> const std::vector<Rule*>* {
    const RuleIndex& index = is_default_domain(n.domain()) ? by_op : by_domain_op;
    if (index.empty()) return nullptr;
    auto it = is_default_domain(n.domain()) ? index.find(std::string_view(n.op_type()))
                                            : index.find(key(n.domain(), n.op_type()));
    return it == index.end() ? nullptr : &it->second;
  };

  // With the pipeline's op-type index: nothing to do when no node can start
  // a rule, else only the nodes of the rules' op types, without a walk.
  std::optional<std::vector<ir::Node*>> indexed;
  if (const OpIndex* index = rw.op_index(); index && any_op.empty()) {
    std::vector<std::pair<std::string, std::string>> ops;
    bool possible = false;
    for (const Rule* r : ordered) {
      for (auto& op : r->root_ops()) {
        possible = possible || index->may_have(r->root_domain(), op);
        ops.emplace_back(r->root_domain(), std::move(op));
      }
    }
    if (!possible) return result;
    indexed = index->nodes_of(ops);
  }
  size_t model_nodes = indexed ? rw.op_index()->total() : 0;
  std::vector<ir::Node*> nodes = indexed ? std::move(*indexed) : all_nodes(model, options.recurse);
  if (!indexed) model_nodes = nodes.size();
  size_t cap = options.max_applications ? options.max_applications : model_nodes * 10 + 1000;
  auto wanted = [&](const ir::Node& n) { return !any_op.empty() || candidates(n) != nullptr; };
  if (any_op.empty() && !indexed)
    std::erase_if(nodes, [&](const ir::Node* n) { return !wanted(*n); });
  Worklist work(std::move(nodes), wanted);
  rw.set_listener(&work);
  struct Reset {
    Rewriter& rw;
    ~Reset() { rw.set_listener(nullptr); }
  } reset{rw};
  while (ir::Node* n = work.pop()) {
    if (!options.recurse && n->graph() != model.graph.get()) continue;
    const std::vector<Rule*>* list = candidates(*n);
    bool applied = false;
    auto offer = [&](Rule* r) {
      ++result.visits;
      if (r->try_apply(*n, rw, nullptr)) {
        ++result.applications;
        applied = true;
      }
    };
    if (list) {
      for (Rule* r : *list) {
        offer(r);
        if (applied) break;
      }
    }
    if (!applied) {
      for (Rule* r : any_op) {
        offer(r);
        if (applied) break;
      }
    }
    if (result.applications >= cap) {
      result.cap_reached = true;
      break;
    }
    if (rw.budget_exhausted()) break;
  }
  return result;
}

}  // namespace oxs::rewrite
