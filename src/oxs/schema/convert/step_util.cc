#include "oxs/schema/convert/step_util.h"

#include <memory>

#include "oxs/ir/error.h"
#include "oxs/ir/tensor.h"

namespace oxs::schema::convert {

void refuse(const ir::Node& node, const std::string& why) {
  const std::string who = node.name().empty()
                              ? "a " + node.op_type() + " node"
                              : "node '" + node.name() + "' (" + node.op_type() + ")";
  throw Error(ErrorKind::Unsupported, who + ": " + why);
}

std::string versioned(const ir::Node& node, int64_t since) {
  return node.op_type() + "-" + std::to_string(since);
}

bool input_absent(const ir::Node& node, size_t i) {
  return i >= node.num_inputs() || node.input(i) == nullptr;
}

namespace {

const ir::Tensor* constant_tensor(const ir::Value& v) {
  if (v.const_value()) return v.const_value().get();
  const ir::Node* p = v.producer();
  if (p == nullptr || p->op_type() != "Constant" || !p->domain().empty()) return nullptr;
  const ir::Attr* a = p->attr("value");
  return a != nullptr && !a->is_reference() ? a->t.get() : nullptr;
}

}  // namespace

std::optional<std::vector<int64_t>> constant_ints(const ir::Node& node, size_t i) {
  if (input_absent(node, i)) return std::nullopt;
  const ir::Value& v = *node.input(i);
  if (const ir::Node* p = v.producer(); p != nullptr && p->op_type() == "Constant") {
    if (const ir::Attr* a = p->attr("value_ints"); a != nullptr && !a->is_reference()) {
      return a->ints;
    }
    if (const ir::Attr* a = p->attr("value_int"); a != nullptr && !a->is_reference()) {
      return std::vector<int64_t>{a->i};
    }
  }
  const ir::Tensor* t = constant_tensor(v);
  if (t == nullptr) return std::nullopt;
  std::vector<int64_t> out;
  if (t->dtype() == ir::DataType::Int64) {
    for (int64_t x : t->data<int64_t>()) out.push_back(x);
  } else if (t->dtype() == ir::DataType::Int32) {
    for (int32_t x : t->data<int32_t>()) out.push_back(x);
  } else {
    return std::nullopt;
  }
  return out;
}

void set_constant_input(ir::Node& node, size_t i, const std::vector<int64_t>& values, bool scalar) {
  std::vector<int64_t> dims;
  if (!scalar) dims.push_back(static_cast<int64_t>(values.size()));
  set_constant_input(node, i,
                     std::make_shared<ir::Tensor>(ir::Tensor::from<int64_t>(
                         ir::DataType::Int64, dims, {values.data(), values.size()})));
}

const ir::Tensor* constant_input(const ir::Node& node, size_t i) {
  return input_absent(node, i) ? nullptr : constant_tensor(*node.input(i));
}

void set_constant_input(ir::Node& node, size_t i, std::shared_ptr<ir::Tensor> t) {
  ir::Graph& g = *node.graph();
  const std::vector<int64_t> dims = t->dims();
  const ir::DataType dtype = t->dtype();
  auto c = std::make_unique<ir::Node>("Constant", std::span<ir::Value* const>{}, 1);
  const std::string base = (node.name().empty() ? node.op_type() : node.name()) + "_const";
  c->set_name(g.names().unique_node(base));
  c->output(0)->set_name(g.names().unique_value(base));
  c->output(0)->set_type(ir::Type::tensor(dtype, ir::Shape::of(dims)));
  c->set_attr(ir::Attr::of_tensor("value", std::move(t)));
  ir::Node* made = g.insert_before(&node, std::move(c));
  while (node.num_inputs() <= i) node.append_input(nullptr);
  node.set_input(i, made->output(0));
}

void drop_input(ir::Node& node, size_t i) {
  if (i >= node.num_inputs()) return;
  ir::Value* v = node.input(i);
  node.set_input(i, nullptr);
  size_t n = node.num_inputs();
  while (n > 0 && node.input(n - 1) == nullptr) --n;
  node.resize_inputs(n);
  if (v == nullptr || v->has_uses() || v->is_graph_output()) return;
  ir::Node* p = v->producer();
  if (p != nullptr && p->op_type() == "Constant" && p->domain().empty() && p->num_outputs() == 1 &&
      p->graph() != nullptr) {
    p->graph()->remove(p);
  }
}

const ir::Type& input_type(const ir::Node& node, size_t i) {
  static const ir::Type none;
  return input_absent(node, i) ? none : node.input(i)->type();
}

std::optional<int64_t> input_rank(const ir::Node& node, size_t i) {
  const ir::Type& t = input_type(node, i);
  if (!t.is_tensor() || !t.shape()) return std::nullopt;
  return static_cast<int64_t>(t.shape()->rank());
}

}  // namespace oxs::schema::convert
