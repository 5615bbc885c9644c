// Kernel semantics the backend tests do not pin down: integer overflow
// wraps, integer division and modulo by zero do not trap, NaN propagates
// through Min/Max and reductions, broadcasting errors name the shapes.
#include <gtest/gtest.h>

#include <cmath>

#include <functional>

#include "one_op.h"
#include "oxs/eval/half.h"
#include "oxs/eval/session.h"
#include "oxs/ir/error.h"

namespace oxs::eval {
namespace {

// Runs a one-node opset-17 model op(inputs...) and returns its first output.
Value run_op(const std::string& op, std::vector<Tensor> inputs,
             const std::function<void(ir::Node*)>& set_attrs = {}) {
  return run_one_op(op, inputs, set_attrs, 17);
}

template <class T>
Tensor vec(DataType dt, std::vector<T> v) {
  return Tensor::of<T>(dt, {int64_t(v.size())}, std::span<const T>(v));
}

template <class T>
std::vector<T> values(const Value& v) {
  return std::vector<T>(v.tensor().data<T>(), v.tensor().data<T>() + v.tensor().numel());
}

TEST(Kernels, IntegerArithmeticWrapsLikeNumpy) {
  auto r = run_op("Add",
                  {vec<int32_t>(DataType::Int32, {INT32_MAX}), vec<int32_t>(DataType::Int32, {1})});
  EXPECT_EQ(values<int32_t>(r)[0], INT32_MIN);
  auto m = run_op("Mul", {vec<int8_t>(DataType::Int8, {100}), vec<int8_t>(DataType::Int8, {3})});
  EXPECT_EQ(values<int8_t>(m)[0], int8_t(44));
  auto n = run_op("Neg", {vec<int64_t>(DataType::Int64, {INT64_MIN})});
  EXPECT_EQ(values<int64_t>(n)[0], INT64_MIN);
}

TEST(Kernels, IntegerDivisionByZeroDoesNotTrap) {
  auto d = run_op("Div", {vec<int32_t>(DataType::Int32, {7, -7, INT32_MIN}),
                          vec<int32_t>(DataType::Int32, {0, 2, -1})});
  EXPECT_EQ(values<int32_t>(d), (std::vector<int32_t>{0, -3, INT32_MIN}));
  auto m = run_op("Mod", {vec<int32_t>(DataType::Int32, {7, -7, 5}),
                          vec<int32_t>(DataType::Int32, {0, 3, -3})});
  EXPECT_EQ(values<int32_t>(m), (std::vector<int32_t>{0, 2, -1}));  // sign of the divisor
}

TEST(Kernels, NanPropagatesThroughMinMaxAndReductions) {
  auto mx =
      run_op("Max", {vec<float>(DataType::Float, {1, NAN}), vec<float>(DataType::Float, {NAN, 2})});
  EXPECT_TRUE(std::isnan(values<float>(mx)[0]));
  EXPECT_TRUE(std::isnan(values<float>(mx)[1]));
  auto rm = run_op("ReduceMax", {vec<float>(DataType::Float, {1, NAN, 3})},
                   [](ir::Node* n) { n->set_attr(ir::Attr::of_int("keepdims", 0)); });
  EXPECT_TRUE(std::isnan(values<float>(rm)[0]));
  auto rs = run_op("ReduceSum", {vec<float>(DataType::Float, {1, 2, 3})},
                   [](ir::Node* n) { n->set_attr(ir::Attr::of_int("keepdims", 0)); });
  EXPECT_EQ(values<float>(rs)[0], 6.0f);
}

TEST(Kernels, BroadcastingErrorsNameTheShapes) {
  try {
    run_op("Add", {vec<float>(DataType::Float, {1, 2, 3}), vec<float>(DataType::Float, {1, 2})});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("[3] [2]"), std::string::npos) << e.message();
  }
}

TEST(Kernels, Float16RoundsThroughFloat) {
  Tensor a(DataType::Float16, {1}), b(DataType::Float16, {1});
  a.mutable_data<Half>()[0] = Half(1.5f);
  b.mutable_data<Half>()[0] = Half(2.25f);
  auto r = run_op("Mul", {a, b});
  EXPECT_EQ(float(r.tensor().data<Half>()[0]), 3.375f);
}

TEST(Kernels, MatMulUsesBroadcastBatches) {
  Tensor a = Tensor::of<float>(DataType::Float, {2, 1, 2}, std::vector<float>{1, 2, 3, 4});
  Tensor b = Tensor::of<float>(DataType::Float, {2, 1}, std::vector<float>{10, 100});
  auto r = run_op("MatMul", {a, b});
  EXPECT_EQ(r.tensor().dims(), (Dims{2, 1, 1}));
  EXPECT_EQ(values<float>(r), (std::vector<float>{210, 430}));
}

TEST(Kernels, OutOfRangeGatherIndexIsAnError) {
  EXPECT_THROW(
      run_op("Gather", {vec<float>(DataType::Float, {1, 2}), vec<int64_t>(DataType::Int64, {5})}),
      Error);
}

}  // namespace
}  // namespace oxs::eval

namespace oxs::eval {
namespace {

// A split whose lengths do not cover the axis used to read past the input
// (found by eval_robustness under ASan); now an error naming the lengths.
TEST(Kernels, SplitToSequenceChecksTheSplitLengths) {
  Tensor x(DataType::Float, {6, 2});
  auto error_of = [&](std::vector<int64_t> split) -> std::string {
    try {
      run_op("SplitToSequence", {x, vec<int64_t>(DataType::Int64, split)});
    } catch (const Error& e) {
      return e.message();
    }
    return "no error";
  };
  EXPECT_NE(error_of({4, 4}).find("add up to more than 6"), std::string::npos) << error_of({4, 4});
  EXPECT_NE(error_of({2, 2}).find("has length 6"), std::string::npos) << error_of({2, 2});
  EXPECT_NE(error_of({8, -2}).find("split[1] is -2"), std::string::npos) << error_of({8, -2});
  // Split checks the same way (one output here: a part of 8 rows out of 6
  // used to be sliced past the input).
  auto split_error = [&](std::vector<int64_t> split) -> std::string {
    try {
      run_op("Split", {x, vec<int64_t>(DataType::Int64, split)});
    } catch (const Error& e) {
      return e.message();
    }
    return "no error";
  };
  EXPECT_NE(split_error({8}).find("more than 6"), std::string::npos) << split_error({8});
  EXPECT_NE(split_error({-2}).find("split[0] is -2"), std::string::npos) << split_error({-2});
  Value ok = run_op("SplitToSequence", {x, vec<int64_t>(DataType::Int64, {1, 5})});
  ASSERT_EQ(ok.items().size(), 2u);
  EXPECT_EQ(ok.items()[1].tensor().dims(), (Dims{5, 2}));
}

}  // namespace
}  // namespace oxs::eval
