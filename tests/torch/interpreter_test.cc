// The interpreter with native functions: static attributes from traced
// arguments, dynamic dims kept symbolic through views, one error listing
// every node without a function, clear errors from native functions.
#include "oxs/torch/interpreter.h"

#include <gtest/gtest.h>

#include <iterator>

#include "oxs/ir/error.h"

namespace oxs::torch {
namespace {

using D = ir::DataType;

// An argument whose value is one integer: a tensor's value id, an int, a bool.
Arg int_arg(std::string name, Arg::Kind kind, int64_t i) {
  Arg a;
  a.name = std::move(name);
  a.kind = kind;
  a.i = i;
  return a;
}

Arg tensor_arg(std::string name, int64_t id) {
  return int_arg(std::move(name), Arg::Kind::Tensor, id);
}

Arg ints_arg(std::string name, std::vector<int64_t> v) {
  Arg a;
  a.name = std::move(name);
  a.kind = Arg::Kind::Ints;
  a.ints = std::move(v);
  return a;
}

// x: float[N,3,8,8] (example N=2) -> conv 3x3 pad 1 -> flatten to [N, 256]:
// the view's dim 0 is copied from the input (Reshape's 0).
ExportGraph conv_flatten() {
  ExportGraph g;
  g.symbols["N"] = 2;
  // The size expressions of a symbolic trace: N (id 0), 4 (id 1), 4*N (id 2).
  g.exprs = {{SymExpr::Op::Symbol, "N", 0, 2, {}},
             {SymExpr::Op::Const, "4", 4, 4, {}},
             {SymExpr::Op::Mul, "4*N", 0, 8, {1, 0}}};
  g.inputs.push_back(
      {0,
       "x",
       D::Float,
       {ir::Dim::symbolic("N"), ir::Dim::known(3), ir::Dim::known(8), ir::Dim::known(8)}});
  std::vector<float> w(4 * 3 * 3 * 3, 0.5f);
  g.params.push_back(
      {1, "conv.weight",
       std::make_shared<ir::Tensor>(ir::Tensor::from<float>(D::Float, {4, 3, 3, 3}, w))});
  FxNode conv{"convolution",
              "aten::convolution.default",
              "conv (Conv2d)",
              {},
              {{2, D::Float, {2, 4, 8, 8}, {0, -1, -1, -1}}}};
  conv.args = {tensor_arg("input", 0),
               tensor_arg("weight", 1),
               ints_arg("stride", {1, 1}),
               ints_arg("padding", {1, 1}),
               ints_arg("dilation", {1, 1}),
               int_arg("transposed", Arg::Kind::Bool, 0),
               ints_arg("output_padding", {0, 0})};
  g.nodes.push_back(std::move(conv));
  // Dim 0 of both outputs is N.
  FxNode view{"view", "aten::view.default", "", {}, {{3, D::Float, {2, 256}, {0, -1}}}};
  view.args = {tensor_arg("self", 2), ints_arg("size", {2, -1})};
  g.nodes.push_back(std::move(view));
  g.outputs.emplace_back(3, "y");
  return g;
}

TEST(Interpreter, ConvAndViewKeepTheDynamicBatch) {
  Library lib;
  add_native_functions(lib);
  ExportResult r = export_graph(conv_flatten(), lib, {.opset = 18});
  const ir::Graph& g = *r.model.graph;
  std::vector<std::string> ops;
  for (const ir::Node* n : g.nodes()) ops.push_back(n->op_type());
  EXPECT_EQ(ops, (std::vector<std::string>{"Conv", "Reshape"}));
  const ir::Node* conv = *g.nodes().begin();
  ASSERT_NE(conv->attr("pads"), nullptr);
  EXPECT_EQ(conv->attr("pads")->ints, (std::vector<int64_t>{1, 1, 1, 1}));
  ASSERT_EQ(g.outputs().size(), 1u);
  EXPECT_EQ(g.outputs()[0]->type().to_string(), "float[N,256]");
  const ir::Node* reshape = *std::next(g.nodes().begin());
  auto shape = reshape->input(1)->const_value();
  ASSERT_NE(shape, nullptr);
  auto values = shape->data<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(values.begin(), values.end()), (std::vector<int64_t>{0, 256}));
}

TEST(Interpreter, AViewThatFoldsTheDynamicDimIntoAnotherUsesMinusOne) {
  Library lib;
  add_native_functions(lib);
  ExportGraph g = conv_flatten();
  // [N,4,8,8] -> [4N, 64]: dim 0 is 4*N, not N.
  g.nodes[1].outputs[0].dims = {8, 64};
  g.nodes[1].outputs[0].syms = {2, -1};
  ExportResult r = export_graph(g, lib, {});
  EXPECT_EQ(r.model.graph->outputs()[0]->type().to_string(), "float[4*N,64]");
  const ir::Node* reshape = *std::next(r.model.graph->nodes().begin());
  auto values = reshape->input(1)->const_value()->data<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(values.begin(), values.end()), (std::vector<int64_t>{-1, 64}));
}

