// Builder failures: each names the op, shows its inputs' types and shapes and
// dumps the builder's state; the failed node is not added.
#include <gtest/gtest.h>

#include "oxs/opsets.h"

namespace oxs::builder {
namespace {

using ir::DataType;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.message();
  }
  return "(no error)";
}

#define EXPECT_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << (msg)

TEST(BuilderErrors, MisspeltAttributeShowsSuggestionInputsAndState) {
  Builder b;
  oxs::opset17 op(b);
  Var a = b.input("a", DataType::Float, shape({"N", 4}));
  Var w = b.constant(ir::Tensor::from<float>(DataType::Float, {4, 4}, std::vector<float>(16, 1.0f)),
                     "w");
  Var r = op.Relu(a);
  size_t before = b.graph().num_nodes();
  std::vector<ir::Attr> attrs;
  attrs.push_back(make_attr("alpah", 2.0f));
  std::string msg = error_of([&] { b.make_node("Gemm", {r, w}, std::move(attrs)); });
  EXPECT_HAS(msg, "node 'Gemm' (Gemm): Gemm has no attribute 'alpah'; did you mean 'alpha'?");
  EXPECT_HAS(msg, "while creating Gemm with 2 input(s):");
  EXPECT_HAS(msg, "0: Relu: float[N,4]");
  EXPECT_HAS(msg, "1: w: float[4,4] (constant)");
  EXPECT_HAS(msg, "builder state (graph 'main', ai.onnx opset 17)");
  EXPECT_HAS(msg, "a: float[N,4]");
  EXPECT_HAS(msg, "w = float[4,4]");
  EXPECT_HAS(msg, "last nodes created (1 of 1):");
  EXPECT_HAS(msg, "Relu = Relu(a) -> Relu: float[N,4]");
  EXPECT_EQ(b.graph().num_nodes(), before);
}

TEST(BuilderErrors, TypeConstraintMismatch) {
  Builder b;
  Var x = b.input("x", DataType::Float, shape({"N"}));
  Var i = b.input("i", DataType::Int64, shape({"N"}));
  std::string msg = error_of([&] { (void)(x + i); });
  EXPECT_HAS(msg,
             "type constraint T of Add is bound to tensor(float) by input 0 (A) 'x' but to "
             "tensor(int64) by input 1 (B) 'i'");
  EXPECT_HAS(msg, "0: x: float[N]");
  EXPECT_HAS(msg, "1: i: int64[N]");
}

TEST(BuilderErrors, ShapeErrorFromInference) {
  Builder b;
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, shape({"N", 4}));
  Var w = b.input("w", DataType::Float, shape({3, 5}));
  std::string msg = error_of([&] { op.MatMul(x, w); });
  EXPECT_HAS(msg, "node 'MatMul' (MatMul): [ShapeInferenceError]");
  EXPECT_HAS(msg, "1: w: float[3,5]");
}

TEST(BuilderErrors, MissingRequiredAttribute) {
  Builder b;
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, shape({2}));
  std::string msg = error_of([&] { op.Cast(x); });
  EXPECT_HAS(msg, "Cast requires attribute 'to' (int)");
  Var ok = op.Cast(x, {.to = DataType::Int64});
  EXPECT_EQ(ok.type().to_string(), "int64[2]");
}

TEST(BuilderErrors, UnknownOperatorSuggests) {
  Builder b;
  Var x = b.input("x", DataType::Float, shape({2}));
  std::string msg = error_of([&] { b.op("Sofmax", {x}); });
  EXPECT_HAS(msg, "there is no operator 'Sofmax' in ai.onnx; did you mean 'Softmax'");
}

TEST(BuilderErrors, ValuesOfAnotherBuilder) {
  Builder b1, b2;
  Var x = b1.input("x", DataType::Float, shape({2}));
  std::string msg = error_of([&] { b2.op("Relu", {x}); });
  EXPECT_HAS(msg, "input 'x' was made by another builder");
}

TEST(BuilderErrors, FunctionBodiesSeeOnlyTheirInputs) {
  Builder b;
  Var x = b.input("x", DataType::Float, shape({2}));
  Builder fb = b.function("local", "f");
  std::string msg = error_of([&] { fb.op("Relu", {x}); });
  EXPECT_HAS(msg, "input 'x' is not visible in graph 'f'");
}

TEST(BuilderErrors, ConflictingOpsets) {
  Builder b;
  oxs::opset13 op13(b);  // the first opset object picks the import
  Var x = b.input("x", DataType::Float, shape({2}));
  EXPECT_EQ(op13.Relu(x).type().to_string(), "float[2]");
  std::string msg = error_of([&] { oxs::opset17 op(b); });
  EXPECT_HAS(msg, "the model imports ai.onnx opset 13, so nodes of opset 17 cannot be added");
}

TEST(BuilderErrors, VariadicOutputsNeedACount) {
  Builder b;
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, shape({4}));
  Var split = b.input("split", DataType::Int64, shape({2}));
  std::string msg = error_of([&] { op.Split(x, split); });
  EXPECT_HAS(msg, "Split: cannot tell how many outputs to create; pass {.num_outputs = n}");
}

TEST(BuilderErrors, OutputNamesMustBeFree) {
  Builder b;
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, shape({4}));
  Var y = op.Relu(x);
  std::string msg = error_of([&] { b.output(y, "x"); });
  EXPECT_HAS(msg, "cannot name output 'x': the name is already used");
}

}  // namespace
}  // namespace oxs::builder
