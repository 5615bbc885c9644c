#include "oxs/rewrite/pattern/matcher.h"

#include <gtest/gtest.h>

#include "oxs/rewrite/core/rewriter.h"
#include "oxs/rewrite/driver/explain.h"
#include "oxs/rewrite/pattern/rule.h"
#include "test_util.h"

namespace oxs::rewrite {
namespace {

using testing::parse_model;

ir::Node* node(ir::Model& m, const std::string& name) {
  ir::Node* n = find_node(m, name);
  EXPECT_NE(n, nullptr) << name;
  return n;
}

// Add(x, Mul(a, b)) built with the OpBuilder.
Pattern add_of_mul() {
  Pattern p;
  OpBuilder op(p);
  p.set_outputs({op.Add(p.var("x"), op.Mul(p.var("a"), p.var("b")))});
  return p;
}

TEST(Matcher, CommutativeAddMatchesEitherOrder) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] a, float[2] b, float[2] x) => (float[2] y, float[2] z) {
      t = Mul(a, b)
      y = Add(t, x)
      u = Mul(a, b)
      z = Add(x, u)
    })");
  Pattern p = add_of_mul();
  // The Mul outputs feed one Add each; both orders bind x to the graph input.
  for (const char* at : {"y", "z"}) {
    Match match;
    std::string why;
    ASSERT_TRUE(match_pattern(p, *node(m, at), match, &why)) << at << ": " << why;
    EXPECT_EQ(match.var("x")->name(), "x");
    EXPECT_EQ(match.var("a")->name(), "a");
  }
}

TEST(Matcher, NestedCommutativeChoicesBacktrack) {
  // Add(Mul(p, q), Mul(q, r)) against Add(Mul(s, c), Mul(c, d)): the first Mul
  // binds c only on its second try, once the second Mul has been seen.
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] p, float[2] q, float[2] r) => (float[2] y) {
      t = Mul(p, q)
      u = Mul(q, r)
      y = Add(t, u)
    })");
  Pattern pat;
  OpBuilder op(pat);
  PVal c = pat.var("c");
  pat.set_outputs({op.Add(op.Mul(pat.var("s"), c), op.Mul(c, pat.var("d")))});
  Match match;
  std::string why;
  ASSERT_TRUE(match_pattern(pat, *node(m, "y"), match, &why)) << why;
  EXPECT_EQ(match.var("c")->name(), "q");
  EXPECT_EQ(match.var("s")->name(), "p");
  EXPECT_EQ(match.var("d")->name(), "r");
}

TEST(Matcher, ConstantsByValueWithTolerance) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x) => (float[2] y, float[2] z) <float[2] near = {1.0000001, 1.0}, float far = {1.5}> {
      y = Mul(x, near)
      z = Mul(x, far)
    })");
  Pattern exact, loose;
  OpBuilder e(exact), l(loose);
  exact.set_outputs({e.Mul(exact.var("x"), exact.constant(1.0))});
  loose.set_outputs({l.Mul(loose.var("x"), loose.constant(1.0, 1e-5))});
  Match match;
  std::string why;
  EXPECT_FALSE(match_pattern(exact, *node(m, "y"), match, &why));
  EXPECT_NE(why.find("constant element 0 is 1.0000001"), std::string::npos) << why;
  EXPECT_TRUE(match_pattern(loose, *node(m, "y"), match, &why)) << why;
  EXPECT_FALSE(match_pattern(loose, *node(m, "z"), match, &why));
  EXPECT_NE(why.find("constant element 0 is 1.5"), std::string::npos) << why;
}

TEST(Matcher, AttributesOptionalAndAbsentInputs) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x, float[3] s, float[3] b) => (float[3,2] y, float[2,3] z, float[2,3] w) {
      y = Transpose<perm = [1, 0]>(x)
      z = Clip(x, s)
      w = Clip(x, s, b)
    })");
  Pattern tp;
  tp.set_outputs({tp.op("Transpose", {tp.var("x")}, {AttrPattern::equals_ints("perm", {1, 0})})});
  Pattern wrong;
  wrong.set_outputs(
      {wrong.op("Transpose", {wrong.var("x")}, {AttrPattern::equals_ints("perm", {0, 1})})});
  Match match;
  std::string why;
  EXPECT_TRUE(match_pattern(tp, *node(m, "y"), match, &why)) << why;
  EXPECT_FALSE(match_pattern(wrong, *node(m, "y"), match, &why));
  EXPECT_NE(why.find("perm == [0, 1] does not hold: saw [1, 0]"), std::string::npos) << why;

  Pattern opt;  // Clip(x, lo, max?) matches both; max bound to null when omitted
  opt.set_outputs({opt.op("Clip", {opt.var("x"), opt.var("lo"), opt.optional_var("hi")})});
  ASSERT_TRUE(match_pattern(opt, *node(m, "z"), match, &why)) << why;
  EXPECT_EQ(match.var("hi"), nullptr);
  ASSERT_TRUE(match_pattern(opt, *node(m, "w"), match, &why)) << why;
  EXPECT_EQ(match.var("hi")->name(), "b");

  Pattern no_max;  // the third input must be omitted
  no_max.set_outputs({no_max.op("Clip", {no_max.var("x"), no_max.var("lo"), no_max.absent()})});
  EXPECT_TRUE(match_pattern(no_max, *node(m, "z"), match, &why)) << why;
  EXPECT_FALSE(match_pattern(no_max, *node(m, "w"), match, &why));
}

