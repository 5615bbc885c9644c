#include "oxs/ir/graph.h"

#include <algorithm>

#include "oxs/ir/error.h"

namespace oxs::ir {

// ---- iteration ----

NodeIterator& NodeIterator::operator++() {
  do {
    cur_ = reverse_ ? cur_->prev() : cur_->next();
  } while (cur_->is_erased());
  return *this;
}

NodeIterator& NodeIterator::operator--() {
  do {
    cur_ = reverse_ ? cur_->next() : cur_->prev();
  } while (cur_->is_erased());
  return *this;
}

// ---- construction ----

Graph::Graph(std::string name)
    : name_(std::move(name)),
      sentinel_(std::make_unique<Node>("<sentinel>", std::span<Value* const>{}, 0)),
      names_(std::make_shared<NameAuthority>()) {
  sentinel_->is_sentinel_ = true;
  sentinel_->next_ = sentinel_->prev_ = sentinel_.get();
  sentinel_->graph_ = this;
}

Graph::~Graph() {
  // Drop every use first, nested graphs included, so that no node outlives a
  // value it reads whatever order the nodes are freed in.
  for_each_node_recursive([](Node* n) { n->detach_inputs(); });
  Node* n = sentinel_->next_;
  while (n != sentinel_.get()) {
    Node* next = n->next_;
    delete n;
    n = next;
  }
  graveyard_.clear();
}

std::unique_ptr<Graph> Graph::make_subgraph(std::string name) const {
  auto g = std::make_unique<Graph>(std::move(name));
  g->names_ = names_;
  return g;
}

Graph* Graph::parent() const {
  return owner_ ? owner_->graph() : nullptr;
}

Value* Graph::own(std::unique_ptr<Value> v) {
  Value* raw = v.get();
  raw->owner_graph_ = this;
  owned_.emplace(raw, std::move(v));
  return raw;
}

void Graph::release(Value* v) {
  owned_.erase(v);
}

// ---- inputs / outputs / initializers ----

Value* Graph::add_input(std::string name, Type type) {
  Value* v = own(std::make_unique<Value>(std::move(name), std::move(type)));
  v->is_graph_input_ = true;
  inputs_.push_back(v);
  return v;
}

void Graph::remove_input(size_t i) {
  Value* v = inputs_.at(i);
  if (v->has_uses() || v->is_graph_output()) {
    throw Error(ErrorKind::Internal, "cannot remove graph input '" + v->name() + "': still used");
  }
  inputs_.erase(inputs_.begin() + static_cast<std::ptrdiff_t>(i));
  v->is_graph_input_ = false;
  if (!v->is_initializer_) release(v);
}

void Graph::demote_input_to_initializer(size_t i) {
  Value* v = inputs_.at(i);
  if (!v->is_initializer_) {
    throw Error(ErrorKind::Internal, "graph input '" + v->name() + "' has no initializer");
  }
  inputs_.erase(inputs_.begin() + static_cast<std::ptrdiff_t>(i));
  v->is_graph_input_ = false;
}

void Graph::add_output(Value* v) {
  outputs_.push_back(v);
  ++v->graph_output_count_;
}

void Graph::set_output(size_t i, Value* v) {
  Value*& slot = outputs_.at(i);
  --slot->graph_output_count_;
  slot = v;
  ++v->graph_output_count_;
}

void Graph::remove_output(size_t i) {
  --outputs_.at(i)->graph_output_count_;
  outputs_.erase(outputs_.begin() + static_cast<std::ptrdiff_t>(i));
}

Value* Graph::add_initializer(std::string name, std::shared_ptr<Tensor> tensor) {
  Value* v = own(std::make_unique<Value>(std::move(name)));
  if (tensor) v->type_ = Type::tensor(tensor->dtype(), Shape::of(tensor->dims()));
  v->const_value_ = std::move(tensor);
  v->is_initializer_ = true;
  initializers_.push_back(v);
  return v;
}

void Graph::set_input_initializer(Value* input, std::shared_ptr<Tensor> tensor) {
  input->const_value_ = std::move(tensor);
  if (!input->is_initializer_) {
    input->is_initializer_ = true;
    initializers_.push_back(input);
  }
}

void Graph::remove_initializers_if(const std::function<bool(Value*)>& pred) {
  std::vector<Value*> kept;
  kept.reserve(initializers_.size());
  for (Value* v : initializers_) {
    if (!pred(v)) {
      kept.push_back(v);
      continue;
    }
    v->is_initializer_ = false;
    v->const_value_.reset();
    if (v->is_graph_input_) continue;
    if (v->has_uses() || v->is_graph_output()) {
      throw Error(ErrorKind::Internal, "cannot remove initializer '" + v->name() + "': still used");
    }
    release(v);
  }
  initializers_ = std::move(kept);
}

Value* Graph::add_annotation_value(std::string name, Type type) {
  return own(std::make_unique<Value>(std::move(name), std::move(type)));
}

// ---- nodes ----

NodeRange Graph::nodes() const {
  Node* s = sentinel_.get();
  return {NodeIterator(s->next_, false), NodeIterator(s, false)};
}

NodeRange Graph::nodes_reversed() const {
  Node* s = sentinel_.get();
  return {NodeIterator(s->prev_, true), NodeIterator(s, true)};
}

Node* Graph::first_node() const {
  return num_nodes_ ? sentinel_->next_ : nullptr;
}

Node* Graph::last_node() const {
  return num_nodes_ ? sentinel_->prev_ : nullptr;
}

void Graph::link_before(Node* pos, Node* n) {
  if (n->graph_ && n->graph_ != this) {
    throw Error(ErrorKind::Internal, "node '" + n->display_name() + "' belongs to another graph");
  }
  n->graph_ = this;
  n->erased_ = false;
  n->next_ = pos;
  n->prev_ = pos->prev_;
  pos->prev_->next_ = n;
  pos->prev_ = n;
  ++num_nodes_;
  n->adopt_subgraphs();
}

Node* Graph::append(std::unique_ptr<Node> n) {
  Node* raw = n.release();
  link_before(sentinel_.get(), raw);
  return raw;
}

Node* Graph::insert_before(Node* pos, std::unique_ptr<Node> n) {
  if (pos->graph_ != this || pos->erased_) {
    throw Error(ErrorKind::Internal, "insert_before: position is not a live node of this graph");
  }
  Node* raw = n.release();
  link_before(pos, raw);
  return raw;
}

Node* Graph::insert_after(Node* pos, std::unique_ptr<Node> n) {
  if (pos->graph_ != this || pos->erased_) {
    throw Error(ErrorKind::Internal, "insert_after: position is not a live node of this graph");
  }
  Node* raw = n.release();
  link_before(pos->next_, raw);
  return raw;
}

void Graph::move_before(Node* n, Node* pos) {
  if (n == pos) return;
  if (n->graph_ != this || pos->graph_ != this || n->erased_ || pos->erased_) {
    throw Error(ErrorKind::Internal, "move_before: nodes are not live nodes of this graph");
  }
  n->prev_->next_ = n->next_;
  n->next_->prev_ = n->prev_;
  --num_nodes_;
  link_before(pos, n);
}

void Graph::reorder_nodes(std::span<Node* const> order) {
  if (order.size() != num_nodes_) {
    throw Error(ErrorKind::Internal, "reorder_nodes: order does not list every node once");
  }
  Node* s = sentinel_.get();
  Node* prev = s;
  for (Node* n : order) {
    if (n->graph_ != this || n->erased_) {
      throw Error(ErrorKind::Internal, "reorder_nodes: a node is not a live node of this graph");
    }
    prev->next_ = n;
    n->prev_ = prev;
    prev = n;
  }
  prev->next_ = s;
  s->prev_ = prev;
}

void Graph::remove(Node* n) {
  if (n->graph_ != this || n->erased_ || n->is_sentinel_) {
    throw Error(ErrorKind::Internal, "remove: node is not a live node of this graph");
  }
  for (size_t i = 0; i < n->num_outputs(); ++i) {
    Value* v = n->output(i);
    if (v && (v->has_uses() || v->is_graph_output())) {
      throw Error(ErrorKind::Internal, "cannot remove node '" + n->display_name() +
                                           "': its output '" + v->name() + "' is still used");
    }
  }
  n->detach_inputs();
  for (Graph* g : n->subgraphs()) g->for_each_node_recursive([](Node* m) { m->detach_inputs(); });
  // Keep next_/prev_ so an iterator standing on `n` can move on.
  n->prev_->next_ = n->next_;
  n->next_->prev_ = n->prev_;
  n->erased_ = true;
  --num_nodes_;
  graveyard_.emplace_back(n);
}

void Graph::collect_garbage() {
  graveyard_.clear();
}

Node* Graph::create_node(std::string op_type, std::span<Value* const> inputs, size_t num_outputs,
                         std::string domain) {
  auto n = std::make_unique<Node>(op_type, std::move(domain), inputs, num_outputs);
  for (size_t i = 0; i < num_outputs; ++i) n->output(i)->set_name(names_->unique_value(op_type));
  n->set_name(names_->unique_node(op_type));
  return append(std::move(n));
}

void Graph::for_each_node_recursive(const std::function<void(Node*)>& f) const {
  for (Node* n : nodes()) {
    f(n);
    for (const Attr& a : n->attrs()) {
      if (a.g) a.g->for_each_node_recursive(f);
      for (const auto& g : a.graphs) g->for_each_node_recursive(f);
    }
  }
}

}  // namespace oxs::ir
