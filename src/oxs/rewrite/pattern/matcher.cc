#include "oxs/rewrite/pattern/matcher.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/rewrite/core/constants.h"

namespace oxs::rewrite {

ir::Value* Match::var(const std::string& name) const {
  int id = pattern->find_var(name);
  if (id < 0) throw Error(ErrorKind::Usage, "the pattern has no variable '" + name + "'");
  return values[size_t(id)];
}

ir::Node* Match::producer(PVal v) const {
  const PatternValue& pv = pattern->values()[size_t(v.id())];
  return pv.node >= 0 ? nodes[size_t(pv.node)] : nullptr;
}

namespace {

std::string node_ref(const ir::Node& n) {
  return n.name().empty() ? n.op_type() : n.op_type() + " '" + n.name() + "'";
}

std::string value_text(const ir::Value* v) {
  return v ? ir::value_ref(v) : "<omitted>";
}

// Compares a constant with the pattern's expectation; "" when equal.
std::string compare_constant(const PatternValue& pv, const ir::Tensor& t) {
  constexpr size_t kMaxCompared = 1 << 16;
  if (pv.scalar && t.numel() == 1 && t.dtype() == ir::DataType::Float &&
      t.bytes().size() == sizeof(float)) {
    // The common case (x * 1.0) without a copy.
    double v = t.data<float>()[0];
    bool same = std::isnan(*pv.scalar) ? std::isnan(v) : std::abs(v - *pv.scalar) <= pv.atol;
    return same ? std::string() : fmt::format("constant element 0 is {}", v);
  }
  auto elems = tensor_doubles(t, kMaxCompared);
  if (!elems) return "a constant that is not numeric or is too large to compare";
  auto close = [&](double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return std::abs(a - b) <= pv.atol + pv.rtol * std::abs(b);
  };
  if (pv.scalar) {
    for (size_t i = 0; i < elems->size(); ++i) {
      if (!close((*elems)[i], *pv.scalar)) {
        return fmt::format("constant element {} is {}", i, (*elems)[i]);
      }
    }
    if (elems->empty()) return "an empty constant";
    return "";
  }
  if (t.dims() != pv.tensor->dims()) return "a constant of dims " + ir::tensor_summary(t);
  auto want = tensor_doubles(*pv.tensor, kMaxCompared);
  if (!want) return "the pattern's constant is not comparable";
  for (size_t i = 0; i < elems->size(); ++i) {
    if (!close((*elems)[i], (*want)[i])) {
      return fmt::format("constant element {} is {}, expected {}", i, (*elems)[i], (*want)[i]);
    }
  }
  return "";
}

// The solver's bookkeeping, kept from one match to the next on a thread:
// matching runs once per candidate node, and allocating these each time
// cost more than the matching of a small pattern.
struct Scratch {
  std::vector<std::pair<bool, int>> trail;
  std::vector<char> bound_values;  // by value id
  bool busy = false;
};

class Solver {
 public:
  Solver(const Pattern& p, Match& m, std::string* why, Scratch& scratch)
      : p_(p), m_(m), why_(why), trail_(scratch.trail), bound_values_(scratch.bound_values) {
    trail_.clear();
    bound_values_.assign(p_.values().size(), 0);
  }

  struct Goal {
    bool is_node;
    int id;                          // pattern value or node id
    ir::Value* v;                    // value goals
    ir::Node* n;                     // node goals
    const ir::Node* user = nullptr;  // value goals: the node reading v ...
    size_t input = 0;                // ... as this input
    // "input 1 of Mul 'n3'", for messages.
    std::string where() const { return fmt::format("input {} of {}", input, node_ref(*user)); }
  };

  bool solve(std::vector<Goal> goals) {
    if (goals.empty()) return true;
    Goal g = std::move(goals.back());
    goals.pop_back();
    return g.is_node ? solve_node(g, std::move(goals)) : solve_value(g, std::move(goals));
  }

