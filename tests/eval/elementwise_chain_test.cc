// Chains of elementwise nodes run as one pass (fast/elementwise_chain.h):
// the fused run gives the bits of the node-by-node run (fast paths on and
// off, 1 and 3 threads), the profile names the chain after its ops, and a
// chain is not formed, or falls back to its nodes, where it must.
#include <gtest/gtest.h>

#include "eval/fusion_test_util.h"

namespace oxs::eval {
namespace {

using fusion_test::expect_bits_equal;
using fusion_test::expect_fusion_transparent;
using fusion_test::normal_tensor;
using fusion_test::run_model;

// A graph over x0 (a graph input) with constants and further inputs.
struct Graph {
  ir::Model model;
  ir::Graph& g = *model.graph;
  std::vector<Tensor> feeds;
  Graph() { model.opset_imports = {{"", 17}}; }
  ir::Value* input(Tensor t) {
    const std::string name = "x" + std::to_string(feeds.size());
    const DataType dtype = t.dtype();
    feeds.push_back(std::move(t));
    return g.add_input(name, ir::Type::tensor(dtype));
  }
  ir::Value* constant(const std::string& name, Dims dims, float v) {
    Tensor t(DataType::Float, std::move(dims));
    for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = v;
    return g.add_initializer(name, std::make_shared<ir::Tensor>(t.to_ir()));
  }
  ir::Value* node(const std::string& op, std::vector<ir::Value*> ins) {
    return g.create_node(op, ins)->output(0);
  }
};

// GELU as torch.onnx writes it out: x * (erf(x / sqrt 2) + 1) * 0.5.
ir::Value* gelu(Graph& m, ir::Value* x) {
  ir::Value* e = m.node("Erf", {m.node("Div", {x, m.constant("sqrt2", {}, 1.4142135f)})});
  ir::Value* a = m.node("Add", {e, m.constant("one", {}, 1.0f)});
  return m.node("Mul", {m.node("Mul", {x, a}), m.constant("half", {}, 0.5f)});
}

TEST(ElementwiseChain, GeluRunsAsOneNodeWithTheBitsOfItsNodes) {
  // Sizes around the block (4096 elements) and the vector (16).
  for (const Dims& dims : std::vector<Dims>{{3, 7}, {2, 4096}, {197, 3072 / 4 + 5}}) {
    SCOPED_TRACE(std::to_string(dims[0]) + "x" + std::to_string(dims[1]));
    Graph m;
    Tensor x = normal_tensor(dims, 11);
    float* p = x.mutable_data<float>();
    p[0] = NAN, p[1] = INFINITY, p[2] = -INFINITY, p[3] = -0.0f;
    m.g.add_output(gelu(m, m.input(x)));
    expect_fusion_transparent(m.model, m.feeds, {"Div+Erf+Add+Mul+Mul"});
  }
}

TEST(ElementwiseChain, WritesIntoTheBufferOfAnInputThatDiesInIt) {
  // GELU of a computed value t that dies in the chain: the chain writes
  // into t's buffer while its steps still read t (Div, then Mul by t), each
  // block read before it is written. Sizes over several blocks, 1 and 3
  // threads; the bits of the run with buffer reuse off.
  for (int threads : {1, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    Graph m;
    ir::Value* t = m.node("Sigmoid", {m.input(normal_tensor({3, 5000}, 51))});
    m.g.add_output(gelu(m, t));
    std::vector<Tensor> outs;
    for (bool reuse : {false, true}) {
      SessionOptions o;
      o.reuse_buffers = reuse;
      o.threads = threads;
      Session s(m.model, o);
      outs.push_back(s.run({{"x0", m.feeds[0]}})[0].tensor());
      EXPECT_EQ(s.buffers_reused(), reuse ? 1 : 0);
    }
    expect_bits_equal(outs[1], outs[0]);
  }
}

TEST(ElementwiseChain, OperandsOnEitherSideAndOfTheInputsShape) {
  // 1 / (y - x) * r, then Relu, HardSwish: the chain's value as the right
  // operand of Div and Sub, r an input of x's shape.
  Graph m;
  ir::Value* x = m.input(normal_tensor({5, 33}, 21));
  ir::Value* r = m.input(normal_tensor({5, 33}, 22));
  ir::Value* s = m.node("Sub", {m.constant("y", {1}, 0.25f), x});
  ir::Value* d = m.node("Div", {m.constant("one", {1, 1}, 1.0f), s});
  m.g.add_output(m.node("HardSwish", {m.node("Relu", {m.node("Mul", {d, r})})}));
  expect_fusion_transparent(m.model, m.feeds, {"Sub+Div+Mul+Relu+HardSwish"});
}

TEST(ElementwiseChain, NoChainThroughAValueWithAnotherUseOrAGraphOutput) {
  Graph m;
  ir::Value* x = m.input(normal_tensor({4, 9}, 31));
  ir::Value* a = m.node("Erf", {x});
  ir::Value* b = m.node("Relu", {a});
  ir::Value* c = m.node("Mul", {b, m.constant("two", {}, 2.0f)});
  m.g.add_output(c);
  m.g.add_output(m.node("Add", {a, x}));  // a has a second reader
  m.g.add_output(b);                      // b is a graph output
  expect_fusion_transparent(m.model, m.feeds, {"Erf", "Relu", "Mul", "Add"});
}

TEST(ElementwiseChain, OperandThatBroadcastsRunsTheNodes) {
  // A bias row [33] against x [5, 33] is neither one value nor x's shape:
  // the chain's nodes run one by one (the same bits either way).
  Graph m;
  ir::Value* x = m.input(normal_tensor({5, 33}, 41));
  ir::Value* bias = m.input(normal_tensor({33}, 42));
  m.g.add_output(m.node("Relu", {m.node("Add", {x, bias})}));
  expect_fusion_transparent(m.model, m.feeds, {"Add", "Relu"});
  // A single value of higher rank than x would change the output's rank.
  Graph h;
  ir::Value* y = h.input(normal_tensor({6}, 43));
  h.g.add_output(h.node("Relu", {h.node("Mul", {y, h.constant("k", {1, 1}, 3.0f)})}));
  expect_fusion_transparent(h.model, h.feeds, {"Mul", "Relu"});
  EXPECT_EQ(run_model(h.model, h.feeds, true)[0].tensor().dims(), (Dims{1, 6}));
}

TEST(ElementwiseChain, DoubleInputsRunTheNodes) {
  Graph m;
  Tensor x(DataType::Double, {3, 4});
  for (int64_t i = 0; i < x.numel(); ++i) x.mutable_data<double>()[i] = double(i) - 5.5;
  ir::Value* in = m.input(x);
  m.g.add_output(m.node("Relu", {m.node("Erf", {in})}));
  std::vector<std::string> ran;
  const Tensor fused = run_model(m.model, m.feeds, true, true, 1, &ran)[0].tensor();
  EXPECT_EQ(ran, (std::vector<std::string>{"Erf", "Relu"}));
  expect_bits_equal(fused, run_model(m.model, m.feeds, true, false)[0].tensor());
}

}  // namespace
}  // namespace oxs::eval
