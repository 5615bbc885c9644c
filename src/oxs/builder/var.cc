// Var accessors: everything is read from the value and the builder's
// inferencer (constants, data propagation).
#include "oxs/builder/var.h"

#include "oxs/builder/builder.h"

namespace oxs::builder {

namespace {
const std::string kEmpty;
const ir::Type kNone;
}  // namespace

const std::string& Var::name() const {
  return v_ ? v_->name() : kEmpty;
}
const ir::Type& Var::type() const {
  return v_ ? v_->type() : kNone;
}

ir::DataType Var::dtype() const {
  const ir::Type& t = type();
  return t.is_tensor() ? t.elem_type() : ir::DataType::Undefined;
}

std::optional<ir::Shape> Var::shape() const {
  const ir::Type& t = type();
  if (!t.is_tensor()) return std::nullopt;
  return t.shape();
}

std::optional<size_t> Var::rank() const {
  auto s = shape();
  if (!s) return std::nullopt;
  return s->rank();
}

std::shared_ptr<const ir::Tensor> Var::const_value() const {
  if (!v_) return nullptr;
  if (v_->const_value()) return v_->const_value();
  return b_ ? b_->inferencer().constant(v_) : nullptr;
}

std::optional<std::vector<ir::Dim>> Var::known_value() const {
  if (!v_ || !b_) return std::nullopt;
  return b_->inferencer().known_value(v_);
}

std::string Var::to_string() const {
  if (!v_) return "<omitted>";
  std::string s = v_->name() + ": " + (v_->type().is_none() ? "?" : v_->type().to_string());
  if (const_value()) s += " (constant)";
  return s;
}

}  // namespace oxs::builder
