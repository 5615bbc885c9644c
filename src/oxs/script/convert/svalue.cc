#include "oxs/script/convert/svalue.h"
#include "oxs/script/narrow_literal.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace oxs::script {

namespace {

std::string float_repr(double f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", f);
  // Shortest text that reads back the same, as Python prints floats.
  for (int p = 1; p <= 17; ++p) {
    char b2[64];
    std::snprintf(b2, sizeof b2, "%.*g", p, f);
    if (std::strtod(b2, nullptr) == f) {
      std::snprintf(buf, sizeof buf, "%s", b2);
      break;
    }
  }
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

// Collects the dims and leaves of a (possibly nested) list; false if ragged.
bool flatten(const PyValue& v, size_t depth, std::vector<int64_t>& dims,
             std::vector<const PyValue*>& leaves) {
  if (!v.is_sequence()) {
    if (depth != dims.size()) return false;
    leaves.push_back(&v);
    return true;
  }
  if (depth == dims.size()) {
    if (!leaves.empty()) return false;  // a list where a scalar was before
    dims.push_back(static_cast<int64_t>(v.items.size()));
  } else if (depth > dims.size() || dims[depth] != static_cast<int64_t>(v.items.size())) {
    return false;
  }
  for (const PyValue& x : v.items) {
    if (!flatten(x, depth + 1, dims, leaves)) return false;
  }
  return true;
}

template <class T>
ir::Tensor make(ir::DataType dt, std::vector<int64_t> dims, const std::vector<T>& xs) {
  return ir::Tensor::from<T>(dt, std::move(dims), std::span<const T>(xs.data(), xs.size()));
}

uint16_t to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff)
    return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    if ((mant >> (shift - 1)) & 1u) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  if (mant & 0x1000u) ++half;
  return static_cast<uint16_t>(half);
}

uint16_t to_bfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f)) return 0x7fc0;
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace

std::string PyValue::repr() const {
  switch (kind) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return b ? "True" : "False";
    case Kind::kInt:
      return std::to_string(i);
    case Kind::kFloat:
      return float_repr(f);
    case Kind::kStr: {
      std::string out = "'";
      for (char c : s.substr(0, 40)) out += c == '\'' ? std::string("\\'") : std::string(1, c);
      if (s.size() > 40) out += "...";
      return out + "'";
    }
    case Kind::kList:
    case Kind::kTuple: {
      std::string out = kind == Kind::kList ? "[" : "(";
      for (size_t k = 0; k < items.size() && k < 8; ++k) {
        if (k) out += ", ";
        out += items[k].repr();
      }
      if (items.size() > 8) out += ", ...";
      if (kind == Kind::kTuple && items.size() == 1) out += ",";
      return out + (kind == Kind::kList ? "]" : ")");
    }
    case Kind::kTensor:
      return "<tensor>";
  }
  return "?";
}

const char* PyValue::type_name() const {
  switch (kind) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kFloat:
      return "float";
    case Kind::kStr:
      return "str";
    case Kind::kList:
      return "list";
    case Kind::kTuple:
      return "tuple";
    case Kind::kTensor:
      return "TensorProto";
  }
  return "?";
}

bool PyValue::truthy() const {
  switch (kind) {
    case Kind::kNone:
      return false;
    case Kind::kBool:
      return b;
    case Kind::kInt:
      return i != 0;
    case Kind::kFloat:
      return f != 0;
    case Kind::kStr:
      return !s.empty();
    case Kind::kList:
    case Kind::kTuple:
      return !items.empty();
    case Kind::kTensor:
      return true;
  }
  return false;
}

bool py_equal(const PyValue& a, const PyValue& b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind != PyValue::Kind::kFloat && b.kind != PyValue::Kind::kFloat) {
      return (a.kind == PyValue::Kind::kBool ? a.b : a.i) ==
             (b.kind == PyValue::Kind::kBool ? b.b : b.i);
    }
    return a.as_double() == b.as_double();
  }
  if (a.kind != b.kind) {
    if (a.is_sequence() && b.is_sequence()) return false;
    return false;
  }
  switch (a.kind) {
    case PyValue::Kind::kNone:
      return true;
    case PyValue::Kind::kStr:
      return a.s == b.s;
    case PyValue::Kind::kList:
    case PyValue::Kind::kTuple:
      if (a.items.size() != b.items.size()) return false;
      for (size_t k = 0; k < a.items.size(); ++k) {
        if (!py_equal(a.items[k], b.items[k])) return false;
      }
      return true;
    case PyValue::Kind::kTensor:
      return a.tensor == b.tensor;
    default:
      return false;
  }
}