TEST(Interpreter, LinearOfARank3InputIsMatMulByTheFoldedTransposedWeight) {
  ExportGraph g;
  g.inputs.push_back({0, "x", D::Float, {ir::Dim::known(2), ir::Dim::known(5), ir::Dim::known(4)}});
  std::vector<float> w(12, 0.25f), b(3, 1.0f);
  g.params.push_back(
      {1, "fc.weight", std::make_shared<ir::Tensor>(ir::Tensor::from<float>(D::Float, {3, 4}, w))});
  g.params.push_back(
      {2, "fc.bias", std::make_shared<ir::Tensor>(ir::Tensor::from<float>(D::Float, {3}, b))});
  FxNode linear{"linear", "aten::linear.default", "fc (Linear)", {}, {{3, D::Float, {2, 5, 3}}}};
  linear.args = {tensor_arg("input", 0), tensor_arg("weight", 1), tensor_arg("bias", 2)};
  g.nodes.push_back(std::move(linear));
  g.outputs.emplace_back(3, "y");
  Library lib;
  add_native_functions(lib);
  ExportResult r = export_graph(g, lib, {});
  std::vector<std::string> ops;
  for (const ir::Node* n : r.model.graph->nodes()) ops.push_back(n->op_type());
  EXPECT_EQ(ops, (std::vector<std::string>{"MatMul", "Add"}));
  EXPECT_EQ(r.model.graph->outputs()[0]->type().to_string(), "float[2,5,3]");
}

TEST(Interpreter, EveryNodeWithoutAFunctionIsListedOnce) {
  Library lib;
  add_native_functions(lib);
  ExportGraph g = conv_flatten();
  g.nodes[0].target = "aten::my_conv.default";
  g.nodes[1].target = "aten::my_view.default";
  try {
    export_graph(g, lib, {});
    FAIL() << "exported";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("2 node(s) have no ATen function"), std::string::npos) << m;
    EXPECT_NE(m.find("aten::my_conv.default at node 'convolution' in conv (Conv2d): no function "
                     "registered"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("aten::my_view.default at node 'view' in <root>"), std::string::npos) << m;
  }
}

TEST(Interpreter, ANativeFunctionsRefusalNamesTheNode) {
  Library lib;
  add_native_functions(lib);
  ExportGraph g = conv_flatten();
  g.nodes[0].args[2] = ints_arg("stride", {1, 1, 1});  // 3 strides for 2 spatial dims
  try {
    export_graph(g, lib, {});
    FAIL() << "exported";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(
        m.find("node 'convolution' (aten::convolution.default) in conv (Conv2d): stride has 3 "
               "values for 2 spatial dimensions"),
        std::string::npos)
        << m;
  }
}

}  // namespace
}  // namespace oxs::torch
