// The Builder: typed opsets with keyword-like attributes, names, inference at
// each node, constants and dedup, operator overloads, subgraphs, cleanups.
#include <gtest/gtest.h>

#include "check_util.h"
#include "oxs/opsets.h"

namespace oxs::builder {
namespace {

using ir::DataType;

TEST(Builder, GemmWithDesignatedAttributes) {
  Builder b;
  oxs::opset17 op(b);
  Var a = b.input("a", DataType::Float, shape({"N", 4}));
  Var w = b.input("w", DataType::Float, shape({3, 4}));
  Var c = b.input("c", DataType::Float, shape({3}));
  Var y = op.Gemm(a, w, c, {.alpha = 2.0f, .transB = 1});
  EXPECT_EQ(y.type().to_string(), "float[N,3]");
  ir::Node* n = y.value()->producer();
  ASSERT_NE(n->attr("alpha"), nullptr);
  EXPECT_FLOAT_EQ(n->attr("alpha")->f, 2.0f);
  EXPECT_EQ(n->attr("transB")->i, 1);
  EXPECT_EQ(n->attr("beta"), nullptr);  // defaults are not written
  b.output(y, "y");
  ir::Model m = b.finish();
  EXPECT_EQ(m.graph->outputs()[0]->name(), "y");
  EXPECT_EQ(oxs::testing::onnx_checker(m, "gemm"), "");
}

TEST(Builder, NamesComeFromTheUserOrTheOp) {
  Builder b;
  oxs::latest op(b);
  Var x = b.input("x", DataType::Float, shape({2}));
  Var r1 = op.Relu(x);
  Var r2 = op.Relu(r1);
  Var p = b.name_next("proj").op("Neg", {r2});
  EXPECT_EQ(r1.name(), "Relu");
  EXPECT_EQ(r2.name(), "Relu_1");
  EXPECT_EQ(p.name(), "proj");
  EXPECT_EQ(p.value()->producer()->name(), "proj");
  EXPECT_THROW(b.input("x", DataType::Float), Error);  // taken
}

TEST(Builder, MultipleAndVariadicOutputs) {
  Builder b;
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, shape({"N", 10}));
  auto top = op.TopK(x, b.constant(std::vector<int64_t>{3}));
  EXPECT_EQ(top.Values.type().to_string(), "float[N,3]");
  EXPECT_EQ(top.Indices.type().to_string(), "int64[N,3]");
  auto parts = op.Split(x, b.constant(std::vector<int64_t>{4, 6}), {.axis = 1});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].type().to_string(), "float[N,6]");
  auto three = op.Split(x, {}, {.axis = 1, .num_outputs = 2});
  EXPECT_EQ(three.size(), 2u);
  auto d = op.Dropout(x);
  EXPECT_TRUE(d.output.valid());
  EXPECT_FALSE(d.mask.valid());
  auto d2 = op.Dropout(x, {}, {}, {.num_outputs = 2});
  EXPECT_EQ(d2.mask.type().elem_type(), DataType::Bool);
  Var cat = op.Concat({x, x}, {.axis = 1});
  EXPECT_EQ(cat.type().to_string(), "float[N,20]");
}

TEST(Builder, OlderOpsetsKeepTheirSignatures) {
  Builder b({.opset = 11});
  oxs::opset11 op(b);
  Var x = b.input("x", DataType::Float, shape({2, 3}));
  Var s = op.Squeeze(op.Unsqueeze(x, {.axes = {0}}), {.axes = {0}});  // axes attribute until 13
  EXPECT_EQ(s.type().to_string(), "float[2,3]");
  EXPECT_THROW(oxs::opset13 other(b), Error);  // the model imports opset 11
}

TEST(Builder, ConstantsAreDedupedAndTyped) {
  Builder b;
  Var c1 = b.constant(1.5f);
  Var c2 = b.constant(1.5f);
  Var c3 = b.constant(2.5f);
  EXPECT_TRUE(c1.same(c2));
  EXPECT_FALSE(c1.same(c3));
  EXPECT_EQ(b.graph().initializers().size(), 2u);
  ASSERT_TRUE(c1.const_value());
  EXPECT_FLOAT_EQ(c1.const_value()->data<float>()[0], 1.5f);
}