TEST(Matcher, InternalValueReadOutsideThePatternDoesNotMatch) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] a, float[2] b, float[2] x) => (float[2] y, float[2] t) {
      t = Mul(a, b)
      y = Add(t, x)
    })");
  Pattern p = add_of_mul();
  Match match;
  std::string why;
  EXPECT_FALSE(match_pattern(p, *node(m, "y"), match, &why));
  EXPECT_NE(why.find("%t (inside the pattern) is a graph output"), std::string::npos) << why;
}

TEST(Matcher, SameVariableTwiceMustBindTheSameValue) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] a, float[2] b) => (float[2] y, float[2] z) {
      y = Sub(a, a)
      z = Sub(a, b)
    })");
  Pattern p;
  PVal x = p.var("x");
  p.set_outputs({p.op("Sub", {x, x})});
  Match match;
  std::string why;
  EXPECT_TRUE(match_pattern(p, *node(m, "y"), match, &why)) << why;
  EXPECT_FALSE(match_pattern(p, *node(m, "z"), match, &why));
  EXPECT_EQ(why, "input 1 of Sub: %x is already %a, saw %b");
}

TEST(Pattern, NodeNotFeedingTheRootIsRejected) {
  Pattern p;
  OpBuilder op(p);
  PVal x = p.var("x");
  op.Relu(x);  // dangling
  EXPECT_THROW(p.set_outputs({op.Neg(x)}), Error);
}

TEST(Explain, PinnedOutputForAFailedConstant) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x) => (float[2] y) <float two = {2.0}> {
      y = Mul(x, two)
    })");
  EXPECT_EQ(explain(m, "algebraic.MulOne", "y"),
            "rule algebraic.MulOne at node %y: float[2] = Mul(%x, %two): does not apply: input 1 "
            "of Mul: expected constant 1, saw %two: constant element 0 is 2");
  EXPECT_EQ(explain(m, "noop.Identity", "y"),
            "rule noop.Identity at node %y: float[2] = Mul(%x, %two): does not apply: the rule "
            "starts from Identity, not Mul");
  EXPECT_THROW(explain(m, "algebraic.MulOn", "y"), Error);
  EXPECT_THROW(explain(m, "algebraic.MulOne", "nope"), Error);
}

TEST(Explain, SaysWhenTheRuleApplies) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x) => (float[2] y) <float one = {1.0}> {
      t = Mul(x, one)
      y = Relu(t)
    })");
  std::string text = explain(m, "algebraic.MulOne", "t");
  EXPECT_EQ(text.substr(text.size() - 9), ": applies") << text;
  EXPECT_EQ(testing::ops(m), "Mul,Relu");  // explaining changes nothing
}

}  // namespace
}  // namespace oxs::rewrite

namespace oxs::rewrite {
namespace {

TEST(PatternRule, MultiOutputNodesAndMultiOutputPatterns) {
  // Concat(Split(x)) over the same axis is x; the pattern's second output
  // (the Split's first part, read outside the pattern too) is replaced as well.
  auto m = testing::parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[4,2] x) => (float[4,2] y, float[2,2] z) {
      a, b = Split<axis = 0>(x)
      y = Concat<axis = 0>(a, b)
      z = Relu(a)
    })");
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(make_rule(
      "ConcatOfSplit",
      [](Pattern& p, OpBuilder& op) -> std::vector<PVal> {
        NodeOptions two;
        two.num_outputs = 2;
        auto parts = p.node("Split", {p.var("x")}, {AttrPattern::equals_int("axis", 0)}, two);
        return {op.call("Concat", {parts[0], parts[1]}, {AttrPattern::equals_int("axis", 0)}),
                parts[0]};
      },
      nullptr,
      [](RewriteContext& ctx) {
        ir::Value* x = ctx.match().var("x");
        std::vector<ir::Attr> attrs;
        attrs.push_back(ir::Attr::of_int("axis", 0));
        auto parts = ctx.ops("Split", {x}, std::move(attrs), 2);
        return std::vector<ir::Value*>{x, parts[0]};
      }));
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(std::make_unique<RuleSetPass>("concat-split", "test", std::move(rules)));
  PipelineOptions o;
  o.verify = VerifySpec::parse("equality");
  auto stats = run_pipeline(m, passes, o);
  EXPECT_EQ(stats[0].total_applications, 1u);
  // y is x under y's name (an Identity), z reads the new Split.
  EXPECT_EQ(testing::ops(m), "Split,Identity,Relu");
  EXPECT_EQ(m.graph->outputs()[0]->name(), "y");
}

}  // namespace
}  // namespace oxs::rewrite
