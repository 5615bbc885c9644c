#include "oxs/ir/verifier.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <string_view>
#include <unordered_set>

#include "oxs/ir/call_graph.h"
#include "oxs/ir/error.h"

namespace oxs::ir {

namespace {

// The verifier's tables. Values get dense ids in the order they are met;
// two open-addressing tables (linear probing, at most half full) map a
// Value* and a name to an id. Nothing is allocated per value beyond its slot
// in three flat arrays, which is what keeps a 1M-node graph cheap.
//
// Scopes without deletion: a name slot stays when its scope ends; it counts
// only while its value is `defined`, and leaving a scope clears `defined` of
// the values defined there. A later definition of the name takes the stale
// slot over. (A name slot is live exactly when its value is defined: both are
// set by the definition and both end with the scope that made it.)
class Tables {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  struct Entry {
    const Value* value;
    uint32_t reads = 0;    // node inputs that read it
    bool defined = false;  // visible in the current scope
  };

  void reserve(size_t values) {
    entries_.reserve(values);
    size_t cap = std::bit_ceil(std::max<size_t>(16, values * 2));
    if (cap > by_value_.size()) rehash_values(cap);
    if (cap > by_name_.size()) rehash_names(cap);
  }

  Entry& entry(uint32_t id) { return entries_[id]; }

  // The id of `v`, added if new.
  uint32_t id(const Value* v) {
    if (2 * (entries_.size() + 1) > by_value_.size()) rehash_values(by_value_.size() * 2);
    size_t mask = by_value_.size() - 1;
    for (size_t i = value_hash(v) & mask;; i = (i + 1) & mask) {
      ValueSlot& s = by_value_[i];
      if (s.id == kNone) {
        s = {v, static_cast<uint32_t>(entries_.size())};
        entries_.push_back({v});
        return s.id;
      }
      if (s.value == v) return s.id;
    }
  }

  // The id of `v` if it was met before, else kNone.
  uint32_t find(const Value* v) const {
    size_t mask = by_value_.size() - 1;
    for (size_t i = value_hash(v) & mask;; i = (i + 1) & mask) {
      const ValueSlot& s = by_value_[i];
      if (s.id == kNone) return kNone;
      if (s.value == v) return s.id;
    }
  }

  // The value id holding `name` in the current scope (live), else kNone.
  // With `claim_for`, the name is also bound to that id unless it is live.
  uint32_t bind_name(std::string_view name, uint32_t claim_for) {
    if (2 * (names_ + 1) > by_name_.size()) rehash_names(by_name_.size() * 2);
    const size_t h = std::hash<std::string_view>{}(name);
    const uint32_t tag = static_cast<uint32_t>(h);
    size_t mask = by_name_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      NameSlot& s = by_name_[i];
      if (s.id == kNone) {
        s = {claim_for, tag};
        ++names_;
        return kNone;
      }
      if (s.tag == tag && entries_[s.id].value->name() == name) {
        if (entries_[s.id].defined) return s.id;
        s.id = claim_for;  // a stale slot from an ended scope
        return kNone;
      }
    }
  }

 private:
  struct ValueSlot {
    const Value* value = nullptr;
    uint32_t id = kNone;
  };
  struct NameSlot {
    uint32_t id = kNone;
    uint32_t tag = 0;  // the name's hash, low 32 bits
  };

  static size_t value_hash(const Value* v) {
    // murmur3's finalizer: heap addresses differ mostly in their middle bits.
    uint64_t x = reinterpret_cast<uintptr_t>(v);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return static_cast<size_t>(x);
  }

  void rehash_values(size_t cap) {
    std::vector<ValueSlot> old(cap);
    old.swap(by_value_);
    size_t mask = cap - 1;
    for (const ValueSlot& s : old) {
      if (s.id == kNone) continue;
      size_t i = value_hash(s.value) & mask;
      while (by_value_[i].id != kNone) i = (i + 1) & mask;
      by_value_[i] = s;
    }
  }

