// Conv against a naive reference loop written here (random data, double
// accumulation), over every path of src/oxs/eval/conv/conv_forward.h: pointwise,
// im2col bands (stride 1 copies, strided gathers, padding borders), the
// depthwise direct loop, the generic N-D im2col, the integer GEMM loops
// (ConvInteger).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "one_op.h"
#include "oxs/eval/half.h"
#include "oxs/eval/math/gemm.h"
#include "oxs/eval/session.h"
#include "oxs/ir/error.h"

namespace oxs::eval {
namespace {

struct Case {
  std::string name;
  Dims x, w;  // X [N, C, spatial...], W [M, C/group, kernel...]
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads;  // empty: attribute absent
  std::string auto_pad;                           // empty: absent
  bool bias = true;
};

// Output spatial sizes and begin pads, by the ONNX spec's formulas.
void reference_geometry(const Case& c, std::vector<int64_t>& out, std::vector<int64_t>& pb) {
  size_t r = c.x.size() - 2;
  out.assign(r, 0);
  pb.assign(r, 0);
  for (size_t i = 0; i < r; ++i) {
    int64_t in = c.x[i + 2], k = c.w[i + 2];
    int64_t s = c.strides.empty() ? 1 : c.strides[i];
    int64_t d = c.dilations.empty() ? 1 : c.dilations[i];
    int64_t ek = (k - 1) * d + 1;
    if (c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      out[i] = (in + s - 1) / s;
      int64_t total = std::max<int64_t>(0, (out[i] - 1) * s + ek - in);
      pb[i] = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      int64_t b = c.pads.empty() ? 0 : c.pads[i], e = c.pads.empty() ? 0 : c.pads[i + r];
      if (c.auto_pad == "VALID") b = e = 0;
      pb[i] = b;
      out[i] = (in + b + e - ek) / s + 1;
    }
  }
}

template <class T>
std::vector<double> reference_conv(const Case& c, const std::vector<T>& x, const std::vector<T>& w,
                                   const std::vector<T>& b, Dims& od) {
  size_t r = c.x.size() - 2;
  std::vector<int64_t> out, pb;
  reference_geometry(c, out, pb);
  int64_t n = c.x[0], ch = c.x[1], m = c.w[0], cg = ch / c.group, mg = m / c.group;
  od = {n, m};
  od.insert(od.end(), out.begin(), out.end());
  int64_t P = 1, K = 1, I = 1;
  for (size_t i = 0; i < r; ++i) {
    P *= out[i];
    K *= c.w[i + 2];
    I *= c.x[i + 2];
  }
  std::vector<double> y(size_t(n * m * P));
  std::vector<int64_t> o(r), k(r);
  for (int64_t bi = 0; bi < n; ++bi) {
    for (int64_t j = 0; j < m; ++j) {
      int64_t g = j / mg;
      for (int64_t p = 0; p < P; ++p) {
        for (int64_t rem = p, i = int64_t(r) - 1; i >= 0; --i) {
          o[size_t(i)] = rem % out[size_t(i)];
          rem /= out[size_t(i)];
        }
        double acc = c.bias ? double(b[size_t(j)]) : 0.0;
        for (int64_t ci = 0; ci < cg; ++ci) {
          for (int64_t q = 0; q < K; ++q) {
            for (int64_t rem = q, i = int64_t(r) - 1; i >= 0; --i) {
              k[size_t(i)] = rem % c.w[size_t(i) + 2];
              rem /= c.w[size_t(i) + 2];
            }
            int64_t off = 0;
            bool inside = true;
            for (size_t i = 0; i < r; ++i) {
              int64_t s = c.strides.empty() ? 1 : c.strides[i];
              int64_t d = c.dilations.empty() ? 1 : c.dilations[i];
              int64_t pos = o[i] * s - pb[i] + k[i] * d;
              inside = inside && pos >= 0 && pos < c.x[i + 2];
              off = off * c.x[i + 2] + pos;
            }
            if (!inside) continue;
            double xv = double(x[size_t((bi * ch + g * cg + ci) * I + off)]);
            double wv = double(w[size_t((j * cg + ci) * K + q)]);
            acc += xv * wv;
          }
        }
        y[size_t((bi * m + j) * P + p)] = acc;
      }
    }
  }
  return y;
}

void set_attrs(const Case& c, ir::Node* n) {
  if (c.group != 1) n->set_attr(ir::Attr::of_int("group", c.group));
  if (!c.strides.empty()) n->set_attr(ir::Attr::of_ints("strides", c.strides));
  if (!c.dilations.empty()) n->set_attr(ir::Attr::of_ints("dilations", c.dilations));
  if (!c.pads.empty()) n->set_attr(ir::Attr::of_ints("pads", c.pads));
  if (!c.auto_pad.empty()) n->set_attr(ir::Attr::of_string("auto_pad", c.auto_pad));
}

Value run_node(const std::string& op, const std::vector<Tensor>& inputs,
               const std::function<void(ir::Node*)>& attrs) {
  return run_one_op(op, inputs, attrs, 17);
}

template <class T>
Tensor make(DataType dt, const Dims& d, const std::vector<T>& v) {
  Tensor t(dt, d);
  std::copy(v.begin(), v.end(), t.mutable_data<T>());
  return t;
}

int64_t count(const Dims& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

template <class T>
void check_conv(const Case& c, DataType dt, double tol) {
  SCOPED_TRACE(c.name);
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> u(-1, 1);
  auto rnd = [&](int64_t n) {
    std::vector<T> v(static_cast<size_t>(n));
    for (auto& e : v) e = T(u(rng));
    return v;
  };
  std::vector<T> x = rnd(count(c.x)), w = rnd(count(c.w)), b = rnd(c.w[0]);
  std::vector<Tensor> in{make(dt, c.x, x), make(dt, c.w, w)};
  if (c.bias) in.push_back(make(dt, {c.w[0]}, b));
  Dims od;
  std::vector<double> want = reference_conv(c, x, w, b, od);
  Value got = run_node("Conv", in, [&](ir::Node* n) { set_attrs(c, n); });
  ASSERT_EQ(got.tensor().dims(), od);
  const T* p = got.tensor().data<T>();
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(double(p[i]) - want[i]));
  EXPECT_LE(worst, tol) << "largest |difference| from the reference loop";
}

std::vector<Case> cases() {
  return {
      {"3x3 pad 1", {1, 3, 9, 11}, {4, 3, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      {"no pads, no bias", {2, 2, 7, 6}, {3, 2, 3, 2}, 1, {}, {}, {}, "", false},
      {"1x1 stride 1 (pointwise)", {2, 5, 6, 7}, {8, 5, 1, 1}},
      {"1x1 stride 1 grouped", {1, 6, 5, 4}, {4, 3, 1, 1}, 2},
      {"1x1 stride 2", {1, 4, 9, 8}, {6, 4, 1, 1}, 1, {2, 2}},
      {"1x1 with pads", {1, 2, 4, 4}, {3, 2, 1, 1}, 1, {}, {}, {1, 0, 0, 2}},
      {"3x3 stride 2 pad 1", {1, 3, 10, 9}, {5, 3, 3, 3}, 1, {2, 2}, {}, {1, 1, 1, 1}},
      {"stride 3x1", {1, 2, 11, 8}, {2, 2, 3, 3}, 1, {3, 1}, {}, {1, 1, 1, 1}},
      {"asymmetric pads", {1, 2, 6, 7}, {3, 2, 3, 3}, 1, {}, {}, {0, 2, 1, 0}},
      {"pads wider than the kernel", {1, 1, 3, 3}, {2, 1, 2, 2}, 1, {1, 2}, {}, {3, 3, 3, 3}},
      {"dilations", {1, 2, 9, 10}, {3, 2, 3, 3}, 1, {}, {2, 3}, {2, 1, 2, 3}},
      {"dilations and strides", {1, 2, 12, 11}, {2, 2, 3, 2}, 1, {2, 3}, {2, 2}, {1, 1, 2, 0}},
      {"groups", {2, 4, 7, 7}, {6, 2, 3, 3}, 2, {}, {}, {1, 1, 1, 1}},
      {"depthwise", {1, 5, 8, 9}, {5, 1, 3, 3}, 5, {}, {}, {1, 1, 1, 1}},
      {"depthwise multiplier 2, strided", {2, 3, 9, 8}, {6, 1, 3, 3}, 3, {2, 2}, {}, {1, 0, 1, 2}},
      {"depthwise dilated", {1, 4, 9, 9}, {4, 1, 3, 3}, 4, {}, {2, 2}, {2, 2, 2, 2}},
      {"SAME_UPPER stride 2 even kernel",
       {1, 2, 7, 8},
       {3, 2, 2, 4},
       1,
       {2, 2},
       {},
       {},
       "SAME_UPPER"},
      {"SAME_LOWER stride 2 even kernel",
       {1, 2, 7, 8},
       {3, 2, 2, 4},
       1,
       {2, 2},
       {},
       {},
       "SAME_LOWER"},
      {"SAME_UPPER depthwise", {1, 3, 6, 5}, {3, 1, 4, 2}, 3, {1, 2}, {}, {}, "SAME_UPPER"},
      {"VALID", {1, 2, 6, 6}, {2, 2, 3, 3}, 1, {}, {}, {}, "VALID"},
      // 64 channels x 3x3 x 40 columns is 92 KiB of im2col per output row,
      // so the 1 MiB band holds 11 rows: 30 rows need three bands.
      {"several im2col bands", {1, 64, 30, 40}, {8, 64, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      {"several bands, stride 2, grouped",
       {1, 64, 40, 80},
       {4, 32, 3, 3},
       2,
       {2, 2},
       {},
       {1, 1, 1, 1}},
      // Over 2048 output positions and 256 rows of im2col: several packed
      // blocks of the AVX-512 GEMM, block edges inside an output row.
      {"several GEMM blocks", {1, 32, 48, 47}, {5, 32, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      // Output rows a multiple of 16 wide: the whole-row path of the packed
      // im2col (stride 1 loads, strided gathers, dilation, rows split
      // between packed blocks when 512 is not a multiple of the width).
      {"rows of 32", {1, 4, 20, 32}, {3, 4, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      {"rows of 32, stride 2", {1, 3, 17, 64}, {4, 3, 3, 3}, 1, {2, 2}, {}, {1, 1, 1, 1}},
      {"rows of 16, dilated", {1, 2, 20, 16}, {3, 2, 3, 3}, 1, {}, {2, 2}, {2, 2, 2, 2}},
      {"rows of 48 over blocks", {1, 8, 30, 48}, {6, 8, 3, 3}, 1, {}, {}, {1, 0, 1, 2}},
      {"no input channels (Y = B)", {1, 0, 4, 4}, {2, 0, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      {"1-D", {2, 3, 17}, {4, 3, 3}, 1, {}, {}, {1, 1}},
      {"1-D strided dilated", {1, 2, 20}, {3, 2, 4}, 1, {3}, {2}, {2, 0}},
      {"1-D depthwise", {1, 4, 12}, {4, 1, 5}, 4, {2}, {}, {2, 2}},
      {"3-D", {1, 2, 5, 6, 7}, {3, 2, 2, 3, 3}, 1, {}, {}, {0, 1, 1, 1, 1, 0}},
      {"3-D strided dilated grouped",
       {1, 4, 7, 8, 9},
       {4, 2, 3, 2, 3},
       2,
       {2, 1, 2},
       {1, 2, 2},
       {1, 0, 1, 1, 1, 0}},
      {"3-D depthwise", {1, 3, 5, 5, 5}, {3, 1, 3, 3, 3}, 3, {}, {}, {1, 1, 1, 1, 1, 1}},
      {"3-D pointwise", {1, 4, 3, 4, 5}, {2, 4, 1, 1, 1}},
      {"4-D (generic im2col)",
       {1, 2, 3, 4, 3, 4},
       {2, 2, 2, 2, 1, 3},
       1,
       {1, 2, 1, 1},
       {},
       {1, 0, 0, 1, 0, 1, 0, 1}},
  };
}

const Case& by_name(const std::string& name) {
  static const std::vector<Case> all = cases();
  for (const Case& c : all) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no case " + name);
}

TEST(Conv, FloatMatchesReferenceLoop) {
  for (const Case& c : cases()) check_conv<float>(c, DataType::Float, 1e-4);
}

TEST(Conv, FloatThroughOpenBlasMatchesReferenceLoop) {
  // Without the AVX-512 SGEMM, float convs take the im2col-band path.
  struct Restore {
    ~Restore() { set_sgemm_avx512_enabled(true); }
  } restore;
  set_sgemm_avx512_enabled(false);
  for (const Case& c : cases()) check_conv<float>(c, DataType::Float, 1e-4);
}

TEST(Conv, DoubleMatchesReferenceLoop) {
  for (const Case& c : cases()) check_conv<double>(c, DataType::Double, 1e-10);
}

TEST(Conv, Float16MatchesReferenceLoop) {
  // float16 takes the im2col-band path with the loop GEMM (float accumulation,
  // one rounding to float16 at the end); the tolerance is a few float16 ulps
  // of the largest outputs (|y| < 32).
  for (const Case& c : cases()) check_conv<Half>(c, DataType::Float16, 0.05);
}

TEST(Conv, RepeatedRunsReuseTheBufferCorrectly) {
  // A big conv then a small one on the same thread: the small one must not
  // see stale im2col contents in its padding.
  check_conv<float>(by_name("several im2col bands"), DataType::Float, 1e-4);
  check_conv<float>(by_name("pads wider than the kernel"), DataType::Float, 1e-4);
  check_conv<float>(by_name("several im2col bands"), DataType::Float, 1e-4);
}

TEST(Conv, IntegerConvMatchesReferenceLoop) {
  // ConvInteger goes through the same core with int32 and the loop GEMM.
  Case c{"ConvInteger", {1, 3, 7, 6}, {4, 3, 3, 2}, 1, {2, 1}, {}, {1, 0, 1, 1}, "", false};
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> u(0, 255);
  std::vector<uint8_t> x(size_t(count(c.x))), w(size_t(count(c.w)));
  for (auto& e : x) e = uint8_t(u(rng));
  for (auto& e : w) e = uint8_t(u(rng));
  const uint8_t xz = 7, wz = 200;
  std::vector<int32_t> xs(x.begin(), x.end()), ws(w.begin(), w.end()), b;
  for (auto& e : xs) e -= xz;
  for (auto& e : ws) e -= wz;
  Dims od;
  std::vector<double> want = reference_conv(c, xs, ws, b, od);
  Value got = run_node("ConvInteger",
                       {make(DataType::Uint8, c.x, x), make(DataType::Uint8, c.w, w),
                        make(DataType::Uint8, {}, std::vector<uint8_t>{xz}),
                        make(DataType::Uint8, {}, std::vector<uint8_t>{wz})},
                       [&](ir::Node* n) { set_attrs(c, n); });
  ASSERT_EQ(got.tensor().dims(), od);
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got.tensor().data<int32_t>()[i], int32_t(want[i])) << "element " << i;
  }
}

TEST(Conv, BiasOfAnotherTypeIsAnError) {
  Tensor x(DataType::Float, {1, 1, 3, 3}), w(DataType::Float, {1, 1, 1, 1});
  Tensor b(DataType::Double, {1});
  EXPECT_THROW(run_node("Conv", {x, w, b}, [](ir::Node*) {}), Error);
}

}  // namespace
}  // namespace oxs::eval