 private:
  // The message is built only when someone asks why (matching is hot).
  template <class F>
  bool fail(F&& message) {
    if (why_ && progress_ >= best_) {
      if (progress_ > best_ || why_->empty()) *why_ = std::string(message());
      best_ = progress_;
    }
    return false;
  }
  void bind_value(int id, ir::Value* v) {
    m_.values[size_t(id)] = v;
    trail_.push_back({false, id});
    ++progress_;
  }
  void bind_node(int id, ir::Node* n) {
    m_.nodes[size_t(id)] = n;
    trail_.push_back({true, id});
    ++progress_;
  }
  void undo(size_t mark) {
    while (trail_.size() > mark) {
      auto [is_node, id] = trail_.back();
      trail_.pop_back();
      if (is_node) {
        m_.nodes[size_t(id)] = nullptr;
      } else {
        m_.values[size_t(id)] = nullptr;
        bound_values_[size_t(id)] = 0;
      }
      --progress_;
    }
  }

  bool solve_value(const Goal& g, std::vector<Goal> rest) {
    const PatternValue& pv = p_.values()[size_t(g.id)];
    ir::Value* v = g.v;
    switch (pv.kind) {
      case PatternValue::Kind::Absent:
        if (v)
          return fail(
              [&] { return g.where() + ": expected an omitted input, saw " + value_text(v); });
        return solve(std::move(rest));
      case PatternValue::Kind::Var: {
        if (!v && !pv.optional)
          return fail([&] { return g.where() + ": expected %" + pv.name + ", input omitted"; });
        if (bound_values_[size_t(g.id)]) {
          if (m_.values[size_t(g.id)] != v) {
            return fail([&] {
              return g.where() + ": %" + pv.name + " is already " +
                     value_text(m_.values[size_t(g.id)]) + ", saw " + value_text(v);
            });
          }
          return solve(std::move(rest));
        }
        if (v) {
          for (const ValuePredicate& pred : pv.predicates) {
            std::string r = pred.test(*v);
            if (!r.empty()) {
              return fail([&] {
                return g.where() + ": %" + pv.name + " must satisfy '" + pred.description +
                       "', saw " + value_text(v) + ": " + r;
              });
            }
          }
        }
        size_t mark = trail_.size();
        bound_values_[size_t(g.id)] = 1;
        bind_value(g.id, v);
        if (solve(std::move(rest))) return true;
        undo(mark);
        return false;
      }
      case PatternValue::Kind::Constant: {
        if (!v)
          return fail(
              [&] { return g.where() + ": expected constant " + pv.name + ", input omitted"; });
        auto t = constant_of(v);
        if (!t) {
          return fail([&] {
            return g.where() + ": expected constant " + pv.name + ", saw " + value_text(v) +
                   " (not a constant)";
          });
        }
        std::string r = compare_constant(pv, *t);
        if (!r.empty()) {
          return fail([&] {
            return g.where() + ": expected constant " + pv.name + ", saw " + value_text(v) + ": " +
                   r;
          });
        }
        size_t mark = trail_.size();
        bind_value(g.id, v);
        if (solve(std::move(rest))) return true;
        undo(mark);
        return false;
      }
      case PatternValue::Kind::NodeOutput: {
        const PatternNode& pn = p_.nodes()[size_t(pv.node)];
        if (!v)
          return fail([&] {
            return g.where() + ": expected the output of " + pn.op_type + ", input omitted";
          });
        ir::Node* prod = v->producer();
        if (!prod) {
          return fail([&] {
            return g.where() + ": expected the output of " + pn.op_type + ", saw " + value_text(v) +
                   (v->is_graph_input() ? " (a graph input)" : " (no producer)");
          });
        }
        if (int(v->output_index()) != pv.output_index) {
          return fail([&] {
            return g.where() + fmt::format(": expected output {} of {}, saw output {} of {}",
                                           pv.output_index, pn.op_type, v->output_index(),
                                           node_ref(*prod));
          });
        }
        ir::Node* bound = m_.nodes[size_t(pv.node)];
        if (bound) {
          if (bound != prod)
            return fail(
                [&] { return g.where() + ": " + pn.op_type + " already matched elsewhere"; });
          return solve(std::move(rest));
        }
        rest.push_back({true, pv.node, nullptr, prod, nullptr, 0});
        return solve(std::move(rest));
      }
    }
    return false;
  }

