// A Node is one operator application. It owns its output Values and its
// attributes (which own any subgraphs). Inputs may be null (an omitted
// optional input, "" in ONNX); so may outputs (an omitted optional output).
// Nodes live in a Graph's node list; see graph.h for the iteration rules.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "oxs/ir/attr.h"
#include "oxs/ir/metadata.h"
#include "oxs/ir/value.h"

namespace oxs::ir {

class Graph;

class Node {
 public:
  // A detached node with `num_outputs` fresh unnamed outputs.
  Node(std::string op_type, std::string domain, std::span<Value* const> inputs, size_t num_outputs);
  Node(std::string op_type, std::span<Value* const> inputs, size_t num_outputs = 1)
      : Node(std::move(op_type), {}, inputs, num_outputs) {}
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const std::string& op_type() const { return op_type_; }
  void set_op_type(std::string t) { op_type_ = std::move(t); }
  // "" is the default ONNX domain (also written "ai.onnx").
  const std::string& domain() const { return domain_; }
  void set_domain(std::string d) { domain_ = std::move(d); }
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  std::string doc_string;
  // NodeProto.overload (IR 10): which overload of a model-local function this
  // node calls; "" for operators and the default overload.
  std::string overload;
  StringPairs metadata_props;                                  // IR 10
  std::vector<NodeDeviceConfiguration> device_configurations;  // IR 11
  // onnx/ only: how the loaded protobuf deviated from the canonical encoding
  // (e.g. a field explicitly set to its default), so that saving reproduces
  // it exactly. 0 for anything built in memory.
  uint32_t proto_quirks = 0;
  // The name if set, else "OpType" — for messages.
  std::string display_name() const;

  // ---- inputs ----
  size_t num_inputs() const { return inputs_.size(); }
  // Null for an omitted optional input, and for any i past the inputs the
  // node has (so a hostile model's missing input reads as omitted).
  Value* input(size_t i) const { return i < inputs_.size() ? inputs_[i].value : nullptr; }
  std::vector<Value*> inputs() const;
  void set_input(size_t i, Value* v);
  void append_input(Value* v);
  // Removes trailing inputs down to `n`.
  void resize_inputs(size_t n);
  void remove_input(size_t i);  // shifts later inputs (O(inputs))

  // ---- outputs ----
  size_t num_outputs() const { return outputs_.size(); }
  // Null for an omitted optional output and past the outputs the node has.
  Value* output(size_t i) const { return i < outputs_.size() ? outputs_[i].get() : nullptr; }
  std::vector<Value*> outputs() const;
  // Adds a fresh output; returns it.
  Value* append_output(std::string name = {});
  // Drops output i (must have no uses); later outputs shift. Or, with
  // `keep_slot`, leaves a null there (an omitted optional output).
  void remove_output(size_t i, bool keep_slot = false);

  // ---- attributes (ordered as given) ----
  const std::vector<Attr>& attrs() const { return attrs_; }
  std::vector<Attr>& mutable_attrs() { return attrs_; }
  const Attr* attr(std::string_view name) const;
  Attr* attr(std::string_view name);
  // Replaces an attribute of the same name or appends.
  void set_attr(Attr a);
  bool remove_attr(std::string_view name);
  // Subgraphs of graph / graphs attributes, in attribute order.
  std::vector<Graph*> subgraphs() const;
  // Records this node as the owner of its attributes' subgraphs (set_attr
  // does it; call it after filling mutable_attrs() directly).
  void adopt_subgraphs();

  // The graph containing this node (null while detached).
  Graph* graph() const { return graph_; }
  bool is_erased() const { return erased_; }
  Node* next() const { return next_; }
  Node* prev() const { return prev_; }

  // Drops all input uses (inputs become null). Used before destruction.
  void detach_inputs();

 private:
  friend class Graph;
  friend class Value;
  struct Input {
    Value* value;
    uint32_t slot;  // index of this use in value->uses_
  };
  void fix_slot(uint32_t index, uint32_t slot) { inputs_[index].slot = slot; }

  std::string op_type_;
  std::string domain_;
  std::string name_;
  std::vector<Input> inputs_;
  std::vector<std::unique_ptr<Value>> outputs_;
  std::vector<Attr> attrs_;
  Graph* graph_ = nullptr;
  Node* prev_ = nullptr;
  Node* next_ = nullptr;
  bool erased_ = false;
  bool is_sentinel_ = false;
  friend class NodeList;
};

}  // namespace oxs::ir
