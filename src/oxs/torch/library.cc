#include "oxs/torch/library.h"

namespace oxs::torch {

const ParamSpec* Candidate::find(std::string_view param) const {
  for (const ParamSpec& p : params) {
    if (p.name == param) return &p;
  }
  return nullptr;
}

void Library::add(Candidate c) {
  c.order = next_order_++;
  by_overload_[c.overload].push_back(std::move(c));
}

const std::vector<Candidate>* Library::find(const std::string& overload) const {
  auto it = by_overload_.find(overload);
  return it == by_overload_.end() ? nullptr : &it->second;
}

std::vector<std::string> Library::overloads() const {
  std::vector<std::string> out;
  out.reserve(by_overload_.size());
  for (const auto& [name, cands] : by_overload_) out.push_back(name);
  return out;
}

std::vector<ir::DataType> float_types() {
  using D = ir::DataType;
  return {D::Float, D::Double, D::Float16, D::BFloat16};
}

std::vector<ir::DataType> numeric_types() {
  using D = ir::DataType;
  return {D::Float, D::Double, D::Float16, D::BFloat16, D::Int8,   D::Int16,
          D::Int32, D::Int64,  D::Uint8,   D::Uint16,   D::Uint32, D::Uint64};
}

}  // namespace oxs::torch
