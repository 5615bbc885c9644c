// The fast float32 paths (src/oxs/eval/fast/) against their references: the
// ops' schema function bodies (Softmax-13, LogSoftmax-13,
// LayerNormalization-17, run by a registry without the kernel) and the
// reference kernels (fast paths off), on random data with awkward sizes
// (tails shorter than a vector), NaN, infinities and all -inf rows; and the
// thread count: 1 and 3 threads give bit-identical results.
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

Tensor random_floats(Dims dims, unsigned seed, float scale = 3) {
  Tensor t(DataType::Float, std::move(dims));
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0, scale);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = d(rng);
  return t;
}

// A model with one node `op` (opset `opset`) over inputs x0.. (graph
// inputs) and one output.
struct OneNode {
  ir::Model model;
  std::vector<std::string> inputs;
  OneNode(const std::string& op, int64_t opset, const std::vector<Tensor>& ins,
          const std::function<void(ir::Node*)>& set_attrs = {}) {
    model.opset_imports = {{"", opset}};
    ir::Graph& g = *model.graph;
    std::vector<ir::Value*> vs;
    for (size_t i = 0; i < ins.size(); ++i) {
      inputs.push_back("x" + std::to_string(i));
      vs.push_back(g.add_input(inputs.back(), ir::Type::tensor(DataType::Float)));
    }
    ir::Node* n = g.create_node(op, vs);
    if (set_attrs) set_attrs(n);
    g.add_output(n->output(0));
  }
  Tensor run(const std::vector<Tensor>& ins, int threads, const KernelRegistry* reg = nullptr) {
    SessionOptions o;
    o.threads = threads;
    o.registry = reg;
    Session s(model, o);
    std::map<std::string, Value> feeds;
    for (size_t i = 0; i < ins.size(); ++i) feeds.emplace(inputs[i], ins[i]);
    return s.run(feeds)[0].tensor();
  }
};

// Scaled difference: |a - b| / (abs_tol + rel_tol * |b|); NaN must match NaN.
void expect_close(const Tensor& got, const Tensor& want, double rel, double abs_tol) {
  ASSERT_EQ(got.dims(), want.dims());
  for (int64_t i = 0; i < got.numel(); ++i) {
    const float g = got.data<float>()[i], w = want.data<float>()[i];
    if (std::isnan(w)) {
      ASSERT_TRUE(std::isnan(g)) << "at " << i << ": " << g << ", want NaN";
      continue;
    }
    if (std::isinf(w)) {
      ASSERT_EQ(g, w) << "at " << i;
      continue;
    }
    ASSERT_LE(std::abs(double(g) - double(w)), abs_tol + rel * std::abs(double(w)))
        << "at " << i << ": " << g << " vs " << w;
  }
}

void expect_identical(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dims(), b.dims());
  ASSERT_EQ(a.nbytes(), b.nbytes());
  if (std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0) return;
  // Name the first element that differs (as float bits when float).
  const size_t n = a.nbytes() / sizeof(float);
  const auto* fa = static_cast<const float*>(a.raw());
  const auto* fb = static_cast<const float*>(b.raw());
  size_t i = 0;
  while (i < n && std::memcmp(fa + i, fb + i, sizeof(float)) == 0) ++i;
  FAIL() << "the bits differ at element " << i << ": " << (i < n ? fa[i] : 0.0f) << " vs "
         << (i < n ? fb[i] : 0.0f);
}

// Runs with the fast paths off (the reference kernel).
Tensor run_reference(OneNode& m, const std::vector<Tensor>& ins) {
  fast::set_enabled(false);
  Tensor t = m.run(ins, 1);
  fast::set_enabled(true);
  return t;
}

class FastKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fast::enabled()) GTEST_SKIP() << "the CPU has no AVX-512: the fast paths never run";
  }
  void TearDown() override { fast::set_enabled(true); }
};