ir::DataType natural_dtype(const PyValue& v) {
  using K = PyValue::Kind;
  switch (v.kind) {
    case K::kBool:
      return ir::DataType::Bool;
    case K::kInt:
      return ir::DataType::Int64;
    case K::kFloat:
      return ir::DataType::Float;
    case K::kStr:
      return ir::DataType::String;
    case K::kTensor:
      return v.tensor ? v.tensor->dtype() : ir::DataType::Undefined;
    case K::kList:
    case K::kTuple: {
      // The widest element kind: bool < int < float; strings only with strings.
      ir::DataType t = ir::DataType::Undefined;
      for (const PyValue& x : v.items) {
        ir::DataType e = natural_dtype(x);
        if (e == ir::DataType::Undefined) return e;
        if (t == ir::DataType::Undefined || t == e) {
          t = e;
        } else if (t == ir::DataType::String || e == ir::DataType::String) {
          return ir::DataType::Undefined;
        } else if (t == ir::DataType::Float || e == ir::DataType::Float) {
          t = ir::DataType::Float;
        } else {
          t = ir::DataType::Int64;
        }
      }
      return t == ir::DataType::Undefined ? ir::DataType::Int64 : t;  // [] -> int64
    }
    case K::kNone:
      break;
  }
  return ir::DataType::Undefined;
}

std::optional<ir::Tensor> py_to_tensor(const PyValue& v, ir::DataType dtype, std::string* why) {
  if (v.kind == PyValue::Kind::kTensor) {
    if (v.tensor) return *v.tensor;
    *why = "an empty tensor";
    return std::nullopt;
  }
  if (v.kind == PyValue::Kind::kNone) {
    *why = "None has no tensor value";
    return std::nullopt;
  }
  std::vector<int64_t> dims;
  std::vector<const PyValue*> leaves;
  if (!flatten(v, 0, dims, leaves)) {
    *why = "the list is ragged or mixes lists and scalars";
    return std::nullopt;
  }
  ir::DataType nat = natural_dtype(v);
  if (nat == ir::DataType::Undefined) {
    *why = "the list mixes strings and numbers";
    return std::nullopt;
  }
  if (dtype == ir::DataType::Undefined) dtype = nat;
  if ((dtype == ir::DataType::String) != (nat == ir::DataType::String)) {
    *why = "a " + std::string(v.type_name()) + " cannot become a tensor of " +
           std::string(ir::dtype_name(dtype));
    return std::nullopt;
  }
  using D = ir::DataType;
  if (is_narrow_literal_type(dtype)) {
    std::vector<double> xs;
    xs.reserve(leaves.size());
    for (const PyValue* p : leaves) xs.push_back(p->as_double());
    return narrow_from_numbers(dtype, dims, xs, why);
  }
  auto collect = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> xs;
    xs.reserve(leaves.size());
    for (const PyValue* p : leaves) {
      if (p->kind == PyValue::Kind::kFloat) {
        xs.push_back(static_cast<T>(p->f));
      } else {
        xs.push_back(static_cast<T>(p->kind == PyValue::Kind::kBool ? p->b : p->i));
      }
    }
    return xs;
  };
  switch (dtype) {
    case D::Float:
      return make(dtype, dims, collect(float{}));
    case D::Double:
      return make(dtype, dims, collect(double{}));
    case D::Int8:
      return make(dtype, dims, collect(int8_t{}));
    case D::Int16:
      return make(dtype, dims, collect(int16_t{}));
    case D::Int32:
      return make(dtype, dims, collect(int32_t{}));
    case D::Int64:
      return make(dtype, dims, collect(int64_t{}));
    case D::Uint8:
      return make(dtype, dims, collect(uint8_t{}));
    case D::Uint16:
      return make(dtype, dims, collect(uint16_t{}));
    case D::Uint32:
      return make(dtype, dims, collect(uint32_t{}));
    case D::Uint64:
      return make(dtype, dims, collect(uint64_t{}));
    case D::Bool: {
      std::vector<uint8_t> xs;
      for (const PyValue* p : leaves) xs.push_back(p->as_double() != 0 ? 1 : 0);
      return make(dtype, dims, xs);
    }
    case D::Float16:
    case D::BFloat16: {
      std::vector<uint16_t> xs;
      for (const PyValue* p : leaves) {
        float f = static_cast<float>(p->as_double());
        xs.push_back(dtype == D::Float16 ? to_half(f) : to_bfloat16(f));
      }
      return make(dtype, dims, xs);
    }
    case D::String: {
      ir::Tensor t(dtype, dims);
      for (const PyValue* p : leaves) t.strings.push_back(p->s);
      return t;
    }
    default:
      *why = "tensors of " + std::string(ir::dtype_name(dtype)) + " cannot be written as literals";
      return std::nullopt;
  }
}

std::string SVal::describe() const {
  switch (kind) {
    case Kind::kPoison:
      return "an invalid value";
    case Kind::kTensor:
      return "a tensor";
    case Kind::kPy:
      return "the Python " + std::string(py.type_name()) + " " + py.repr();
    case Kind::kAttrRef:
      return "the attribute parameter '" + name + "' (" + ir::attr_type_name(attr_type) + ")";
    case Kind::kTuple:
      return "a tuple of " + std::to_string(items.size()) + " values";
    case Kind::kOpset:
      return "the opset " + (opset.domain.empty() ? std::string("ai.onnx") : opset.domain) + " " +
             std::to_string(opset.version);
    case Kind::kModule:
      return "the module '" + name + "'";
    case Kind::kBuiltin:
      return "'" + name + "'";
    case Kind::kFunction:
      return "the function '" + name + "'";
    case Kind::kType:
      return "the type '" + name + "'";
    case Kind::kForeign:
      return "'" + name + "'";
  }
  return "a value";
}

}  // namespace oxs::script
