// A Graph: inputs, outputs, initializers and an ordered node list. Nodes sit
// in an intrusive doubly linked list; iterating with `for (Node* n :
// g.nodes())` stays valid while nodes are inserted or removed: a removed node
// keeps its links (and its memory, until collect_garbage()) so an iterator
// standing on it moves on to the next live node, and nodes inserted after the
// current one are visited. Subgraphs (If/Loop/Scan bodies) are Graphs owned by
// a node attribute; their nodes may use values of any enclosing graph.
#pragma once

#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "oxs/ir/name_authority.h"
#include "oxs/ir/node.h"

namespace oxs::ir {

class Graph;

// Iterates live nodes; tolerant of removal of the current node.
class NodeIterator {
 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using value_type = Node*;
  using difference_type = std::ptrdiff_t;
  using pointer = Node**;
  using reference = Node*;

  NodeIterator() = default;
  NodeIterator(Node* n, bool reverse) : cur_(n), reverse_(reverse) {}
  Node* operator*() const { return cur_; }
  NodeIterator& operator++();
  NodeIterator operator++(int) {
    auto t = *this;
    ++*this;
    return t;
  }
  NodeIterator& operator--();
  bool operator==(const NodeIterator& o) const { return cur_ == o.cur_; }

 private:
  Node* cur_ = nullptr;
  bool reverse_ = false;
};

class NodeRange {
 public:
  NodeRange(NodeIterator b, NodeIterator e) : b_(b), e_(e) {}
  NodeIterator begin() const { return b_; }
  NodeIterator end() const { return e_; }

 private:
  NodeIterator b_, e_;
};

// ONNX TensorAnnotation (quantization parameters of a tensor).
struct TensorAnnotation {
  std::string tensor_name;
  std::vector<std::pair<std::string, std::string>> quant_parameter_tensor_names;
};

class Graph {
 public:
  explicit Graph(std::string name = {});
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // A detached graph that shares this graph's name authority, for use as a
  // subgraph of one of this graph's nodes.
  std::unique_ptr<Graph> make_subgraph(std::string name = {}) const;
  // Deep copy. Outer-scope references stay pointed at the same outer values.
  std::unique_ptr<Graph> clone() const;

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  std::string doc_string;
  StringPairs metadata_props;  // GraphProto.metadata_props (IR 10)

  // ---- inputs ----
  Value* add_input(std::string name, Type type = {});
  const std::vector<Value*>& inputs() const { return inputs_; }
  // Removes graph input i; it must have no uses.
  void remove_input(size_t i);
  // Makes graph input i, which must also be an initializer, an initializer
  // only (the value and its uses stay).
  void demote_input_to_initializer(size_t i);

  // ---- outputs ----
  void add_output(Value* v);
  const std::vector<Value*>& outputs() const { return outputs_; }
  void set_output(size_t i, Value* v);
  void remove_output(size_t i);

  // ---- initializers (in order) ----
  // A new value named `name` holding `tensor` (not a graph input).
  Value* add_initializer(std::string name, std::shared_ptr<Tensor> tensor);
  // Marks an existing graph input as also initialized (IR < 4 style).
  void set_input_initializer(Value* input, std::shared_ptr<Tensor> tensor);
  const std::vector<Value*>& initializers() const { return initializers_; }
  // Removes every initializer for which `pred` holds (must have no uses
  // unless it is also a graph input). O(initializers).
  void remove_initializers_if(const std::function<bool(Value*)>& pred);

  // ---- nodes ----
  NodeRange nodes() const;
  NodeRange nodes_reversed() const;
  size_t num_nodes() const { return num_nodes_; }
  Node* first_node() const;  // null if empty
  Node* last_node() const;
  Node* append(std::unique_ptr<Node> n);
  Node* insert_before(Node* pos, std::unique_ptr<Node> n);
  Node* insert_after(Node* pos, std::unique_ptr<Node> n);
  // Moves a node of this graph to just before `pos`.
  void move_before(Node* n, Node* pos);
  // Relinks the live nodes in `order`, which must hold each exactly once.
  void reorder_nodes(std::span<Node* const> order);
  // Unlinks `n` and releases its input uses. Its outputs must be unused
  // (throws otherwise). The memory stays until collect_garbage().
  void remove(Node* n);
  // Frees removed nodes. Call when no iteration over this graph is running.
  void collect_garbage();
  // Convenience: a node appended with inputs and fresh outputs named from
  // the name authority (base: the op type).
  Node* create_node(std::string op_type, std::span<Value* const> inputs, size_t num_outputs = 1,
                    std::string domain = {});

  // ---- nesting ----
  // The node whose attribute owns this graph, or null for a top-level graph.
  Node* owner() const { return owner_; }
  Graph* parent() const;
  NameAuthority& names() const { return *names_; }
  const std::shared_ptr<NameAuthority>& name_authority() const { return names_; }
  void set_name_authority(std::shared_ptr<NameAuthority> a) { names_ = std::move(a); }

  // ---- annotations kept for a lossless round trip ----
  // Values that had (or should get) a value_info entry, in order. Entries
  // may be annotation-only values (owned by the graph) for names that are
  // defined nowhere in this graph.
  std::vector<Value*> value_info;
  // Creates a graph-owned value that is neither input nor initializer.
  Value* add_annotation_value(std::string name, Type type = {});
  std::vector<TensorAnnotation> quantization_annotation;
  std::vector<std::shared_ptr<SparseTensor>> sparse_initializers;
  // A graph output or value_info entry whose ValueInfoProto differs from its
  // value's own type and doc string (the same value listed twice with
  // different annotations, or a subgraph annotating an outer value). Only
  // onnx/ reads these; an entry whose `value` no longer sits at `index` of
  // its list is ignored.
  struct ValueInfoOverride {
    enum class List : uint8_t { Output, ValueInfo };
    List list = List::Output;
    size_t index = 0;
    const Value* value = nullptr;
    Type type;
    std::string doc_string;
    StringPairs metadata_props;
    uint32_t proto_quirks = 0;
  };
  std::vector<ValueInfoOverride> value_info_overrides;
  // onnx/ only: how the loaded protobuf deviated from the canonical encoding
  // (e.g. a field explicitly set to its default), so that saving reproduces
  // it exactly. 0 for anything built in memory.
  uint32_t proto_quirks = 0;

  // Visits this graph's nodes and, recursively, those of all subgraphs
  // (pre-order: a node before the nodes of its subgraphs).
  void for_each_node_recursive(const std::function<void(Node*)>& f) const;

 private:
  friend class Node;
  friend class Value;
  Value* own(std::unique_ptr<Value> v);
  void release(Value* v);
  void link_before(Node* pos, Node* n);

  std::string name_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<Value*> initializers_;
  std::unordered_map<Value*, std::unique_ptr<Value>> owned_;
  std::unique_ptr<Node> sentinel_;
  size_t num_nodes_ = 0;
  std::vector<std::unique_ptr<Node>> graveyard_;
  std::shared_ptr<NameAuthority> names_;
  Node* owner_ = nullptr;
};

}  // namespace oxs::ir
