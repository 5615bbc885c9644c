#include "oxs/ir/dtype.h"

#include <array>
#include <cctype>
#include <string>

namespace oxs::ir {

namespace {
struct Info {
  DataType type;
  size_t size;
  std::string_view name;
  std::string_view script_name;
};
constexpr std::array<Info, 17> kInfo = {{
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
}};

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
      return true;
    default:
      return is_floating(t);
  }
}

}  // namespace oxs::ir
