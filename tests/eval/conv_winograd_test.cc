// Conv's Winograd F(2x2, 3x3) path (conv/conv_winograd_avx512.cc) against a
// double-precision reference and the direct path: output sizes 1x1 to 67x67
// (odd and even: partial tiles at the right and bottom), pads 0, 1,
// asymmetric and auto_pad SAME, channel counts that are not multiples of 8
// or 16, batches, bias or none, the fused Relu and Add + Relu, 1 or 2
// threads (the same bits), non-finite weights and inputs (the same
// non-finite outputs as the direct path), and when the path runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "eval/conv_tail_util.h"
#include "oxs/eval/conv/conv_forward.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/session.h"

namespace oxs::eval {
namespace {

using conv_detail::ConvDirectMode;
using conv_detail::ConvWinogradMode;
using conv_test::random_tensor;
using conv_test::Tail;

struct Case {
  std::string name;
  Dims x;                     // X [N, C, H, W]; W is [M, C, 3, 3]
  int64_t m;                  // output channels
  std::vector<int64_t> pads;  // empty: attribute absent
  std::string auto_pad;       // empty: absent
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c{
      {"1x1 output (3x3 input, no pads)", {1, 5, 3, 3}, 7, {}, ""},
      {"1x1 input, pads 1", {1, 3, 1, 1}, 2, {1, 1, 1, 1}, ""},
      {"2x2 output", {1, 16, 2, 2}, 16, {1, 1, 1, 1}, ""},
      {"3x3 output, one channel", {1, 1, 3, 3}, 1, {1, 1, 1, 1}, ""},
      {"5x7 output, no pads", {1, 17, 7, 9}, 19, {}, ""},
      {"16x16, 32 channels", {1, 32, 16, 16}, 32, {1, 1, 1, 1}, ""},
      {"17x17, 130 in / 33 out", {1, 130, 17, 17}, 33, {1, 1, 1, 1}, ""},
      {"31x33, 24 in / 130 out", {1, 24, 31, 33}, 130, {1, 1, 1, 1}, ""},
      {"asymmetric pads", {1, 20, 21, 18}, 12, {0, 2, 1, 0}, ""},
      {"auto_pad SAME_UPPER, odd", {1, 9, 15, 13}, 10, {}, "SAME_UPPER"},
      {"auto_pad SAME_LOWER", {1, 9, 14, 13}, 10, {}, "SAME_LOWER"},
      {"batch 2, 64x64", {2, 8, 64, 64}, 8, {1, 1, 1, 1}, ""},
      {"67x67 output", {1, 12, 67, 67}, 20, {1, 1, 1, 1}, ""},
      {"several blocks of tiles, wide rows", {1, 16, 40, 66}, 24, {1, 1, 1, 1}, ""},
  };
  return c;
}

struct Model {
  Tensor w, b;
};

Model weights(const Case& c, bool bias) {
  return {random_tensor({c.m, c.x[1], 3, 3}, unsigned(c.m)),
          bias ? random_tensor({c.m}, 7) : Tensor()};
}

// Runs the Conv (W, B initializers, so W is packed) and its tail.
Tensor run_case(const Case& c, const Model& mw, Tail tail, ConvWinogradMode mode, int threads,
                const Tensor& x, const Tensor& residual) {
  ir::Model model;
  model.opset_imports = {{"", 17}};
  ir::Graph& g = *model.graph;
  std::vector<ir::Value*> ins{g.add_input("x0", ir::Type::tensor(DataType::Float))};
  ins.push_back(g.add_initializer("w", std::make_shared<ir::Tensor>(mw.w.to_ir())));
  if (mw.b.numel() > 0) {
    ins.push_back(g.add_initializer("b", std::make_shared<ir::Tensor>(mw.b.to_ir())));
  }
  ir::Node* conv = g.create_node("Conv", ins);
  if (!c.pads.empty()) conv->set_attr(ir::Attr::of_ints("pads", c.pads));
  if (!c.auto_pad.empty()) conv->set_attr(ir::Attr::of_string("auto_pad", c.auto_pad));
  ir::Value* y = conv->output(0);
  std::map<std::string, Value> feeds{{"x0", x}};
  conv_test::add_tail(g, y, tail, residual, feeds);
  SessionOptions o;
  o.threads = threads;
  conv_detail::set_conv_winograd_mode(mode);
  Session s(model, o);
  Tensor out = s.run(feeds)[0].tensor();
  conv_detail::set_conv_winograd_mode(ConvWinogradMode::Auto);
  return out;
}

// The pads of `c` (begin top, begin left), from its attributes.
void pads_of(const Case& c, int64_t& pt, int64_t& pl, int64_t& oh, int64_t& ow) {
  const int64_t h = c.x[2], w = c.x[3];
  if (!c.auto_pad.empty()) {  // SAME, stride 1, kernel 3: total pad 2
    pt = pl = 1;
    oh = h;
    ow = w;
    return;
  }
  const std::vector<int64_t> p = c.pads.empty() ? std::vector<int64_t>(4, 0) : c.pads;
  pt = p[0];
  pl = p[1];
  oh = h + p[0] + p[2] - 2;
  ow = w + p[1] + p[3] - 2;
}

// The convolution (+ bias, + residual, Relu) in double.
std::vector<double> reference(const Case& c, const Model& mw, Tail tail, const Tensor& x,
                              const Tensor& residual) {
  int64_t pt, pl, oh, ow;
  pads_of(c, pt, pl, oh, ow);
  const int64_t n = c.x[0], ch = c.x[1], h = c.x[2], w = c.x[3];
  std::vector<double> y(size_t(n * c.m * oh * ow));
  const float* xd = x.data<float>();
  const float* wd = mw.w.data<float>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t m = 0; m < c.m; ++m) {
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          double s = mw.b.numel() > 0 ? double(mw.b.data<float>()[m]) : 0.0;
          for (int64_t ci = 0; ci < ch; ++ci) {
            for (int64_t ky = 0; ky < 3; ++ky) {
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = oy + ky - pt, ix = ox + kx - pl;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                s += double(wd[((m * ch + ci) * 3 + ky) * 3 + kx]) *
                     double(xd[((b * ch + ci) * h + iy) * w + ix]);
              }
            }
          }
          const size_t i = size_t(((b * c.m + m) * oh + oy) * ow + ox);
          if (tail == Tail::AddRelu) s += double(residual.data<float>()[i]);
          if (tail != Tail::None) s = s > 0 ? s : 0;
          y[i] = s;
        }
      }
    }
  }
  return y;
}

