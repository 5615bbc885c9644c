// cse: common-subexpression elimination. One walk per graph in order: a
// node is keyed by (domain, op, input values, attributes); a node whose key
// was seen is replaced by the earlier one. Tensor attributes are keyed by a
// content hash and compared in full on a hit. Never merged: random ops (two
// draws differ), nodes with subgraphs, nodes without outputs. Linear.
#include <fmt/format.h>

#include <cstring>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

bool mergeable(const ir::Node& n) {
  static const std::unordered_set<std::string> random = {
      "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
      "Multinomial",  "Bernoulli",        "Dropout"};
  if (random.count(n.op_type()) || n.num_outputs() == 0) return false;
  for (const ir::Attr& a : n.attrs()) {
    if (a.g || !a.graphs.empty() || a.sparse_tensor || !a.sparse_tensors.empty()) return false;
  }
  return true;
}

void append_float(std::string& k, float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  k += std::to_string(bits) + ",";
}

// The key of `n` into `k` (a buffer reused from node to node).
void key_of(const ir::Node& n, std::string& k) {
  k.clear();
  k += n.domain();
  k += '|';
  k += n.op_type();
  k += '|';
  auto out = std::back_inserter(k);
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    fmt::format_to(out, "{},", static_cast<const void*>(n.input(i)));
  }
  fmt::format_to(out, "|{}|", n.num_outputs());
  for (const ir::Attr& a : n.attrs()) {
    k += a.name + ":" + std::to_string(int(a.type)) + "=" + a.ref_attr_name + ";";
    append_float(k, a.f);
    k += std::to_string(a.i) + "," + std::to_string(a.s.size()) + ":" + a.s;
    for (float f : a.floats) append_float(k, f);
    for (int64_t i : a.ints) k += std::to_string(i) + ",";
    for (const auto& s : a.strings) k += std::to_string(s.size()) + ":" + s;
    if (a.t) k += fmt::format("T{}", a.t->content_hash());
    for (const auto& t : a.tensors) k += fmt::format("T{}", t->content_hash());
    k += "|";
  }
}

bool same_tensors(const ir::Node& a, const ir::Node& b) {
  for (size_t i = 0; i < a.attrs().size(); ++i) {
    const ir::Attr& x = a.attrs()[i];
    const ir::Attr& y = b.attrs()[i];
    if (x.t && !x.t->same_value(*y.t)) return false;
    for (size_t j = 0; j < x.tensors.size(); ++j) {
      if (!x.tensors[j]->same_value(*y.tensors[j])) return false;
    }
  }
  return true;
}

class CsePass : public Pass {
 public:
  CsePass() : Pass("cse") {}
  std::string summary() const override { return "common-subexpression elimination"; }
  PassKind kind() const override { return PassKind::Transformation; }
  void run(ir::Model& model, Rewriter& rw, PassStats&) override {
    walk(*model.graph, rw);
    for (const auto& f : model.functions) walk(*f->body, rw);
  }

 private:
  void walk(ir::Graph& g, Rewriter& rw) {
    std::unordered_map<std::string, ir::Node*> seen;
    seen.reserve(g.num_nodes());
    std::string key;
    for (ir::Node* n : g.nodes()) {
      // (Node::subgraphs() would allocate for every node.)
      for (const ir::Attr& a : n->attrs()) {
        if (a.g) walk(*a.g, rw);
        for (const auto& sub : a.graphs) walk(*sub, rw);
      }
      if (!mergeable(*n)) continue;
      key_of(*n, key);
      auto [it, fresh] = seen.try_emplace(key, n);
      if (fresh) continue;
      ir::Node* first = it->second;
      if (!same_tensors(*first, *n)) continue;
      bool ok = true;
      for (size_t i = 0; i < n->num_outputs() && ok; ++i) {
        ok = (n->output(i) == nullptr) == (first->output(i) == nullptr);
      }
      if (!ok) continue;
      apply_at(rw, "cse", *n, nullptr, [&] {
        for (size_t i = 0; i < n->num_outputs(); ++i) {
          if (n->output(i)) rw.replace_all_uses(n->output(i), first->output(i));
        }
        rw.erase_if_dead(*n);
      });
    }
  }
};

}  // namespace

std::unique_ptr<Pass> make_cse_pass(const PassOptions& o) {
  check_options("cse", o, {});
  return std::make_unique<CsePass>();
}

}  // namespace oxs::rewrite
