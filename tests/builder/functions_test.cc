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