  void rehash_names(size_t cap) {
    std::vector<NameSlot> old(cap);
    old.swap(by_name_);
    size_t mask = cap - 1;
    for (const NameSlot& s : old) {
      if (s.id == kNone) continue;
      // The table index needs the full hash; recompute it from the name.
      size_t i = std::hash<std::string_view>{}(entries_[s.id].value->name()) & mask;
      while (by_name_[i].id != kNone) i = (i + 1) & mask;
      by_name_[i] = s;
    }
  }

  std::vector<Entry> entries_;
  std::vector<ValueSlot> by_value_ = std::vector<ValueSlot>(16);
  std::vector<NameSlot> by_name_ = std::vector<NameSlot>(16);
  size_t names_ = 0;
};

class Verifier {
 public:
  std::vector<VerifyIssue> issues;

  // With `keep_scope`, the graph's values stay visible afterwards (training
  // graphs read the main graph's values).
  void graph(const Graph& g, const std::string& label, bool keep_scope = false) {
    std::vector<uint32_t> defined_here;
    // `where` builds the place's description, only when there is a problem.
    auto define = [&](const Value* v, const auto& where) {
      if (!v) return;
      const uint32_t id = t_.id(v);
      if (v->name().empty()) {
        add(where(), "defines a value with an empty name");
      } else if (uint32_t holder = t_.bind_name(v->name(), id);
                 holder != Tables::kNone && holder != id) {
        add(where(),
            "value name '" + v->name() + "' is defined twice (SSA requires one definition)");
        return;
      }
      if (Tables::Entry& e = t_.entry(id); !e.defined) {
        e.defined = true;
        defined_here.push_back(id);
      }
      seen_.push_back(id);
    };
    const std::string gwhere = "graph '" + g.name() + "'" + label;
    for (const Value* v : g.inputs()) define(v, [&] { return gwhere + " input"; });
    for (const Value* v : g.initializers()) {
      if (!v->const_value()) add(gwhere, "initializer '" + v->name() + "' has no tensor");
      if (!v->is_graph_input()) define(v, [&] { return gwhere + " initializer"; });
    }
    for (const Node* n : g.nodes()) {
      auto nwhere = [n] { return "node '" + n->display_name() + "' (" + n->op_type() + ")"; };
      if (n->graph() != &g) add(nwhere(), "is listed in a graph it does not belong to");
      for (size_t i = 0; i < n->num_inputs(); ++i) {
        const Value* v = n->input(i);
        if (!v) continue;
        Tables::Entry& in = t_.entry(t_.id(v));
        ++in.reads;
        if (!in.defined) {
          const bool later =
              v->producer() && v->producer()->graph() == &g && !v->producer()->is_erased();
          add(nwhere(),
              "input " + std::to_string(i) + " '" + v->name() + "' is " +
                  (later ? "used before the node that produces it (not topologically sorted)"
                         : "not defined in this graph or an enclosing one"));
        }
      }
      for (const Attr& a : n->attrs()) {
        auto check_sub = [&](const Graph* sub) {
          if (sub->owner() != n)
            add(nwhere(), "attribute '" + a.name + "' subgraph has a wrong owner");
          graph(*sub, " (attribute '" + a.name + "' of " + nwhere() + ")");
        };
        if (a.g) check_sub(a.g.get());
        for (const auto& sub : a.graphs) check_sub(sub.get());
      }
      for (size_t i = 0; i < n->num_outputs(); ++i) {
        const Value* v = n->output(i);
        if (!v) continue;
        if (v->producer() != n || v->output_index() != i) {
          add(nwhere(), "output " + std::to_string(i) + " does not point back at its node");
        }
        define(v, nwhere);
      }
    }
    for (size_t i = 0; i < g.outputs().size(); ++i) {
      const Value* v = g.outputs()[i];
      if (!v) {
        add(gwhere, "output " + std::to_string(i) + " is null");
      } else if (uint32_t id = t_.find(v); id == Tables::kNone || !t_.entry(id).defined) {
        add(gwhere, "output '" + v->name() + "' is not defined");
      }
    }
    if (keep_scope) return;
    // Leave the scope: siblings must not see these values (nor their names).
    for (uint32_t id : defined_here) t_.entry(id).defined = false;
  }

