// The narrow element types (float8, float4e2m1, float8e8m0, int4/uint4,
// int2/uint2): packing at the ONNX border (odd lengths, padding bits), and
// the conversion rules of the ONNX spec's Cast tables and technical notes at
// their edges: NaN, infinity, saturation, rounding ties, wrapping.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "one_op.h"
#include "oxs/eval/convert/cast19.h"
#include "oxs/eval/convert/float8.h"
#include "oxs/eval/convert/narrow.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/tensor_io.h"
#include "oxs/onnx/wire/onnx_wire.pb.h"

namespace oxs::eval {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

uint8_t f8(DataType t, float x, bool saturate = true) {
  return float8_encode(float8_format(t), x, saturate);
}

ir::Tensor packed(DataType t, std::vector<int64_t> dims, std::string bytes) {
  ir::Tensor r(t, dims);
  r.name = "w";
  r.set_storage(std::make_shared<ir::OwnedStorage>(std::move(bytes)));
  return r;
}

std::vector<int> elements(const Tensor& t) {
  std::vector<int> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(int(t.get_as_double(i)));
  return v;
}

std::string bytes_of(const ir::Tensor& t) {
  auto b = t.bytes();
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

TEST(NarrowPacking, Int4OddLengthUnpacksLowNibbleFirstAndSignExtends) {
  Tensor t = Tensor::from_ir(packed(DataType::Int4, {3}, std::string("\x87\xFF", 2)));
  EXPECT_EQ(elements(t), (std::vector<int>{7, -8, -1}));
  EXPECT_EQ(t.nbytes(), 3u);  // held one element a byte
  // Packing back zeroes the padding nibble that the input had set.
  EXPECT_EQ(bytes_of(t.to_ir()), std::string("\x87\x0F", 2));
}

TEST(NarrowPacking, Uint2AndInt2PackFourToAByte) {
  // 0b11'10'01'00 then one element in the low bits of the next byte.
  Tensor u = Tensor::from_ir(packed(DataType::Uint2, {5}, std::string("\xE4\x03", 2)));
  EXPECT_EQ(elements(u), (std::vector<int>{0, 1, 2, 3, 3}));
  Tensor s = Tensor::from_ir(packed(DataType::Int2, {5}, std::string("\xE4\x02", 2)));
  EXPECT_EQ(elements(s), (std::vector<int>{0, 1, -2, -1, -2}));
  EXPECT_EQ(bytes_of(s.to_ir()), std::string("\xE4\x02", 2));
}

TEST(NarrowPacking, Float4AndUint4KeepCodes) {
  Tensor f = Tensor::from_ir(packed(DataType::Float4E2M1, {2}, "\xF7"));
  EXPECT_EQ(f.get_as_double(0), 6.0);
  EXPECT_EQ(f.get_as_double(1), -6.0);
  Tensor u = Tensor::from_ir(packed(DataType::Uint4, {2, 2}, std::string("\x10\xFE", 2)));
  EXPECT_EQ(elements(u), (std::vector<int>{0, 1, 14, 15}));
  EXPECT_EQ(bytes_of(u.to_ir()), std::string("\x10\xFE", 2));
}

TEST(NarrowPacking, WrongByteCountIsAnErrorNamingTheTensor) {
  try {
    Tensor::from_ir(packed(DataType::Int4, {5}, "ab"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'w'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("needs 3"), std::string::npos) << e.what();
  }
}

TEST(NarrowPacking, EmptyTensorsRoundTrip) {
  Tensor t = Tensor::from_ir(packed(DataType::Uint4, {0, 3}, ""));
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(bytes_of(t.to_ir()), "");
}

TEST(NarrowPacking, Int4BitCastsToInt8) {
  Tensor t = Tensor::from_ir(packed(DataType::Int4, {2}, "\x9F"));
  Tensor b = t.bitcast(DataType::Int8);
  EXPECT_EQ(b.data<int8_t>()[0], -1);
  EXPECT_EQ(b.data<int8_t>()[1], -7);
}

// ONNX stores a sub-byte tensor's packed bytes either in raw_data or one
// byte per int32_data entry; both load to the same elements.
TEST(NarrowPacking, Int32DataAndRawDataFormsLoadAlike) {
  const auto dir = std::filesystem::path(::testing::TempDir());
  auto load = [&](const std::string& name, bool raw) {
    oxs::wire::TensorProto p;
    p.set_name(name);
    p.set_data_type(int32_t(DataType::Int4));
    p.add_dims(3);
    if (raw) {
      p.set_raw_data(std::string("\x87\x0F", 2));
    } else {
      p.add_int32_data(0x87);
      p.add_int32_data(0x0F);
    }
    const std::string path = (dir / (name + ".pb")).string();
    std::ofstream(path, std::ios::binary) << p.SerializeAsString();
    Tensor t = Tensor::from_ir(onnx::load_tensor(path));
    std::filesystem::remove(path);
    return elements(t);
  };
  EXPECT_EQ(load("typed", false), (std::vector<int>{7, -8, -1}));
  EXPECT_EQ(load("raw", true), (std::vector<int>{7, -8, -1}));
}

TEST(Float8Conversion, E4M3FNHasNoInfinity) {
  const DataType t = DataType::Float8E4M3FN;
  EXPECT_EQ(f8(t, kInf), 0x7E);          // saturate: 448
  EXPECT_EQ(f8(t, -kInf), 0xFE);         // -448
  EXPECT_EQ(f8(t, kInf, false), 0x7F);   // NaN
  EXPECT_EQ(f8(t, -kInf, false), 0xFF);  // -NaN
  EXPECT_EQ(f8(t, kNaN), 0x7F);
  EXPECT_EQ(f8(t, -kNaN), 0xFF);
  EXPECT_EQ(f8(t, -0.0f), 0x80);  // negative zero kept
  // 464 is the tie between 448 (even code) and the NaN code's 480.
  EXPECT_EQ(f8(t, 464.f, false), 0x7E);
  EXPECT_EQ(f8(t, 465.f, false), 0x7F);
  EXPECT_EQ(f8(t, 480.f, false), 0x7F);
  EXPECT_EQ(f8(t, 1e6f, true), 0x7E);
}

TEST(Float8Conversion, RoundsHalfToEvenCode) {
  const DataType t = DataType::Float8E4M3FN;
  EXPECT_EQ(f8(t, 1.0625f), 0x38);  // between 1 (0x38) and 1.125 (0x39): even
  EXPECT_EQ(f8(t, 1.1875f), 0x3A);  // between 1.125 and 1.25 (0x3A): even
  EXPECT_EQ(f8(t, 1.0626f), 0x39);
  // The smallest subnormal is 2^-9; half of it ties to zero.
  EXPECT_EQ(f8(t, std::ldexp(1.f, -10)), 0x00);
  EXPECT_EQ(f8(t, std::ldexp(1.5f, -10)), 0x01);
}

TEST(Float8Conversion, DoublesRoundOnceNotThroughFloat) {
  // Just above the 1 / 1.125 midpoint; through float it would be the tie
  // itself and round to the even code 0x38.
  std::vector<double> v = {1.0625 + 1e-12};
  Tensor x = Tensor::of<double>(DataType::Double, {1}, v);
  EXPECT_EQ(cast_rounding(x, DataType::Float8E4M3FN).data<uint8_t>()[0], 0x39);
}

TEST(Float8Conversion, FnuzFormatsHaveOneNaNAndNoNegativeZero) {
  for (DataType t : {DataType::Float8E4M3FNUZ, DataType::Float8E5M2FNUZ}) {
    EXPECT_EQ(f8(t, -0.0f), 0x00);
    EXPECT_EQ(f8(t, kNaN), 0x80);
    EXPECT_EQ(f8(t, -kNaN), 0x80);
    EXPECT_EQ(f8(t, kInf, false), 0x80);
    EXPECT_EQ(f8(t, -kInf, false), 0x80);
    EXPECT_EQ(f8(t, kInf), 0x7F);
    EXPECT_EQ(f8(t, -kInf), 0xFF);
    EXPECT_TRUE(std::isnan(ir::low_precision_to_float(t, 0x80)));
  }
  EXPECT_EQ(ir::low_precision_to_float(DataType::Float8E4M3FNUZ, 0x7F), 240.f);
  EXPECT_EQ(ir::low_precision_to_float(DataType::Float8E5M2FNUZ, 0x7F), 57344.f);
}

TEST(Float8Conversion, E5M2KeepsInfinityWithoutSaturate) {
  const DataType t = DataType::Float8E5M2;
  EXPECT_EQ(f8(t, kInf, false), 0x7C);
  EXPECT_EQ(f8(t, -kInf, false), 0xFC);
  EXPECT_EQ(f8(t, 1e6f, false), 0x7C);
  EXPECT_EQ(f8(t, kInf), 0x7B);            // 57344
  EXPECT_EQ(f8(t, kNaN), 0x7E);            // the reference's quiet NaN
  EXPECT_EQ(f8(t, 61440.f, false), 0x7C);  // tie between 57344 (odd code 0x7B) and 65536
  EXPECT_EQ(f8(t, 61439.f, false), 0x7B);
}

TEST(Float4Conversion, RoundsHalfToEvenAndSaturates) {
  EXPECT_EQ(float4e2m1_encode(0.25), 0x0);  // tie 0 / 0.5: even code 0
  EXPECT_EQ(float4e2m1_encode(0.75), 0x2);  // tie 0.5 / 1: even code 2 (1.0)
  EXPECT_EQ(float4e2m1_encode(2.5), 0x4);   // tie 2 / 3: code 4 (2.0)
  EXPECT_EQ(float4e2m1_encode(5.0), 0x6);   // tie 4 / 6: code 6 (4.0)
  EXPECT_EQ(float4e2m1_encode(-3.5), 0xE);  // tie 3 / 4: -4
  EXPECT_EQ(float4e2m1_encode(5.01), 0x7);
  EXPECT_EQ(float4e2m1_encode(1e30), 0x7);
  EXPECT_EQ(float4e2m1_encode(-kInf), 0xF);
  EXPECT_EQ(float4e2m1_encode(kInf), 0x7);
  EXPECT_EQ(float4e2m1_encode(-0.0), 0x8);
  EXPECT_EQ(float4e2m1_encode(kNaN), 0x8);  // as the reference and its test data
  EXPECT_EQ(float4e2m1_encode(0.01), 0x0);
}

TEST(E8M0Conversion, RoundingModes) {
  auto enc = [](float x, E8M0Rounding m, bool sat = true) { return float8e8m0_encode(x, sat, m); };
  EXPECT_EQ(enc(2.f, E8M0Rounding::Up), 128);  // powers of two are exact in every mode
  EXPECT_EQ(enc(2.f, E8M0Rounding::Down), 128);
  EXPECT_EQ(enc(3.f, E8M0Rounding::Up), 129);
  EXPECT_EQ(enc(3.f, E8M0Rounding::Down), 128);
  EXPECT_EQ(enc(3.f, E8M0Rounding::Nearest), 129);  // the tie rounds up
  EXPECT_EQ(enc(2.9f, E8M0Rounding::Nearest), 128);
  EXPECT_EQ(enc(0.124f, E8M0Rounding::Up), 124);               // 2^-3
  EXPECT_EQ(enc(-4.f, E8M0Rounding::Up), 129);                 // no sign bit: the magnitude
  EXPECT_EQ(enc(std::ldexp(1.f, -127), E8M0Rounding::Up), 0);  // float subnormal, exact
}

TEST(E8M0Conversion, SaturationAndSpecialValues) {
  auto enc = [](float x, bool sat) { return float8e8m0_encode(x, sat, E8M0Rounding::Up); };
  EXPECT_EQ(enc(kNaN, true), 0xFF);
  EXPECT_EQ(enc(kInf, true), 0xFE);
  EXPECT_EQ(enc(kInf, false), 0xFF);
  EXPECT_EQ(enc(0.f, true), 0x00);
  EXPECT_EQ(enc(0.f, false), 0xFF);
  EXPECT_EQ(enc(std::ldexp(1.5f, 127), true), 0xFE);  // rounds past 2^127
  EXPECT_EQ(enc(std::ldexp(1.5f, 127), false), 0xFF);
  EXPECT_EQ(enc(std::ldexp(1.f, -149), false), 0xFF);  // below the smallest, 2^-127
  EXPECT_TRUE(std::isnan(ir::low_precision_to_float(DataType::Float8E8M0, 0xFF)));
  EXPECT_EQ(ir::low_precision_to_float(DataType::Float8E8M0, 0), std::ldexp(1.f, -127));
}

TEST(SubByteIntConversion, CastRoundsHalfToEvenThenWraps) {
  std::vector<float> in = {7.5f, 8.5f, -8.5f, -9.f, 2.5f, 16.f, -0.5f};
  Tensor x = Tensor::of<float>(DataType::Float, {7}, in);
  EXPECT_EQ(elements(cast_tensor(x, DataType::Int4)), (std::vector<int>{-8, -8, -8, 7, 2, 0, 0}));
  EXPECT_EQ(elements(cast_tensor(x, DataType::Uint4)), (std::vector<int>{8, 8, 8, 7, 2, 0, 0}));
  EXPECT_EQ(elements(cast_tensor(x, DataType::Int2)), (std::vector<int>{0, 0, 0, -1, -2, 0, 0}));
  std::vector<int64_t> ints = {3, -3, 200, -1};
  Tensor y = Tensor::of<int64_t>(DataType::Int64, {4}, ints);
  EXPECT_EQ(elements(cast_tensor(y, DataType::Uint2)), (std::vector<int>{3, 1, 0, 3}));
  EXPECT_EQ(elements(cast_tensor(y, DataType::Int4)), (std::vector<int>{3, -3, -8, -1}));
}

TEST(SubByteIntConversion, WidensExactlyToEveryType) {
  Tensor t = Tensor::from_ir(packed(DataType::Int4, {2}, "\x8F"));
  Tensor f = cast_tensor(t, DataType::Float16);
  EXPECT_EQ(f.get_as_double(0), -1.0);
  EXPECT_EQ(f.get_as_double(1), -8.0);
  Tensor s = cast_tensor(t, DataType::String);
  EXPECT_EQ(s.strings()[1], "-8");
  Tensor b = cast_tensor(t, DataType::Bool);
  EXPECT_EQ(b.data<bool>()[0], true);
  // Narrow to narrow goes through the wide type: int4 -8 to float8 is -8.
  Tensor e = cast_rounding(t, DataType::Float8E4M3FN);
  EXPECT_EQ(e.get_as_double(1), -8.0);
}

// Ops that move elements without reading them (ONNX 1.23 lists the 4- and
// 2-bit types for them) work on the unpacked bytes.
TEST(NarrowOps, ShapeOpsMoveSubByteElements) {
  Tensor x = Tensor::from_ir(packed(DataType::Int4, {2, 3}, std::string("\x21\x83\xF7", 3)));
  ASSERT_EQ(elements(x), (std::vector<int>{1, 2, 3, -8, 7, -1}));
  Value t = run_one_op(
      "Transpose", {x},
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_ints("perm", {1, 0}));
      },
      25);
  EXPECT_EQ(t.tensor().dtype(), DataType::Int4);
  EXPECT_EQ(elements(t.tensor()), (std::vector<int>{1, -8, 2, 7, 3, -1}));
  EXPECT_EQ(bytes_of(t.tensor().to_ir()), std::string("\x81\x72\xF3", 3));
  std::vector<int64_t> shape = {3, 2};
  Value r = run_one_op("Reshape", {x, Tensor::of<int64_t>(DataType::Int64, {2}, shape)}, {}, 25);
  EXPECT_EQ(r.tensor().dims(), (Dims{3, 2}));
  EXPECT_EQ(elements(r.tensor()), elements(x));
  Value f = run_one_op(
      "Flatten", {x}, [](ir::Node* n) { n->set_attr(ir::Attr::of_int("axis", 0)); }, 25);
  EXPECT_EQ(elements(f.tensor()), elements(x));
  Value s = run_one_op("Size", {x}, {}, 25);
  EXPECT_EQ(s.tensor().data<int64_t>()[0], 6);
}

// BitCast-26 between the 4-bit types (and the 2-bit ones) keeps each
// element's bits: packed bytes in equal packed bytes out.
TEST(NarrowOps, BitCastBetweenSubByteTypesKeepsTheBits) {
  auto bitcast = [](const Tensor& x, DataType to) {
    return run_one_op(
               "BitCast", {x},
               [to](ir::Node* n) { n->set_attr(ir::Attr::of_int("to", int64_t(to))); }, 26)
        .tensor();
  };
  Tensor x = Tensor::from_ir(packed(DataType::Int4, {4}, std::string("\x9F\x70", 2)));
  ASSERT_EQ(elements(x), (std::vector<int>{-1, -7, 0, 7}));
  Tensor u = bitcast(x, DataType::Uint4);
  EXPECT_EQ(elements(u), (std::vector<int>{15, 9, 0, 7}));
  EXPECT_EQ(bytes_of(u.to_ir()), std::string("\x9F\x70", 2));
  Tensor f = bitcast(u, DataType::Float4E2M1);
  EXPECT_EQ(bytes_of(f.to_ir()), std::string("\x9F\x70", 2));
  EXPECT_EQ(elements(bitcast(f, DataType::Int4)), elements(x));
  Tensor s = Tensor::from_ir(packed(DataType::Uint2, {4}, std::string("\xE4", 1)));
  EXPECT_EQ(elements(bitcast(s, DataType::Int2)), (std::vector<int>{0, 1, -2, -1}));
  EXPECT_THROW(bitcast(x, DataType::Int8), Error);  // 4 bits to 8: the widths differ
}

}  // namespace
}  // namespace oxs::eval
