// Small accessors for the inference rules of oxs's own op versions
// (modern_ops.cc, modern_shapes.cc): input types and shapes, attributes with
// defaults, and errors naming the node. Internal to infer/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oxs/infer/impl.h"
#include "oxs/ir/error.h"

namespace oxs::infer {

// Output types being inferred for a node, one per output (nullopt: unknown).
using Outputs = std::vector<std::optional<ir::Type>>;

inline const ir::Type* input_type(const ir::Node& n, size_t i) {
  return i < n.num_inputs() && n.input(i) ? &n.input(i)->type() : nullptr;
}

inline std::optional<ir::Shape> input_shape(const ir::Node& n, size_t i) {
  const ir::Type* t = input_type(n, i);
  if (!t || !t->is_tensor() || !t->shape()) return std::nullopt;
  return *t->shape();
}

// Element type of input i (Undefined when unknown or not a tensor).
inline ir::DataType elem_of(const ir::Node& n, size_t i) {
  const ir::Type* t = input_type(n, i);
  return t && t->is_tensor() ? t->elem_type() : ir::DataType::Undefined;
}

// Dimension i of `s`, unknown past its rank.
inline ir::Dim dim_at(const ir::Shape& s, size_t i) {
  return i < s.rank() ? s.dims()[i] : ir::Dim::unknown();
}

inline int64_t int_attr(const ir::Node& n, std::string_view name, int64_t dflt) {
  const ir::Attr* a = n.attr(name);
  return a && a->type == ir::AttrType::Int ? a->i : dflt;
}

[[noreturn]] inline void fail(const ir::Node& n, const std::string& message) {
  throw Error(ErrorKind::Invalid, node_label(n) + ": " + message, {.node = n.name()});
}

// Normalizes axis `a` for `rank`; fails on an out-of-range axis.
inline int64_t axis_of(const ir::Node& n, int64_t a, int64_t rank) {
  if (a < -rank || a >= rank) {
    fail(n, "axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
  }
  return a < 0 ? a + rank : a;
}

}  // namespace oxs::infer
