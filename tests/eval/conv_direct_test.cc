// Conv's direct AVX-512 path (conv/conv_direct_avx512.cc, an implicit GEMM
// over a padded copy of the input) against the im2col path it replaces
// (Im2colRows into the packed SGEMM): the same sums in the same order, so
// the outputs must have the same bits. Over kernel sizes, strides,
// dilations, asymmetric and automatic pads, 1-D/2-D/3-D, output widths
// around the 16-lane vectors, channel counts that are not multiples of 8,
// several depth blocks, groups, batches, bias or none, the fused Relu and
// Add + Relu, and 1 or 2 threads.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "eval/conv_tail_util.h"
#include "oxs/eval/conv/conv_forward.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/session.h"

namespace oxs::eval {
namespace {

using conv_detail::ConvDirectMode;
using conv_test::random_tensor;
using conv_test::Tail;

struct DirectCase {
  std::string name;
  Dims x, w;                                      // X [N, C, spatial...], W [M, C/group, kernel...]
  std::vector<int64_t> strides, pads, dilations;  // empty: attribute absent
  int64_t group = 1;
  std::string auto_pad;  // empty: absent
};

const std::vector<DirectCase>& cases() {
  static const std::vector<DirectCase> c{
      {"3x3 stride 1, OW 56", {1, 8, 56, 56}, {16, 8, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {"3x3, 5 in / 11 out channels, OW 16", {1, 5, 16, 16}, {11, 5, 3, 3}, {}, {1, 1, 1, 1}, {}},
      {"3x3 stride 2, asymmetric pads", {1, 6, 57, 55}, {8, 6, 3, 3}, {2, 2}, {1, 0, 1, 2}, {}},
      {"1x1 stride 2, OW 28", {2, 12, 56, 56}, {9, 12, 1, 1}, {2, 2}, {}, {}},
      {"1x1 with pads", {1, 7, 10, 14}, {5, 7, 1, 1}, {}, {1, 2, 0, 1}, {}},
      {"5x5, OW 14", {1, 9, 14, 14}, {17, 9, 5, 5}, {}, {2, 2, 2, 2}, {}},
      {"7x7 stride 2, OW 100", {1, 3, 40, 199}, {8, 3, 7, 7}, {2, 2}, {3, 3, 3, 3}, {}},
      {"3x3 stride 3, dilation 2", {1, 4, 30, 50}, {6, 4, 3, 3}, {3, 3}, {2, 1, 0, 2}, {2, 2}},
      {"3x3 dilation 2 stride 1", {1, 4, 19, 33}, {8, 4, 3, 3}, {}, {2, 2, 2, 2}, {2, 2}},
      {"OW 7", {1, 16, 7, 7}, {24, 16, 3, 3}, {}, {1, 1, 1, 1}, {}},
      {"OW 64", {1, 8, 9, 64}, {8, 8, 3, 3}, {}, {1, 1, 1, 1}, {}},
      {"two depth blocks (K 360)", {1, 40, 12, 28}, {13, 40, 3, 3}, {}, {1, 1, 1, 1}, {}},
      {"three depth blocks (K 576)", {1, 64, 8, 16}, {32, 64, 3, 3}, {}, {1, 1, 1, 1}, {}},
      {"W over 1 MiB: two passes of rows", {1, 200, 6, 20}, {152, 200, 3, 3}, {}, {1, 1, 1, 1}, {}},
      {"groups 2", {1, 6, 14, 16}, {8, 3, 3, 3}, {1, 3}, {2, 1, 0, 2}, {2, 1}, 2},
      {"groups 3, batch 3", {3, 9, 11, 20}, {12, 3, 3, 3}, {2, 1}, {1, 1, 1, 1}, {}, 3},
      {"auto_pad SAME_UPPER stride 2",
       {1, 5, 15, 33},
       {7, 5, 4, 4},
       {2, 2},
       {},
       {},
       1,
       "SAME_UPPER"},
      {"auto_pad SAME_LOWER", {1, 5, 15, 17}, {7, 5, 3, 2}, {}, {}, {}, 1, "SAME_LOWER"},
      {"auto_pad VALID stride 3", {2, 4, 20, 50}, {5, 4, 3, 3}, {3, 3}, {}, {}, 1, "VALID"},
      {"1-D stride 2", {2, 6, 100}, {10, 6, 5}, {2}, {2, 1}, {}},
      {"1-D dilation 2", {1, 3, 40}, {4, 3, 3}, {}, {0, 3}, {2}},
      {"3-D", {1, 4, 5, 9, 18}, {8, 4, 3, 3, 3}, {1, 2, 1}, {1, 1, 1, 1, 0, 1}, {}},
      {"3-D stride 2 dilation 2", {2, 3, 7, 8, 33}, {5, 3, 2, 3, 3}, {2, 1, 2}, {}, {1, 2, 1}},
  };
  return c;
}

// Runs `c` as a model: W and B initializers (so the Conv packs W and takes
// the packed paths), then the tail (fused by the session); x0 is X, x1 the
// residual.
Tensor run_case(const DirectCase& c, bool bias, Tail tail, ConvDirectMode mode, int threads,
                const Tensor& x, const Tensor& residual) {
  ir::Model model;
  model.opset_imports = {{"", 17}};
  ir::Graph& g = *model.graph;
  std::vector<ir::Value*> ins{g.add_input("x0", ir::Type::tensor(DataType::Float))};
  ins.push_back(g.add_initializer(
      "w", std::make_shared<ir::Tensor>(random_tensor(c.w, unsigned(c.w[0])).to_ir())));
  if (bias) {
    ins.push_back(
        g.add_initializer("b", std::make_shared<ir::Tensor>(random_tensor({c.w[0]}, 7).to_ir())));
  }
  ir::Node* conv = g.create_node("Conv", ins);
  if (!c.strides.empty()) conv->set_attr(ir::Attr::of_ints("strides", c.strides));
  if (!c.pads.empty()) conv->set_attr(ir::Attr::of_ints("pads", c.pads));
  if (!c.dilations.empty()) conv->set_attr(ir::Attr::of_ints("dilations", c.dilations));
  if (!c.auto_pad.empty()) conv->set_attr(ir::Attr::of_string("auto_pad", c.auto_pad));
  conv->set_attr(ir::Attr::of_int("group", c.group));
  ir::Value* y = conv->output(0);
  std::map<std::string, Value> feeds{{"x0", x}};
  conv_test::add_tail(g, y, tail, residual, feeds);
  SessionOptions o;
  o.threads = threads;
  conv_detail::set_conv_direct_mode(mode);
  // (Not the Winograd path, which takes some of these 3x3 convs.)
  conv_detail::set_conv_winograd_mode(conv_detail::ConvWinogradMode::Off);
  Session s(model, o);
  Tensor out = s.run(feeds)[0].tensor();
  conv_detail::set_conv_direct_mode(ConvDirectMode::Auto);
  conv_detail::set_conv_winograd_mode(conv_detail::ConvWinogradMode::Auto);
  return out;
}

void expect_same_bits(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dims(), b.dims());
  ASSERT_EQ(0, std::memcmp(a.raw(), b.raw(), a.nbytes()));
}

class ConvDirect : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fast::enabled() || !sgemm_avx512_supported()) {
      GTEST_SKIP() << "the CPU has no AVX-512: the direct path never runs";
    }
  }
  void TearDown() override { conv_detail::set_conv_direct_mode(ConvDirectMode::Auto); }
};

