// HardSwish: the 16-lane helper (fast::hard_swish_vec, which has no
// division) against the reference's operations on every float, the kernel
// against the reference kernel on the values around its kinks, and Conv ->
// HardSwish, Conv -> Add -> HardSwish and MatMul -> Add -> HardSwish fused
// into one node (conv/conv_fusion.h) against the same graphs run node by
// node, on every Conv path (pointwise, im2col, direct, Winograd, depthwise,
// grouped; packed or fed weights; the fast paths off), including where the
// group must not be formed.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "eval/fusion_test_util.h"
#include "oxs/eval/conv/conv_forward.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/fast/vec_math.h"
#include "oxs/eval/session.h"

namespace oxs::eval {
namespace {

using conv_detail::ConvDirectMode;
using conv_detail::ConvWinogradMode;
using fusion_test::conv_attrs;
using fusion_test::conv_cases;
using fusion_test::conv_out;
using fusion_test::ConvCase;
using fusion_test::ConvGraph;
using fusion_test::expect_bits_equal;
using fusion_test::expect_conv_tails_fuse;
using fusion_test::expect_fusion_transparent;
using fusion_test::MatMulGraph;
using fusion_test::normal_tensor;
using fusion_test::run_model;

class HardSwish : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fast::enabled()) GTEST_SKIP() << "the CPU has no AVX-512: the fast paths never run";
  }
  void TearDown() override {
    fast::set_enabled(true);
    conv_detail::set_conv_direct_mode(ConvDirectMode::Auto);
    conv_detail::set_conv_winograd_mode(ConvWinogradMode::Auto);
  }
};

uint32_t bits_of(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// HardSwish with the operations the reference kernel writes
// (activation/activations.cc: v * max(0, min(1, v / 6 + 0.5)), std::min and
// std::max), lane by lane: min_ps / max_ps return their second operand for
// NaN and for equal zeros, as `b < a ? b : a` and `a < b ? b : a` do here.
OXS_AVX512 __m512 hard_swish_by_division(__m512 v) {
  const __m512 t = _mm512_add_ps(_mm512_div_ps(v, _mm512_set1_ps(6.0f)), _mm512_set1_ps(0.5f));
  const __m512 u = fast::vmax(fast::vmin(t, _mm512_set1_ps(1.0f)), _mm512_setzero_ps());
  return _mm512_mul_ps(v, u);
}

// The number of the 2^32 float bit patterns where hard_swish_vec differs
// from the division form, and the first one.
OXS_AVX512 int64_t count_differences(uint32_t& first) {
  int64_t bad = 0;
  const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 16) {
    const __m512 v =
        _mm512_castsi512_ps(_mm512_add_epi32(_mm512_set1_epi32(int32_t(uint32_t(b))), lanes));
    const __mmask16 ne = _mm512_cmpneq_epi32_mask(_mm512_castps_si512(fast::hard_swish_vec(v)),
                                                  _mm512_castps_si512(hard_swish_by_division(v)));
    if (ne) {
      if (bad == 0) first = uint32_t(b) + uint32_t(__builtin_ctz(ne));
      bad += __builtin_popcount(ne);
    }
  }
  return bad;
}

OXS_AVX512 float one_lane_by_division(float v) {
  return _mm512_cvtss_f32(hard_swish_by_division(_mm512_set1_ps(v)));
}

TEST_F(HardSwish, VectorHelperHasTheBitsOfTheDivisionOnEveryFloat) {
  uint32_t first = 0;
  EXPECT_EQ(count_differences(first), 0) << "first at bits 0x" << std::hex << first;
}

TEST_F(HardSwish, ScalarHelperHasTheBitsOfTheDivision) {
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 997) {
    const uint32_t u = uint32_t(b);
    float v;
    std::memcpy(&v, &u, sizeof v);
    ASSERT_EQ(bits_of(fast::hard_swish_one(v)), bits_of(one_lane_by_division(v)))
        << "at bits 0x" << std::hex << u;
  }
}

// Values around the kinks (-3, 0, 3), signed zeros, subnormals, the ends of
// the range, Inf and NaN.
std::vector<float> kink_values() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v{0.0f,    -0.0f,    3.0f,         -3.0f,         6.0f,    -6.0f,
                       1.5f,    -1.5f,    inf,          -inf,          NAN,     -NAN,
                       FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MAX, -FLT_MAX};
  for (float k : {3.0f, -3.0f, 0.0f}) {
    float up = k, down = k;
    for (int i = 0; i < 4; ++i) {
      up = std::nextafter(up, inf);
      down = std::nextafter(down, -inf);
      v.push_back(up);
      v.push_back(down);
    }
  }
  return v;
}

