// cse: common-subexpression elimination. One walk per graph in order: a
// node computing what an earlier node computes (same domain, op, input
// values, output count and attributes) is replaced by the earlier one.
// Tensor attributes are hashed by content and compared in full on a hit.
// Never merged: random ops (two draws differ), nodes with subgraphs, nodes
// without outputs. Linear.
#include <cstring>
#include <string_view>
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

size_t mix(size_t h, size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

uint32_t float_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

// A hash of what makes two nodes compute the same thing: domain, op,
// input values, output count and attributes (tensors by content).
size_t node_hash(const ir::Node& n) {
  std::hash<std::string_view> hs;
  size_t h = mix(hs(n.domain()), hs(n.op_type()));
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    h = mix(h, std::hash<const void*>()(n.input(i)));
  }
  h = mix(h, n.num_outputs());
  for (const ir::Attr& a : n.attrs()) {
    h = mix(h, hs(a.name));
    h = mix(h, size_t(a.type));
    h = mix(h, size_t(a.i));
    h = mix(h, float_bits(a.f));
    h = mix(h, hs(a.s));
    for (int64_t i : a.ints) h = mix(h, size_t(i));
    for (float f : a.floats) h = mix(h, float_bits(f));
    for (const auto& s : a.strings) h = mix(h, hs(s));
    if (a.t) h = mix(h, a.t->content_hash());
    for (const auto& t : a.tensors) h = mix(h, t->content_hash());
  }
  return h;
}

bool same_floats(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (float_bits(a[i]) != float_bits(b[i])) return false;
  }
  return true;
}

bool same_attr(const ir::Attr& x, const ir::Attr& y) {
  if (x.name != y.name || x.type != y.type || x.ref_attr_name != y.ref_attr_name || x.i != y.i ||
      float_bits(x.f) != float_bits(y.f) || x.s != y.s || x.ints != y.ints ||
      !same_floats(x.floats, y.floats) || x.strings != y.strings || !(x.tp == y.tp) ||
      x.type_protos != y.type_protos || bool(x.t) != bool(y.t) ||
      x.tensors.size() != y.tensors.size()) {
    return false;
  }
  if (x.t && !x.t->same_value(*y.t)) return false;
  for (size_t j = 0; j < x.tensors.size(); ++j) {
    if (!x.tensors[j]->same_value(*y.tensors[j])) return false;
  }
  return true;
}

// Whether `b` computes what `a` computes (mergeable nodes, same inputs).
bool same_computation(const ir::Node& a, const ir::Node& b) {
  if (a.op_type() != b.op_type() || a.domain() != b.domain() || a.num_inputs() != b.num_inputs() ||
      a.num_outputs() != b.num_outputs() || a.attrs().size() != b.attrs().size()) {
    return false;
  }
  for (size_t i = 0; i < a.num_inputs(); ++i) {
    if (a.input(i) != b.input(i)) return false;
  }
  for (size_t i = 0; i < a.num_outputs(); ++i) {
    if ((a.output(i) == nullptr) != (b.output(i) == nullptr)) return false;
  }
  for (size_t i = 0; i < a.attrs().size(); ++i) {
    if (!same_attr(a.attrs()[i], b.attrs()[i])) return false;
  }
  return true;
}

// The first node of each computation seen: one flat open-addressing table
// (no key string and no allocation per node, which on a large graph cost
// more than the rest of the pass).
class SeenNodes {
 public:
  explicit SeenNodes(size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap *= 2;
    slots_.resize(cap);
  }
  // The earlier node computing what `n` computes, or null (then `n` is
  // recorded).
  ir::Node* find_or_insert(ir::Node* n) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    size_t h = node_hash(*n);
    for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (!s.node) {
        s = {h, n};
        ++size_;
        return nullptr;
      }
      if (s.hash == h && same_computation(*s.node, *n)) return s.node;
    }
  }

 private:
  struct Slot {
    size_t hash = 0;
    ir::Node* node = nullptr;
  };
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (!s.node) continue;
      size_t i = s.hash & (slots_.size() - 1);
      while (slots_[i].node) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

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
    SeenNodes seen(g.num_nodes());
    for (ir::Node* n : g.nodes()) {
      // (Node::subgraphs() would allocate for every node.)
      for (const ir::Attr& a : n->attrs()) {
        if (a.g) walk(*a.g, rw);
        for (const auto& sub : a.graphs) walk(*sub, rw);
      }
      if (!mergeable(*n)) continue;
      ir::Node* first = seen.find_or_insert(n);
      if (!first) continue;
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