TEST_F(FastKernels, SoftmaxMatchesFunctionBodyAndReferenceKernel) {
  for (int64_t len : {1, 7, 16, 33, 197}) {
    SCOPED_TRACE("len " + std::to_string(len));
    Tensor x = random_floats({3, 5, len}, unsigned(len));
    float* p = x.mutable_data<float>();
    if (len >= 7) {
      p[2] = std::numeric_limits<float>::infinity();                 // row 0: inf -> NaN row
      p[len + 1] = NAN;                                              // row 1: NaN row
      for (int64_t i = 0; i < len; ++i) p[2 * len + i] = -INFINITY;  // row 2: all -inf
      p[3 * len + 4] = -INFINITY;                                    // row 3: one -inf -> 0
    }
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      SCOPED_TRACE(op);
      OneNode m(op, 13, {x});
      KernelRegistry bodies = KernelRegistry::builtin();
      bodies.add("", op, 13, nullptr);  // the schema's function body runs
      const Tensor fast = m.run({x}, 1);
      // abs 2e-7: LogSoftmax subtracts log(sum), and the fast kernel sums
      // lanes pairwise, the others in order: one ulp of a sum near 1 is 1.2e-7.
      expect_close(fast, m.run({x}, 1, &bodies), 2e-6, 2e-7);
      expect_close(fast, run_reference(m, {x}), 2e-6, 2e-7);
      expect_identical(fast, m.run({x}, 3));
    }
  }
}

TEST_F(FastKernels, LayerNormalizationMatchesFunctionBody) {
  for (int64_t len : {1, 5, 16, 31, 768}) {
    SCOPED_TRACE("len " + std::to_string(len));
    Tensor x = random_floats({2, 3, len}, unsigned(len) + 100);
    x.mutable_data<float>()[0] = NAN;  // NaN row stays NaN
    Tensor scale = random_floats({len}, 7, 1), bias = random_floats({len}, 8, 1);
    OneNode m("LayerNormalization", 17, {x, scale, bias},
              [](ir::Node* n) { n->set_attr(ir::Attr::of_float("epsilon", 1e-5f)); });
    KernelRegistry bodies = KernelRegistry::builtin();
    bodies.add("", "LayerNormalization", 17, nullptr);
    const Tensor fast = m.run({x, scale, bias}, 1);
    expect_close(fast, m.run({x, scale, bias}, 1, &bodies), 1e-5, 1e-5);
    expect_close(fast, run_reference(m, {x, scale, bias}), 1e-5, 1e-5);
    expect_identical(fast, m.run({x, scale, bias}, 3));
  }
}

TEST_F(FastKernels, LayerNormalizationOverTwoAxesWithoutBias) {
  Tensor x = random_floats({4, 6, 10}, 3);
  Tensor scale = random_floats({6, 10}, 4, 1);
  OneNode m("LayerNormalization", 17, {x, scale},
            [](ir::Node* n) { n->set_attr(ir::Attr::of_int("axis", 1)); });
  expect_close(m.run({x, scale}, 1), run_reference(m, {x, scale}), 1e-5, 1e-5);
}

TEST_F(FastKernels, ErfMatchesLibmAcrossTheRange) {
  Tensor x(DataType::Float, {4003});
  float* p = x.mutable_data<float>();
  for (int64_t i = 0; i < 4000; ++i) p[i] = -10.0f + 20.0f * float(i) / 4000.0f;
  p[4000] = NAN;
  p[4001] = INFINITY;
  p[4002] = 1e-30f;  // tiny: erf(x) ~ 2x/sqrt(pi), relative accuracy kept
  OneNode m("Erf", 13, {x});
  const Tensor fast = m.run({x}, 1);
  expect_close(fast, run_reference(m, {x}), 4e-7, 1e-7);
  EXPECT_FLOAT_EQ(fast.data<float>()[4002], std::erf(1e-30f));
  expect_identical(fast, m.run({x}, 3));
}

TEST_F(FastKernels, MaxPoolMatchesReferenceWithPaddingStridesAndNaN) {
  Tensor x = random_floats({2, 3, 13, 11}, 11);
  x.mutable_data<float>()[5] = NAN;
  struct Case {
    std::vector<int64_t> kernel, strides, pads;
    int64_t ceil;
  };
  for (const Case& c : std::vector<Case>{{{3, 3}, {2, 2}, {1, 1, 1, 1}, 0},
                                         {{2, 2}, {2, 2}, {0, 0, 0, 0}, 1},
                                         {{3, 2}, {1, 3}, {2, 0, 2, 1}, 0}}) {
    OneNode m("MaxPool", 12, {x}, [&](ir::Node* n) {
      n->set_attr(ir::Attr::of_ints("kernel_shape", c.kernel));
      n->set_attr(ir::Attr::of_ints("strides", c.strides));
      n->set_attr(ir::Attr::of_ints("pads", c.pads));
      n->set_attr(ir::Attr::of_int("ceil_mode", c.ceil));
    });
    const Tensor fast = m.run({x}, 1);
    expect_identical(fast, run_reference(m, {x}));
    expect_identical(fast, m.run({x}, 3));
  }
}