  bool solve_node(const Goal& g, std::vector<Goal> rest) {
    const PatternNode& pn = p_.nodes()[size_t(g.id)];
    ir::Node* n = g.n;
    auto here = [n] { return node_ref(*n); };
    const std::string& dom = n->domain() == "ai.onnx" ? std::string() : n->domain();
    if (n->op_type() != pn.op_type || dom != pn.domain) {
      return fail([&] {
        return here() + ": expected op " + (pn.domain.empty() ? "" : pn.domain + ".") + pn.op_type +
               ", saw " + (dom.empty() ? "" : dom + ".") + n->op_type();
      });
    }
    size_t present = n->num_inputs();
    while (present > pn.inputs.size() && !n->input(present - 1)) --present;
    if (present > pn.inputs.size() && !pn.allow_extra_inputs) {
      return fail([&] {
        return fmt::format("{}: the pattern expects {} input(s), saw {}", here(), pn.inputs.size(),
                           present);
      });
    }
    for (const AttrPattern& ap : pn.attrs) {
      std::string r = ap.test(n->attr(ap.name));
      if (!r.empty())
        return fail(
            [&] { return here() + ": attribute " + ap.description + " does not hold: " + r; });
    }
    size_t mark = trail_.size();
    bind_node(g.id, n);
    for (int o : pn.outputs) {
      const PatternValue& ov = p_.values()[size_t(o)];
      if (size_t(ov.output_index) >= n->num_outputs() || !n->output(size_t(ov.output_index))) {
        undo(mark);
        return fail(
            [&] { return fmt::format("{}: output {} is missing", here(), ov.output_index); });
      }
      bind_value(o, n->output(size_t(ov.output_index)));
    }
    auto input_goals = [&](bool swap) {
      std::vector<Goal> goals = rest;
      // Pushed in reverse so input 0 is solved first.
      for (size_t i = pn.inputs.size(); i-- > 0;) {
        size_t src = i;
        if (swap && i < 2) src = 1 - i;
        ir::Value* v = src < n->num_inputs() ? n->input(src) : nullptr;
        goals.push_back({false, pn.inputs[i], v, nullptr, n, src});
      }
      return goals;
    };
    if (solve(input_goals(false))) return true;
    if (pn.commutative && pn.inputs.size() >= 2 && solve(input_goals(true))) return true;
    undo(mark);
    return false;
  }

  const Pattern& p_;
  Match& m_;
  std::string* why_;
  std::vector<std::pair<bool, int>>& trail_;
  std::vector<char>& bound_values_;  // by value id
  size_t progress_ = 0;
  size_t best_ = 0;
};

// Every value made inside the match and not a pattern output is read only by
// matched nodes and is no graph output; "" when so.
std::string check_private(const Pattern& p, const Match& m) {
  // Patterns are small: linear scans beat hash sets here.
  auto inside = [&](const ir::Node* n) {
    return std::find(m.nodes.begin(), m.nodes.end(), n) != m.nodes.end();
  };
  auto is_output = [&](int v) {
    return std::find(p.outputs().begin(), p.outputs().end(), v) != p.outputs().end();
  };
  for (const PatternNode& pn : p.nodes()) {
    for (int o : pn.outputs) {
      if (is_output(o)) continue;
      const ir::Value* v = m.values[size_t(o)];
      if (v->is_graph_output()) {
        return value_text(v) + " (inside the pattern) is a graph output";
      }
      for (const ir::Use& u : v->uses()) {
        if (!inside(u.user)) {
          return value_text(v) + " (inside the pattern) is also read by " + node_ref(*u.user) +
                 " outside it";
        }
      }
    }
  }
  return "";
}

}  // namespace

bool match_pattern(const Pattern& pattern, ir::Node& node, Match& match, std::string* why,
                   const MatchOptions& options) {
  if (pattern.root() < 0) throw Error(ErrorKind::Usage, "pattern without outputs");
  match.pattern = &pattern;
  match.values.assign(pattern.values().size(), nullptr);
  match.nodes.assign(pattern.nodes().size(), nullptr);
  if (why) why->clear();
  // A predicate that matches another pattern gets scratch of its own.
  static thread_local Scratch shared;
  Scratch local;
  Scratch& scratch = shared.busy ? local : shared;
  scratch.busy = true;
  struct Release {
    Scratch& s;
    ~Release() { s.busy = false; }
  } release{scratch};
  Solver s(pattern, match, why, scratch);
  std::vector<Solver::Goal> goals;
  goals.reserve(4);
  goals.push_back({true, pattern.root(), nullptr, &node, nullptr, 0});
  if (!s.solve(std::move(goals))) return false;
  if (options.require_internal_values_private) {
    std::string r = check_private(pattern, match);
    if (!r.empty()) {
      if (why) *why = r;
      return false;
    }
  }
  return true;
}

}  // namespace oxs::rewrite
