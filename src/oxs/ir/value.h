// A Value is an SSA edge: produced by one node output or a graph input (or an
// initializer), used by any number of node inputs. The use list is kept exact
// on every edge change in O(1) (swap-remove with back-indices held by nodes).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oxs/ir/metadata.h"
#include "oxs/ir/tensor.h"
#include "oxs/ir/type.h"

namespace oxs::ir {

class Graph;
class Node;

// One use of a value: input `index` of node `user`.
struct Use {
  Node* user;
  uint32_t index;
  bool operator==(const Use& o) const { return user == o.user && index == o.index; }
};

class Value {
 public:
  explicit Value(std::string name = {}, Type type = {})
      : name_(std::move(name)), type_(std::move(type)) {}
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  const Type& type() const { return type_; }
  Type& mutable_type() { return type_; }
  void set_type(Type t) { type_ = std::move(t); }
  std::string doc_string;
  StringPairs metadata_props;  // ValueInfoProto.metadata_props (IR 10)
  // onnx/ only: how the loaded protobuf deviated from the canonical encoding
  // (e.g. a field explicitly set to its default), so that saving reproduces
  // it exactly. 0 for anything built in memory.
  uint32_t proto_quirks = 0;

  // The node producing this value, or null for graph inputs and initializers.
  Node* producer() const { return producer_; }
  uint32_t output_index() const { return output_index_; }
  // The graph this value is defined in (for node outputs: the node's graph
  // once the node is inserted).
  Graph* graph() const;

  // Every node input that reads this value, in no particular order.
  const std::vector<Use>& uses() const { return uses_; }
  bool has_uses() const { return !uses_.empty(); }

  // Points every use of this value at `other` instead. With
  // `include_graph_outputs`, graph outputs naming this value are replaced
  // too. Works across subgraphs (uses in nested graphs are ordinary uses).
  void replace_all_uses_with(Value* other, bool include_graph_outputs = false);

  // Set for initializers (and for values known to be constant).
  const std::shared_ptr<Tensor>& const_value() const { return const_value_; }
  void set_const_value(std::shared_ptr<Tensor> t) { const_value_ = std::move(t); }

  bool is_graph_input() const { return is_graph_input_; }
  bool is_initializer() const { return is_initializer_; }
  bool is_graph_output() const { return graph_output_count_ > 0; }

 private:
  friend class Node;
  friend class Graph;

  // Appends a use; returns its slot.
  uint32_t add_use(Node* user, uint32_t index);
  // Removes the use in `slot` by swapping the last use into it.
  void remove_use(uint32_t slot);

  std::string name_;
  Type type_;
  Node* producer_ = nullptr;
  Graph* owner_graph_ = nullptr;  // for inputs/initializers
  uint32_t output_index_ = 0;
  uint32_t graph_output_count_ = 0;
  bool is_graph_input_ = false;
  bool is_initializer_ = false;
  std::vector<Use> uses_;
  std::shared_ptr<Tensor> const_value_;
};

}  // namespace oxs::ir