TEST_F(FastKernels, BroadcastArithmeticIsBitIdenticalToTheReference) {
  const std::vector<std::pair<Dims, Dims>> shapes = {
      {{2, 3, 37}, {2, 3, 37}},       // same shape
      {{2, 3, 37}, {}},               // scalar
      {{1}, {4, 5}},                  // scalar on the left
      {{2, 16, 5, 7}, {16, 1, 1}},    // per channel
      {{3, 197, 40}, {40}},           // bias on the last axis
      {{5, 1, 33}, {1, 4, 33}},       // both broadcast
      {{6, 4}, {6, 1}},               // per row, runs of 1 after collapsing
      {{1, 3, 1, 50}, {2, 1, 5, 1}},  // outer product: strided runs
  };
  for (const auto& [da, db] : shapes) {
    SCOPED_TRACE(dims_to_string(da) + " op " + dims_to_string(db));
    Tensor a = random_floats(da, 21), b = random_floats(db, 22);
    if (a.numel() > 3) a.mutable_data<float>()[3] = NAN;
    if (b.numel() > 1) b.mutable_data<float>()[1] = 0.0f;  // x / 0
    for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
      SCOPED_TRACE(op);
      OneNode m(op, 14, {a, b});
      const Tensor fast = m.run({a, b}, 1);
      expect_identical(fast, run_reference(m, {a, b}));
      expect_identical(fast, m.run({a, b}, 3));
    }
  }
}

TEST_F(FastKernels, SmallRowGemmMatchesTheBlockedSgemm) {
  for (bool tb : {false, true}) {
    for (int64_t m : {1, 3}) {
      SCOPED_TRACE("m " + std::to_string(m) + (tb ? " transB" : ""));
      Tensor a = random_floats({m, 333}, 41),
             b = random_floats(tb ? Dims{77, 333} : Dims{333, 77}, 42);
      Tensor c = random_floats({77}, 43);
      OneNode g("Gemm", 13, {a, b, c}, [&](ir::Node* n) {
        n->set_attr(ir::Attr::of_int("transB", tb));
        n->set_attr(ir::Attr::of_float("alpha", 0.5f));
        n->set_attr(ir::Attr::of_float("beta", 2.0f));
      });
      expect_close(g.run({a, b, c}, 1), run_reference(g, {a, b, c}), 1e-5, 1e-4);
    }
  }
}

