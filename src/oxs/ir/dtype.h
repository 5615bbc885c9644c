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
};

// Bytes per element; 0 for Undefined and String (variable size).
size_t element_size(DataType t);
// ONNX spelling in lower case: "float", "int64", "bfloat16", ...
std::string_view dtype_name(DataType t);
// onnxscript's spelling: "FLOAT", "INT64", "BFLOAT16", ...
std::string_view dtype_script_name(DataType t);
// Parses either spelling (case-insensitive); nullopt if unknown.
std::optional<DataType> parse_dtype(std::string_view name);
bool is_valid_dtype(int32_t raw);
bool is_floating(DataType t);
bool is_integer(DataType t);  // signed or unsigned, not bool
bool is_signed(DataType t);

}  // namespace oxs::ir
