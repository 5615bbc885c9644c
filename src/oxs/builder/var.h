// Var: the handle to a value in a graph being built. It is what the builder,
// the generated typed opsets and the operator overloads (operators.h) pass
// around: a value plus the builder that made it, so `a + b` knows where to put
// the Add. A Var is cheap to copy and does not own anything.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oxs/ir/value.h"

namespace oxs::builder {

class Builder;

class Var {
 public:
  Var() = default;
  Var(Builder* b, ir::Value* v) : b_(b), v_(v) {}

  // False for an omitted optional input/output.
  bool valid() const { return v_ != nullptr; }
  explicit operator bool() const { return valid(); }
  ir::Value* value() const { return v_; }
  Builder* builder() const { return b_; }
  // The same value (Var's == builds an Equal node, see operators.h).
  bool same(const Var& o) const { return v_ == o.v_; }

  const std::string& name() const;
  const ir::Type& type() const;
  // Element type of a tensor value; Undefined when not known.
  ir::DataType dtype() const;
  // Shape of a tensor value; nullopt when the rank is unknown.
  std::optional<ir::Shape> shape() const;
  std::optional<size_t> rank() const;
  // The tensor this value holds, when it is known while building (an
  // initializer, a builder constant or a Constant node's output).
  std::shared_ptr<const ir::Tensor> const_value() const;
  // Known elements of a small integer tensor (a shape, axes): from constants
  // and data propagation, e.g. Shape(x) of x: float[N,3] gives {N, 3}.
  std::optional<std::vector<ir::Dim>> known_value() const;
  // "x: float[N,3]" (plus " = const" when constant).
  std::string to_string() const;

 private:
  Builder* b_ = nullptr;
  ir::Value* v_ = nullptr;
};

}  // namespace oxs::builder
