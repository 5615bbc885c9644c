// Model-local functions: attribute parameters and references, calls inferred
// through the body, inlining with references resolved; results pass the
// onnx checker both ways.
#include <gtest/gtest.h>

#include "check_util.h"
#include "oxs/opsets.h"

namespace oxs::builder {
namespace {

using ir::DataType;

// hardmax(X; axis) = OneHot(ArgMax(X, axis, keepdims=0), Shape(X)[axis],
//                           CastLike([0, 1], X), axis)
const ir::Function& add_hardmax(Builder& b) {
  Builder fb = b.function("local", "hardmax", {"axis"});
  oxs::opset17 op(fb);
  Var X = fb.input("X");
  Var am = op.ArgMax(X, {.axis = oxs::ref("axis"), .keepdims = 0});
  Var axis = op.Constant({.value_int = oxs::ref("axis")});
  Var depth = op.Gather(op.Shape(X), axis);
  Var values = op.CastLike(fb.constant(std::vector<float>{0, 1}), X);
  fb.output(op.OneHot(am, depth, values, {.axis = oxs::ref("axis")}), "Y");
  return b.add_function(std::move(fb));
}

ir::Model hardmax_model(const FinishOptions& fo) {
  Builder b;
  oxs::opset17 op(b);
  const ir::Function& hardmax = add_hardmax(b);
  Var x = b.input("x", DataType::Float, shape({"N", 4}));
  Var w = b.constant(ir::Tensor::from<float>(DataType::Float, {4, 3}, std::vector<float>(12, 0.5f)),
                     "W");
  Var bias = b.constant(std::vector<float>{0.1f, 0.2f, 0.3f}, "B");
  Var logits = op.Add(op.MatMul(x, w), bias);
  std::vector<ir::Attr> attrs;
  attrs.push_back(make_attr("axis", int64_t{1}));
  Var y = b.call(hardmax, {logits}, std::move(attrs))[0];
  EXPECT_EQ(y.type().elem_type(), DataType::Float);
  EXPECT_EQ(y.rank().value_or(0), 2u);
  if (y.rank()) {
    EXPECT_EQ(y.shape()->dims()[0].to_string(), "N");
  }
  b.output(y, "y");
  return b.finish(fo);
}

TEST(Functions, CallInfersThroughTheBody) {
  ir::Model m = hardmax_model({});
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0]->attributes, std::vector<std::string>{"axis"});
  ir::Node* call = m.graph->outputs()[0]->producer();
  EXPECT_EQ(call->op_type(), "hardmax");
  EXPECT_EQ(call->domain(), "local");
  EXPECT_TRUE(ir::find_opset(m.opset_imports, "local").has_value());
  // Attribute references are kept in the body.
  bool has_ref = false;
  for (ir::Node* n : m.functions[0]->body->nodes()) {
    for (const auto& a : n->attrs()) has_ref |= a.is_reference();
  }
  EXPECT_TRUE(has_ref);
  EXPECT_EQ(oxs::testing::onnx_checker(m, "hardmax_function"), "");
}

TEST(Functions, InliningResolvesReferencesAndKeepsOutputNames) {
  ir::Model m = hardmax_model({.inline_functions = true});
  EXPECT_TRUE(m.functions.empty());
  bool found_onehot = false;
  for (ir::Node* n : m.graph->nodes()) {
    EXPECT_NE(n->domain(), "local");
    for (const auto& a : n->attrs()) EXPECT_FALSE(a.is_reference()) << n->name();
    if (n->op_type() == "OneHot") {
      found_onehot = true;
      ASSERT_NE(n->attr("axis"), nullptr);
      EXPECT_EQ(n->attr("axis")->i, 1);
      EXPECT_EQ(n->name().rfind("hardmax/", 0), 0u) << n->name();
    }
  }
  EXPECT_TRUE(found_onehot);
  EXPECT_EQ(m.graph->outputs()[0]->name(), "y");
  EXPECT_EQ(m.graph->outputs()[0]->producer()->op_type(), "OneHot");
  EXPECT_EQ(oxs::testing::onnx_checker(m, "hardmax_inlined"), "");
}

