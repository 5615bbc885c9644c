// Element types of ONNX 1.23 (IR 14): sizes of the packed types, parsing of
// the new names, and the values of the 8- and 4-bit float encodings (spot
// values from the IR spec's tables: docs/docsgen "Float stored in 8 bits").
#include <gtest/gtest.h>

#include <cmath>

#include "oxs/ir/dtype.h"
#include "oxs/ir/tensor.h"

namespace oxs::ir {
namespace {

TEST(DType, PackedTypesCountBitsNotBytes) {
  EXPECT_EQ(element_bits(DataType::Int4), 4u);
  EXPECT_EQ(element_bits(DataType::Uint2), 2u);
  EXPECT_EQ(element_size(DataType::Int4), 0u);  // no whole byte per element
  EXPECT_EQ(packed_nbytes(DataType::Int4, 3), 2);
  EXPECT_EQ(packed_nbytes(DataType::Uint2, 5), 2);
  EXPECT_EQ(packed_nbytes(DataType::Float8E5M2, 5), 5);
  EXPECT_EQ(Tensor(DataType::Float4E2M1, {3, 3}).expected_nbytes(), 5);
  EXPECT_TRUE(is_sub_byte(DataType::Int2));
  EXPECT_FALSE(is_sub_byte(DataType::Float8E4M3FN));
}

TEST(DType, NewNamesParseAndKnowTheirIrVersion) {
  EXPECT_EQ(parse_dtype("FLOAT8E4M3FN"), DataType::Float8E4M3FN);
  EXPECT_EQ(parse_dtype("int2"), DataType::Int2);
  EXPECT_EQ(dtype_name(DataType::Float8E8M0), "float8e8m0");
  EXPECT_EQ(min_ir_version(DataType::Float8E5M2), 9);
  EXPECT_EQ(min_ir_version(DataType::Uint4), 10);
  EXPECT_EQ(min_ir_version(DataType::Float4E2M1), 11);
  EXPECT_EQ(min_ir_version(DataType::Int2), 13);
  EXPECT_EQ(min_ir_version(DataType::Float), 3);
  EXPECT_TRUE(is_valid_dtype(26));
  EXPECT_FALSE(is_valid_dtype(27));
}

TEST(DType, LowPrecisionFloatValues) {
  auto v = [](DataType t, int bits) {
    return low_precision_to_float(t, static_cast<uint8_t>(bits));
  };
  EXPECT_EQ(v(DataType::Float8E4M3FN, 0x38), 1.0f);
  EXPECT_EQ(v(DataType::Float8E4M3FN, 0x7e), 448.0f);                // the largest E4M3FN
  EXPECT_EQ(v(DataType::Float8E4M3FN, 0x01), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_TRUE(std::isnan(v(DataType::Float8E4M3FN, 0xff)));
  EXPECT_EQ(v(DataType::Float8E4M3FNUZ, 0x40), 1.0f);
  EXPECT_TRUE(std::isnan(v(DataType::Float8E4M3FNUZ, 0x80)));
  EXPECT_EQ(v(DataType::Float8E5M2, 0x3c), 1.0f);
  EXPECT_EQ(v(DataType::Float8E5M2, 0x7b), 57344.0f);  // the largest E5M2
  EXPECT_TRUE(std::isinf(v(DataType::Float8E5M2, 0xfc)));
  EXPECT_EQ(v(DataType::Float8E5M2FNUZ, 0x40), 1.0f);
  EXPECT_EQ(v(DataType::Float8E8M0, 127), 1.0f);
  EXPECT_EQ(v(DataType::Float8E8M0, 130), 8.0f);
  EXPECT_EQ(v(DataType::Float4E2M1, 0x7), 6.0f);
  EXPECT_EQ(v(DataType::Float4E2M1, 0xb), -1.5f);
}

}  // namespace
}  // namespace oxs::ir
