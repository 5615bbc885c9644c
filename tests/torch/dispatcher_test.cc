// The dispatcher: scoring by element type, rank and attribute kind, user
// functions first, deterministic ties, fallbacks (functional form, .default)
// and the list of nodes nobody takes.
#include "oxs/torch/dispatcher.h"

#include <gtest/gtest.h>

namespace oxs::torch {
namespace {

using D = ir::DataType;

Candidate make(std::string name, std::vector<ParamSpec> params, bool user = false,
               Candidate::Kind kind = Candidate::Kind::Native) {
  Candidate c;
  c.overload = "aten::foo.default";
  c.name = std::move(name);
  c.kind = kind;
  c.params = std::move(params);
  c.user = user;
  return c;
}

ParamSpec input(std::vector<D> dtypes, int min_rank = -1, int max_rank = -1) {
  ParamSpec p;
  p.name = "self";
  p.dtypes = std::move(dtypes);
  p.min_rank = min_rank;
  p.max_rank = max_rank;
  return p;
}

ParamSpec attribute(std::string name, std::string kind) {
  ParamSpec p;
  p.name = std::move(name);
  p.is_input = false;
  p.optional = p.has_default = true;
  p.attr_kind = std::move(kind);
  return p;
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

TEST(Dispatcher, AFittingNativeFunctionWinsOverAHigherScoringLibraryFunction) {
  // Natives decide on ranks, static sizes and optional arguments (shape-
  // dependent lowering, no Shape ops for static dims): when both fit, the
  // native wins whatever the scores; a user function still wins over both.
  Library lib;
  lib.add(make("library", {input({D::Float}, 2, 2)}, false, Candidate::Kind::Script));
  lib.add(make("native", {input({})}));
  Dispatch d = dispatch(graph(D::Float, "aten::foo.default"), lib);
  const Decision& dec = d.decisions[0];
  EXPECT_EQ(dec.winner->name, "native");
  EXPECT_EQ(dec.scored[0].score, 3);
  EXPECT_EQ(dec.scored[1].score, 1);
  EXPECT_EQ(dec.lost_because[0],
            "a native function fits: shape-dependent lowering wins over the library's");

  lib.add(make("mine", {input({})}, /*user=*/true, Candidate::Kind::Script));
  EXPECT_EQ(dispatch(graph(D::Float, "aten::foo.default"), lib).decisions[0].winner->name, "mine");
}

TEST(Dispatcher, ALibraryFunctionTakesWhatTheNativeRejects) {
  Library lib;
  lib.add(make("library", {input({D::Int64})}, false, Candidate::Kind::Script));
  lib.add(make("native", {input({D::Float})}));
  Dispatch d = dispatch(graph(D::Int64, "aten::foo.default"), lib);
  EXPECT_EQ(d.decisions[0].winner->name, "library");
  EXPECT_NE(d.decisions[0].lost_because[1].find("rejected"), std::string::npos);
}

TEST(Dispatcher, ASequenceParameterTakesATensorListAndATensorParameterDoesNot) {
  ParamSpec seq = input({D::Float});
  seq.name = "tensors";
  seq.sequence = true;
  ParamSpec one = input({D::Float});
  one.name = "tensors";
  Library lib;
  lib.add(make("one", {one}));
  lib.add(make("sequence", {seq}));
  ExportGraph g = graph(D::Float, "aten::foo.default");
  g.nodes[0].args[0].name = "tensors";
  g.nodes[0].args[0].kind = Arg::Kind::TensorList;
  g.nodes[0].args[0].ints = {0, 0};
  Dispatch d = dispatch(g, lib);
  EXPECT_EQ(d.decisions[0].winner->name, "sequence");
  EXPECT_EQ(d.decisions[0].scored[0].rejected,
            "'tensors' is a tensor list, the function takes a tensor");
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
