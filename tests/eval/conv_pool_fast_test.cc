// The AVX-512 pooling paths (fast/pool_kernels.cc) against the reference
// kernels (fast paths off) over many window geometries, and Conv's fused
// epilogues (conv/conv_fusion.h: Conv + Relu, Conv + Add + Relu run as one
// node) against the same graph run node by node, including the graphs where
// fusion must not apply (an intermediate with another consumer or that is a
// graph output); likewise MatMul by a constant weight with Add(bias or
// residual) and Relu.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

#include "eval/fusion_test_util.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/session.h"

namespace oxs::eval {
namespace {

using fusion_test::conv_attrs;
using fusion_test::conv_cases;
using fusion_test::conv_inputs;
using fusion_test::ConvCase;
using fusion_test::ConvGraph;
using fusion_test::expect_bits_equal;
using fusion_test::expect_conv_tails_fuse;
using fusion_test::expect_fusion_transparent;
using fusion_test::MatMulGraph;
using fusion_test::normal_tensor;
using fusion_test::run_model;

void expect_near(const Tensor& got, const Tensor& want, double tol) {
  ASSERT_EQ(got.dims(), want.dims());
  for (int64_t i = 0; i < got.numel(); ++i) {
    const float g = got.data<float>()[i], w = want.data<float>()[i];
    if (std::isnan(w)) {
      ASSERT_TRUE(std::isnan(g)) << "at " << i;
      continue;
    }
    ASSERT_LE(std::abs(double(g) - double(w)), tol * (1 + std::abs(double(w))))
        << "at " << i << ": " << g << " vs " << w;
  }
}

class ConvPoolFast : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fast::enabled()) GTEST_SKIP() << "the CPU has no AVX-512: the fast paths never run";
  }
  void TearDown() override { fast::set_enabled(true); }
};

struct PoolCase {
  std::vector<int64_t> kernel, strides, pads, dilations;
  int64_t ceil, include_pad;
};

ir::Model pool_model(const std::string& op, const PoolCase& c) {
  ir::Model model;
  model.opset_imports = {{"", 19}};
  ir::Graph& g = *model.graph;
  std::vector<ir::Value*> ins{g.add_input("x0", ir::Type::tensor(DataType::Float))};
  ir::Node* n = g.create_node(op, ins);
  n->set_attr(ir::Attr::of_ints("kernel_shape", c.kernel));
  n->set_attr(ir::Attr::of_ints("strides", c.strides));
  n->set_attr(ir::Attr::of_ints("pads", c.pads));
  n->set_attr(ir::Attr::of_ints("dilations", c.dilations));
  n->set_attr(ir::Attr::of_int("ceil_mode", c.ceil));
  if (op == "AveragePool") n->set_attr(ir::Attr::of_int("count_include_pad", c.include_pad));
  g.add_output(n->output(0));
  return model;
}

