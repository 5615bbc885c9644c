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

#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/session.h"

namespace oxs::eval {
namespace {

Tensor normal_tensor(Dims dims, unsigned seed) {
  Tensor t(DataType::Float, std::move(dims));
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0, 2);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = d(rng);
  return t;
}

// Runs `model` with the feeds x0, x1, ... = `ins`; `fast` turns the AVX-512
// paths on or off, `fuse` the session's node fusion; `ops` (when given)
// receives the op types the trace hook saw run, in order ("Conv+Add+Relu"
// for a fused group: the node and TraceEvent::fused).
std::vector<Value> run_model(const ir::Model& model, const std::vector<Tensor>& ins, bool fast,
                             bool fuse = true, int threads = 1,
                             std::vector<std::string>* ops = nullptr) {
  SessionOptions o;
  o.threads = threads;
  o.fuse = fuse;
  if (ops) {
    o.trace = [ops](const TraceEvent& e) {
      std::string op = e.node.op_type();
      for (const ir::Node* m : e.fused) op += "+" + m->op_type();
      ops->push_back(op);
    };
  }
  fast::set_enabled(fast);
  Session s(model, o);
  std::map<std::string, Value> feeds;
  for (const ir::Value* in : model.graph->inputs()) {  // x<i>: ins[i]
    const size_t i = std::stoul(in->name().substr(1));
    feeds.emplace(in->name(), ins[i]);
  }
  std::vector<Value> out = s.run(feeds);
  fast::set_enabled(true);
  return out;
}

void expect_bits_equal(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dims(), b.dims());
  ASSERT_EQ(0, std::memcmp(a.raw(), b.raw(), a.nbytes()));
}

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

// Conv fusion: graphs built from a small description. Values: x0 (the
// conv's X), x1 (W), x2 (B), x3 (the residual); W and B are graph inputs,
// or initializers holding `ins`' values (then the Conv packs W once and its
// GEMM applies the fused tail as it stores).
struct ConvGraph {
  ir::Model model;
  ir::Graph& g = *model.graph;
  ir::Value* x = nullptr;
  ir::Value* w = nullptr;
  ir::Value* b = nullptr;
  ir::Value* r = nullptr;
  ConvGraph(const std::vector<Tensor>& ins, bool const_weights) {
    model.opset_imports = {{"", 17}};
    auto value = [&](size_t i) {
      const std::string name = "x" + std::to_string(i);
      if (const_weights && (i == 1 || i == 2)) {
        return g.add_initializer(name, std::make_shared<ir::Tensor>(ins[i].to_ir()));
      }
      return g.add_input(name, ir::Type::tensor(DataType::Float));
    };
    x = value(0);
    w = value(1);
    b = value(2);
    r = value(3);
  }
  ir::Value* node(const std::string& op, std::vector<ir::Value*> ins,
                  const std::function<void(ir::Node*)>& attrs = {}) {
    ir::Node* n = g.create_node(op, ins);
    if (attrs) attrs(n);
    return n->output(0);
  }
};

struct ConvCase {
  Dims x, w;
  std::vector<int64_t> strides, pads, dilations;
  int64_t group;
};

