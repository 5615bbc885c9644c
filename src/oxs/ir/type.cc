#include "oxs/ir/type.h"

#include <limits>

namespace oxs::ir {

std::string Dim::to_string() const {
  switch (kind_) {
    case Kind::Value:
      return std::to_string(value_);
    case Kind::Param:
      return param_;
    case Kind::Unknown:
      return "?";
  }
  return "?";
}

Shape::Shape(std::initializer_list<int64_t> dims) {
  dims_.reserve(dims.size());
  for (int64_t d : dims) dims_.push_back(Dim::known(d));
}

Shape Shape::of(const std::vector<int64_t>& dims) {
  Shape s;
  s.dims_.reserve(dims.size());
  for (int64_t d : dims) s.dims_.push_back(Dim::known(d));
  return s;
}

bool Shape::is_static() const {
  for (const Dim& d : dims_) {
    if (!d.is_known()) return false;
  }
  return true;
}

std::optional<int64_t> Shape::numel() const {
  int64_t n = 1;
  for (const Dim& d : dims_) {
    if (!d.is_known() || d.value() < 0) return std::nullopt;
    if (d.value() != 0 && n > std::numeric_limits<int64_t>::max() / d.value()) return std::nullopt;
    n *= d.value();
  }
  return n;
}

std::string Shape::to_string() const {
  std::string out = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ',';
    out += dims_[i].to_string();
  }
  return out + "]";
}

Type Type::tensor(DataType elem, std::optional<Shape> shape) {
  Type t;
  t.kind_ = Kind::Tensor;
  t.elem_ = elem;
  t.shape_ = std::move(shape);
  return t;
}

Type Type::sparse_tensor(DataType elem, std::optional<Shape> shape) {
  Type t = tensor(elem, std::move(shape));
  t.kind_ = Kind::SparseTensor;
  return t;
}

Type Type::sequence(Type element) {
  Type t;
  t.kind_ = Kind::Sequence;
  t.element_ = std::make_unique<Type>(std::move(element));
  return t;
}

Type Type::optional(Type element) {
  Type t;
  t.kind_ = Kind::Optional;
  t.element_ = std::make_unique<Type>(std::move(element));
  return t;
}

Type Type::map(DataType key, Type value) {
  Type t;
  t.kind_ = Kind::Map;
  t.elem_ = key;
  t.element_ = std::make_unique<Type>(std::move(value));
  return t;
}

Type::Type(const Type& o)
    : denotation(o.denotation),
      opaque(o.opaque),
      proto_quirks(o.proto_quirks),
      kind_(o.kind_),
      elem_(o.elem_),
      shape_(o.shape_),
      element_(o.element_ ? std::make_unique<Type>(*o.element_) : nullptr) {}

Type& Type::operator=(const Type& o) {
  if (this != &o) {
    Type copy(o);
    *this = std::move(copy);
  }
  return *this;
}

static bool same_opaque(const std::shared_ptr<const Type::Opaque>& a,
                        const std::shared_ptr<const Type::Opaque>& b) {
  if (!a || !b) return !a && !b;
  return *a == *b;
}

bool Type::operator==(const Type& o) const {
  if (kind_ != o.kind_ || elem_ != o.elem_ || shape_ != o.shape_ || denotation != o.denotation ||
      !same_opaque(opaque, o.opaque))
    return false;
  if (!element_ || !o.element_) return !element_ && !o.element_;
  return *element_ == *o.element_;
}

std::string Type::to_string() const {
  auto tensor_text = [this] {
    std::string out(dtype_name(elem_));
    if (shape_) out += shape_->to_string();
    return out;
  };
  switch (kind_) {
    case Kind::None:
      return "?";
    case Kind::Tensor:
      return tensor_text();
    case Kind::SparseTensor:
      return "sparse(" + tensor_text() + ")";
    case Kind::Sequence:
      return "seq(" + (element_ ? element_->to_string() : "?") + ")";
    case Kind::Optional:
      return "optional(" + (element_ ? element_->to_string() : "?") + ")";
    case Kind::Map:
      return "map(" + std::string(dtype_name(elem_)) + "," +
             (element_ ? element_->to_string() : "?") + ")";
  }
  return "?";
}

}  // namespace oxs::ir
