#include "oxs/rewrite/core/rewriter.h"

#include <algorithm>

#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/rewrite/core/op_index.h"

namespace oxs::rewrite {

namespace {
std::string node_ref(const ir::Node& n) {
  return n.name().empty() ? n.op_type() : n.op_type() + " '" + n.name() + "'";
}
}  // namespace

Rewriter::Rewriter(ir::Model& model) : model_(model) {
  infer::Options o;
  o.data_propagation = false;
  o.unknown_ops_are_errors = false;
  inferencer_ = std::make_unique<infer::Inferencer>(model_, o);
  for (const auto& f : model_.functions) function_of_[f->body.get()] = f.get();
}

Rewriter::~Rewriter() = default;

bool Rewriter::begin(const std::string& rule, ir::Node& root) {
  if (in_application_) throw Error(ErrorKind::Internal, "nested rule application of " + rule);
  if (budget_exhausted()) return false;
  in_application_ = true;
  current_rule_ = &rule;
  ++applications_;
  if (counted_rule_ != &rule) {
    counted_ = &per_rule_[rule];
    counted_rule_ = &rule;
  }
  ++*counted_;
  if (recording_) {
    created_.clear();
    ir::PrintOptions po;
    log_.push_back({applications_, rule, node_ref(root), ir::print_node_line(root, po), ""});
  }
  return true;
}

void Rewriter::end() {
  if (!in_application_) throw Error(ErrorKind::Internal, "Rewriter::end without begin");
  in_application_ = false;
  if (recording_) {
    std::string after;
    for (ir::Node* n : created_) {
      if (!n->is_erased()) after += ir::print_node_line(*n) + "\n";
    }
    log_.back().after = after;
    created_.clear();
  }
}

const ir::Graph& Rewriter::top_graph(const ir::Graph& g) const {
  const ir::Graph* cur = &g;
  while (cur->owner() && cur->owner()->graph()) cur = cur->owner()->graph();
  return *cur;
}

const std::vector<ir::OpsetImport>& Rewriter::imports(const ir::Graph& g) const {
  auto it = function_of_.find(&top_graph(g));
  if (it != function_of_.end() && !it->second->opset_imports.empty()) {
    return it->second->opset_imports;
  }
  return model_.opset_imports;
}

int64_t Rewriter::opset(const ir::Graph& g, std::string_view domain) const {
  auto v = ir::find_opset(imports(g), std::string(domain));
  return v.value_or(0);
}

void Rewriter::infer(ir::Node& n) {
  try {
    inferencer_->infer_node(n, &imports(*n.graph()));
  } catch (const Error& e) {
    // A rule's fault, and rules come from users too (--rules): Invalid, not Internal.
    throw Error(ErrorKind::Invalid,
                (current_rule_ ? "rule " + *current_rule_ : std::string("a rewrite")) +
                    " created an invalid node " + ir::print_node_line(n) + ": " + e.message());
  }
}

ir::Node* Rewriter::create_node(ir::Node& pos, std::string op_type, std::vector<ir::Value*> inputs,
                                std::vector<ir::Attr> attrs, size_t num_outputs,
                                std::string domain) {
  ir::Graph& g = *pos.graph();
  auto node = std::make_unique<ir::Node>(op_type, std::move(domain), inputs, num_outputs);
  for (ir::Attr& a : attrs) node->set_attr(std::move(a));
  node->set_name(g.names().unique_node(op_type));
  for (size_t i = 0; i < num_outputs; ++i) {
    node->output(i)->set_name(g.names().unique_value(op_type));
  }
  ir::Node* n = g.insert_before(&pos, std::move(node));
  ++nodes_created_;
  if (op_index_) op_index_->added(*n);
  infer(*n);
  if (recording_ && in_application_) created_.push_back(n);
  if (listener_) listener_->node_created(*n);
  return n;
}

ir::Value* Rewriter::constant(ir::Node& pos, ir::Tensor t, std::string_view base_name) {
  ir::Graph& g = *pos.graph();
  std::string base(base_name.empty() ? std::string_view("const") : base_name);
  if (is_main_graph(g) && model_.ir_version >= 4) {
    std::string name = g.names().unique_value(base);
    t.name = name;
    ir::DataType dt = t.dtype();
    std::vector<int64_t> dims = t.dims();
    ir::Value* v = g.add_initializer(name, std::make_shared<ir::Tensor>(std::move(t)));
    v->set_type(ir::Type::tensor(dt, ir::Shape::of(dims)));
    return v;
  }
  std::vector<ir::Attr> attrs;
  attrs.push_back(ir::Attr::of_tensor("value", std::make_shared<ir::Tensor>(std::move(t))));
  return create_node(pos, "Constant", {}, std::move(attrs))->output(0);
}

void Rewriter::replace_all_uses(ir::Value* from, ir::Value* to) {
  if (from == to) return;
  users_.clear();
  if (listener_) {
    for (const ir::Use& u : from->uses()) users_.push_back(u.user);
  }
  from->replace_all_uses_with(to, false);
  for (ir::Node* u : users_) listener_->node_changed(*u);
  if (!from->is_graph_output()) return;
  ir::Graph* g = from->graph();
  if (to->type().is_none()) to->set_type(from->type());
  bool can_take_name = to->producer() && to->graph() == g && !to->is_graph_output() &&
                       !to->is_graph_input() && !to->is_initializer();
  std::string name = from->name();
  from->set_name(g->names().unique_value(name));
  ir::Value* out = to;
  if (can_take_name) {
    to->set_name(name);
  } else {
    ir::Node* pos = from->producer();
    auto node = std::make_unique<ir::Node>("Identity", std::vector<ir::Value*>{to}, 1);
    node->set_name(g->names().unique_node("Identity"));
    node->output(0)->set_name(name);
    node->output(0)->set_type(from->type());
    ir::Node* n = pos ? g->insert_after(pos, std::move(node)) : g->append(std::move(node));
    ++nodes_created_;
    if (op_index_) op_index_->added(*n);
    if (recording_ && in_application_) created_.push_back(n);
    if (listener_) listener_->node_created(*n);
    out = n->output(0);
  }
  for (size_t i = 0; i < g->outputs().size(); ++i) {
    if (g->outputs()[i] == from) g->set_output(i, out);
  }
}

void Rewriter::set_input(ir::Node& n, size_t i, ir::Value* v) {
  n.set_input(i, v);
  if (listener_) listener_->node_changed(n);
}

void Rewriter::set_attr(ir::Node& n, ir::Attr a) {
  std::vector<const ir::Graph*> subs;
  if (a.g) subs.push_back(a.g.get());
  for (const auto& g : a.graphs) subs.push_back(g.get());
  n.set_attr(std::move(a));
  // The nodes of a replaced subgraph stay counted (high is safe).
  if (op_index_ && !subs.empty()) {
    for (const ir::Graph* g : subs) op_index_->added_graph(*g);
    op_index_->make_inexact();
  }
  if (listener_) listener_->node_changed(n);
}

void Rewriter::changed(ir::Node& n) {
  if (op_index_) op_index_->changed(n);
  if (listener_) listener_->node_changed(n);
}

size_t Rewriter::remove_unused_initializers(ir::Graph& g) {
  size_t before = g.initializers().size();
  g.remove_initializers_if(
      [](ir::Value* v) { return !v->has_uses() && !v->is_graph_input() && !v->is_graph_output(); });
  return before - g.initializers().size();
}

const ir::Function& Rewriter::ensure_function(
    const std::string& domain, const std::string& name,
    const std::function<std::unique_ptr<ir::Function>()>& make) {
  if (const ir::Function* f = model_.find_function(domain, name)) return *f;
  ir::Function& f = model_.functions.push_back(make());
  function_of_[f.body.get()] = &f;
  if (op_index_) op_index_->added_graph(*f.body);
  if (!ir::find_opset(model_.opset_imports, domain)) model_.opset_imports.push_back({domain, 1});
  return f;
}

size_t Rewriter::remove_functions_if(const std::function<bool(const ir::Function&)>& unused) {
  size_t n =
      model_.functions.erase_if([&](const std::unique_ptr<ir::Function>& f) { return unused(*f); });
  if (n) {
    // Their bodies' nodes are freed now, unmarked.
    if (op_index_) op_index_->make_inexact();
    function_of_.clear();
    for (const auto& f : model_.functions) function_of_[f->body.get()] = f.get();
  }
  return n;
}

void Rewriter::erase(ir::Node& n) {
  if (listener_) listener_->node_erased(n);
  size_t inner = 0;
  // (Node::subgraphs() would allocate for every node erased.)
  auto count = [&inner](const ir::Graph& sub) {
    sub.for_each_node_recursive([&](ir::Node*) { ++inner; });
  };
  for (const ir::Attr& a : n.attrs()) {
    if (a.g) count(*a.g);
    for (const auto& sub : a.graphs) count(*sub);
  }
  if (op_index_) op_index_->erased(n);
  ir::Graph* g = n.graph();
  g->remove(&n);
  nodes_erased_ += 1 + inner;
  if (dirty_graphs_.empty() || dirty_graphs_.back() != g) dirty_graphs_.push_back(g);
}

void Rewriter::collect_garbage() {
  std::sort(dirty_graphs_.begin(), dirty_graphs_.end());
  dirty_graphs_.erase(std::unique(dirty_graphs_.begin(), dirty_graphs_.end()), dirty_graphs_.end());
  if (op_index_ && !dirty_graphs_.empty()) op_index_->drop_erased();
  for (ir::Graph* g : dirty_graphs_) g->collect_garbage();
  dirty_graphs_.clear();
}

void Rewriter::erase_if_dead(ir::Node& start) {
  // stack_ is a member, reused; erase() does not touch it.
  size_t base = stack_.size();
  stack_.push_back(&start);
  while (stack_.size() > base) {
    ir::Node* n = stack_.back();
    stack_.pop_back();
    if (n->is_erased() || !n->graph()) continue;
    bool dead = true;
    for (size_t i = 0; i < n->num_outputs() && dead; ++i) {
      const ir::Value* o = n->output(i);
      dead = !o || (!o->has_uses() && !o->is_graph_output());
    }
    if (!dead) continue;
    for (size_t i = n->num_inputs(); i-- > 0;) {
      if (n->input(i) && n->input(i)->producer()) stack_.push_back(n->input(i)->producer());
    }
    erase(*n);
  }
}

}  // namespace oxs::rewrite
