#include "oxs/script/decompile/tensor_literal.h"

#include <cstring>

#include "oxs/ir/error.h"
#include "oxs/script/decompile/python_names.h"
#include "oxs/script/narrow_literal.h"

namespace oxs::script {

namespace {

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000 | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bfloat_to_float(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <class T>
T at(const std::byte* p, size_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}

}  // namespace

std::string tensor_values(const ir::Tensor& t) {
  using ir::DataType;
  std::string out = "[";
  auto sep = [&](size_t i) {
    if (i) out += ", ";
  };
  if (t.dtype() == DataType::String) {
    for (size_t i = 0; i < t.strings.size(); ++i) {
      sep(i);
      out += python_string(t.strings[i]);
    }
    return out + "]";
  }
  if (is_narrow_literal_type(t.dtype())) {
    append_narrow_values(t, out);
    return out + "]";
  }
  auto bytes = t.bytes();
  size_t esize = ir::element_size(t.dtype());
  size_t n = esize ? bytes.size() / esize : 0;
  const std::byte* p = bytes.data();
  for (size_t i = 0; i < n; ++i) {
    sep(i);
    switch (t.dtype()) {
      case DataType::Float:
        out += python_float(at<float>(p, i), true);
        break;
      case DataType::Double:
        out += python_float(at<double>(p, i), false);
        break;
      case DataType::Float16:
        out += python_float(half_to_float(at<uint16_t>(p, i)), true);
        break;
      case DataType::BFloat16:
        out += python_float(bfloat_to_float(at<uint16_t>(p, i)), true);
        break;
      case DataType::Bool:
        out += at<uint8_t>(p, i) ? "True" : "False";
        break;
      case DataType::Int8:
        out += std::to_string(at<int8_t>(p, i));
        break;
      case DataType::Int16:
        out += std::to_string(at<int16_t>(p, i));
        break;
      case DataType::Int32:
        out += std::to_string(at<int32_t>(p, i));
        break;
      case DataType::Int64:
        out += std::to_string(at<int64_t>(p, i));
        break;
      case DataType::Uint8:
        out += std::to_string(at<uint8_t>(p, i));
        break;
      case DataType::Uint16:
        out += std::to_string(at<uint16_t>(p, i));
        break;
      case DataType::Uint32:
        out += std::to_string(at<uint32_t>(p, i));
        break;
      case DataType::Uint64:
        out += std::to_string(at<uint64_t>(p, i));
        break;
      default:
        throw Error(ErrorKind::Unsupported, "ONNX Script has no literal for a " +
                                                std::string(ir::dtype_name(t.dtype())) +
                                                " tensor ('" + t.name + "')");
    }
  }
  return out + "]";
}

}  // namespace oxs::script