TEST(Functions, NestedFunctionsInlineRecursively) {
  Builder b;
  oxs::opset17 op(b);
  Builder inner = b.function("local", "twice");
  {
    oxs::opset17 iop(inner);
    Var X = inner.input("X");
    inner.output(iop.Add(X, X), "Y");
  }
  const ir::Function& twice = b.add_function(std::move(inner));
  Builder outer = b.function("local", "four_times");
  {
    Var X = outer.input("X");
    Var t = outer.call(twice, {X})[0];
    outer.output(outer.call(twice, {t})[0], "Y");
  }
  const ir::Function& four = b.add_function(std::move(outer));
  Var x = b.input("x", DataType::Float, shape({2}));
  Var y = b.call(four, {x})[0];
  EXPECT_EQ(y.type().to_string(), "float[2]");
  b.output(y, "y");
  ir::Model m = b.finish({.inline_functions = true});
  EXPECT_TRUE(m.functions.empty());
  EXPECT_EQ(m.graph->num_nodes(), 2u);
  for (ir::Node* n : m.graph->nodes()) EXPECT_EQ(n->op_type(), "Add");
  EXPECT_EQ(oxs::testing::onnx_checker(m, "nested_inlined"), "");
}

TEST(Functions, InliningABodyThatUsesAnotherDomainImportsItInTheModel) {
  // The body runs ai.onnx.ml's Binarizer; the main graph imports only
  // ai.onnx until the call is inlined.
  Builder b;
  Builder fb = b.function("local", "binarize");
  fb.use_opset("ai.onnx.ml", 3);
  {
    Var X = fb.input("X");
    fb.output(fb.op("Binarizer", {X}, {}, {.domain = "ai.onnx.ml"}), "Y");
  }
  const ir::Function& f = b.add_function(std::move(fb));
  Var x = b.input("x", DataType::Float, shape({3}));
  b.output(b.call(f, {x})[0], "y");
  ir::Model m = b.finish({.inline_functions = true});
  ASSERT_EQ(m.graph->num_nodes(), 1u);
  EXPECT_EQ(m.graph->first_node()->domain(), "ai.onnx.ml");
  EXPECT_EQ(ir::find_opset(m.opset_imports, "ai.onnx.ml"), std::optional<int64_t>(3));
  EXPECT_EQ(oxs::testing::onnx_checker(m, "inlined_ml"), "");
}

// pick(X, C) = (If(C, then: Relu(Neg(X)) + X, else: Abs(X)), X, Neg(X)):
// a body If whose branches read a formal and a body value, an output that is
// a formal (the caller's value), and a body value returned as well.
const ir::Function& add_pick(Builder& b) {
  Builder fb = b.function("local", "pick");
  oxs::opset17 op(fb);
  Var X = fb.input("X");
  Var C = fb.input("C");
  Var t = op.Neg(X);
  Builder then_b = fb.subgraph("then");
  {
    oxs::opset17 top(then_b);
    then_b.output(top.Add(top.Relu(t), X));
  }
  Builder else_b = fb.subgraph("else");
  {
    oxs::opset17 eop(else_b);
    else_b.output(eop.Abs(X));
  }
  Var r = op.If(C, {.else_branch = else_b.take_graph(), .then_branch = then_b.take_graph()})[0];
  fb.output(r, "R");
  fb.output(X, "X_out");
  fb.output(t, "T");
  return b.add_function(std::move(fb));
}

void expect_no_calls(const ir::Graph& g) {
  g.for_each_node_recursive([](ir::Node* n) { EXPECT_NE(n->domain(), "local") << n->name(); });
}