  // Each use must match a live node input, and each input must have a use.
  void check_uses() {
    for (uint32_t id : seen_) {
      const Value* v = t_.entry(id).value;
      size_t live = 0;
      for (const Use& u : v->uses()) {
        if (!u.user || u.user->is_erased() || u.index >= u.user->num_inputs() ||
            u.user->input(u.index) != v) {
          add("value '" + v->name() + "'", "use list names a node input that does not read it");
          continue;
        }
        ++live;
      }
      size_t reads = t_.entry(id).reads;
      if (reads != live) {
        add("value '" + v->name() + "'", "use list has " + std::to_string(live) + " entries but " +
                                             std::to_string(reads) + " node inputs read the value");
      }
    }
  }

  void reserve(size_t values) { t_.reserve(values); }

  void add(const std::string& where, std::string message) {
    issues.push_back({where, std::move(message)});
  }

 private:
  Tables t_;
  // Ids of values in definition order (a value defined twice is listed twice).
  std::vector<uint32_t> seen_;
};

}  // namespace

std::vector<VerifyIssue> verify(const Graph& g) {
  Verifier v;
  v.reserve(g.num_nodes() + g.inputs().size() + g.initializers().size());
  v.graph(g, "");
  v.check_uses();
  return std::move(v.issues);
}

std::vector<VerifyIssue> verify(const Model& m) {
  Verifier v;
  v.reserve(m.graph->num_nodes() + m.graph->inputs().size() + m.graph->initializers().size());
  // Functions first: they must not see the main graph's values, while the
  // training graphs (checked last) do.
  for (const auto& f : m.functions) {
    v.graph(*f->body, " (function '" + f->domain + "." + f->name + "')");
    std::unordered_set<std::string> params(f->attributes.begin(), f->attributes.end());
    f->body->for_each_node_recursive([&](Node* n) {
      for (const Attr& a : n->attrs()) {
        if (a.is_reference() && !params.count(a.ref_attr_name)) {
          v.add("node '" + n->display_name() + "' in function '" + f->name + "'",
                "attribute '" + a.name + "' refers to '" + a.ref_attr_name +
                    "', which is not an attribute parameter of the function");
        }
      }
    });
  }
  for (const Function* f : m.functions.stale()) {
    v.add("function '" + f->domain + "." + f->name + "'",
          "its domain, name or overload changed after it was added to the model, so calls do "
          "not find it; change it with functions.rename() (or call functions.reindex())");
  }
  for (const auto& cycle : analyze_calls(m).cycles) {
    v.add("function '" + function_label(*cycle.front()) + "'",
          (cycle.size() == 1 ? "calls itself (" : "is part of a cycle of calls (") +
              cycle_text(cycle) +
              "); ONNX functions must not be recursive, since expanding a call would never end");
  }
  v.graph(*m.graph, "", /*keep_scope=*/true);
  for (const auto& t : m.training_info) {
    if (t.initialization) v.graph(*t.initialization, " (training initialization)");
    if (t.algorithm) v.graph(*t.algorithm, " (training algorithm)");
  }
  v.check_uses();
  return std::move(v.issues);
}

void verify_or_throw(const Model& m) {
  auto issues = verify(m);
  if (issues.empty()) return;
  std::string msg = std::to_string(issues.size()) + " structural problem(s):";
  for (size_t i = 0; i < issues.size() && i < 10; ++i) {
    msg += "\n  " + issues[i].where + ": " + issues[i].message;
  }
  if (issues.size() > 10) msg += "\n  ...";
  throw Error(ErrorKind::Invalid, msg);
}

}  // namespace oxs::ir
