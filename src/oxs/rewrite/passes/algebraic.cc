// algebraic: identities of arithmetic, as C++ patterns: x*1, 1*x, x+0, 0+x,
// x-0, x/1 (a constant of one element that broadcasting cannot grow: the
// result has x's shape and type), Neg(Neg(x)), Not(Not(x)).
#include "oxs/rewrite/core/constants.h"
#include "oxs/rewrite/core/forward.h"
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

// The constant c (one element) does not change x's shape under broadcasting.
Verdict keeps_shape(const ir::Value* x, const ir::Value* c) {
  auto t = constant_of(c);
  if (!t || t->numel() != 1) return Verdict::no("the constant has more than one element");
  const auto& s = x->type().shape();
  if (t->dims().empty()) return Verdict::yes();
  if (!s) return Verdict::no("x's rank is unknown and the constant has rank > 0");
  if (s->rank() < t->dims().size()) return Verdict::no("the constant's rank is larger than x's");
  return Verdict::yes();
}

std::unique_ptr<Rule> neutral_rule(const std::string& name, const std::string& op, double c) {
  return make_rule(
      name,
      [&](Pattern& p, OpBuilder& o) -> std::vector<PVal> {
        PVal x = p.var("x");
        return {o.call(op, {x, p.constant(c)}, {},
                       NodeOptions{.commutative = op == "Add" || op == "Mul"})};
      },
      [](const Match& m, Rewriter&) {
        const ir::Node* n = m.root();
        Verdict v = keeps_shape(m.var("x"), n->input(n->input(0) == m.var("x") ? 1 : 0));
        if (!v.ok) return v;
        if (!can_forward(*n->output(0), *m.var("x"))) {
          return Verdict::no("the result is a graph output x cannot stand for");
        }
        return Verdict::yes();
      },
      [](RewriteContext& ctx) { return std::vector<ir::Value*>{ctx.match().var("x")}; });
}

std::unique_ptr<Rule> involution_rule(const std::string& name, const std::string& op) {
  return make_rule(
      name,
      [&](Pattern& p, OpBuilder& o) -> std::vector<PVal> {
        return {o.call(op, {o.call(op, {p.var("x")})})};
      },
      [](const Match& m, Rewriter&) {
        if (!can_forward(*m.root()->output(0), *m.var("x"))) {
          return Verdict::no("the result is a graph output x cannot stand for");
        }
        return Verdict::yes();
      },
      [](RewriteContext& ctx) { return std::vector<ir::Value*>{ctx.match().var("x")}; });
}

}  // namespace

std::unique_ptr<Pass> make_algebraic_pass(const PassOptions& o) {
  check_options("algebraic", o, {});
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(neutral_rule("algebraic.MulOne", "Mul", 1));
  rules.push_back(neutral_rule("algebraic.AddZero", "Add", 0));
  rules.push_back(neutral_rule("algebraic.SubZero", "Sub", 0));
  rules.push_back(neutral_rule("algebraic.DivOne", "Div", 1));
  rules.push_back(involution_rule("algebraic.NegNeg", "Neg"));
  rules.push_back(involution_rule("algebraic.NotNot", "Not"));
  return std::make_unique<RuleSetPass>("algebraic", "arithmetic identities", std::move(rules));
}

}  // namespace oxs::rewrite
