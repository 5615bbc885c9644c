#include "oxs/ir/verifier.h"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "oxs/ir/error.h"

namespace oxs::ir {

namespace {

class Verifier {
 public:
  std::vector<VerifyIssue> issues;

  // With `keep_scope`, the graph's values stay visible afterwards (training
  // graphs read the main graph's values).
  void graph(const Graph& g, const std::string& label, bool keep_scope = false) {
    std::vector<const Value*> defined_here;
    std::vector<std::string_view> names_here;
    // `where` builds the place's description, only when there is a problem.
    auto define = [&](const Value* v, const auto& where) {
      if (!v) return;
      if (v->name().empty()) {
        add(where(), "defines a value with an empty name");
      } else if (auto [it, fresh] = names_.emplace(std::string_view(v->name()), v);
                 !fresh && it->second != v) {
        add(where(),
            "value name '" + v->name() + "' is defined twice (SSA requires one definition)");
        return;
      } else if (fresh) {
        names_here.push_back(v->name());
      }
      if (Info& i = info_[v]; !i.defined) {
        i.defined = true;
        defined_here.push_back(v);
      }
      seen_.push_back(v);
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
        Info& in = info_[v];
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
      } else if (auto it = info_.find(v); it == info_.end() || !it->second.defined) {
        add(gwhere, "output '" + v->name() + "' is not defined");
      }
    }
    if (keep_scope) return;
    // Leave the scope: siblings must not see these values.
    for (const Value* v : defined_here) info_[v].defined = false;
    for (std::string_view name : names_here) names_.erase(name);
  }

  // Each use must match a live node input, and each input must have a use.
  void check_uses() {
    for (const Value* v : seen_) {
      size_t live = 0;
      for (const Use& u : v->uses()) {
        if (!u.user || u.user->is_erased() || u.index >= u.user->num_inputs() ||
            u.user->input(u.index) != v) {
          add("value '" + v->name() + "'", "use list names a node input that does not read it");
          continue;
        }
        ++live;
      }
      size_t reads = info_[v].reads;
      if (reads != live) {
        add("value '" + v->name() + "'", "use list has " + std::to_string(live) + " entries but " +
                                             std::to_string(reads) + " node inputs read the value");
      }
    }
  }

  void reserve(size_t values) {
    info_.reserve(values);
    names_.reserve(values);
  }

  void add(const std::string& where, std::string message) {
    issues.push_back({where, std::move(message)});
  }

 private:
  // Per value: visible in the current scope, and how many node inputs read
  // it. Names are views of the values' own names (stable while verifying).
  struct Info {
    uint32_t reads = 0;
    bool defined = false;
  };
  std::unordered_map<const Value*, Info> info_;
  std::unordered_map<std::string_view, const Value*> names_;
  std::vector<const Value*> seen_;
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