TEST_F(HardSwish, KernelHasTheReferenceBitsAroundTheKinks) {
  const std::vector<float> vals = kink_values();
  ir::Model model;
  model.opset_imports = {{"", 17}};
  ir::Value* x = model.graph->add_input("x0", ir::Type::tensor(DataType::Float));
  model.graph->add_output(
      model.graph->create_node("HardSwish", std::vector<ir::Value*>{x})->output(0));
  Tensor t(DataType::Float, {int64_t(vals.size())});
  std::memcpy(t.mutable_data<float>(), vals.data(), vals.size() * sizeof(float));
  const Tensor fast_out = run_model(model, {t}, true)[0].tensor();
  const Tensor ref_out = run_model(model, {t}, false)[0].tensor();
  expect_bits_equal(fast_out, ref_out);
  // The spec's values: 1 above 3, 0 below -3 (so -0 for finite negatives
  // and NaN for -Inf: -Inf * 0), v * (v / 6 + 0.5) between.
  const float* y = fast_out.data<float>();
  EXPECT_EQ(bits_of(y[2]), bits_of(3.0f));
  EXPECT_EQ(bits_of(y[3]), bits_of(-0.0f));
  EXPECT_EQ(bits_of(y[4]), bits_of(6.0f));
  EXPECT_EQ(bits_of(y[5]), bits_of(-0.0f));
  EXPECT_EQ(y[6], 1.5f * 0.75f);
  EXPECT_EQ(y[7], -1.5f * 0.25f);
  EXPECT_EQ(y[8], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(y[9]));
  EXPECT_TRUE(std::isnan(y[10]) && std::isnan(y[11]));
}

// Conv inputs whose outputs spread around the kinks: W scaled so that a sum
// over the window is of the order of 3.
std::vector<Tensor> hs_inputs(const ConvCase& c, unsigned seed) {
  Tensor x = normal_tensor(c.x, seed), w = normal_tensor(c.w, seed + 1);
  const double window = double(c.w[1] * c.w[2] * c.w[3]);
  for (int64_t i = 0; i < w.numel(); ++i) {
    w.mutable_data<float>()[i] *= float(1.0 / std::sqrt(window));
  }
  return {x, w, normal_tensor({c.w[0]}, seed + 2), normal_tensor(conv_out(c), seed + 3)};
}

struct PathMode {
  const char* name;
  ConvDirectMode direct;
  ConvWinogradMode winograd;
};

const PathMode kModes[] = {
    {"auto", ConvDirectMode::Auto, ConvWinogradMode::Auto},
    {"im2col", ConvDirectMode::Off, ConvWinogradMode::Off},
    {"direct", ConvDirectMode::Always, ConvWinogradMode::Off},
    {"winograd", ConvDirectMode::Off, ConvWinogradMode::On},
};

TEST_F(HardSwish, FusedConvHardSwishGivesTheBitsOfSeparateNodesOnEveryPath) {
  for (const PathMode& mode : kModes) {
    SCOPED_TRACE(mode.name);
    conv_detail::set_conv_direct_mode(mode.direct);
    conv_detail::set_conv_winograd_mode(mode.winograd);
    expect_conv_tails_fuse("HardSwish", false, hs_inputs, 200);
  }
}

TEST_F(HardSwish, FusedConvAddHardSwishGivesTheBitsOfSeparateNodes) {
  expect_conv_tails_fuse("HardSwish", true, hs_inputs, 300);
}

// A conv whose output is its input: W is 1 at the centre tap of output
// channel m's input channel m / mult and 0 elsewhere, no bias. Sums of exact
// zeros and the input (where the window holds no Inf or NaN), so the
// HardSwish tail sees the kink values themselves.
struct IdentityConv {
  const char* name;
  int64_t channels, kernel, group, mult;
  ConvDirectMode direct;
  ConvWinogradMode winograd;
  int64_t (*runs)();
};

int64_t no_counter() {
  return 0;
}

