#include "fuzz/single_op/values.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace oxs::fuzz {
namespace {

using D = ir::DataType;

template <class T>
void fill_ints(eval::Tensor& t, ByteReader& r) {
  T* p = t.mutable_data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    // Mostly small (axes, indices, sizes), sometimes the type's extremes.
    switch (r.below(8)) {
      case 0:
        p[i] = std::numeric_limits<T>::max();
        break;
      case 1:
        p[i] = std::numeric_limits<T>::min();
        break;
      default:
        p[i] = static_cast<T>(r.in_range(-3, 6));
    }
  }
}

template <class T>
void fill_floats(T* p, int64_t n, ByteReader& r) {
  static const std::vector<double> values = {0.0,  1.0,  -1.0, 0.5,   2.0, -2.5,     3.0,
                                             1e30, -0.0, 1e-8, 100.0, NAN, INFINITY, -INFINITY};
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(r.pick(values));
}

void fill_bits16(eval::Tensor& t, ByteReader& r) {
  static const std::vector<uint16_t> half = {0x0000, 0x3c00, 0xbc00, 0x4000, 0x7e00, 0x7c00};
  auto* p = static_cast<uint16_t*>(t.mutable_raw());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = r.pick(half);
}

// One byte per element of the 8-bit floats: zeros, ones, the largest
// finite values, NaN and infinity encodings of the four formats (which
// differ: 0x7f is NaN in E4M3FN and 448 in none of them but E4M3FN's max is
// 0x7e), the FNUZ formats' single NaN 0x80, and subnormals.
void fill_float8(eval::Tensor& t, ByteReader& r) {
  static const std::vector<uint8_t> bits = {0x00, 0x80, 0x38, 0xb8, 0x3c, 0x7e, 0x7f,
                                            0xff, 0x7b, 0x7c, 0xfc, 0x01, 0x40, 0xfe};
  auto* p = static_cast<uint8_t*>(t.mutable_raw());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = r.pick(bits);
}

// Sub-byte types go through their packed ONNX encoding (random bytes, two
// or four elements each) and Tensor::from_ir, the way every such tensor
// enters the evaluator, so the unpacked values are ones the type can hold.
eval::Tensor packed_tensor(D dtype, const eval::Dims& dims, ByteReader& r) {
  ir::Tensor t(dtype, dims);
  const int64_t n = t.numel();
  const int64_t bytes = ir::packed_nbytes(dtype, n < 0 ? 0 : n);
  std::string raw(size_t(bytes < 0 ? 0 : bytes), '\0');
  static const std::vector<uint8_t> patterns = {0x00, 0x11, 0x77, 0x88, 0xff, 0x7f, 0xf0, 0x12};
  for (char& c : raw) c = static_cast<char>(r.pick(patterns));
  t.set_storage(std::make_shared<ir::OwnedStorage>(std::move(raw)));
  return eval::Tensor::from_ir(t);
}

// A tensor of `dtype` and `dims` with values chosen by `r`.
eval::Tensor tensor_of(ir::DataType dtype, const eval::Dims& dims, ByteReader& r) {
  if (ir::is_sub_byte(dtype)) return packed_tensor(dtype, dims, r);
  eval::Tensor t(dtype, dims);
  switch (dtype) {
    case D::Float:
      fill_floats(t.mutable_data<float>(), t.numel(), r);
      break;
    case D::Double:
      fill_floats(t.mutable_data<double>(), t.numel(), r);
      break;
    case D::Int8:
      fill_ints<int8_t>(t, r);
      break;
    case D::Int16:
      fill_ints<int16_t>(t, r);
      break;
    case D::Int32:
      fill_ints<int32_t>(t, r);
      break;
    case D::Int64:
      fill_ints<int64_t>(t, r);
      break;
    case D::Uint8:
      fill_ints<uint8_t>(t, r);
      break;
    case D::Uint16:
      fill_ints<uint16_t>(t, r);
      break;
    case D::Uint32:
      fill_ints<uint32_t>(t, r);
      break;
    case D::Uint64:
      fill_ints<uint64_t>(t, r);
      break;
    case D::Bool: {
      auto* p = static_cast<uint8_t*>(t.mutable_raw());
      for (int64_t i = 0; i < t.numel(); ++i) p[i] = r.flag();
      break;
    }
    case D::Float16:
    case D::BFloat16:
      fill_bits16(t, r);
      break;
    case D::Float8E4M3FN:
    case D::Float8E4M3FNUZ:
    case D::Float8E5M2:
    case D::Float8E5M2FNUZ:
    case D::Float8E8M0:
      fill_float8(t, r);
      break;
    case D::String: {
      static const std::vector<std::string> words = {"", "a", "abc", "1", "hello world", "é"};
      for (auto& s : t.mutable_strings()) s = r.pick(words);
      break;
    }
    default:
      break;  // complex: zeros (few kernels take them; the corpus' cases rely on no bytes read)
  }
  return t;
}

}  // namespace

