#include "oxs/rewrite/core/constants.h"

#include "oxs/eval/tensor.h"
#include "oxs/ir/graph.h"

namespace oxs::rewrite {

std::shared_ptr<const ir::Tensor> constant_node_tensor(const ir::Node& n) {
  for (const ir::Attr& a : n.attrs()) {
    if (a.is_reference()) return nullptr;
    if (a.name == "value" && a.t) return a.t;
    if (a.name == "value_float") {
      return std::make_shared<ir::Tensor>(ir::Tensor::scalar_float(a.f));
    }
    if (a.name == "value_int") {
      return std::make_shared<ir::Tensor>(ir::Tensor::scalar_int64(a.i));
    }
    if (a.name == "value_floats") {
      return std::make_shared<ir::Tensor>(
          ir::Tensor::from<float>(ir::DataType::Float, {int64_t(a.floats.size())}, a.floats));
    }
    if (a.name == "value_string" || a.name == "value_strings") {
      bool one = a.name == "value_string";
      ir::Tensor t(ir::DataType::String,
                   one ? std::vector<int64_t>{} : std::vector<int64_t>{int64_t(a.strings.size())});
      t.strings = one ? std::vector<std::string>{a.s} : a.strings;
      return std::make_shared<ir::Tensor>(std::move(t));
    }
    if (a.name == "value_ints") {
      return std::make_shared<ir::Tensor>(
          ir::Tensor::from<int64_t>(ir::DataType::Int64, {int64_t(a.ints.size())}, a.ints));
    }
  }
  return nullptr;
}

std::shared_ptr<const ir::Tensor> constant_of(const ir::Value* v) {
  if (!v) return nullptr;
  if (v->is_graph_input()) return nullptr;
  if (v->const_value()) return v->const_value();
  const ir::Node* p = v->producer();
  if (p && p->op_type() == "Constant" && p->domain().empty() && p->num_outputs() == 1) {
    return constant_node_tensor(*p);
  }
  return nullptr;
}

std::optional<std::vector<double>> tensor_doubles(const ir::Tensor& t, size_t max_elements) {
  ir::DataType d = t.dtype();
  if (d == ir::DataType::String || d == ir::DataType::Complex64 || d == ir::DataType::Complex128 ||
      d == ir::DataType::Undefined) {
    return std::nullopt;
  }
  int64_t n = t.numel();
  if (n < 0 || size_t(n) > max_elements) return std::nullopt;
  if (t.expected_nbytes() != int64_t(t.bytes().size())) return std::nullopt;
  eval::Tensor e = eval::Tensor::from_ir(t);
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[size_t(i)] = e.get_as_double(i);
  return out;
}

std::optional<std::vector<int64_t>> tensor_ints(const ir::Tensor& t) {
  if (t.dtype() != ir::DataType::Int64 && t.dtype() != ir::DataType::Int32) return std::nullopt;
  if (t.expected_nbytes() != int64_t(t.bytes().size())) return std::nullopt;
  return eval::Tensor::from_ir(t).to_int_vector();
}

}  // namespace oxs::rewrite