TEST_F(ConvDirect, GivesTheBitsOfTheIm2colPathOnEveryGeometry) {
  unsigned seed = 1;
  for (const DirectCase& c : cases()) {
    SCOPED_TRACE(c.name);
    Tensor x = random_tensor(c.x, seed++);
    x.mutable_data<float>()[1] = NAN;  // NaN through the kernel and Relu
    const Tensor shape = run_case(c, false, Tail::None, ConvDirectMode::Off, 1, x, {});
    const Tensor residual = random_tensor(shape.dims(), seed++);
    for (Tail tail : {Tail::None, Tail::Relu, Tail::AddRelu}) {
      for (bool bias : {true, false}) {
        SCOPED_TRACE(std::string(bias ? "bias" : "no bias") + ", tail " +
                     std::to_string(int(tail)));
        const int64_t before = conv_detail::conv_direct_runs();
        const Tensor direct = run_case(c, bias, tail, ConvDirectMode::Always, 1, x, residual);
        EXPECT_GT(conv_detail::conv_direct_runs(), before) << "the direct path did not run";
        expect_same_bits(direct, run_case(c, bias, tail, ConvDirectMode::Off, 1, x, residual));
        if (bias && tail != Tail::Relu) {  // threads: once per tail
          expect_same_bits(direct, run_case(c, bias, tail, ConvDirectMode::Always, 2, x, residual));
        }
      }
    }
  }
}