// max |got - want| / max |want|.
double relative_error(const Tensor& got, const std::vector<double>& want) {
  double err = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    err = std::max(err, std::abs(double(got.data<float>()[i]) - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return scale > 0 ? err / scale : err;
}

void expect_same_bits(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dims(), b.dims());
  ASSERT_EQ(0, std::memcmp(a.raw(), b.raw(), a.nbytes()));
}

class ConvWinograd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fast::enabled() || !sgemm_avx512_supported()) {
      GTEST_SKIP() << "the CPU has no AVX-512: the Winograd path never runs";
    }
  }
  void TearDown() override {
    conv_detail::set_conv_winograd_mode(ConvWinogradMode::Auto);
    conv_detail::set_conv_direct_mode(ConvDirectMode::Auto);
  }
};

// The bound: F(2x2, 3x3) rounds a few more times than the direct sums (the
// transforms add up to 9 values). Measured: at most 7.5e-7 of the output's
// largest magnitude here (the direct path: 5.6e-7); the bound leaves ~7x.
constexpr double kRelativeBound = 5e-6;

TEST_F(ConvWinograd, MatchesADoubleReferenceOnEveryGeometry) {
  unsigned seed = 1;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Tensor x = random_tensor(c.x, seed++);
    for (bool bias : {true, false}) {
      const Model mw = weights(c, bias);
      const Tensor shape = run_case(c, mw, Tail::None, ConvWinogradMode::Off, 1, x, {});
      const Tensor residual = random_tensor(shape.dims(), seed++);
      for (Tail tail : {Tail::None, Tail::Relu, Tail::AddRelu}) {
        SCOPED_TRACE(std::string(bias ? "bias" : "no bias") + ", tail " +
                     std::to_string(int(tail)));
        const int64_t before = conv_detail::conv_winograd_runs();
        const Tensor wino = run_case(c, mw, tail, ConvWinogradMode::On, 1, x, residual);
        EXPECT_EQ(conv_detail::conv_winograd_runs(), before + c.x[0])
            << "the Winograd path did not run once per batch element";
        const std::vector<double> want = reference(c, mw, tail, x, residual);
        ASSERT_EQ(size_t(wino.numel()), want.size());
        EXPECT_LE(relative_error(wino, want), kRelativeBound);
        const Tensor direct = run_case(c, mw, tail, ConvWinogradMode::Off, 1, x, residual);
        EXPECT_LE(relative_error(direct, want), kRelativeBound);
        if (bias && tail != Tail::Relu) {  // threads: twice per case
          expect_same_bits(wino, run_case(c, mw, tail, ConvWinogradMode::On, 2, x, residual));
        }
      }
    }
  }
}

