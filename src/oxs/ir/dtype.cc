#include "oxs/ir/dtype.h"

#include <array>
#include <cctype>
#include <limits>
#include <string>

namespace oxs::ir {

namespace {
struct Info {
  DataType type;
  size_t size;
  std::string_view name;
  std::string_view script_name;
  size_t bits = 8 * size;
  int64_t ir_version = 3;
};
constexpr std::array<Info, 27> kInfo = {{
    {DataType::Undefined, 0, "undefined", "UNDEFINED"},
    {DataType::Float, 4, "float", "FLOAT"},
    {DataType::Uint8, 1, "uint8", "UINT8"},
    {DataType::Int8, 1, "int8", "INT8"},
    {DataType::Uint16, 2, "uint16", "UINT16"},
    {DataType::Int16, 2, "int16", "INT16"},
    {DataType::Int32, 4, "int32", "INT32"},
    {DataType::Int64, 8, "int64", "INT64"},
    {DataType::String, 0, "string", "STRING"},
    {DataType::Bool, 1, "bool", "BOOL"},
    {DataType::Float16, 2, "float16", "FLOAT16"},
    {DataType::Double, 8, "double", "DOUBLE"},
    {DataType::Uint32, 4, "uint32", "UINT32"},
    {DataType::Uint64, 8, "uint64", "UINT64"},
    {DataType::Complex64, 8, "complex64", "COMPLEX64"},
    {DataType::Complex128, 16, "complex128", "COMPLEX128"},
    {DataType::BFloat16, 2, "bfloat16", "BFLOAT16"},
    {DataType::Float8E4M3FN, 1, "float8e4m3fn", "FLOAT8E4M3FN", 8, 9},
    {DataType::Float8E4M3FNUZ, 1, "float8e4m3fnuz", "FLOAT8E4M3FNUZ", 8, 9},
    {DataType::Float8E5M2, 1, "float8e5m2", "FLOAT8E5M2", 8, 9},
    {DataType::Float8E5M2FNUZ, 1, "float8e5m2fnuz", "FLOAT8E5M2FNUZ", 8, 9},
    {DataType::Uint4, 0, "uint4", "UINT4", 4, 10},
    {DataType::Int4, 0, "int4", "INT4", 4, 10},
    {DataType::Float4E2M1, 0, "float4e2m1", "FLOAT4E2M1", 4, 11},
    {DataType::Float8E8M0, 1, "float8e8m0", "FLOAT8E8M0", 8, 12},
    {DataType::Uint2, 0, "uint2", "UINT2", 2, 13},
    {DataType::Int2, 0, "int2", "INT2", 2, 13},
}};
static_assert(kInfo.size() == static_cast<size_t>(kLastDataType) + 1);

const Info* info(DataType t) {
  auto i = static_cast<int32_t>(t);
  if (i < 0 || i >= static_cast<int32_t>(kInfo.size())) return nullptr;
  return &kInfo[static_cast<size_t>(i)];
}
}  // namespace

bool is_valid_dtype(int32_t raw) {
  return raw >= 0 && raw < static_cast<int32_t>(kInfo.size());
}

size_t element_size(DataType t) {
  const Info* i = info(t);
  return i ? i->size : 0;
}

size_t element_bits(DataType t) {
  const Info* i = info(t);
  return i ? i->bits : 0;
}

size_t elements_per_byte(DataType t) {
  const size_t bits = element_bits(t);
  return bits > 0 && bits < 8 ? 8 / bits : 0;
}

int64_t packed_nbytes(DataType t, int64_t count) {
  if (count < 0) return -1;
  if (size_t per = elements_per_byte(t)) {
    auto p = static_cast<int64_t>(per);
    return count / p + (count % p != 0 ? 1 : 0);
  }
  auto size = static_cast<int64_t>(element_size(t));
  if (size != 0 && count > std::numeric_limits<int64_t>::max() / size) return -1;
  return count * size;
}

int64_t min_ir_version(DataType t) {
  const Info* i = info(t);
  return i ? i->ir_version : 3;
}

std::string_view dtype_name(DataType t) {
  const Info* i = info(t);
  return i ? i->name : std::string_view("invalid");
}

std::string_view dtype_script_name(DataType t) {
  const Info* i = info(t);
  return i ? i->script_name : std::string_view("INVALID");
}

std::optional<DataType> parse_dtype(std::string_view name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const Info& i : kInfo) {
    if (i.name == lower) return i.type;
  }
  if (lower == "double" || lower == "float64") return DataType::Double;
  if (lower == "float32") return DataType::Float;
  return std::nullopt;
}

bool is_floating(DataType t) {
  return t == DataType::Float || t == DataType::Double || t == DataType::Float16 ||
         t == DataType::BFloat16;
}

bool is_low_precision_float(DataType t) {
  switch (t) {
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float8E8M0:
    case DataType::Float4E2M1:
      return true;
    default:
      return false;
  }
}

bool is_sub_byte(DataType t) {
  return elements_per_byte(t) != 0;
}

bool is_integer(DataType t) {
  switch (t) {
    case DataType::Int8:
    case DataType::Int16:
    case DataType::Int32:
    case DataType::Int64:
    case DataType::Uint8:
    case DataType::Uint16:
    case DataType::Uint32:
    case DataType::Uint64:
      return true;
    default:
      return false;
  }
}

bool is_signed(DataType t) {
  switch (t) {
    case DataType::Int8:
    case DataType::Int16:
    case DataType::Int32:
    case DataType::Int64:
    case DataType::Int4:
    case DataType::Int2:
      return true;
    case DataType::Float8E8M0:  // an exponent only: no sign bit
      return false;
    default:
      return is_floating(t) || is_low_precision_float(t);
  }
}

}  // namespace oxs::ir