// Cases over the Conv paths: pointwise, im2col (strides 1, 2 and 3,
// dilations, odd sizes), grouped, depthwise (strides 1, 2, 3, multiplier
// 2), batch 2, and a 1x1 input (the matrix-vector path).
const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> cases{
      {{1, 8, 9, 9}, {16, 8, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},
      {{2, 6, 11, 13}, {10, 6, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},
      {{1, 5, 17, 15}, {12, 5, 3, 3}, {2, 2}, {1, 0, 1, 2}, {1, 1}, 1},
      {{1, 4, 20, 19}, {9, 4, 1, 1}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1},
      {{1, 3, 23, 21}, {7, 3, 7, 7}, {2, 2}, {3, 3, 3, 3}, {1, 1}, 1},
      {{1, 6, 14, 16}, {8, 3, 3, 3}, {1, 3}, {2, 1, 0, 2}, {2, 1}, 2},
      {{1, 8, 10, 12}, {8, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 8},
      {{1, 6, 15, 37}, {6, 1, 5, 5}, {2, 2}, {2, 2, 2, 2}, {1, 1}, 6},
      {{2, 4, 11, 13}, {8, 1, 3, 3}, {3, 3}, {1, 1, 1, 1}, {2, 1}, 4},
      {{1, 16, 32, 32}, {24, 16, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},
      {{2, 40, 1, 1}, {24, 40, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},  // one position
  };
  return cases;
}

// The conv's output shape for `c`.
Dims conv_out(const ConvCase& c) {
  Dims d{c.x[0], c.w[0]};
  for (size_t i = 0; i < 2; ++i) {
    const int64_t extent = (c.w[2 + i] - 1) * c.dilations[i] + 1;
    d.push_back((c.x[2 + i] + c.pads[i] + c.pads[2 + i] - extent) / c.strides[i] + 1);
  }
  return d;
}

std::function<void(ir::Node*)> conv_attrs(const ConvCase& c) {
  return [c](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("strides", c.strides));
    n->set_attr(ir::Attr::of_ints("pads", c.pads));
    n->set_attr(ir::Attr::of_ints("dilations", c.dilations));
    n->set_attr(ir::Attr::of_int("group", c.group));
  };
}

std::vector<Tensor> conv_inputs(const ConvCase& c, unsigned seed) {
  Tensor x = normal_tensor(c.x, seed), w = normal_tensor(c.w, seed + 1);
  x.mutable_data<float>()[3] = NAN;  // NaN through the epilogue: Relu gives 0
  return {x, w, normal_tensor({c.w[0]}, seed + 2), normal_tensor(conv_out(c), seed + 3)};
}

// Every output of the fused run has the bits of the node-by-node run, with
// the fast paths on and off, and with 3 threads; the fused run (fast paths
// on) runs the op types `fused_ops`.
void expect_fusion_transparent(const ir::Model& m, const std::vector<Tensor>& ins,
                               const std::vector<std::string>& fused_ops) {
  std::vector<std::string> ran;
  run_model(m, ins, true, true, 1, &ran);
  EXPECT_EQ(ran, fused_ops);
  for (bool fast : {true, false}) {
    SCOPED_TRACE(fast ? "fast paths" : "reference kernels");
    const std::vector<Value> fused = run_model(m, ins, fast, true);
    const std::vector<Value> plain = run_model(m, ins, fast, false);
    ASSERT_EQ(fused.size(), plain.size());
    for (size_t i = 0; i < fused.size(); ++i)
      expect_bits_equal(fused[i].tensor(), plain[i].tensor());
    const std::vector<Value> threaded = run_model(m, ins, fast, true, 3);
    for (size_t i = 0; i < fused.size(); ++i) {
      expect_bits_equal(threaded[i].tensor(), plain[i].tensor());
    }
  }
}

TEST_F(ConvPoolFast, FusedConvReluGivesTheBitsOfSeparateNodes) {
  for (size_t i = 0; i < conv_cases().size(); ++i) {
    for (bool const_weights : {true, false}) {
      SCOPED_TRACE("case " + std::to_string(i) + (const_weights ? ", packed W" : ", fed W"));
      const ConvCase& c = conv_cases()[i];
      const std::vector<Tensor> ins = conv_inputs(c, unsigned(i));
      ConvGraph cg(ins, const_weights);
      ir::Value* y = cg.node("Conv", {cg.x, cg.w, cg.b}, conv_attrs(c));
      cg.g.add_output(cg.node("Relu", {y}));
      cg.g.add_output(cg.r);  // keeps x3 used
      expect_fusion_transparent(cg.model, ins, {"Conv+Relu"});
    }
  }
}

TEST_F(ConvPoolFast, FusedConvAddReluGivesTheBitsOfSeparateNodes) {
  for (size_t i = 0; i < conv_cases().size(); ++i) {
    for (bool residual_first : {false, true}) {
      for (bool const_weights : {true, false}) {
        SCOPED_TRACE("case " + std::to_string(i) +
                     (residual_first ? ", Add(r, y)" : ", Add(y, r)") +
                     (const_weights ? ", packed W" : ", fed W"));
        const ConvCase& c = conv_cases()[i];
        const std::vector<Tensor> ins = conv_inputs(c, unsigned(i) + 50);
        ConvGraph cg(ins, const_weights);
        ir::Value* y = cg.node("Conv", {cg.x, cg.w, cg.b}, conv_attrs(c));
        ir::Value* s = residual_first ? cg.node("Add", {cg.r, y}) : cg.node("Add", {y, cg.r});
        cg.g.add_output(cg.node("Relu", {s}));
        expect_fusion_transparent(cg.model, ins, {"Conv+Add+Relu"});
      }
    }
  }
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
    // Conv's output read twice: all nodes run; Add's output read twice:
    // Conv + Add fuse (the group's output is the graph output), Relu runs.
    std::vector<std::string> ops{"Conv", "Add", "Relu"};
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

// MatMul fusion: x0 [.., S, K] x W [K, N] (x1, an initializer: packed once) ->
// Add(x2) [-> Relu]; x2 is the bias (an initializer) or a graph input.
struct MatMulGraph {
  ir::Model model;
  ir::Graph& g = *model.graph;
  std::vector<Tensor> ins;
  ir::Value *x, *w, *r;
  MatMulGraph(Dims xd, Dims wd, Dims rd, bool const_w, bool const_r, unsigned seed) {
    model.opset_imports = {{"", 17}};
    ins = {normal_tensor(xd, seed), normal_tensor(wd, seed + 1), normal_tensor(rd, seed + 2)};
    ins[0].mutable_data<float>()[1] = NAN;  // a NaN row through the epilogue
    auto value = [&](size_t i, bool is_const) {
      const std::string name = "x" + std::to_string(i);
      if (is_const) return g.add_initializer(name, std::make_shared<ir::Tensor>(ins[i].to_ir()));
      return g.add_input(name, ir::Type::tensor(DataType::Float));
    };
    x = value(0, false);
    w = value(1, const_w);
    r = value(2, const_r);
  }
  ir::Value* node(const std::string& op, std::vector<ir::Value*> in) {
    return g.create_node(op, in)->output(0);
  }
};

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