TEST(Builder, OperatorsMapToOnnxOps) {
  Builder b;
  Var x = b.input("x", DataType::Float, shape({"N"}));
  Var y = b.input("y", DataType::Float, shape({"N"}));
  EXPECT_EQ((x + y).value()->producer()->op_type(), "Add");
  EXPECT_EQ((x - y).value()->producer()->op_type(), "Sub");
  EXPECT_EQ((x * y).value()->producer()->op_type(), "Mul");
  EXPECT_EQ((x / y).value()->producer()->op_type(), "Div");
  EXPECT_EQ((-x).value()->producer()->op_type(), "Neg");
  EXPECT_EQ((x == y).value()->producer()->op_type(), "Equal");
  EXPECT_EQ((x < y).value()->producer()->op_type(), "Less");
  EXPECT_EQ((x > y).value()->producer()->op_type(), "Greater");
  EXPECT_EQ((x <= y).value()->producer()->op_type(), "LessOrEqual");
  EXPECT_EQ((x >= y).value()->producer()->op_type(), "GreaterOrEqual");
  Var ne = x != y;
  EXPECT_EQ(ne.value()->producer()->op_type(), "Not");
  EXPECT_EQ(ne.value()->producer()->input(0)->producer()->op_type(), "Equal");
  EXPECT_EQ(ne.type().to_string(), "bool[N]");
}

TEST(Builder, ScalarsTakeTheTensorsElementType) {
  Builder b;
  Var i = b.input("i", DataType::Int64, shape({3}));
  Var s = i + 1;
  ir::Value* c = s.value()->producer()->input(1);
  ASSERT_TRUE(c->const_value());
  EXPECT_EQ(c->const_value()->dtype(), DataType::Int64);
  EXPECT_EQ(s.type().to_string(), "int64[3]");
  Var h = b.input("h", DataType::Float16, shape({3}));
  Var hs = 2.0 * h;
  EXPECT_EQ(hs.value()->producer()->input(0)->const_value()->dtype(), DataType::Float16);
}

TEST(Builder, ScalarNextToAnUntypedValueIsCastLike) {
  Builder b;
  Builder fb = b.function("local", "add_one");
  Var x = fb.input("X");
  Var y = x + 1.0;
  ir::Value* c = y.value()->producer()->input(1);
  ASSERT_NE(c->producer(), nullptr);
  EXPECT_EQ(c->producer()->op_type(), "CastLike");
  EXPECT_EQ(c->producer()->input(0)->producer()->op_type(), "Constant");
}

TEST(Builder, DataPropagationThroughTheBuilder) {
  Builder b;
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, shape({"N", 3, 4}));
  Var s = op.Shape(x);
  Var first = op.Slice(s, b.constant(std::vector<int64_t>{0}), b.constant(std::vector<int64_t>{1}));
  Var target = op.Concat({first, b.constant(std::vector<int64_t>{12})}, {.axis = 0});
  auto kv = target.known_value();
  ASSERT_TRUE(kv);
  EXPECT_EQ(ir::Shape(*kv).to_string(), "[N,12]");
  Var r = op.Reshape(x, target);
  EXPECT_EQ(r.type().to_string(), "float[N,12]");
}

TEST(Builder, IfWithSubgraphsReadingOuterValues) {
  Builder b;
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, shape({"N", 2}));
  Var cond = b.input("cond", DataType::Bool, shape({}));
  Builder then_b = b.subgraph("then");
  {
    oxs::opset17 top(then_b);
    then_b.output(top.Relu(x) * 2.0f);  // outer x, nodes in the subgraph
  }
  Builder else_b = b.subgraph("else");
  {
    oxs::opset17 eop(else_b);
    else_b.output(eop.Neg(x));
  }
  auto outs = op.If(cond, {.else_branch = else_b.take_graph(), .then_branch = then_b.take_graph()});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].type().to_string(), "float[N,2]");
  b.output(outs[0], "y");
  ir::Model m = b.finish();
  EXPECT_EQ(oxs::testing::onnx_checker(m, "if"), "");
}

