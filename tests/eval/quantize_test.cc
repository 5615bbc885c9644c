// QuantizeLinear/DequantizeLinear beyond the backend tests: the precision
// attribute, clamping to the 2-bit ranges, float8e8m0 scales, and the errors
// for scales, zero points and output types that do not fit (a zero point of
// another type than x is refused by the type constraints before the kernel).
#include <gtest/gtest.h>

#include <functional>

#include "one_op.h"
#include "oxs/eval/session.h"
#include "oxs/ir/error.h"

namespace oxs::eval {
namespace {

Value run_op(const std::string& op, std::vector<Tensor> inputs,
             const std::function<void(ir::Node*)>& set_attrs = {}) {
  return run_one_op(op, inputs, set_attrs, 25);
}

Tensor floats(Dims dims, std::vector<float> v) {
  return Tensor::of<float>(DataType::Float, std::move(dims), v);
}

// A tensor of a 1-byte type (narrow ones unpacked) from raw codes.
Tensor codes(DataType dt, Dims dims, std::vector<int8_t> v) {
  return Tensor::of<int8_t>(dt, std::move(dims), v);
}

std::vector<double> as_doubles(const Value& v) {
  std::vector<double> r;
  for (int64_t i = 0; i < v.tensor().numel(); ++i) r.push_back(v.tensor().get_as_double(i));
  return r;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

auto int_attr(const char* name, int64_t v) {
  return [=](ir::Node* n) { n->set_attr(ir::Attr::of_int(name, v)); };
}

TEST(QuantizeLinear, ClampsToTwoBitRanges) {
  Tensor x = floats({6}, {-3.f, -1.5f, 0.5f, 1.5f, 2.5f, 100.f});
  Tensor scale = floats({}, {1.f});
  auto u = run_op("QuantizeLinear", {x, scale, codes(DataType::Uint2, {}, {0})});
  EXPECT_EQ(u.tensor().dtype(), DataType::Uint2);
  EXPECT_EQ(as_doubles(u), (std::vector<double>{0, 0, 0, 2, 2, 3}));
  auto s = run_op("QuantizeLinear", {x, scale, codes(DataType::Int2, {}, {-1})});
  EXPECT_EQ(as_doubles(s), (std::vector<double>{-2, -2, -1, 1, 1, 1}));
}

TEST(QuantizeLinear, PrecisionAttributeRoundsOperandsToIt) {
  // 2049 is not a float16: in float16 precision it becomes 2048 first.
  Tensor x = floats({1}, {2049.f});
  Tensor scale = floats({}, {1.f});
  Tensor zp(DataType::Int16, {});  // 0
  EXPECT_EQ(as_doubles(run_op("QuantizeLinear", {x, scale, zp}))[0], 2049);
  EXPECT_EQ(as_doubles(run_op("QuantizeLinear", {x, scale, zp},
                              int_attr("precision", int64_t(DataType::Float16))))[0],
            2048);
}

TEST(QuantizeLinear, OutputDtypeWithoutZeroPoint) {
  Tensor x = floats({3}, {-9.f, 0.4f, 7.6f});
  auto r = run_op("QuantizeLinear", {x, floats({}, {1.f})},
                  int_attr("output_dtype", int64_t(DataType::Int4)));
  EXPECT_EQ(r.tensor().dtype(), DataType::Int4);
  EXPECT_EQ(as_doubles(r), (std::vector<double>{-8, 0, 7}));
}

TEST(QuantizeLinear, OutputDtypeMustMatchTheZeroPoint) {
  auto msg = error_of([] {
    run_op("QuantizeLinear",
           {floats({1}, {1.f}), floats({}, {1.f}), codes(DataType::Int8, {}, {0})},
           int_attr("output_dtype", int64_t(DataType::Uint8)));
  });
  EXPECT_NE(msg.find("output_dtype is uint8 but the zero point is int8"), std::string::npos) << msg;
}

TEST(QuantizeLinear, BlockedScaleOfTheWrongShapeIsAnError) {
  // x [2, 5] in blocks of 3 along axis 1 needs a [2, 2] scale.
  auto msg = error_of([] {
    run_op(
        "QuantizeLinear",
        {floats({2, 5}, std::vector<float>(10, 1.f)), floats({2, 3}, std::vector<float>(6, 1.f))},
        [](ir::Node* n) {
          n->set_attr(ir::Attr::of_int("axis", 1));
          n->set_attr(ir::Attr::of_int("block_size", 3));
        });
  });
  EXPECT_NE(msg.find("must have shape [2,2]"), std::string::npos) << msg;
}

TEST(DequantizeLinear, BlockedInt4WithLastBlockShort) {
  // x [1, 5] in blocks of 2 along axis 1: scales 1, 10, 100 (the last block
  // holds one element).
  Tensor x = codes(DataType::Int4, {1, 5}, {1, -2, 3, -8, 7});
  auto r = run_op("DequantizeLinear", {x, floats({1, 3}, {1.f, 10.f, 100.f})}, [](ir::Node* n) {
    n->set_attr(ir::Attr::of_int("axis", 1));
    n->set_attr(ir::Attr::of_int("block_size", 2));
  });
  EXPECT_EQ(as_doubles(r), (std::vector<double>{1, -2, 30, -80, 700}));
}

TEST(DequantizeLinear, Float8E8M0ScaleWithOutputDtype) {
  Tensor x = codes(DataType::Int8, {3}, {1, -3, 5});
  Tensor scale(DataType::Float8E8M0, {});
  scale.mutable_data<uint8_t>()[0] = 126;  // 2^-1
  auto r =
      run_op("DequantizeLinear", {x, scale}, int_attr("output_dtype", int64_t(DataType::Float16)));
  EXPECT_EQ(r.tensor().dtype(), DataType::Float16);
  EXPECT_EQ(as_doubles(r), (std::vector<double>{0.5, -1.5, 2.5}));
}

TEST(DequantizeLinear, ZeroPointOfAnotherTypeIsAnError) {
  auto msg = error_of([] {
    run_op("DequantizeLinear", {codes(DataType::Int8, {2}, {1, 2}), floats({}, {1.f}),
                                codes(DataType::Uint8, {}, {0})});
  });
  EXPECT_NE(msg.find("must have the same element type"), std::string::npos) << msg;
}

}  // namespace
}  // namespace oxs::eval
