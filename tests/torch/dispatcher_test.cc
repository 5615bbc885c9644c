// The dispatcher: scoring by element type, rank and attribute kind, user
// functions first, deterministic ties, fallbacks (functional form, .default)
// and the list of nodes nobody takes.
#include "oxs/torch/dispatcher.h"

#include <gtest/gtest.h>

namespace oxs::torch {
namespace {

using D = ir::DataType;

Candidate make(std::string name, std::vector<ParamSpec> params, bool user = false) {
  Candidate c;
  c.overload = "aten::foo.default";
  c.name = std::move(name);
  c.kind = Candidate::Kind::Native;
  c.params = std::move(params);
  c.user = user;
  return c;
}

ParamSpec input(std::vector<D> dtypes, int min_rank = -1, int max_rank = -1) {
  return {"self", true, std::move(dtypes), false, "", false, min_rank, max_rank};
}

ParamSpec attribute(std::string name, std::string kind) {
  return {std::move(name), false, {}, true, std::move(kind), true, -1, -1};
}

// One input x (id 0) of `dtype` and rank 2, one node `target`(self=x, extra).
ExportGraph graph(D dtype, std::string target, std::vector<Arg> extra = {}) {
  ExportGraph g;
  g.inputs.push_back({0, "x", dtype, {ir::Dim::known(2), ir::Dim::known(3)}});
  FxNode n;
  n.name = "foo";
  n.target = std::move(target);
  n.module = "block (Block)";
  Arg self;
  self.name = "self";
  self.kind = Arg::Kind::Tensor;
  self.i = 0;
  n.args.push_back(self);
  for (Arg& a : extra) n.args.push_back(std::move(a));
  n.outputs.push_back({1, dtype, {2, 3}});
  g.nodes.push_back(std::move(n));
  return g;
}

TEST(Dispatcher, TheCandidateAllowingTheInputTypeWins) {
  Library lib;
  lib.add(make("ints", {input({D::Int64})}));
  lib.add(make("floats", {input({D::Float, D::Double})}));
  Dispatch d = dispatch(graph(D::Float, "aten::foo.default"), lib);
  ASSERT_EQ(d.decisions.size(), 1u);
  ASSERT_NE(d.decisions[0].winner, nullptr);
  EXPECT_EQ(d.decisions[0].winner->name, "floats");
  EXPECT_NE(d.decisions[0].lost_because[0].find("'self' is float, not in {int64}"),
            std::string::npos)
      << d.decisions[0].lost_because[0];
  EXPECT_TRUE(d.missing.empty());
}

TEST(Dispatcher, AMoreSpecificCandidateScoresHigherAndTiesGoToTheFirst) {
  Library lib;
  lib.add(make("any", {input({})}));
  lib.add(make("float rank 2", {input({D::Float}, 2, 2)}));
  lib.add(make("float rank 2 again", {input({D::Float}, 2, 2)}));
  Dispatch d = dispatch(graph(D::Float, "aten::foo.default"), lib);
  const Decision& dec = d.decisions[0];
  EXPECT_EQ(dec.winner->name, "float rank 2");
  EXPECT_EQ(dec.scored[0].score, 1);
  EXPECT_EQ(dec.scored[1].score, 3);
  EXPECT_EQ(dec.lost_because[0], "scored 1 < 3");
  EXPECT_EQ(dec.lost_because[2], "tied at 3; the earlier registered wins");
}

TEST(Dispatcher, AFittingUserFunctionOverridesTheLibrary) {
  Library lib;
  lib.add(make("library", {input({D::Float}, 2, 2)}));
  lib.add(make("mine", {input({})}, /*user=*/true));
  Dispatch d = dispatch(graph(D::Float, "aten::foo.default"), lib);
  EXPECT_EQ(d.decisions[0].winner->name, "mine");
  EXPECT_EQ(d.decisions[0].lost_because[0], "a user function fits and overrides the library");
}

TEST(Dispatcher, AttributeKindsAndUnknownArgumentsReject) {
  Arg alpha;
  alpha.name = "alpha";
  alpha.kind = Arg::Kind::Float;
  alpha.f = 0.5;
  Library lib;
  lib.add(make("no alpha", {input({})}));
  lib.add(make("int alpha", {input({}), attribute("alpha", "int")}));
  lib.add(make("float alpha", {input({}), attribute("alpha", "float")}));
  Dispatch d = dispatch(graph(D::Float, "aten::foo.default", {alpha}), lib);
  const Decision& dec = d.decisions[0];
  EXPECT_EQ(dec.winner->name, "float alpha");
  EXPECT_EQ(dec.scored[0].rejected, "has no parameter 'alpha' (given a float)");
  EXPECT_EQ(dec.scored[1].rejected, "'alpha' is a float, the function takes int");
}

TEST(Dispatcher, InPlaceOverloadsUseTheirFunctionalForm) {
  Library lib;
  lib.add(make("foo", {input({})}));
  Dispatch d = dispatch(graph(D::Float, "aten::foo_.default"), lib);
  EXPECT_EQ(d.decisions[0].looked_up, "aten::foo.default");
  EXPECT_EQ(d.decisions[0].winner->name, "foo");
  EXPECT_TRUE(d.warnings.empty());
}

TEST(Dispatcher, OtherOverloadsFallBackToDefaultWithAWarning) {
  Library lib;
  lib.add(make("foo", {input({})}));
  Dispatch d = dispatch(graph(D::Float, "aten::foo.Scalar"), lib);
  EXPECT_EQ(d.decisions[0].looked_up, "aten::foo.default");
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("no function for aten::foo.Scalar"), std::string::npos);
}

TEST(Dispatcher, NodesNobodyTakesAreListedWithNodeAndModule) {
  Library lib;
  lib.add(make("ints only", {input({D::Int64})}));
  ExportGraph g = graph(D::Float, "aten::foo.default");
  FxNode other = g.nodes[0];
  other.name = "bar";
  other.target = "aten::bar.default";
  other.outputs[0].id = 2;
  g.nodes.push_back(other);
  Dispatch d = dispatch(g, lib);
  ASSERT_EQ(d.missing.size(), 2u);
  EXPECT_EQ(d.missing[0],
            "aten::foo.default at node 'foo' in block (Block): no candidate fits (ints only "
            "'self' is float, not in {int64})");
  EXPECT_EQ(d.missing[1],
            "aten::bar.default at node 'bar' in block (Block): no function registered");
}

}  // namespace
}  // namespace oxs::torch
