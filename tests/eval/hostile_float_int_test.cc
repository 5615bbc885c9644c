// Hostile input, class 5 (docs/hostile-input.md): floating-point values that kernels turn into
// integers (sizes from scales, indices from coordinates, seeds from float
// attributes, integer outputs from floating-point sums). Converting NaN, an
// infinity or an out-of-range double to an integer is undefined behaviour
// in C++ (UBSan's float-cast-overflow); each case here did that before the
// conversions went through eval/validate/checked.h. Each expects a clear
// error naming the node, or the defined (saturated) result.
#include <algorithm>
#include <cmath>
#include <limits>

#include "hostile_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval::hostile {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

std::vector<Value> run_ok(const ir::Model& m) {
  Session s(m);
  return s.run({});
}

// Elements of an integer tensor of at most 32 bits (exact as double), or
// of an int64 one.
std::vector<int64_t> ints_of(const Tensor& t) {
  if (t.dtype() == DataType::Int64) return t.to_int_vector();
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(int64_t(t.get_as_double(i)));
  return v;
}

ir::Attr a_str(const char* n, const char* v) {
  return ir::Attr::of_string(n, v);
}

TEST(HostileFloatToInt, CheckedToInt64RefusesNanInfinityAndOutOfRange) {
  // Through a kernel that uses it: Bernoulli's float seed.
  for (float seed : {NAN, INFINITY, -INFINITY, 1e30f, -1e30f}) {
    OpCase c{"Bernoulli", {f32({2}, {0.5f, 0.5f})}};
    c.attrs.push_back(ir::Attr::of_float("seed", seed));
    c.opset = 15;
    expect_error(one_op_model(std::move(c)), {"hostile", "attribute 'seed'", "int64's range"});
  }
  OpCase ok{"Bernoulli", {f32({2}, {0.0f, 1.0f})}};
  ok.attrs.push_back(ir::Attr::of_float("seed", -3.5f));  // a usual seed still works
  ok.opset = 15;
  std::vector<Value> out = run_ok(one_op_model(std::move(ok)));
  EXPECT_EQ(out[0].tensor().data<float>()[0], 0.0f);
  EXPECT_EQ(out[0].tensor().data<float>()[1], 1.0f);
}