const std::vector<PoolCase>& pool_cases() {
  static const std::vector<PoolCase> cases{
      {{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 0, 0},  // resnet's stem pool
      {{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 0, 1}, {{2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1, 0},
      {{3, 2}, {1, 3}, {2, 0, 2, 1}, {1, 1}, 0, 1}, {{3, 3}, {2, 1}, {0, 2, 1, 0}, {2, 3}, 1, 1},
      {{5, 5}, {3, 3}, {2, 2, 2, 2}, {1, 1}, 1, 1}, {{1, 1}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 0, 0},
      {{4, 7}, {1, 1}, {3, 3, 0, 6}, {1, 1}, 0, 1},  // windows wholly in the padding
  };
  return cases;
}

// Whether the case's (dilated) window fits in the padded input `dims`.
bool fits(const PoolCase& c, const Dims& dims) {
  for (size_t i = 0; i < 2; ++i) {
    const int64_t extent = (c.kernel[i] - 1) * c.dilations[i] + 1;
    if (extent > dims[2 + i] + c.pads[i] + c.pads[2 + i]) return false;
  }
  return true;
}

TEST_F(ConvPoolFast, MaxPoolGivesTheReferenceBitsOnManyWindows) {
  for (const Dims& dims : std::vector<Dims>{{2, 3, 13, 11}, {1, 2, 7, 40}, {1, 1, 1, 17}}) {
    Tensor x = normal_tensor(dims, unsigned(dims[3]));
    float* p = x.mutable_data<float>();
    p[5] = NAN;
    p[x.numel() - 3] = std::numeric_limits<float>::infinity();
    p[2] = 0.0f;  // +0 and -0 side by side: the first of equal values stays
    p[3] = -0.0f;
    for (size_t i = 0; i < pool_cases().size(); ++i) {
      const PoolCase& c = pool_cases()[i];
      if (!fits(c, dims)) continue;
      SCOPED_TRACE("shape " + dims_to_string(dims) + ", case " + std::to_string(i));
      ir::Model m = pool_model("MaxPool", c);
      const Tensor fast = run_model(m, {x}, true)[0].tensor();
      expect_bits_equal(fast, run_model(m, {x}, false)[0].tensor());
      expect_bits_equal(fast, run_model(m, {x}, true, true, 3)[0].tensor());
    }
  }
}

TEST_F(ConvPoolFast, AveragePoolMatchesTheReferenceOnManyWindows) {
  for (const Dims& dims : std::vector<Dims>{{2, 3, 13, 11}, {1, 2, 7, 40}, {1, 1, 1, 17}}) {
    Tensor x = normal_tensor(dims, unsigned(dims[2]) + 7);
    for (size_t i = 0; i < pool_cases().size(); ++i) {
      const PoolCase& c = pool_cases()[i];
      if (!fits(c, dims)) continue;
      SCOPED_TRACE("shape " + dims_to_string(dims) + ", case " + std::to_string(i));
      ir::Model m = pool_model("AveragePool", c);
      const Tensor fast = run_model(m, {x}, true)[0].tensor();
      expect_near(fast, run_model(m, {x}, false)[0].tensor(), 1e-6);
      expect_bits_equal(fast, run_model(m, {x}, true, true, 3)[0].tensor());
    }
  }
}

TEST_F(ConvPoolFast, GlobalAveragePoolMatchesTheReference) {
  for (const Dims& dims :
       std::vector<Dims>{{2, 3, 7, 7}, {1, 5, 1, 3}, {1, 2, 56, 56}, {1, 4, 65}}) {
    SCOPED_TRACE(dims_to_string(dims));
    ir::Model m;
    m.opset_imports = {{"", 17}};
    std::vector<ir::Value*> ins{m.graph->add_input("x0", ir::Type::tensor(DataType::Float))};
    m.graph->add_output(m.graph->create_node("GlobalAveragePool", ins)->output(0));
    Tensor x = normal_tensor(dims, unsigned(dims[1]));
    x.mutable_data<float>()[1] = NAN;  // plane 0 becomes NaN
    const Tensor fast = run_model(m, {x}, true)[0].tensor();
    expect_near(fast, run_model(m, {x}, false)[0].tensor(), 1e-6);
    EXPECT_TRUE(std::isnan(fast.data<float>()[0]));
    expect_bits_equal(fast, run_model(m, {x}, true, true, 3)[0].tensor());
  }
}

TEST_F(ConvPoolFast, FusedConvReluGivesTheBitsOfSeparateNodes) {
  expect_conv_tails_fuse("Relu", false, conv_inputs, 0);
}

TEST_F(ConvPoolFast, FusedConvAddReluGivesTheBitsOfSeparateNodes) {
  expect_conv_tails_fuse("Relu", true, conv_inputs, 50);
}

TEST_F(ConvPoolFast, ConvAddWithoutReluAndConvWithoutBiasFuseToo) {
  const ConvCase& c = conv_cases()[2];
  const std::vector<Tensor> ins = conv_inputs(c, 7);
  ConvGraph cg(ins, true);
  ir::Value* y = cg.node("Conv", {cg.x, cg.w}, conv_attrs(c));
  cg.g.add_output(cg.node("Add", {y, cg.r}));
  expect_fusion_transparent(cg.model, ins, {"Conv+Add"});
}

TEST_F(ConvPoolFast, NoFusionWhenAnIntermediateHasAnotherUseOrIsAGraphOutput) {
  const ConvCase& c = conv_cases()[1];
  // Conv's output also read by a Sigmoid; Add's output also a graph output;
  // Conv's output itself a graph output.
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    const std::vector<Tensor> ins = conv_inputs(c, 11);
    ConvGraph cg(ins, true);
    ir::Value* y = cg.node("Conv", {cg.x, cg.w, cg.b}, conv_attrs(c));
    ir::Value* s = cg.node("Add", {y, cg.r});
    cg.g.add_output(cg.node("Relu", {s}));
    if (variant == 0) cg.g.add_output(cg.node("Sigmoid", {y}));
    if (variant == 1) cg.g.add_output(s);
    if (variant == 2) cg.g.add_output(y);
    // Conv's output read twice: the Conv runs alone, the Add and Relu as an
    // elementwise chain (fast/elementwise_chain.h); Add's output read twice:
    // Conv + Add fuse (the group's output is the graph output), Relu runs.
    std::vector<std::string> ops{"Conv", "Add+Relu"};
    if (variant == 0) ops.push_back("Sigmoid");
    if (variant == 1) ops = {"Conv+Add", "Relu"};
    expect_fusion_transparent(cg.model, ins, ops);
  }
}

TEST_F(ConvPoolFast, ResidualThatBroadcastsFallsBackToTheAddNode) {
  // A residual of shape [1, M, 1, 1]: the kernel leaves the tail to the Add
  // and Relu nodes, which broadcast.
  const ConvCase& c = conv_cases()[0];
  std::vector<Tensor> ins = conv_inputs(c, 13);
  ins[3] = normal_tensor({1, c.w[0], 1, 1}, 14);
  ConvGraph cg(ins, true);
  ir::Value* y = cg.node("Conv", {cg.x, cg.w, cg.b}, conv_attrs(c));
  cg.g.add_output(cg.node("Relu", {cg.node("Add", {y, cg.r})}));
  expect_fusion_transparent(cg.model, ins, {"Conv", "Add", "Relu"});
}

TEST_F(ConvPoolFast, TwoConvsIntoOneAddFuseOnlyOnce) {
  // Add(conv_a, conv_b) -> Relu: conv_a takes the Add (conv_b's output is
  // its residual); the residual's conv runs on its own.
  const ConvCase& c = conv_cases()[1];
  const std::vector<Tensor> ins = conv_inputs(c, 17);
  ConvGraph cg(ins, true);
  ir::Value* ya = cg.node("Conv", {cg.x, cg.w, cg.b}, conv_attrs(c));
  ir::Value* yb = cg.node("Conv", {cg.x, cg.w}, conv_attrs(c));
  cg.g.add_output(cg.node("Relu", {cg.node("Add", {ya, yb})}));
  cg.g.add_output(cg.r);
  expect_fusion_transparent(cg.model, ins, {"Conv", "Conv+Add+Relu"});
}

TEST_F(ConvPoolFast, DoubleConvFallsBackToSeparateNodes) {
  // The epilogue is float only: a double Conv keeps its Relu node.
  ir::Model model;
  model.opset_imports = {{"", 17}};
  ir::Graph& g = *model.graph;
  std::vector<ir::Value*> ins{g.add_input("x0", ir::Type::tensor(DataType::Double)),
                              g.add_input("x1", ir::Type::tensor(DataType::Double))};
  ir::Node* conv = g.create_node("Conv", ins);
  std::vector<ir::Value*> y{conv->output(0)};
  g.add_output(g.create_node("Relu", y)->output(0));
  Tensor x(DataType::Double, {1, 2, 5, 5}), w(DataType::Double, {3, 2, 3, 3});
  for (int64_t i = 0; i < x.numel(); ++i) x.mutable_data<double>()[i] = double(i % 7) - 3;
  for (int64_t i = 0; i < w.numel(); ++i) w.mutable_data<double>()[i] = double(i % 5) - 2;
  std::vector<std::string> ran;
  const Tensor fused = run_model(model, {x, w}, true, true, 1, &ran)[0].tensor();
  EXPECT_EQ(ran, (std::vector<std::string>{"Conv", "Relu"}));
  const Tensor plain = run_model(model, {x, w}, true, false)[0].tensor();
  expect_bits_equal(fused, plain);
  double min = 0;
  for (int64_t i = 0; i < fused.numel(); ++i) min = std::min(min, fused.data<double>()[i]);
  EXPECT_EQ(min, 0.0);  // the Relu ran
}

TEST_F(ConvPoolFast, FusedMatMulAddReluGivesTheBitsOfSeparateNodes) {
  struct Case {
    Dims x;
    int64_t n;
    Dims r;
  };
  // Bias [N], [1, N], [1, 1, N]; a full residual; depths over one packed
  // block (300, 1024); widths that are not multiples of 16 or 32.
  const std::vector<Case> cases{
      {{1, 128, 256}, 1024, {1024}},    {{40, 64}, 37, {37}},
      {{2, 33, 300}, 70, {1, 70}},      {{1, 50, 1024}, 256, {1, 1, 256}},
      {{1, 129, 40}, 48, {1, 129, 48}}, {{65, 17}, 16, {65, 16}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    for (bool relu : {true, false}) {
      for (bool bias_first : {false, true}) {
        const Case& c = cases[i];
        SCOPED_TRACE("case " + std::to_string(i) + (relu ? " relu" : "") +
                     (bias_first ? " Add(r, y)" : " Add(y, r)"));
        MatMulGraph mg(c.x, {c.x.back(), c.n}, c.r, true, c.r.size() == 1, unsigned(i) * 7);
        ir::Value* y = mg.node("MatMul", {mg.x, mg.w});
        ir::Value* s = bias_first ? mg.node("Add", {mg.r, y}) : mg.node("Add", {y, mg.r});
        mg.g.add_output(relu ? mg.node("Relu", {s}) : s);
        expect_fusion_transparent(mg.model, mg.ins, {relu ? "MatMul+Add+Relu" : "MatMul+Add"});
      }
    }
  }
}

TEST_F(ConvPoolFast, MatMulFusionFallsBackToTheNodesItCannotTake) {
  // A residual that broadcasts over columns ([S, 1]); too few rows for the
  // packed GEMM; a fed (not constant) weight, which is no group head.
  struct Case {
    Dims x;
    int64_t n;
    Dims r;
    bool const_w;
    std::vector<std::string> ops;
  };
  const std::vector<Case> cases{
      {{64, 32}, 40, {64, 1}, true, {"MatMul", "Add", "Relu"}},
      {{1, 2, 32}, 40, {40}, true, {"MatMul", "Add", "Relu"}},
      {{64, 32}, 40, {40}, false, {"MatMul", "Add", "Relu"}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i];
    MatMulGraph mg(c.x, {c.x.back(), c.n}, c.r, c.const_w, false, unsigned(i) + 90);
    mg.g.add_output(mg.node("Relu", {mg.node("Add", {mg.node("MatMul", {mg.x, mg.w}), mg.r})}));
    expect_fusion_transparent(mg.model, mg.ins, c.ops);
  }
}

TEST_F(ConvPoolFast, TransposeIntoAFusedMatMulIsNotFolded) {
  // Transpose(x) -> MatMul(W) -> Add -> Relu: the group's MatMul reads its
  // input plainly (the Transpose runs); the bits are those of the unfused
  // run, where the Transpose folds into the MatMul.
  MatMulGraph mg({1, 24, 80}, {24, 48}, {48}, true, true, 5);
  ir::Node* t = mg.g.create_node("Transpose", std::vector<ir::Value*>{mg.x});
  t->set_attr(ir::Attr::of_ints("perm", {0, 2, 1}));
  ir::Value* y = mg.node("MatMul", {t->output(0), mg.w});
  mg.g.add_output(mg.node("Relu", {mg.node("Add", {y, mg.r})}));
  expect_fusion_transparent(mg.model, mg.ins, {"Transpose", "MatMul+Add+Relu"});
}

}  // namespace
}  // namespace oxs::eval