TEST_F(FastKernels, DepthwiseConvIsBitIdenticalToTheReference) {
  struct Case {
    Dims x, w;
    std::vector<int64_t> strides, dilations, pads;
  };
  for (const Case& c : std::vector<Case>{
           {{1, 6, 7, 7}, {6, 1, 5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}},    // mobilenet's tail
           {{2, 4, 23, 41}, {4, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},  // strided, gathers
           {{1, 3, 12, 35}, {6, 1, 3, 3}, {1, 3}, {2, 2}, {2, 0, 1, 3}},  // multiplier 2
           {{1, 2, 5, 3}, {2, 1, 3, 3}, {1, 1}, {1, 1}, {4, 4, 4, 4}},    // mostly padding
           // Across channels (depthwise_channels.cc): channel counts that
           // are not a multiple of 16, narrow planes at strides 2 and 3,
           // dilations, uneven pads, a kernel wider than the input, and
           // inputs tall and wide enough to take several bands of rows.
           {{1, 37, 14, 14}, {37, 1, 5, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}},
           {{2, 20, 9, 11}, {20, 1, 3, 3}, {3, 2}, {2, 1}, {0, 2, 1, 1}},
           {{1, 17, 6, 4}, {17, 1, 3, 7}, {1, 1}, {1, 1}, {1, 3, 1, 5}},
           {{1, 24, 60, 200}, {24, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
           {{1, 16, 90, 70}, {16, 1, 5, 5}, {2, 2}, {1, 2}, {2, 4, 2, 4}},
           {{1, 40, 33, 29}, {40, 1, 3, 3}, {2, 2}, {1, 1}, {0, 0, 1, 1}}}) {
    SCOPED_TRACE(dims_to_string(c.x) + " * " + dims_to_string(c.w));
    Tensor x = random_floats(c.x, 51), w = random_floats(c.w, 52), b = random_floats({c.w[0]}, 53);
    x.mutable_data<float>()[7] = NAN;
    OneNode m("Conv", 11, {x, w, b}, [&](ir::Node* n) {
      n->set_attr(ir::Attr::of_int("group", c.x[1]));
      n->set_attr(ir::Attr::of_ints("strides", c.strides));
      n->set_attr(ir::Attr::of_ints("dilations", c.dilations));
      n->set_attr(ir::Attr::of_ints("pads", c.pads));
    });
    const Tensor fast = m.run({x, w, b}, 1);
    expect_identical(fast, run_reference(m, {x, w, b}));
    expect_identical(fast, m.run({x, w, b}, 3));
  }
}

TEST_F(FastKernels, DepthwiseConvWithoutBiasAndInOneDimensionIsBitIdentical) {
  for (const Dims& xd : {Dims{1, 19, 50}, Dims{2, 33, 9, 8}}) {
    SCOPED_TRACE(dims_to_string(xd));
    Dims wd{xd[1], 1, 3};
    if (xd.size() == 4) wd.push_back(3);
    Tensor x = random_floats(xd, 61), w = random_floats(wd, 62);
    x.mutable_data<float>()[5] = INFINITY;
    OneNode m("Conv", 11, {x, w}, [&](ir::Node* n) {
      n->set_attr(ir::Attr::of_int("group", xd[1]));
      n->set_attr(ir::Attr::of_ints("strides", std::vector<int64_t>(xd.size() - 2, 2)));
      n->set_attr(ir::Attr::of_ints("pads", std::vector<int64_t>(2 * (xd.size() - 2), 1)));
    });
    const Tensor fast = m.run({x, w}, 1);
    expect_identical(fast, run_reference(m, {x, w}));
    expect_identical(fast, m.run({x, w}, 3));
  }
}

TEST_F(FastKernels, PointwiseConvAtOnePositionMatchesTheReference) {
  // A squeeze-excite block's 1x1 conv on a 1x1 input: dot products over W's
  // rows (fast::small_m_gemm), then + bias.
  for (bool with_bias : {true, false}) {
    SCOPED_TRACE(with_bias ? "bias" : "no bias");
    Tensor x = random_floats({2, 333, 1, 1}, 71), w = random_floats({77, 333, 1, 1}, 72);
    Tensor b = random_floats({77}, 73);
    const std::vector<Tensor> ins = with_bias ? std::vector<Tensor>{x, w, b} : std::vector{x, w};
    OneNode m("Conv", 11, ins);
    const Tensor fast = m.run(ins, 1);
    expect_close(fast, run_reference(m, ins), 1e-5, 1e-4);
    expect_identical(fast, m.run(ins, 3));
  }
}

TEST_F(FastKernels, ReluAndHardSwishAreBitIdenticalToTheReference) {
  Tensor x = random_floats({3, 1001}, 31);
  float* p = x.mutable_data<float>();
  p[0] = NAN;
  p[1] = -0.0f;
  p[2] = INFINITY;
  p[3] = -INFINITY;
  p[4] = 3.0f;  // HardSwish's knees
  p[5] = -3.0f;
  for (const char* op : {"Relu", "HardSwish"}) {
    SCOPED_TRACE(op);
    OneNode m(op, 14, {x});
    const Tensor fast = m.run({x}, 1);
    expect_identical(fast, run_reference(m, {x}));
    expect_identical(fast, m.run({x}, 3));
  }
}

TEST(Threads, MatMulConvAndGemmAreBitIdenticalAcrossThreadCounts) {
  Tensor a = random_floats({3, 70, 300}, 1), b = random_floats({300, 130}, 2);
  OneNode mm("MatMul", 13, {a, b});
  expect_identical(mm.run({a, b}, 1), mm.run({a, b}, 3));
  Tensor x = random_floats({1, 8, 20, 20}, 3), w = random_floats({16, 8, 3, 3}, 4);
  OneNode conv("Conv", 11, {x, w}, [](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("pads", {1, 1, 1, 1}));
  });
  expect_identical(conv.run({x, w}, 1), conv.run({x, w}, 3));
  // One row (the small-m path) and many (the blocked SGEMM).
  Tensor g1 = random_floats({1, 960}, 7), gw = random_floats({1280, 960}, 8);
  OneNode gemv("Gemm", 13, {g1, gw},
               [](ir::Node* n) { n->set_attr(ir::Attr::of_int("transB", 1)); });
  expect_identical(gemv.run({g1, gw}, 1), gemv.run({g1, gw}, 3));
  Tensor ga = random_floats({200, 64}, 5), gb = random_floats({300, 64}, 6);
  OneNode gemm("Gemm", 13, {ga, gb},
               [](ir::Node* n) { n->set_attr(ir::Attr::of_int("transB", 1)); });
  expect_identical(gemm.run({ga, gb}, 1), gemm.run({ga, gb}, 3));
}

// Weights that are initializers are packed once per session (kernel state);
// the same weights fed as inputs take the per-call packing. Both must give
// the same bits, on the first run and on later runs from the cache.
TEST(PackedWeights, InitializerWeightsGiveTheSameBitsAsFedOnes) {
  struct Case {
    std::string op;
    Tensor x, w;
    std::function<void(ir::Node*)> attrs;
    Tensor bias = {};  // Conv's B (added by the packed GEMM as it stores)
  };
  std::vector<Case> cases;
  cases.push_back({"MatMul", random_floats({2, 37, 96}, 1), random_floats({96, 70}, 2), {}});
  cases.push_back({"Gemm", random_floats({33, 64}, 3), random_floats({50, 64}, 4),
                   [](ir::Node* n) { n->set_attr(ir::Attr::of_int("transB", 1)); }});
  cases.push_back(
      {"Conv", random_floats({1, 8, 12, 12}, 5), random_floats({12, 4, 3, 3}, 6), [](ir::Node* n) {
         n->set_attr(ir::Attr::of_ints("pads", {1, 1, 1, 1}));
         n->set_attr(ir::Attr::of_int("group", 2));
       }});
  cases.push_back({"Conv", random_floats({1, 16, 9, 9}, 7), random_floats({24, 16, 1, 1}, 8), {}});
  cases.push_back({"Conv",
                   random_floats({2, 16, 9, 9}, 9),
                   random_floats({24, 16, 1, 1}, 10),
                   {},
                   random_floats({24}, 11)});
  cases.push_back({"Conv", random_floats({2, 6, 10, 11}, 12), random_floats({9, 2, 3, 3}, 13),
                   [](ir::Node* n) {
                     n->set_attr(ir::Attr::of_ints("strides", {2, 1}));
                     n->set_attr(ir::Attr::of_int("group", 3));
                   },
                   random_floats({9}, 14)});
  for (Case& c : cases) {
    SCOPED_TRACE(c.op + " " + dims_to_string(c.w.dims()));
    std::vector<Tensor> fed_inputs{c.x, c.w};
    if (c.bias.defined()) fed_inputs.push_back(c.bias);
    OneNode fed(c.op, 13, fed_inputs, c.attrs);
    const Tensor want = fed.run(fed_inputs, 1);
    ir::Model m;
    m.opset_imports = {{"", 13}};
    ir::Value* x = m.graph->add_input("x0", ir::Type::tensor(DataType::Float));
    ir::Value* w = m.graph->add_initializer("w", std::make_shared<ir::Tensor>(c.w.to_ir()));
    std::vector<ir::Value*> ins{x, w};
    std::map<std::string, Value> feeds{{"x0", c.x}};
    if (c.bias.defined()) {
      ins.push_back(m.graph->add_input("b", ir::Type::tensor(DataType::Float)));
      feeds.emplace("b", c.bias);
    }
    ir::Node* n = m.graph->create_node(c.op, ins);
    if (c.attrs) c.attrs(n);
    m.graph->add_output(n->output(0));
    for (int threads : {1, 3}) {
      SessionOptions o;
      o.threads = threads;
      Session s(m, o);
      for (int run = 0; run < 2; ++run) expect_identical(s.run(feeds)[0].tensor(), want);
    }
  }
}

TEST(Threads, NegativeThreadCountIsAUsageError) {
  ir::Model m;
  m.opset_imports = {{"", 13}};
  SessionOptions o;
  o.threads = -1;
  EXPECT_THROW(Session(m, o), Error);
}

}  // namespace
}  // namespace oxs::eval
