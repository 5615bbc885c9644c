// Attribute<T>: one field of a generated attribute struct. It holds a value
// the caller set, the op's default (not written to the node), or a reference
// to an attribute parameter of the function being built (ONNX ref_attr_name).
// Implicit constructors let designated initializers read like keyword
// arguments: op.Gemm(a, b, c, {.alpha = 2.0f, .transB = 1}).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "oxs/ir/attr.h"
#include "oxs/ir/graph.h"

namespace oxs::builder {

// A reference to an attribute parameter of the enclosing function:
// {.axis = oxs::ref("axis")}.
struct Ref {
  std::string name;
};
inline Ref ref(std::string name) {
  return Ref{std::move(name)};
}

template <class T>
struct AttrTraits;
#define OXS_ATTR_TRAIT(CppType, Kind)                        \
  template <>                                                \
  struct AttrTraits<CppType> {                               \
    static constexpr ir::AttrType type = ir::AttrType::Kind; \
  };
OXS_ATTR_TRAIT(float, Float)
OXS_ATTR_TRAIT(int64_t, Int)
OXS_ATTR_TRAIT(std::string, String)
OXS_ATTR_TRAIT(ir::Tensor, Tensor)
OXS_ATTR_TRAIT(std::unique_ptr<ir::Graph>, Graph)
OXS_ATTR_TRAIT(ir::SparseTensor, SparseTensor)
OXS_ATTR_TRAIT(ir::Type, TypeProto)
OXS_ATTR_TRAIT(std::vector<float>, Floats)
OXS_ATTR_TRAIT(std::vector<int64_t>, Ints)
OXS_ATTR_TRAIT(std::vector<std::string>, Strings)
OXS_ATTR_TRAIT(std::vector<ir::Tensor>, Tensors)
OXS_ATTR_TRAIT(std::vector<std::unique_ptr<ir::Graph>>, Graphs)
OXS_ATTR_TRAIT(std::vector<ir::SparseTensor>, SparseTensors)
OXS_ATTR_TRAIT(std::vector<ir::Type>, TypeProtos)
#undef OXS_ATTR_TRAIT

template <class T>
struct IsVector : std::false_type {};
template <class E>
struct IsVector<std::vector<E>> : std::true_type {
  using elem = E;
};

// Builds an ir::Attr from a C++ value (used by Attribute and by callers that
// assemble attribute lists by hand).
ir::Attr make_attr(std::string name, float v);
ir::Attr make_attr(std::string name, int64_t v);
ir::Attr make_attr(std::string name, std::string v);
ir::Attr make_attr(std::string name, ir::Tensor v);
ir::Attr make_attr(std::string name, std::unique_ptr<ir::Graph> v);
ir::Attr make_attr(std::string name, ir::SparseTensor v);
ir::Attr make_attr(std::string name, ir::Type v);
ir::Attr make_attr(std::string name, std::vector<float> v);
ir::Attr make_attr(std::string name, std::vector<int64_t> v);
ir::Attr make_attr(std::string name, std::vector<std::string> v);
ir::Attr make_attr(std::string name, std::vector<ir::Tensor> v);
ir::Attr make_attr(std::string name, std::vector<std::unique_ptr<ir::Graph>> v);
ir::Attr make_attr(std::string name, std::vector<ir::SparseTensor> v);
ir::Attr make_attr(std::string name, std::vector<ir::Type> v);

template <class T>
class Attribute {
 public:
  Attribute() = default;
  Attribute(T v) : value_(std::move(v)) {}       // NOLINT: implicit on purpose
  Attribute(Ref r) : ref_(std::move(r.name)) {}  // NOLINT
  // Numbers of another arithmetic type (`.transB = 1`, `.alpha = 2`).
  template <class U>
  requires(std::is_arithmetic_v<T>&& std::is_arithmetic_v<U> && !std::is_same_v<T, U>)
      Attribute(U v)
      : value_(static_cast<T>(v)) {}  // NOLINT
  // Lists: `.perm = {0, 2, 1}`.
  template <class U = T>
  requires IsVector<U>::value Attribute(std::initializer_list<typename IsVector<U>::elem> l)
      : value_(U(l)) {}  // NOLINT
  // Strings from literals.
  template <class U = T>
  requires std::is_same_v<U, std::string> Attribute(const char* s)
      : value_(std::string(s)) {}  // NOLINT
  // Element types for `to`-style attributes: `.to = ir::DataType::Float`.
  template <class U = T>
  requires std::is_same_v<U, int64_t> Attribute(ir::DataType t)
      : value_(static_cast<int64_t>(t)) {}  // NOLINT

  // The op's default: documented in the struct, not written to the node.
  static Attribute defaulted(T v) {
    Attribute a(std::move(v));
    a.is_default_ = true;
    return a;
  }

  bool is_set() const { return value_.has_value() && !is_default_; }
  bool is_ref() const { return !ref_.empty(); }
  const std::optional<T>& value() const { return value_; }

  // Appends this attribute to `out` if it was set or is a reference.
  void append_to(std::vector<ir::Attr>& out, const char* name) && {
    if (is_ref()) {
      out.push_back(ir::Attr::reference(name, AttrTraits<T>::type, ref_));
    } else if (is_set()) {
      out.push_back(make_attr(name, std::move(*value_)));
    }
  }

 private:
  std::optional<T> value_;
  std::string ref_;
  bool is_default_ = false;
};

}  // namespace oxs::builder