TEST(Builder, FinishRemovesUnusedNodesIdentitiesAndInitializers) {
  Builder b;
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, shape({2}));
  Var unused_c = b.constant(std::vector<float>{1, 2});
  Var dead = op.Add(x, unused_c);
  op.Relu(dead);  // dead chain
  Var a = op.Identity(op.Neg(x));
  Var y = op.Identity(op.Abs(a));
  b.output(y, "y");
  Var z = op.Identity(x);  // output that is an Identity of an input: must stay
  b.output(z, "z");
  ir::Model m = b.finish();
  std::vector<std::string> ops;
  for (ir::Node* n : m.graph->nodes()) ops.push_back(n->op_type());
  EXPECT_EQ(ops, (std::vector<std::string>{"Neg", "Abs", "Identity"}));
  EXPECT_TRUE(m.graph->initializers().empty());
  EXPECT_EQ(m.graph->outputs()[0]->name(), "y");
  EXPECT_EQ(m.graph->outputs()[0]->producer()->op_type(), "Abs");
  EXPECT_EQ(m.graph->outputs()[1]->name(), "z");
  EXPECT_EQ(oxs::testing::onnx_checker(m, "cleanup"), "");
}

TEST(Builder, OutputOfAnInputGoesThroughIdentity) {
  Builder b;
  Var x = b.input("x", DataType::Float, shape({2}));
  b.output(x, "x_copy");
  ir::Model m = b.finish();
  ASSERT_EQ(m.graph->outputs().size(), 1u);
  EXPECT_EQ(m.graph->outputs()[0]->name(), "x_copy");
  EXPECT_EQ(oxs::testing::onnx_checker(m, "identity_out"), "");
}

}  // namespace
}  // namespace oxs::builder

namespace oxs::builder {
namespace {

// Deprecated ops are deleted from the opset where they were deprecated on.
template <class Opset>
concept HasUpsample = requires(Opset& o, Var x) {
  o.Upsample(x, x);
};
static_assert(HasUpsample<oxs::opset9>);
static_assert(!HasUpsample<oxs::opset10>);
static_assert(!HasUpsample<oxs::opset17>);
// Ops appear from the opset that introduced them.
template <class Opset>
concept HasCastLike = requires(Opset& o, Var x) {
  o.CastLike(x, x);
};
static_assert(!HasCastLike<oxs::opset14>);
static_assert(HasCastLike<oxs::opset15>);
static_assert(std::is_same_v<oxs::latest, oxs::opset28>);
static_assert(std::is_same_v<oxs::ml_latest, oxs::ml_opset5>);
// Ops new in ONNX 1.23's opsets come from oxs's own table.
template <class Opset>
concept HasRmsNorm = requires(Opset& o, Var x) {
  o.RMSNormalization(x, x);
};
static_assert(!HasRmsNorm<oxs::opset22>);
static_assert(HasRmsNorm<oxs::opset23>);

TEST(TypedApi, Opset18SplitAndReduceInferShapes) {
  Builder b;
  oxs::opset18 op(b);
  Var x = b.input("x", DataType::Float, shape({"N", 10}));
  // Split-18: chunks of ceil(10 / 3), the last one smaller.
  auto parts = op.Split(x, {}, {.axis = 1, .num_outputs_ = 3, .num_outputs = 3});
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].type().to_string(), "float[N,4]");
  EXPECT_EQ(parts[2].type().to_string(), "float[N,2]");
  // ReduceMean-18 takes its axes as an input.
  Var m = op.ReduceMean(x, b.constant(std::vector<int64_t>{1}));
  EXPECT_EQ(m.type().to_string(), "float[N,1]");
  Var r = op.Relu(m);  // unchanged since 14: libonnx's inference serves
  EXPECT_EQ(r.type().to_string(), "float[N,1]");
}

