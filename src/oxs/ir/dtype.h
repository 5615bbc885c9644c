// Element types of ONNX tensors. The numeric values equal TensorProto.DataType
// so that conversion to and from protobuf is a cast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace oxs::ir {

enum class DataType : int32_t {
  Undefined = 0,
  Float = 1,
  Uint8 = 2,
  Int8 = 3,
  Uint16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  Uint32 = 12,
  Uint64 = 13,
  Complex64 = 14,
  Complex128 = 15,
  BFloat16 = 16,
  // IR 9 (ONNX 1.14) and later.
  Float8E4M3FN = 17,
  Float8E4M3FNUZ = 18,
  Float8E5M2 = 19,
  Float8E5M2FNUZ = 20,
  Uint4 = 21,  // IR 10: packed two to a byte, first element in the low nibble
  Int4 = 22,
  Float4E2M1 = 23,  // IR 11: packed like Int4
  Float8E8M0 = 24,  // IR 12
  Uint2 = 25,       // IR 13 (ONNX 1.23): packed four to a byte, first element in bits 0-1
  Int2 = 26,
};

// The largest element type this build knows (TensorProto.DataType of ONNX 1.23).
inline constexpr DataType kLastDataType = DataType::Int2;

// Bytes per element; 0 for Undefined and String (variable size) and for the
// sub-byte types (Int4, Uint4, Float4E2M1, Int2, Uint2): use element_bits and
// packed_nbytes for those.
size_t element_size(DataType t);
// Bits per element: 8 * element_size, or 4 / 2 for the packed types; 0 for
// Undefined and String.
size_t element_bits(DataType t);
// Bytes that `count` packed elements occupy (rounded up to whole bytes);
// -1 if `count` is negative or the size overflows.
int64_t packed_nbytes(DataType t, int64_t count);
// Elements per byte for the sub-byte types (2 or 4), 0 otherwise.
size_t elements_per_byte(DataType t);
// The first IR version whose TensorProto.DataType lists `t` (3 for the
// types of IR <= 8).
int64_t min_ir_version(DataType t);
// ONNX spelling in lower case: "float", "int64", "bfloat16", ...
std::string_view dtype_name(DataType t);
// onnxscript's spelling: "FLOAT", "INT64", "BFLOAT16", ...
std::string_view dtype_script_name(DataType t);
// Parses either spelling (case-insensitive); nullopt if unknown.
std::optional<DataType> parse_dtype(std::string_view name);
bool is_valid_dtype(int32_t raw);
// Float, Double, Float16, BFloat16: the floating types with arithmetic in
// the evaluator. The 8- and 4-bit float formats are is_low_precision_float.
bool is_floating(DataType t);
// Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Float4E2M1.
bool is_low_precision_float(DataType t);
bool is_integer(DataType t);   // signed or unsigned of 8 to 64 bits, not bool
bool is_sub_byte(DataType t);  // Int4, Uint4, Float4E2M1, Int2, Uint2
bool is_signed(DataType t);

}  // namespace oxs::ir