TEST_F(ConvDirect, RepeatedCallsDoNotSeeStalePadding) {
  // A big conv then small ones on the same thread reuse the padded buffer.
  const DirectCase& big = cases()[0];
  const DirectCase& small = cases()[7];
  const Tensor xb = random_tensor(big.x, 3), xs = random_tensor(small.x, 4);
  const Tensor want = run_case(small, true, Tail::None, ConvDirectMode::Off, 1, xs, {});
  run_case(big, true, Tail::None, ConvDirectMode::Always, 1, xb, {});
  expect_same_bits(want, run_case(small, true, Tail::None, ConvDirectMode::Always, 1, xs, {}));
}

TEST_F(ConvDirect, NoInputChannelsGiveTheBiasInEitherMode) {
  // Depth 0: not the direct path (it has no depth block to store from).
  const DirectCase c{"no input channels", {1, 0, 6, 20}, {4, 0, 3, 3}, {}, {1, 1, 1, 1}, {}};
  const Tensor x = random_tensor(c.x, 1);
  const Tensor off = run_case(c, true, Tail::Relu, ConvDirectMode::Off, 1, x, {});
  expect_same_bits(off, run_case(c, true, Tail::Relu, ConvDirectMode::Always, 1, x, {}));
  const Tensor bias = random_tensor({4}, 7);
  for (int64_t i = 0; i < off.numel(); ++i) {
    const float b = bias.data<float>()[i / (6 * 20)];
    ASSERT_EQ(off.data<float>()[i], b > 0 ? b : 0.0f) << "at " << i;
  }
}

TEST_F(ConvDirect, PadsFarLargerThanTheInputKeepTheIm2colPath) {
  // The padded copy would be 2 million rows for 5 input rows: refused, even
  // when forced; the im2col path gives the result.
  const DirectCase c{
      "huge pads", {1, 2, 5, 40}, {3, 2, 3, 3}, {1000000, 1}, {1000000, 1, 1000000, 1}, {}};
  const Tensor x = random_tensor(c.x, 2);
  const int64_t before = conv_detail::conv_direct_runs();
  const Tensor forced = run_case(c, true, Tail::None, ConvDirectMode::Always, 1, x, {});
  EXPECT_EQ(conv_detail::conv_direct_runs(), before);
  EXPECT_EQ(forced.dims(), (Dims{1, 3, 3, 40}));
  expect_same_bits(forced, run_case(c, true, Tail::None, ConvDirectMode::Off, 1, x, {}));
}

TEST_F(ConvDirect, AutoModeSkipsNarrowOutputs) {
  // OW 56 uses 56 of 64 lanes: direct; OW 7 uses 7 of 16: im2col.
  const Tensor x56 = random_tensor(cases()[0].x, 5), x7 = random_tensor(cases()[9].x, 6);
  int64_t before = conv_detail::conv_direct_runs();
  run_case(cases()[0], true, Tail::None, ConvDirectMode::Auto, 1, x56, {});
  EXPECT_GT(conv_detail::conv_direct_runs(), before);
  before = conv_detail::conv_direct_runs();
  run_case(cases()[9], true, Tail::None, ConvDirectMode::Auto, 1, x7, {});
  EXPECT_EQ(conv_detail::conv_direct_runs(), before);
  before = conv_detail::conv_direct_runs();
  run_case(cases()[0], true, Tail::None, ConvDirectMode::Off, 1, x56, {});
  EXPECT_EQ(conv_detail::conv_direct_runs(), before);
}

}  // namespace
}  // namespace oxs::eval
