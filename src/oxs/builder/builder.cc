// Builder: graph interface, node creation (check + infer at each node),
// opset imports, functions and subgraphs. Constants: constants.cc; error
// dumps: dump.cc; cleanups: cleanup.cc; inlining: inline.cc.
#include "oxs/builder/builder.h"

#include <algorithm>

#include "oxs/builder/shared.h"
#include "oxs/ir/error.h"
#include "oxs/ir/verifier.h"
#include "oxs/schema/ir_version.h"

namespace oxs::builder {

namespace {

std::string normal_domain(const std::string& d) {
  return d == "ai.onnx" ? std::string() : d;
}

std::string domain_label(const std::string& d) {
  return d.empty() ? "ai.onnx" : d;
}

}  // namespace

ir::Shape shape(std::initializer_list<DimSpec> dims) {
  std::vector<ir::Dim> ds;
  ds.reserve(dims.size());
  for (const auto& d : dims) ds.push_back(d.dim);
  return ir::Shape(std::move(ds));
}

ir::Type tensor(ir::DataType dtype, std::optional<ir::Shape> shape) {
  return ir::Type::tensor(dtype, std::move(shape));
}

Builder::Builder(BuilderOptions options) : shared_(std::make_shared<Shared>(std::move(options))) {
  ir::Model& m = *shared_->model;
  m.ir_version = 8;
  m.producer_name = shared_->options.producer_name;
  // ai.onnx is imported by the first opset object (oxs::opset13 op(b)) or, if
  // a node comes first, at options.opset.
  graph_ = m.graph.get();
  graph_->set_name(shared_->options.graph_name);
}

Builder::Builder(std::shared_ptr<Shared> shared, Builder* parent,
                 std::unique_ptr<ir::Function> function, std::unique_ptr<ir::Graph> subgraph)
    : shared_(std::move(shared)),
      function_(std::move(function)),
      subgraph_(std::move(subgraph)),
      parent_(parent),
      depth_(parent->depth_ + 1) {
  graph_ = function_ ? function_->body.get() : subgraph_.get();
}

Builder::~Builder() = default;

// Whether `v` is defined in this builder's graph or an enclosing one (a
// subgraph under construction is not attached yet, so walk the builders; a
// function body sees nothing outside).
bool Builder::sees(const ir::Value* v) const {
  const ir::Graph* home = v->graph();
  for (const Builder* p = this; p; p = p->parent_) {
    if (p->graph_ == home) return true;
    if (p->function_) break;
  }
  return false;
}

ir::Model& Builder::model() {
  return *shared_->model;
}
ir::Graph& Builder::graph() {
  return *graph_;
}
infer::Inferencer& Builder::inferencer() {
  return *shared_->inferencer;
}
const BuilderOptions& Builder::options() const {
  return shared_->options;
}
bool Builder::is_function_body() const {
  return function_ != nullptr;
}
bool Builder::is_subgraph() const {
  return subgraph_ != nullptr;
}

Builder& Builder::name_next(std::string base) {
  next_name_ = std::move(base);
  return *this;
}

// ---- graph interface ----

Var Builder::input(std::string name, ir::Type type) {
  if (!graph_) throw Error(ErrorKind::Usage, "builder: input() after finish()");
  if (name.empty())
    name = graph_->names().unique_value("input");
  else if (!graph_->names().claim_value(name)) {
    throw Error(ErrorKind::Usage, "builder: cannot add input '" + name +
                                      "': the name is already used in graph '" + graph_->name() +
                                      "'; pick another name");
  }
  return Var(this, graph_->add_input(std::move(name), std::move(type)));
}

Var Builder::input(std::string name, ir::DataType dtype, std::optional<ir::Shape> shape) {
  return input(std::move(name), ir::Type::tensor(dtype, std::move(shape)));
}

void Builder::output(Var v, std::string name, ir::Type type) {
  if (!v) throw Error(ErrorKind::Usage, "builder: output() of an empty Var");
  ir::Value* val = v.value();
  if (!type.is_none()) {
    val->set_type(infer::merge_types(val->type(), type, "output '" + val->name() + "'"));
  }
  if (!sees(val)) {
    throw Error(ErrorKind::Usage, "builder: value '" + val->name() + "' is not visible in graph '" +
                                      graph_->name() + "'");
  }
  bool own_node_output = val->producer() && val->graph() == graph_ && !val->is_graph_output();
  if (own_node_output) {
    if (!name.empty() && name != val->name()) {
      if (!graph_->names().claim_value(name)) {
        throw Error(ErrorKind::Usage, "builder: cannot name output '" + name +
                                          "': the name is already used; pick another name");
      }
      val->set_name(std::move(name));
    }
    graph_->add_output(val);
    return;
  }
  // Inputs, initializers, outer values and values already output keep their
  // names: a graph output of another name needs its own value.
  std::string base = name.empty() ? val->name() + "_out" : name;
  if (!name.empty() && graph_->names().has_value(name)) {
    throw Error(ErrorKind::Usage, "builder: cannot name output '" + name +
                                      "': the name is already used; pick another name");
  }
  Var id = op("Identity", {v}, {}, {.name = base, .output_names = {base}});
  graph_->add_output(id.value());
}

// ---- opsets ----

int64_t Builder::opset(const std::string& domain) const {
  auto v = ir::find_opset(shared_->model->opset_imports, normal_domain(domain));
  return v ? *v : 0;
}

void Builder::use_opset(const std::string& domain_in, int64_t version) {
  std::string domain = normal_domain(domain_in);
  auto& imports = shared_->model->opset_imports;
  auto have = ir::find_opset(imports, domain);
  if (!have) {
    imports.push_back({domain, version});
    if (parent_ && function_) {
      function_->opset_imports = imports;  // keep the body's imports current
    }
    return;
  }
  if (*have != version) {
    throw Error(ErrorKind::Usage,
                "builder: the model imports " + domain_label(domain) + " opset " +
                    std::to_string(*have) + ", so nodes of opset " + std::to_string(version) +
                    " cannot be added; use the opset class of version " + std::to_string(*have) +
                    " (or BuilderOptions{.opset = " + std::to_string(version) + "})");
  }
}

// ---- nodes ----

std::vector<Var> Builder::make_node(std::string_view op_type, std::vector<Var> inputs,
                                    std::vector<ir::Attr> attrs, OpOptions options) {
  if (!graph_) throw Error(ErrorKind::Usage, "builder: make_node() after finish()");
  std::string op(op_type);
  std::string domain = normal_domain(options.domain);
  for (const Var& v : inputs) {
    if (!v) continue;
    if (!v.builder() || v.builder()->shared_ != shared_) {
      fail_node(op, inputs, "input '" + v.name() + "' was made by another builder");
    }
    if (!sees(v.value())) {
      fail_node(op, inputs,
                "input '" + v.name() + "' is not visible in graph '" + graph_->name() +
                    "' (a function body sees only its own inputs; pass the value as an input)");
    }
  }
  while (!inputs.empty() && !inputs.back()) inputs.pop_back();
  if (!ir::find_opset(shared_->model->opset_imports, domain)) {
    use_opset(domain, domain.empty() ? shared_->options.opset : domain == "ai.onnx.ml" ? 3 : 1);
  }
  std::vector<ir::Value*> raw;
  raw.reserve(inputs.size());
  for (const Var& v : inputs) raw.push_back(v.value());

  std::string base = !next_name_.empty() ? next_name_ : !options.name.empty() ? options.name : op;
  next_name_.clear();
  auto& names = graph_->names();
  auto node = std::make_unique<ir::Node>(op, domain, raw, options.num_outputs);
  node->set_name(names.unique_node(base));
  for (size_t i = 0; i < options.num_outputs; ++i) {
    const std::string& ob = i < options.output_names.size() && !options.output_names[i].empty()
                                ? options.output_names[i]
                                : base;
    node->output(i)->set_name(names.unique_value(ob));
  }
  for (auto& a : attrs) node->set_attr(std::move(a));
  try {
    if (shared_->options.infer) {
      shared_->inferencer->infer_node(*node);
    } else if (shared_->options.check) {
      shared_->inferencer->check_node(*node);
    }
  } catch (const Error& e) {
    node.reset();  // releases its input uses
    fail_node(op, inputs, e.message());
  }
  ir::Node* n = graph_->append(std::move(node));
  history_.push_back(n);
  while (history_.size() > shared_->options.history) history_.pop_front();
  std::vector<Var> out;
  out.reserve(n->num_outputs());
  for (size_t i = 0; i < n->num_outputs(); ++i) out.emplace_back(this, n->output(i));
  return out;
}

Var Builder::op(std::string_view op_type, std::vector<Var> inputs, std::vector<ir::Attr> attrs,
                OpOptions options) {
  options.num_outputs = 1;
  return make_node(op_type, std::move(inputs), std::move(attrs), std::move(options))[0];
}

// ---- functions and subgraphs ----

Builder Builder::function(std::string domain, std::string name,
                          std::vector<std::string> attribute_params) {
  if (domain.empty() || domain == "ai.onnx") {
    throw Error(ErrorKind::Usage, "builder: function '" + name +
                                      "' needs its own domain (not ai.onnx), e.g. \"local\"");
  }
  auto fn = std::make_unique<ir::Function>(domain, name);
  fn->attributes = std::move(attribute_params);
  fn->body->set_name(name);
  fn->opset_imports = shared_->model->opset_imports;
  return Builder(shared_, this, std::move(fn), nullptr);
}

const ir::Function& Builder::add_function(Builder&& body) {
  if (!body.function_) {
    throw Error(ErrorKind::Usage, "builder: add_function() needs a builder from function()");
  }
  if (body.shared_ != shared_) {
    throw Error(ErrorKind::Usage, "builder: the function body was started by another builder");
  }
  ir::Model& m = *shared_->model;
  const ir::Function& f = *body.function_;
  if (m.find_function(f.domain, f.name, f.overload)) {
    throw Error(ErrorKind::Usage, "builder: the model already has a function '" + f.domain + "." +
                                      f.name + "'; pick another name");
  }
  if (f.body->outputs().empty()) {
    throw Error(ErrorKind::Usage,
                "builder: function '" + f.name + "' has no outputs; call output() on its builder");
  }
  if (!ir::find_opset(m.opset_imports, f.domain)) m.opset_imports.push_back({f.domain, 1});
  body.function_->opset_imports = m.opset_imports;
  m.functions.push_back(std::move(body.function_));
  body.graph_ = nullptr;
  return *m.functions.back();
}

std::vector<Var> Builder::call(const ir::Function& f, std::vector<Var> inputs,
                               std::vector<ir::Attr> attrs, OpOptions options) {
  options.domain = f.domain;
  options.num_outputs = f.body->outputs().size();
  if (options.name.empty()) options.name = f.name;
  return make_node(f.name, std::move(inputs), std::move(attrs), std::move(options));
}

Builder Builder::subgraph(std::string name) {
  if (!graph_) throw Error(ErrorKind::Usage, "builder: subgraph() after finish()");
  return Builder(shared_, this, nullptr, graph_->make_subgraph(std::move(name)));
}

std::unique_ptr<ir::Graph> Builder::take_graph() {
  if (!subgraph_) throw Error(ErrorKind::Usage, "builder: take_graph() needs a subgraph builder");
  graph_ = nullptr;
  return std::move(subgraph_);
}

ir::Model Builder::finish(const FinishOptions& options) {
  if (parent_) {
    throw Error(ErrorKind::Usage,
                "builder: finish() is for the main builder; use add_function() "
                "or take_graph() for bodies");
  }
  if (!graph_) throw Error(ErrorKind::Usage, "builder: finish() called twice");
  ir::Model& m = *shared_->model;
  if (!ir::find_opset(m.opset_imports, "")) m.opset_imports.push_back({"", shared_->options.opset});
  if (m.graph->outputs().empty()) {
    throw Error(ErrorKind::Usage, "builder: the graph has no outputs; call output() first");
  }
  for (const ir::Value* o : m.graph->outputs()) {
    if (o->type().is_none()) {
      throw Error(ErrorKind::Usage,
                  "builder: graph output '" + o->name() +
                      "' has no type (inference could not tell what " +
                      (o->producer() ? o->producer()->op_type() : std::string("it")) +
                      " produces); pass it to output(v, name, type)");
    }
  }
  if (options.inline_functions) inline_functions(m, options.keep_function);
  if (options.remove_unused) remove_unused(m, options.remove_identity);
  if (options.verify) ir::verify_or_throw(m);
  // Opsets 19+ and the IR 9+ element types need a newer IR version.
  m.ir_version = std::max(m.ir_version, schema::min_ir_version(m));
  graph_ = nullptr;
  history_.clear();
  dedup_.clear();
  constants_.clear();
  return std::move(m);
}

}  // namespace oxs::builder