TEST_F(HardSwish, FusedTailsSeeTheKinksOnEveryPath) {
  const IdentityConv paths[] = {
      {"pointwise", 16, 1, 1, 1, ConvDirectMode::Auto, ConvWinogradMode::Off, no_counter},
      {"im2col", 16, 3, 1, 1, ConvDirectMode::Off, ConvWinogradMode::Off, no_counter},
      {"direct", 16, 3, 1, 1, ConvDirectMode::Always, ConvWinogradMode::Off,
       conv_detail::conv_direct_runs},
      {"winograd", 16, 3, 1, 1, ConvDirectMode::Off, ConvWinogradMode::On,
       conv_detail::conv_winograd_runs},
      // (Across channels, fast/depthwise_channels.cc.)
      {"depthwise", 16, 3, 16, 1, ConvDirectMode::Auto, ConvWinogradMode::Off, no_counter},
      // (Plane by plane, fast/depthwise.cc.)
      {"depthwise x2", 16, 3, 16, 2, ConvDirectMode::Auto, ConvWinogradMode::Off, no_counter},
  };
  const std::vector<float> kinks = kink_values();
  for (const IdentityConv& p : paths) {
    for (bool finite_only : {false, true}) {
      // (Winograd takes convs of finite inputs only: others take the direct
      // path.)
      if (!finite_only && p.winograd == ConvWinogradMode::On) continue;
      SCOPED_TRACE(std::string(p.name) + (finite_only ? ", finite" : ", with Inf and NaN"));
      const int64_t C = p.channels, H = 12, W = 20, k = p.kernel;
      Tensor x(DataType::Float, {1, C, H, W});
      float* xd = x.mutable_data<float>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        float v = kinks[size_t(i) % kinks.size()];
        if (finite_only && !std::isfinite(v)) v = float(i % 13) * 0.5f - 3.0f;
        xd[i] = v;
      }
      const int64_t M = C * p.mult, cpg = C / p.group, mg = M / p.group;
      Tensor w(DataType::Float, {M, cpg, k, k});
      std::memset(w.mutable_data<float>(), 0, size_t(w.nbytes()));
      for (int64_t m = 0; m < M; ++m) {
        const int64_t ci = m / p.mult - (m / mg) * cpg;  // (within m's group)
        w.mutable_data<float>()[((m * cpg + ci) * k + k / 2) * k + k / 2] = 1.0f;
      }
      const ConvCase c{x.dims(), w.dims(), {1, 1}, {k / 2, k / 2, k / 2, k / 2}, {1, 1}, p.group};
      const std::vector<Tensor> ins{x, w, normal_tensor({M}, 1), normal_tensor(conv_out(c), 2)};
      conv_detail::set_conv_direct_mode(p.direct);
      conv_detail::set_conv_winograd_mode(p.winograd);
      ConvGraph cg(ins, true);
      ir::Value* y = cg.node("Conv", {cg.x, cg.w}, conv_attrs(c));
      cg.g.add_output(cg.node("HardSwish", {y}));
      cg.g.add_output(cg.node("Identity", {cg.b}));  // keeps x2 used
      const int64_t before = p.runs();
      expect_fusion_transparent(cg.model, ins, {"Conv+HardSwish", "Identity"});
      if (p.runs != no_counter) {
        EXPECT_GT(p.runs(), before) << "the path did not run";
      }
      // (Winograd's sums round; Inf and NaN spread over their windows.)
      if (p.winograd == ConvWinogradMode::On || !finite_only) continue;
      // The kinks reached the tail: the conv alone gives x back.
      ConvGraph plain(ins, true);
      plain.g.add_output(plain.node("Conv", {plain.x, plain.w}, conv_attrs(c)));
      plain.g.add_output(plain.node("Identity", {plain.b}));
      const Tensor out = run_model(plain.model, ins, true)[0].tensor();
      const int64_t HW = H * W;
      for (int64_t i = 0; i < out.numel(); ++i) {
        ASSERT_EQ(out.data<float>()[i], xd[i / HW / p.mult * HW + i % HW]) << "at " << i;
      }
    }
  }
}

TEST_F(HardSwish, NoGroupWhenTheConvOutputHasAnotherUseOrIsAGraphOutput) {
  const ConvCase& c = conv_cases()[1];
  for (int variant = 0; variant < 2; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    const std::vector<Tensor> ins = hs_inputs(c, 23);
    ConvGraph cg(ins, true);
    ir::Value* y = cg.node("Conv", {cg.x, cg.w, cg.b}, conv_attrs(c));
    cg.g.add_output(cg.node("HardSwish", {y}));
    cg.g.add_output(cg.r);
    std::vector<std::string> ops{"Conv", "HardSwish"};
    if (variant == 0) {
      cg.g.add_output(cg.node("Sigmoid", {y}));
      ops.push_back("Sigmoid");
    } else {
      cg.g.add_output(y);
    }
    expect_fusion_transparent(cg.model, ins, ops);
  }
}

TEST_F(HardSwish, FusedMatMulAddHardSwishGivesTheBitsOfSeparateNodes) {
  // Bias [N] (an initializer) and a full residual (a graph input).
  struct Case {
    Dims x;
    int64_t n;
    Dims r;
  };
  const std::vector<Case> cases{{{1, 50, 96}, 72, {72}}, {{1, 33, 40}, 48, {1, 33, 48}}};
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i];
    MatMulGraph mg(c.x, {c.x.back(), c.n}, c.r, true, c.r.size() == 1, unsigned(i) + 40);
    ir::Value* s = mg.node("Add", {mg.node("MatMul", {mg.x, mg.w}), mg.r});
    mg.g.add_output(mg.node("HardSwish", {s}));
    expect_fusion_transparent(mg.model, mg.ins, {"MatMul+Add+HardSwish"});
  }
}

}  // namespace
}  // namespace oxs::eval