TEST(TypedApi, AttributeKindsReadLikeKeywords) {
  Builder b;
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, shape({"N", 3}));
  Var t = op.Transpose(x, {.perm = {1, 0}});
  EXPECT_EQ(t.type().to_string(), "float[3,N]");
  Var p = op.Pad(x, b.constant(std::vector<int64_t>{0, 1, 0, 1}), {}, {.mode = "reflect"});
  EXPECT_EQ(p.value()->producer()->attr("mode")->s, "reflect");
  EXPECT_EQ(p.type().to_string(), "float[N,5]");
  Var c = op.Constant({.value = ir::Tensor::scalar_int64(7)});
  EXPECT_EQ(c.type().to_string(), "int64[]");
  ASSERT_TRUE(c.const_value());
  EXPECT_EQ(c.const_value()->data<int64_t>()[0], 7);
  Var cast = op.Cast(x, {.to = DataType::Double});
  EXPECT_EQ(cast.type().to_string(), "double[N,3]");
  auto lstm = op.LSTM(b.input("seq", DataType::Float, shape({5, "B", 4})),
                      b.input("W", DataType::Float, shape({1, 32, 4})),
                      b.input("R", DataType::Float, shape({1, 32, 8})), {}, {}, {}, {}, {},
                      {.hidden_size = 8});
  EXPECT_EQ(lstm.Y.type().to_string(), "float[5,1,B,8]");
  EXPECT_EQ(lstm.Y_h.type().to_string(), "float[1,B,8]");
}

TEST(TypedApi, MlOpsetImportsItsDomain) {
  Builder b;
  oxs::ml_opset3 ml(b);
  Var x = b.input("x", DataType::Float, shape({"N", 4}));
  Var y = ml.Normalizer(x, {.norm = "L2"});
  // libonnx 1.12 has no inference for Normalizer; infer/ml_types.h does.
  EXPECT_EQ(y.type().to_string(), "float[N,4]");
  EXPECT_EQ(b.opset("ai.onnx.ml"), 3);
}

TEST(TypedApi, UntypedOutputNeedsADeclaredType) {
  Builder b;
  b.use_opset("com.example", 1);
  Var x = b.input("x", DataType::Float, shape({"N", 4}));
  Var y = b.op("Mystery", {x}, {}, {.domain = "com.example"});
  EXPECT_TRUE(y.type().is_none());  // nothing is known of a custom op
  b.output(y, "y");
  try {
    b.finish();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("graph output 'y' has no type (inference could not tell what "
                               "Mystery produces); pass it to output(v, name, type)"),
              std::string::npos)
        << e.message();
  }
}

TEST(TypedApi, OutputTypesCanBeDeclared) {
  Builder b;
  oxs::ml_opset3 ml(b);
  Var x = b.input("x", DataType::Float, shape({"N", 4}));
  Var y = ml.Normalizer(x, {.norm = "L2"});
  b.output(y, "y", tensor(DataType::Float, shape({"N", 4})));
  EXPECT_EQ(y.type().to_string(), "float[N,4]");
  ir::Model m = b.finish();
  EXPECT_EQ(oxs::testing::onnx_checker(m, "ml_normalizer"), "");
}

}  // namespace
}  // namespace oxs::builder

namespace oxs::builder {
namespace {

TEST(Builder, LoopWithACarriedValue) {
  Builder b;
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, shape({3}));
  Builder body = b.subgraph("body");
  {
    oxs::opset17 bop(body);
    body.input("i", DataType::Int64, shape({}));
    Var cond = body.input("cond_in", DataType::Bool, shape({}));
    Var acc = body.input("acc", DataType::Float, shape({3}));
    body.output(bop.Identity(cond), "cond_out");
    body.output(acc + x, "acc_out");  // reads the outer x
  }
  auto outs = op.Loop(b.constant(int64_t{4}), {}, {x}, {.body = body.take_graph()});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].type().elem_type(), DataType::Float);
  b.output(outs[0], "y", tensor(DataType::Float, shape({3})));
  ir::Model m = b.finish();
  EXPECT_EQ(oxs::testing::onnx_checker(m, "loop"), "");
}

}  // namespace
}  // namespace oxs::builder