TEST(HostileFloatToInt, SaturateToClampsAndKeepsInRangeValues) {
  EXPECT_EQ(saturate_to<int64_t>(0x1p63), kMax);
  EXPECT_EQ(saturate_to<int64_t>(-0x1p63), kMin);
  EXPECT_EQ(saturate_to<int64_t>(-1e300), kMin);
  EXPECT_EQ(saturate_to<int64_t>(INFINITY), kMax);
  EXPECT_EQ(saturate_to<int64_t>(NAN), 0);
  EXPECT_EQ(saturate_to<int64_t>(0x1p62), int64_t{1} << 62);
  EXPECT_EQ(saturate_to<uint64_t>(0x1p64), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(saturate_to<uint64_t>(-5.0), 0u);
  EXPECT_EQ(saturate_to<int8_t>(130.0), 127);
  EXPECT_EQ(saturate_to<int8_t>(-129.0), -128);
  EXPECT_EQ(saturate_to<int8_t>(-7.9), -7);
  EXPECT_EQ(saturate_to<uint8_t>(-INFINITY), 0);
}

// Nearest Resize of int64 extremes: double(INT64_MAX) is 2^63, one past the
// type; the copy now saturates to the value it came from.
TEST(HostileFloatToInt, ResizeNearestOfInt64ExtremesKeepsThem) {
  OpCase c{"Resize", {i64({1, 2}, {kMax, kMin}), std::nullopt, f32({2}, {1.0f, 2.0f})}};
  c.attrs.push_back(a_str("mode", "nearest"));
  c.attrs.push_back(a_str("coordinate_transformation_mode", "asymmetric"));
  c.attrs.push_back(a_str("nearest_mode", "floor"));
  std::vector<Value> out = run_ok(one_op_model(std::move(c)));
  EXPECT_EQ(ints_of(out[0].tensor()), (std::vector<int64_t>{kMax, kMax, kMin, kMin}));
}

// Values past 2^53 have no exact double: nearest (and any output that is one
// input element) copies the element instead of going through double.
TEST(HostileFloatToInt, ResizeNearestOfInt64PastTwoToThe53IsExact) {
  const int64_t big = (int64_t{1} << 53) + 1, odd = kMax - 2;
  OpCase c{"Resize", {i64({1, 2}, {big, odd}), std::nullopt, f32({2}, {1.0f, 2.0f})}};
  c.attrs.push_back(a_str("mode", "nearest"));
  c.attrs.push_back(a_str("coordinate_transformation_mode", "asymmetric"));
  c.attrs.push_back(a_str("nearest_mode", "floor"));
  std::vector<Value> out = run_ok(one_op_model(std::move(c)));
  EXPECT_EQ(ints_of(out[0].tensor()), (std::vector<int64_t>{big, big, odd, odd}));
}

// Cubic weights overshoot: an int8 step 0, 0, 127, 127 interpolates past 127
// next to the step. The int8 result is the float result rounded and clamped
// (it was a conversion of an out-of-range value).
TEST(HostileFloatToInt, ResizeCubicOvershootOnInt8Saturates) {
  auto model = [](Tensor x) {
    OpCase c{"Resize", {std::move(x), std::nullopt, f32({2}, {1.0f, 3.0f})}};
    c.attrs.push_back(a_str("mode", "cubic"));
    return one_op_model(std::move(c));
  };
  const std::vector<int8_t> v{0, 0, 127, 127, 127, 127};
  std::vector<float> vf(v.begin(), v.end());
  Tensor xi = tensor_of<int8_t>(DataType::Int8, {1, 6}, v);
  std::vector<Value> fi = run_ok(model(f32({1, 6}, vf)));
  std::vector<Value> ii = run_ok(model(std::move(xi)));
  const Tensor& f = fi[0].tensor();
  const Tensor& i = ii[0].tensor();
  ASSERT_EQ(f.dims(), i.dims());
  bool overshoots = false;
  for (int64_t k = 0; k < f.numel(); ++k) {
    const float r = std::nearbyint(f.data<float>()[k]);
    overshoots = overshoots || r > 127;
    EXPECT_EQ(int(i.data<int8_t>()[k]), int(std::clamp(r, -128.0f, 127.0f))) << k;
  }
  EXPECT_TRUE(overshoots) << "the case must interpolate past int8's range";
}

TEST(HostileFloatToInt, ResizeNanExtrapolationOnIntegersIsAnError) {
  OpCase c{"Resize", {i64({1, 2}, {1, 2}), f32({4}, {0, -1, 1, 2}), f32({2}, {1.0f, 2.0f})}};
  c.attrs.push_back(a_str("coordinate_transformation_mode", "tf_crop_and_resize"));
  c.attrs.push_back(ir::Attr::of_float("extrapolation_value", NAN));
  expect_error(one_op_model(std::move(c)), {"hostile", "extrapolation_value is nan", "int64"});
}

// An empty output with a huge axis: nothing to compute, and no tap table of
// 2^62 entries (it threw std::length_error).
TEST(HostileFloatToInt, ResizeToAnEmptyOutputWithAHugeAxis) {
  OpCase c{"Resize",
           {f32({0, 1}, {}), std::nullopt, std::nullopt, i64({2}, {0, int64_t{1} << 62})}};
  std::vector<Value> out = run_ok(one_op_model(std::move(c)));
  EXPECT_EQ(out[0].tensor().dims(), (Dims{0, int64_t{1} << 62}));
}

// keep_aspect_ratio_policy scales every sized axis by the largest ratio:
// 2^63 - 1 times 4 has no int64 value.
TEST(HostileFloatToInt, ResizeAspectRatioPastInt64IsAnError) {
  OpCase c{"Resize", {f32({1, 4}, {1, 2, 3, 4}), std::nullopt, std::nullopt, i64({2}, {kMax, 1})}};
  c.attrs.push_back(a_str("keep_aspect_ratio_policy", "not_smaller"));
  c.opset = 18;
  expect_error(one_op_model(std::move(c)),
               {"hostile", "keep_aspect_ratio_policy", "int64's range"});
}

// MaxPool of int8/uint8 (opset 12) where a window lies wholly in the padding:
// no element, so the maximum is the type's lowest value (it converted -inf).
TEST(HostileFloatToInt, MaxPoolInt8WindowInThePaddingGivesTheLowestValue) {
  for (DataType dt : {DataType::Int8, DataType::Uint8}) {
    Tensor x(dt, {1, 1, 1, 1});
    static_cast<uint8_t*>(x.mutable_raw())[0] = 5;
    OpCase c{"MaxPool", {std::move(x)}};
    c.attrs.push_back(a_ints("kernel_shape", {1, 1}));
    c.attrs.push_back(a_ints("pads", {1, 1, 1, 1}));
    c.opset = 12;
    std::vector<Value> out = run_ok(one_op_model(std::move(c)));
    const Tensor& y = out[0].tensor();
    ASSERT_EQ(y.dims(), (Dims{1, 1, 3, 3}));
    std::vector<int64_t> want(9, dt == DataType::Int8 ? -128 : 0);
    want[4] = 5;
    EXPECT_EQ(ints_of(y), want) << ir::dtype_name(dt);
  }
}

// Shrink of integers: x - bias past the type's range is clamped to it, and
// a NaN bias (no integer result) is an error.
TEST(HostileFloatToInt, ShrinkOfIntegersClampsAndRefusesANanBias) {
  auto shrink = [](float bias) {
    OpCase c{"Shrink", {tensor_of<int8_t>(DataType::Int8, {3}, {100, 0, -100})}};
    c.attrs.push_back(ir::Attr::of_float("bias", bias));
    c.attrs.push_back(ir::Attr::of_float("lambd", 1.0f));
    return one_op_model(std::move(c));
  };
  std::vector<Value> out = run_ok(shrink(-1e30f));
  EXPECT_EQ(ints_of(out[0].tensor()), (std::vector<int64_t>{127, 0, -128}));
  out = run_ok(shrink(50.0f));  // in range: unchanged numerics
  EXPECT_EQ(ints_of(out[0].tensor()), (std::vector<int64_t>{50, 0, -50}));
  expect_error(shrink(NAN), {"hostile", "bias is nan", "int8"});
}

// log(0) is -inf, the log of a negative sum NaN: no int32 value. Clamped to
// the type's range (NaN as 0) instead of an undefined conversion.
TEST(HostileFloatToInt, ReduceLogSumOfIntegersWithoutALogarithm) {
  auto log_sum = [](std::vector<int32_t> v) {
    OpCase c{"ReduceLogSum", {tensor_of<int32_t>(DataType::Int32, {int64_t(v.size())}, v)}};
    c.attrs.push_back(a_int("keepdims", 0));
    c.opset = 13;
    std::vector<Value> out = run_ok(one_op_model(std::move(c)));
    return ints_of(out[0].tensor());
  };
  EXPECT_EQ(log_sum({0, 0}), (std::vector<int64_t>{std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(log_sum({-5, 1}), (std::vector<int64_t>{0}));
  EXPECT_EQ(log_sum({3, 5}), (std::vector<int64_t>{2}));  // log(8) = 2.08
}

// Integer LogSumExp is numpy's log(sum(exp(x))) in double, then the cast
// toward zero: the running maximum starts below every value (it started at
// 0, so an all-negative input summed exp terms truncated to 0 and gave the
// type's lowest value), and the exp terms are not truncated one by one.
TEST(HostileFloatToInt, ReduceLogSumExpOfIntegersIsNumpysFormula) {
  auto lse = [](std::vector<int32_t> v) {
    OpCase c{"ReduceLogSumExp", {tensor_of<int32_t>(DataType::Int32, {int64_t(v.size())}, v)}};
    c.attrs.push_back(a_int("keepdims", 0));
    c.opset = 13;
    std::vector<Value> out = run_ok(one_op_model(std::move(c)));
    return ints_of(out[0].tensor());
  };
  EXPECT_EQ(lse({-5, -5}), (std::vector<int64_t>{-4}));  // -5 + log 2 = -4.31
  EXPECT_EQ(lse({-9, -7}), (std::vector<int64_t>{-6}));  // -6.87
  EXPECT_EQ(lse({2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1}), (std::vector<int64_t>{3}));  // 3.78
  EXPECT_EQ(lse({2, 1, 1}), (std::vector<int64_t>{2}));                          // 2.55
}

// clip bounds the gates' inputs to [-clip, clip]: a negative or NaN clip
// has no such interval (std::clamp's precondition).
TEST(HostileFloatToInt, RnnClipMustBeANonNegativeNumber) {
  for (float clip : {-1.0f, NAN}) {
    OpCase c{"RNN", {ones({1, 1, 2}), ones({1, 3, 2}), ones({1, 3, 3})}};
    c.attrs.push_back(a_int("hidden_size", 3));
    c.attrs.push_back(ir::Attr::of_float("clip", clip));
    expect_error(one_op_model(std::move(c)), {"hostile", "attribute 'clip'", ">= 0"});
  }
  OpCase ok{"RNN", {ones({1, 1, 2}), ones({1, 3, 2}), ones({1, 3, 3})}};
  ok.attrs.push_back(a_int("hidden_size", 3));
  ok.attrs.push_back(ir::Attr::of_float("clip", 0.5f));
  std::vector<Value> out = run_ok(one_op_model(std::move(ok)));
  // tanh(clip(1 + 1)) = tanh(0.5) for every hidden unit.
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_FLOAT_EQ(out[0].tensor().data<float>()[i], std::tanh(0.5f));
  }
}

}  // namespace
}  // namespace oxs::eval::hostile