TEST_F(ConvWinograd, StaysWithinTheBoundAt512ChannelsOverSeveralBlocks) {
  // 512 input channels: 105 tiles in blocks of 64 (48, plus the short last
  // block spread), the second starting inside a tile row of 7 tiles (the
  // two-row vectors split across blocks).
  const Case c{"512 channels", {1, 512, 30, 14}, 16, {1, 1, 1, 1}, ""};
  const Tensor x = random_tensor(c.x, 11);
  const Model mw = weights(c, true);
  const Tensor wino = run_case(c, mw, Tail::None, ConvWinogradMode::On, 1, x, {});
  EXPECT_LE(relative_error(wino, reference(c, mw, Tail::None, x, {})), kRelativeBound);
  expect_same_bits(wino, run_case(c, mw, Tail::None, ConvWinogradMode::On, 2, x, {}));
}

// One block of tiles (14x14 and 7x7 outputs, as resnet's late 3x3 convs):
// its output channels' panels are split over the threads (5 panels, so the
// parts are uneven), with the bias, residual and Relu of each part's rows.
TEST_F(ConvWinograd, OneBlockSplitByChannelsGivesTheBitsOfOneThread) {
  for (const Case& c : {Case{"14x14", {1, 24, 14, 14}, 40, {1, 1, 1, 1}, ""},
                        Case{"7x7", {1, 32, 7, 7}, 36, {1, 1, 1, 1}, ""}}) {
    SCOPED_TRACE(c.name);
    const Tensor x = random_tensor(c.x, 21);
    const Model mw = weights(c, true);
    const Tensor res = random_tensor({1, c.m, c.x[2], c.x[3]}, 22);
    const Tensor one = run_case(c, mw, Tail::AddRelu, ConvWinogradMode::On, 1, x, res);
    EXPECT_LE(relative_error(one, reference(c, mw, Tail::AddRelu, x, res)), kRelativeBound);
    for (int threads : {2, 3}) {
      expect_same_bits(one, run_case(c, mw, Tail::AddRelu, ConvWinogradMode::On, threads, x, res));
    }
  }
}

// An Inf or NaN in X or W: Winograd's transforms would mix it into outputs
// the direct sums keep finite (Inf - Inf), and Relu would then turn such a
// NaN into 0 where the reference gives Inf. Such a conv takes the direct
// path: the bits of the direct path, with every tail.
TEST_F(ConvWinograd, NonFiniteWeightsOrInputsTakeTheDirectPath) {
  const Case c{"non-finite", {1, 16, 9, 10}, 16, {1, 1, 1, 1}, ""};
  const int64_t hw = 9 * 10;
  const Tensor clean_x = random_tensor(c.x, 3);
  Tensor x = clean_x.clone();
  x.mutable_data<float>()[0 * hw + 0] = INFINITY;            // channel 0, corner
  x.mutable_data<float>()[3 * hw + 4 * 10 + 5] = NAN;        // channel 3, interior
  x.mutable_data<float>()[5 * hw + 8 * 10 + 9] = -INFINITY;  // channel 5, far corner
  x.mutable_data<float>()[6 * hw + 2 * 10 + 7] = INFINITY;   // channel 6, odd row/col
  const Model clean_w = weights(c, true);
  Model mw = weights(c, true);
  mw.w.mutable_data<float>()[(2 * 16 + 1) * 9 + 0] = INFINITY;  // output 2: tap (0, 0)
  mw.w.mutable_data<float>()[(9 * 16 + 4) * 9 + 8] = NAN;       // output 9: tap (2, 2)
  const Tensor residual = random_tensor({1, 16, 9, 10}, 8);
  struct Input {
    const char* what;
    const Model* w;
    const Tensor* x;
  };
  for (const Input& in :
       {Input{"X", &clean_w, &x}, Input{"W", &mw, &clean_x}, Input{"X and W", &mw, &x}}) {
    for (Tail tail : {Tail::None, Tail::Relu, Tail::AddRelu}) {
      SCOPED_TRACE(std::string(in.what) + ", tail " + std::to_string(int(tail)));
      const Tensor* r = tail == Tail::AddRelu ? &residual : nullptr;
      const Tensor direct =
          run_case(c, *in.w, tail, ConvWinogradMode::Off, 1, *in.x, r ? *r : Tensor());
      const int64_t before = conv_detail::conv_winograd_runs();
      const Tensor wino =
          run_case(c, *in.w, tail, ConvWinogradMode::On, 1, *in.x, r ? *r : Tensor());
      EXPECT_EQ(conv_detail::conv_winograd_runs(), before);
      expect_same_bits(wino, direct);
    }
  }
  // The same weights and input, finite: Winograd runs.
  const int64_t before = conv_detail::conv_winograd_runs();
  run_case(c, clean_w, Tail::None, ConvWinogradMode::On, 1, clean_x, {});
  EXPECT_EQ(conv_detail::conv_winograd_runs(), before + 1);
}

