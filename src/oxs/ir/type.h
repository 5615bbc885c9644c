// Types of ONNX values: tensors, sparse tensors, sequences, optionals and maps,
// with shapes whose dims are known, symbolic ("N") or unknown. A Type with
// kind None stands for "no type information" (an untyped value).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oxs/ir/dtype.h"

namespace oxs::ir {

// One dimension: a known size, a symbol, or unknown.
class Dim {
 public:
  Dim() = default;
  static Dim known(int64_t v) { return Dim(v); }
  static Dim symbolic(std::string s) { return Dim(std::move(s)); }
  static Dim unknown() { return Dim(); }

  bool is_known() const { return kind_ == Kind::Value; }
  bool is_symbolic() const { return kind_ == Kind::Param; }
  bool is_unknown() const { return kind_ == Kind::Unknown; }
  int64_t value() const { return value_; }
  const std::string& symbol() const { return param_; }

  std::string denotation;  // ONNX dimension denotation, rarely set
  // onnx/ only: how the loaded protobuf deviated from the canonical encoding
  // (e.g. a field explicitly set to its default), so that saving reproduces
  // it exactly. 0 for anything built in memory.
  uint32_t proto_quirks = 0;

  bool operator==(const Dim& o) const {
    return kind_ == o.kind_ && value_ == o.value_ && param_ == o.param_;
  }
  // "3", "N" or "?"
  std::string to_string() const;

 private:
  enum class Kind : uint8_t { Unknown, Value, Param };
  explicit Dim(int64_t v) : kind_(Kind::Value), value_(v) {}
  explicit Dim(std::string s) : kind_(Kind::Param), param_(std::move(s)) {}
  Kind kind_ = Kind::Unknown;
  int64_t value_ = 0;
  std::string param_;
};

// A shape of known rank. Unknown rank is an absent Shape (std::optional).
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);
  explicit Shape(std::vector<Dim> dims) : dims_(std::move(dims)) {}
  static Shape of(const std::vector<int64_t>& dims);

  size_t rank() const { return dims_.size(); }
  const Dim& operator[](size_t i) const { return dims_[i]; }
  Dim& operator[](size_t i) { return dims_[i]; }
  const std::vector<Dim>& dims() const { return dims_; }
  std::vector<Dim>& dims() { return dims_; }
  bool is_static() const;  // every dim known
  // Product of known dims; nullopt if any dim is not known or it overflows.
  std::optional<int64_t> numel() const;
  bool operator==(const Shape& o) const { return dims_ == o.dims_; }
  // "[N,3,224,224]"
  std::string to_string() const;

 private:
  std::vector<Dim> dims_;
};

class Type {
 public:
  enum class Kind : uint8_t { None, Tensor, SparseTensor, Sequence, Optional, Map };

  Type() = default;
  static Type tensor(DataType elem, std::optional<Shape> shape = std::nullopt);
  static Type sparse_tensor(DataType elem, std::optional<Shape> shape = std::nullopt);
  static Type sequence(Type element);
  static Type optional(Type element);
  static Type map(DataType key, Type value);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  // Element type of a (sparse) tensor, or key type of a map.
  DataType elem_type() const { return elem_; }
  void set_elem_type(DataType t) { elem_ = t; }
  const std::optional<Shape>& shape() const { return shape_; }
  std::optional<Shape>& shape() { return shape_; }
  // Element of a sequence/optional, value of a map. Null for other kinds.
  const Type* element() const { return element_.get(); }
  Type* element() { return element_.get(); }

  std::string denotation;
  // ONNX-ML opaque type (TypeProto.opaque_type): kind stays None and this
  // names it; null otherwise. Rarely used (kept so that models using it
  // round-trip), hence a pointer rather than two strings in every Type.
  struct Opaque {
    std::string domain;
    std::string name;
    bool operator==(const Opaque&) const = default;
  };
  std::shared_ptr<const Opaque> opaque;
  // onnx/ only: how the loaded protobuf deviated from the canonical encoding
  // (e.g. a field explicitly set to its default), so that saving reproduces
  // it exactly. 0 for anything built in memory.
  uint32_t proto_quirks = 0;

  bool operator==(const Type& o) const;
  bool operator!=(const Type& o) const { return !(*this == o); }
  // "float[N,3]", "seq(int64[])", "optional(float)", "map(string,float)"
  std::string to_string() const;

  Type(const Type& o);
  Type& operator=(const Type& o);
  Type(Type&&) noexcept = default;
  Type& operator=(Type&&) noexcept = default;

 private:
  Kind kind_ = Kind::None;
  DataType elem_ = DataType::Undefined;
  std::optional<Shape> shape_;
  std::unique_ptr<Type> element_;
};

}  // namespace oxs::ir