TEST(Functions, InliningBodiesWithSubgraphsAndPassThroughOutputs) {
  Builder b;
  oxs::opset17 op(b);
  const ir::Function& pick = add_pick(b);
  Var x = b.input("x", DataType::Float, shape({"N", 3}));
  Var c = b.input("c", DataType::Bool, shape({}));
  auto first = b.call(pick, {x, c});
  auto second = b.call(pick, {first[2], c});  // a body value feeds another call
  // A call inside a branch of the main graph, reading outer values.
  Builder then_b = b.subgraph("then");
  then_b.output(then_b.call(pick, {first[0], c})[1]);  // the formal passed through
  Builder else_b = b.subgraph("else");
  {
    oxs::opset17 eop(else_b);
    else_b.output(eop.Neg(x));
  }
  Var branch =
      op.If(c, {.else_branch = else_b.take_graph(), .then_branch = then_b.take_graph()})[0];
  b.output(first[0], "a");
  b.output(first[1], "b");  // is x itself: needs an Identity to be named b
  b.output(first[2], "t");  // also read by the second call
  b.output(second[0], "d");
  b.output(branch, "e");
  ir::Model m = b.finish({.inline_functions = true});
  EXPECT_TRUE(m.functions.empty());
  expect_no_calls(*m.graph);
  std::vector<std::string> outs;
  for (const ir::Value* o : m.graph->outputs()) outs.push_back(o->name());
  EXPECT_EQ(outs, (std::vector<std::string>{"a", "b", "t", "d", "e"}));
  EXPECT_EQ(m.graph->outputs()[1]->producer()->op_type(), "Identity");
  EXPECT_EQ(m.graph->outputs()[1]->producer()->input(0)->name(), "x");
  EXPECT_EQ(oxs::testing::onnx_checker(m, "pick_inlined"), "");
}

// A body typed for any shape (like `X: FLOAT[...]` in a script) called with
// float[N,3]: the inlined graph output keeps the call's shape. It used to
// take the body's shapeless type, which the onnx checker rejects for a graph
// output (`oxs compile gelu.py --inline` then failed `oxs check`).
TEST(Functions, InlinedOutputsKeepTheCallSiteType) {
  Builder b;
  oxs::opset17 op(b);
  Builder fb = b.function("local", "gelu_like");
  {
    oxs::opset17 fop(fb);
    Var X = fb.input("X", DataType::Float);  // rank unknown
    Var y = X * fop.Erf(X);
    fb.output(y, "Y");
    fb.output(fop.Neg(y), "Z");
  }
  const ir::Function& f = b.add_function(std::move(fb));
  EXPECT_EQ(f.body->outputs()[0]->type().to_string(), "float");
  Var x = b.input("x", DataType::Float, shape({"N", 3}));
  auto ys = b.call(f, {x});
  EXPECT_EQ(ys[0].type().to_string(), "float[N,3]");
  b.output(ys[0], "y");
  b.output(ys[1], "z");
  b.output(ys[1], "z_again");  // the same value twice: the second one through an Identity
  ir::Model m = b.finish({.inline_functions = true});
  ASSERT_EQ(m.graph->outputs().size(), 3u);
  for (const ir::Value* o : m.graph->outputs()) {
    EXPECT_EQ(o->type().to_string(), "float[N,3]") << o->name();
  }
  EXPECT_EQ(oxs::testing::onnx_checker(m, "inlined_generic"), "");
}

TEST(Functions, MisspeltAttributeOfACall) {
  Builder b;
  const ir::Function& hardmax = add_hardmax(b);
  Var x = b.input("x", DataType::Float, shape({2, 3}));
  std::vector<ir::Attr> attrs;
  attrs.push_back(make_attr("axsi", int64_t{1}));
  try {
    b.call(hardmax, {x}, std::move(attrs));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("function 'hardmax' has no attribute parameter 'axsi'; did you "
                               "mean 'axis'?"),
              std::string::npos)
        << e.message();
  }
}

TEST(Functions, DuplicateFunctionsAreRefused) {
  Builder b;
  add_hardmax(b);
  EXPECT_THROW(add_hardmax(b), Error);
}

}  // namespace
}  // namespace oxs::builder