ShapeChooser ShapeChooser::related(ByteReader& r) {
  ShapeChooser s;
  s.related_ = true;
  s.rank_ = r.below(5);
  for (int64_t& d : s.pool_) d = r.below(4) == 0 ? 0 : r.in_range(1, 4);
  return s;
}

eval::Dims ShapeChooser::next(ByteReader& r) {
  eval::Dims dims;
  const size_t how = related_ ? r.below(8) : 0;
  if (how == 0) {  // independent
    dims.resize(r.below(5));
    for (auto& d : dims) d = r.in_range(0, 4);
  } else if (how == 1 && has_last_) {
    dims = last_;
  } else if (how == 4) {
    // Empty, but with a huge dim beside the zero: no memory, yet a kernel
    // that loops over the other dims before looking at the element count
    // would run for ever (or size a buffer by them).
    dims.assign(std::max<size_t>(rank_, 2), 1);
    dims[r.below(dims.size())] = int64_t{1} << 31;
    dims[r.below(dims.size())] = 0;
  } else {
    size_t rank = rank_;
    if (how == 2 && rank > 0) --rank;
    if (how == 3) ++rank;
    dims.resize(rank);
    for (auto& d : dims) d = r.below(4) == 0 ? 1 : pool_[r.below(3)];
  }
  last_ = dims;
  has_last_ = true;
  return dims;
}

eval::Tensor random_tensor(ir::DataType dtype, ByteReader& r, ShapeChooser* shapes) {
  ShapeChooser independent = ShapeChooser::independent();
  return tensor_of(dtype, (shapes ? *shapes : independent).next(r), r);
}

std::optional<eval::Value> random_value(const ir::Type& type, ByteReader& r, ShapeChooser* shapes) {
  using K = ir::Type::Kind;
  switch (type.kind()) {
    case K::Tensor:
      return eval::Value(random_tensor(type.elem_type(), r, shapes));
    case K::Sequence: {
      if (!type.element()) return std::nullopt;
      std::vector<eval::Value> items;
      const size_t n = r.below(4);
      for (size_t i = 0; i < n; ++i) {
        std::optional<eval::Value> v = random_value(*type.element(), r, shapes);
        if (!v) return std::nullopt;
        items.push_back(std::move(*v));
      }
      return eval::Value::sequence(std::move(items), *type.element());
    }
    case K::Optional: {
      if (!type.element()) return std::nullopt;
      if (!r.flag()) return eval::Value::optional(std::nullopt, *type.element());
      std::optional<eval::Value> v = random_value(*type.element(), r, shapes);
      if (!v) return std::nullopt;
      return eval::Value::optional(std::move(*v), *type.element());
    }
    case K::Map: {
      const ir::Type* value = type.element();
      if (!value || !value->is_tensor()) return std::nullopt;
      const eval::Dims n{int64_t(r.below(4))};
      eval::Tensor keys = tensor_of(type.elem_type(), n, r);
      return eval::Value::map(std::move(keys), tensor_of(value->elem_type(), n, r));
    }
    default:
      return std::nullopt;
  }
}

}  // namespace oxs::fuzz