TEST_F(ConvWinograd, InfiniteWeightNextToThePaddingGivesNaNOnBothPaths) {
  // Tap (0, 0) of output channel 1 is Inf: output (0, 0) reads the padding
  // there, 0 * Inf = NaN; elsewhere the tap reads a finite nonzero input.
  const Case c{"Inf weight", {1, 16, 6, 8}, 16, {1, 1, 1, 1}, ""};
  const Tensor x = random_tensor(c.x, 4);
  Model mw = weights(c, false);
  mw.w.mutable_data<float>()[(1 * 16 + 0) * 9 + 0] = INFINITY;
  for (ConvWinogradMode mode : {ConvWinogradMode::Off, ConvWinogradMode::On}) {
    SCOPED_TRACE(mode == ConvWinogradMode::On ? "Winograd" : "direct");
    const Tensor y = run_case(c, mw, Tail::None, mode, 1, x, {});
    const float* y1 = y.data<float>() + 1 * 6 * 8;
    EXPECT_TRUE(std::isnan(y1[0]));      // row 0, column 0: padding
    EXPECT_TRUE(std::isnan(y1[3]));      // row 0: padding above
    EXPECT_TRUE(std::isnan(y1[2 * 8]));  // column 0: padding left
    for (int64_t i = 0; i < 6 * 8; ++i) EXPECT_FALSE(std::isfinite(y1[i])) << i;
    for (int64_t i = 0; i < 6 * 8; ++i) EXPECT_TRUE(std::isfinite(y.data<float>()[i])) << i;
  }
}

TEST_F(ConvWinograd, InfiniteWeightNextToThePaddingGivesNaNOnTheDirectPath) {
  const Case c{"Inf weight, direct", {1, 8, 6, 20}, 8, {1, 1, 1, 1}, ""};
  const Tensor x = random_tensor(c.x, 5);
  Model mw = weights(c, true);
  mw.w.mutable_data<float>()[(3 * 8 + 2) * 9 + 8] = -INFINITY;  // output 3: tap (2, 2)
  conv_detail::set_conv_direct_mode(ConvDirectMode::Always);
  const int64_t before = conv_detail::conv_direct_runs();
  const Tensor y = run_case(c, mw, Tail::None, ConvWinogradMode::Off, 1, x, {});
  EXPECT_GT(conv_detail::conv_direct_runs(), before);
  const float* y3 = y.data<float>() + 3 * 6 * 20;
  for (int64_t oy = 0; oy < 6; ++oy) {
    for (int64_t ox = 0; ox < 20; ++ox) {
      const bool pad = oy == 5 || ox == 19;  // tap (2, 2) reads below / right of X
      const float v = y3[oy * 20 + ox];
      if (pad) {
        EXPECT_TRUE(std::isnan(v)) << oy << "," << ox;
      } else {
        EXPECT_TRUE(std::isinf(v)) << oy << "," << ox;
      }
    }
  }
}

TEST_F(ConvWinograd, RunsWhenExpected) {
  const Case wide{"16 channels", {1, 16, 12, 12}, 16, {1, 1, 1, 1}, ""};
  const Case narrow{"8 input channels", {1, 8, 12, 12}, 16, {1, 1, 1, 1}, ""};
  const Tensor xw = random_tensor(wide.x, 6), xn = random_tensor(narrow.x, 7);
  const Model mw = weights(wide, true), mn = weights(narrow, true);
  int64_t before = conv_detail::conv_winograd_runs();
  run_case(wide, mw, Tail::None, ConvWinogradMode::Auto, 1, xw, {});
  EXPECT_EQ(conv_detail::conv_winograd_runs(), before + 1);
  before = conv_detail::conv_winograd_runs();
  run_case(narrow, mn, Tail::None, ConvWinogradMode::Auto, 1, xn, {});
  EXPECT_EQ(conv_detail::conv_winograd_runs(), before);
  run_case(wide, mw, Tail::None, ConvWinogradMode::Off, 1, xw, {});
  EXPECT_EQ(conv_detail::conv_winograd_runs(), before);
  run_case(narrow, mn, Tail::None, ConvWinogradMode::On, 1, xn, {});
  EXPECT_EQ(conv_detail::conv_winograd_runs(), before + 1);
  // 4x4 outputs: 4 tiles, not worth it.
  const Case small{"4x4 output", {1, 32, 4, 4}, 32, {1, 1, 1, 1}, ""};
  const Tensor xs = random_tensor(small.x, 8);
  const Model ms = weights(small, true);
  before = conv_detail::conv_winograd_runs();
  run_case(small, ms, Tail::None, ConvWinogradMode::Auto, 1, xs, {});
  EXPECT_EQ(conv_detail::conv_winograd_runs(), before);
}

}  // namespace
}  // namespace oxs::eval
