#include "oxs/ir/node.h"

#include "oxs/ir/error.h"
#include "oxs/ir/graph.h"

namespace oxs::ir {

Node::Node(std::string op_type, std::string domain, std::span<Value* const> inputs,
           size_t num_outputs)
    : op_type_(std::move(op_type)), domain_(std::move(domain)) {
  inputs_.reserve(inputs.size());
  for (Value* v : inputs) append_input(v);
  outputs_.reserve(num_outputs);
  for (size_t i = 0; i < num_outputs; ++i) append_output();
}

Node::~Node() {
  detach_inputs();
}

std::string Node::display_name() const {
  return name_.empty() ? op_type_ : name_;
}

std::vector<Value*> Node::inputs() const {
  std::vector<Value*> out;
  out.reserve(inputs_.size());
  for (const Input& in : inputs_) out.push_back(in.value);
  return out;
}

void Node::set_input(size_t i, Value* v) {
  Input& in = inputs_.at(i);
  if (in.value == v) return;
  if (in.value) in.value->remove_use(in.slot);
  in.value = v;
  in.slot = v ? v->add_use(this, static_cast<uint32_t>(i)) : 0;
}

void Node::append_input(Value* v) {
  auto index = static_cast<uint32_t>(inputs_.size());
  inputs_.push_back({v, v ? v->add_use(this, index) : 0});
}

void Node::resize_inputs(size_t n) {
  while (inputs_.size() > n) {
    set_input(inputs_.size() - 1, nullptr);
    inputs_.pop_back();
  }
  while (inputs_.size() < n) append_input(nullptr);
}

void Node::remove_input(size_t i) {
  std::vector<Value*> rest;
  for (size_t k = i + 1; k < inputs_.size(); ++k) rest.push_back(inputs_[k].value);
  resize_inputs(i);
  for (Value* v : rest) append_input(v);
}

void Node::detach_inputs() {
  for (size_t i = 0; i < inputs_.size(); ++i) set_input(i, nullptr);
}

std::vector<Value*> Node::outputs() const {
  std::vector<Value*> out;
  out.reserve(outputs_.size());
  for (const auto& v : outputs_) out.push_back(v.get());
  return out;
}

Value* Node::append_output(std::string name) {
  auto v = std::make_unique<Value>(std::move(name));
  v->producer_ = this;
  v->output_index_ = static_cast<uint32_t>(outputs_.size());
  outputs_.push_back(std::move(v));
  return outputs_.back().get();
}

void Node::remove_output(size_t i, bool keep_slot) {
  Value* v = outputs_.at(i).get();
  if (v && (v->has_uses() || v->is_graph_output())) {
    throw Error(ErrorKind::Internal, "cannot remove output '" + v->name() + "' of node '" +
                                         display_name() + "': it is still used");
  }
  if (keep_slot) {
    outputs_[i].reset();
    return;
  }
  outputs_.erase(outputs_.begin() + static_cast<std::ptrdiff_t>(i));
  for (size_t k = i; k < outputs_.size(); ++k) {
    if (outputs_[k]) outputs_[k]->output_index_ = static_cast<uint32_t>(k);
  }
}

const Attr* Node::attr(std::string_view name) const {
  for (const Attr& a : attrs_) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

Attr* Node::attr(std::string_view name) {
  for (Attr& a : attrs_) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

void Node::set_attr(Attr a) {
  if (Attr* existing = attr(a.name)) {
    *existing = std::move(a);
  } else {
    attrs_.push_back(std::move(a));
  }
  adopt_subgraphs();
}

bool Node::remove_attr(std::string_view name) {
  for (auto it = attrs_.begin(); it != attrs_.end(); ++it) {
    if (it->name == name) {
      attrs_.erase(it);
      return true;
    }
  }
  return false;
}

std::vector<Graph*> Node::subgraphs() const {
  std::vector<Graph*> out;
  for (const Attr& a : attrs_) {
    if (a.g) out.push_back(a.g.get());
    for (const auto& g : a.graphs) out.push_back(g.get());
  }
  return out;
}

void Node::adopt_subgraphs() {
  for (Attr& a : attrs_) {
    if (a.g) a.g->owner_ = this;
    for (auto& g : a.graphs) g->owner_ = this;
  }
}

}  // namespace oxs::ir
