// The inference driver: per node, find the schema (or the model-local
// function), check the node, call libonnx's inference function through
// NodeContext, merge the results, then propagate known values.
#include <onnx/defs/schema.h>

#include <bit>
#include <climits>

#include "oxs/infer/impl.h"
#include "oxs/infer/ml_types.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/libonnx_bridge.h"
#include "oxs/schema/function_body.h"
#include "oxs/schema/onnx_schema.h"
#include "oxs/schema/registry.h"
#include "oxs/schema/suggest.h"

namespace oxs::infer {

namespace {

std::string normal_domain(const std::string& d) {
  return d == "ai.onnx" ? std::string() : d;
}

bool is_standard_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx.ml" || d == "ai.onnx.training" ||
         d == "ai.onnx.preview.training";
}

// Functions may call each other; a cycle would recurse forever.
constexpr int kMaxFunctionDepth = 64;

}  // namespace

std::string node_label(const ir::Node& n) {
  std::string op = n.domain().empty() ? n.op_type() : n.domain() + "." + n.op_type();
  if (n.name().empty()) return "node (" + op + ")";
  return "node '" + n.name() + "' (" + op + ")";
}

std::optional<std::string> type_string(const ir::Type& t) {
  using K = ir::Type::Kind;
  switch (t.kind()) {
    case K::Tensor:
    case K::SparseTensor:
      if (t.elem_type() == ir::DataType::Undefined) return std::nullopt;
      return std::string(t.kind() == K::Tensor ? "tensor(" : "sparse_tensor(") +
             std::string(ir::dtype_name(t.elem_type())) + ")";
    case K::Sequence:
    case K::Optional: {
      if (!t.element()) return std::nullopt;
      auto e = type_string(*t.element());
      if (!e) return std::nullopt;
      return std::string(t.kind() == K::Sequence ? "seq(" : "optional(") + *e + ")";
    }
    case K::Map: {
      if (!t.element()) return std::nullopt;
      auto e = type_string(*t.element());
      if (!e) return std::nullopt;
      return "map(" + std::string(ir::dtype_name(t.elem_type())) + "," + *e + ")";
    }
    case K::None:
      break;
  }
  return std::nullopt;
}

const ir::Function* Inferencer::Impl::find_function(const ir::Node& n) {
  // The model's own index stays exact as functions come and go.
  return model.find_function(n.domain(), n.op_type());
}

const ::onnx::OpSchema* Inferencer::Impl::find_schema(const ir::Node& n, const Frame& f) {
  std::string domain = normal_domain(n.domain());
  auto version = ir::find_opset(*f.imports, domain);
  if (!version) {
    if (!is_standard_domain(domain)) return nullptr;
    throw Error(ErrorKind::Invalid,
                node_label(n) + ": the graph imports no opset for domain '" +
                    (domain.empty() ? std::string("ai.onnx") : domain) +
                    "'; add an opset import for it",
                {.node = n.name()});
  }
  auto it = schema_cache.find(SchemaKey{domain, n.op_type(), *version});
  if (it != schema_cache.end()) return it->second;
  if (auto latest = schema::latest_opset(domain); latest && *version > *latest) {
    throw Error(ErrorKind::Unsupported,
                node_label(n) + ": the graph imports " +
                    (domain.empty() ? std::string("ai.onnx") : domain) + " opset " +
                    std::to_string(*version) + ", newer than any oxs knows (" +
                    std::to_string(*latest) + ", ONNX 1.23)",
                {.node = n.name()});
  }
  // libonnx's schema of the version in force; null for a version from oxs's
  // own table (opset 18+), which has no libonnx inference function: such
  // nodes are checked against their signature and their outputs left as
  // declared.
  const ::onnx::OpSchema* s = schema::find_onnx_schema(domain, n.op_type(), *version);
  if (!s) {
    if (const schema::OpSignature* sig = schema::lookup(domain, n.op_type(), *version)) {
      if (sig->deprecated) {
        throw Error(ErrorKind::Invalid,
                    node_label(n) + ": " + n.op_type() + " is deprecated since opset " +
                        std::to_string(sig->since_version) + " (the graph imports " +
                        std::to_string(*version) + "); use its replacement",
                    {.node = n.name()});
      }
      cache_schema(domain, n.op_type(), *version, nullptr);
      return nullptr;
    }
  }
  if (!s && is_standard_domain(domain) && options.unknown_ops_are_errors) {
    std::string dname = domain.empty() ? "ai.onnx" : domain;
    const ::onnx::OpSchema* any =
        schema::onnx_schema_registry().GetSchema(n.op_type(), INT_MAX, domain);
    if (any) {
      throw Error(ErrorKind::Invalid,
                  node_label(n) + ": " + n.op_type() + " exists only from " + dname + " opset " +
                      std::to_string(any->since_version()) + " on, but the graph imports opset " +
                      std::to_string(*version) + "; import a newer opset",
                  {.node = n.name()});
    }
    std::string msg = node_label(n) + ": there is no operator '" + n.op_type() + "' in " + dname;
    auto close = schema::suggest_ops(domain, n.op_type(), *version);
    if (!close.empty()) {
      msg += "; did you mean '" + close[0] + "'";
      for (size_t i = 1; i < close.size(); ++i) msg += " or '" + close[i] + "'";
      msg += "?";
    }
    throw Error(ErrorKind::Invalid, msg, {.node = n.name()});
  }
  if (s && s->Deprecated()) {
    throw Error(ErrorKind::Invalid,
                node_label(n) + ": " + n.op_type() + " is deprecated since opset " +
                    std::to_string(s->since_version()) + " (the graph imports " +
                    std::to_string(*version) + "); use its replacement",
                {.node = n.name()});
  }
  cache_schema(domain, n.op_type(), *version, s);
  return s;
}

size_t Inferencer::Impl::SchemaKeyHash::operator()(const SchemaKey& k) const noexcept {
  size_t h = std::hash<std::string_view>()(k.op);
  h = h * 31 + std::hash<std::string_view>()(k.domain);
  return h * 31 + std::hash<int64_t>()(k.version);
}

void Inferencer::Impl::cache_schema(std::string_view domain, std::string_view op, int64_t version,
                                    const ::onnx::OpSchema* s) {
  schema_key_strings.push_back(std::make_unique<std::string>(domain));
  std::string_view d = *schema_key_strings.back();
  schema_key_strings.push_back(std::make_unique<std::string>(op));
  std::string_view o = *schema_key_strings.back();
  schema_cache.emplace(SchemaKey{d, o, version}, s);
}

const ir::Attr* Inferencer::Impl::resolve_attr(const ir::Node& n, std::string_view name,
                                               const Frame& f) {
  const ir::Attr* a = n.attr(name);
  if (!a || !a->is_reference()) return a;
  if (!f.caller_attrs) return nullptr;
  for (const auto& c : *f.caller_attrs) {
    // A caller's own unresolved reference: the value is unknown.
    if (c.name == a->ref_attr_name) return c.is_reference() ? nullptr : &c;
  }
  return nullptr;  // not given by the caller: the op's default applies
}

bool Inferencer::Impl::has_unknown_attr(const ir::Node& n, const Frame& f) {
  for (const auto& a : n.attrs()) {
    if (!a.is_reference()) continue;
    // A function body on its own: no call resolves the reference.
    if (!f.caller_attrs) return true;
    for (const auto& c : *f.caller_attrs) {
      if (c.name == a.ref_attr_name && c.is_reference()) return true;
    }
  }
  return false;
}

std::shared_ptr<const ir::Tensor> Inferencer::Impl::constant_of(const ir::Value* v) const {
  if (v->const_value()) return v->const_value();
  auto it = constants.find(v);
  return it == constants.end() ? nullptr : it->second;
}

const ::onnx::TensorProto* Inferencer::Impl::tensor_proto(const ir::Value* v) {
  auto it = tensor_protos.find(v);
  if (it != tensor_protos.end()) return it->second.get();
  auto c = constant_of(v);
  std::unique_ptr<::onnx::TensorProto> p;
  // Inference needs small values (shapes, axes, pads); never copy weights.
  constexpr size_t kMaxBytes = 1 << 16;
  if (c && c->stored_size() <= kMaxBytes && c->strings.size() <= 4096) {
    p = std::make_unique<::onnx::TensorProto>();
    onnx::tensor_to_proto(*c, p.get());
  } else if (!c) {
    // A value computed by data propagation with every element known (say
    // Shape(x)[1] of a static dim) is as good as a constant.
    auto it = shape_data.find(v);
    const ir::Type& t = v->type();
    bool int_tensor = t.is_tensor() && (t.elem_type() == ir::DataType::Int64 ||
                                        t.elem_type() == ir::DataType::Int32);
    if (it != shape_data.end() && int_tensor && t.shape() && t.shape()->rank() <= 1) {
      const auto& tsp = it->second;
      bool known = true;
      for (const auto& d : tsp.dim()) known = known && d.has_dim_value();
      if (known && (t.shape()->rank() == 1 || tsp.dim_size() == 1)) {
        p = std::make_unique<::onnx::TensorProto>();
        p->set_data_type(static_cast<int32_t>(t.elem_type()));
        if (t.shape()->rank() == 1) p->add_dims(tsp.dim_size());
        for (const auto& d : tsp.dim()) {
          if (t.elem_type() == ir::DataType::Int64) {
            p->add_int64_data(d.dim_value());
          } else {
            p->add_int32_data(static_cast<int32_t>(d.dim_value()));
          }
        }
      }
    }
  }
  auto* raw = p.get();
  tensor_protos.emplace(v, std::move(p));
  return raw;
}

const ::onnx::TensorShapeProto* Inferencer::Impl::shape_data_of(const ir::Value* v) {
  auto it = shape_data.find(v);
  if (it != shape_data.end()) return &it->second;
  auto c = constant_of(v);
  if (!c) {
    // An integer vector of static length 0 has a known value: empty.
    const ir::Type& t = v->type();
    const bool empty =
        t.is_tensor() && t.shape() && t.shape()->rank() == 1 && t.shape()->dims()[0].is_known() &&
        t.shape()->dims()[0].value() == 0 &&
        (t.elem_type() == ir::DataType::Int64 || t.elem_type() == ir::DataType::Int32);
    if (!empty) return nullptr;
    return &shape_data.emplace(v, ::onnx::TensorShapeProto()).first->second;
  }
  if (c->dims().size() > 1) return nullptr;
  ::onnx::TensorShapeProto tsp;
  if (c->dtype() == ir::DataType::Int64) {
    for (int64_t x : c->data<int64_t>()) tsp.add_dim()->set_dim_value(x);
  } else if (c->dtype() == ir::DataType::Int32) {
    for (int32_t x : c->data<int32_t>()) tsp.add_dim()->set_dim_value(x);
  } else {
    return nullptr;
  }
  return &shape_data.emplace(v, std::move(tsp)).first->second;
}

void Inferencer::Impl::record_constant_node(ir::Node& n, const Frame& f) {
  if (n.num_outputs() < 1 || !n.output(0)) return;
  std::shared_ptr<const ir::Tensor> t;
  if (const ir::Attr* a = resolve_attr(n, "value", f); a && a->t) {
    t = a->t;
  } else if (const ir::Attr* a = resolve_attr(n, "value_int", f)) {
    t = std::make_shared<ir::Tensor>(ir::Tensor::scalar_int64(a->i));
  } else if (const ir::Attr* a = resolve_attr(n, "value_float", f)) {
    t = std::make_shared<ir::Tensor>(ir::Tensor::scalar_float(a->f));
  } else if (const ir::Attr* a = resolve_attr(n, "value_ints", f)) {
    t = std::make_shared<ir::Tensor>(ir::Tensor::from<int64_t>(
        ir::DataType::Int64, {static_cast<int64_t>(a->ints.size())}, a->ints));
  } else if (const ir::Attr* a = resolve_attr(n, "value_floats", f)) {
    t = std::make_shared<ir::Tensor>(ir::Tensor::from<float>(
        ir::DataType::Float, {static_cast<int64_t>(a->floats.size())}, a->floats));
  }
  if (t) constants[n.output(0)] = std::move(t);
}

void Inferencer::Impl::merge_output(ir::Node& n, size_t i, ir::Type inferred) {
  ir::Value* v = n.output(i);
  if (!v) return;
  if (v->type().is_none()) {  // the common case while building: nothing to merge
    v->set_type(std::move(inferred));
    return;
  }
  // The label is built only when needed: this runs for every output.
  try {
    v->set_type(merge_types(v->type(), inferred, {}));
  } catch (const Error& e) {
    throw Error(e.kind(),
                "output " + std::to_string(i) + " '" + v->name() + "' of " + node_label(n) + ": " +
                    e.message(),
                {.node = n.name()});
  }
}

void Inferencer::Impl::forget_graph(const ir::Graph& g) {
  auto drop = [this](const ir::Value* v) {
    if (!v) return;
    shape_data.erase(v);
    constants.erase(v);
    tensor_protos.erase(v);
  };
  for (ir::Value* v : g.inputs()) drop(v);
  for (ir::Value* v : g.initializers()) drop(v);
  g.for_each_node_recursive([&](ir::Node* n) {
    for (size_t i = 0; i < n->num_outputs(); ++i) drop(n->output(i));
  });
}

void Inferencer::Impl::infer_function_call(ir::Node& n, const ir::Function& fn, const Frame& f) {
  if (f.depth >= kMaxFunctionDepth) {
    throw Error(ErrorKind::Invalid,
                node_label(n) + ": function calls nest deeper than " +
                    std::to_string(kMaxFunctionDepth) + " (is '" + fn.name + "' recursive?)",
                {.node = n.name()});
  }
  // Attributes of the call, with its own references resolved in our frame.
  std::vector<ir::Attr> attrs;
  for (const auto& a : n.attrs()) {
    const ir::Attr* r = resolve_attr(n, a.name, f);
    if (!r && a.is_reference() && has_unknown_attr(n, f)) {
      // Forwarded from a function body being built (inner(x, alpha=alpha)):
      // passed on as an unknown value, so that the callee's nodes reading it
      // stay uninferred instead of taking the op's default.
      attrs.push_back(a.clone());
      continue;
    }
    if (!r) continue;
    ir::Attr c = r->clone();
    c.name = a.name;
    c.ref_attr_name.clear();
    attrs.push_back(std::move(c));
  }
  // Calls with the same input types and plain attributes infer the same: a
  // model calling one function many times (an exporter's op library) pays
  // for the body once per distinct signature. Known values opt out.
  // Keys hold Function addresses; a removed function's may be reused.
  if (call_cache_removals != model.functions.removals()) {
    call_cache.clear();
    call_cache_removals = model.functions.removals();
  }
  std::string key = call_key(n, fn, attrs, f.imports);
  if (!key.empty()) {
    auto hit = call_cache.find(key);
    if (hit != call_cache.end()) {
      for (size_t i = 0; i < hit->second.size() && i < n.num_outputs(); ++i) {
        merge_output(n, i, hit->second[i]);
      }
      return;
    }
  }
  auto body = fn.body->clone();
  for (size_t i = 0; i < body->inputs().size() && i < n.num_inputs(); ++i) {
    ir::Value* actual = n.input(i);
    ir::Value* formal = body->inputs()[i];
    if (!actual) continue;
    formal->set_type(merge_types(formal->type(), actual->type(),
                                 "input " + std::to_string(i) + " '" + formal->name() +
                                     "' of function '" + fn.name + "' called by " + node_label(n)));
    if (auto c = constant_of(actual)) constants[formal] = c;
    if (auto* sd = shape_data_of(actual)) shape_data[formal] = *sd;
  }
  Frame inner{fn.opset_imports.empty() ? f.imports : &fn.opset_imports, &attrs, f.depth + 1};
  try {
    infer_graph(*body, inner);
  } catch (const Error& e) {
    forget_graph(*body);
    throw Error(e.kind(),
                "in function '" + fn.name + "' called by " + node_label(n) + ": " + e.message(),
                {.node = n.name()});
  }
  std::vector<ir::Type> result;
  for (size_t i = 0; i < body->outputs().size() && i < n.num_outputs(); ++i) {
    ir::Value* out = body->outputs()[i];
    result.push_back(out ? out->type() : ir::Type());
    if (!out) continue;
    merge_output(n, i, out->type());
    if (auto it = shape_data.find(out); it != shape_data.end()) {
      key.clear();  // outputs with known values depend on more than types
      if (n.output(i)) shape_data[n.output(i)] = it->second;
    }
  }
  forget_graph(*body);
  if (!key.empty()) call_cache.emplace(std::move(key), std::move(result));
}

std::string Inferencer::Impl::call_key(const ir::Node& n, const ir::Function& fn,
                                       const std::vector<ir::Attr>& attrs,
                                       const std::vector<ir::OpsetImport>* imports) {
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(&fn)) + "@" +
                    std::to_string(reinterpret_cast<uintptr_t>(imports)) + "|";
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    const ir::Value* v = n.input(i);
    if (!v) {
      key += "-;";
      continue;
    }
    if (constant_of(v) || shape_data.count(v)) return {};
    key += v->type().to_string() + ";";
  }
  for (const auto& a : attrs) {
    key += "|" + a.name + "=";
    switch (a.type) {
      case ir::AttrType::Int:
        key += std::to_string(a.i);
        break;
      case ir::AttrType::Float:
        key += std::to_string(std::bit_cast<uint32_t>(a.f));
        break;
      case ir::AttrType::String:
        key += a.s;
        break;
      case ir::AttrType::Ints:
        for (int64_t x : a.ints) key += std::to_string(x) + ",";
        break;
      case ir::AttrType::Floats:
        for (float x : a.floats) key += std::to_string(std::bit_cast<uint32_t>(x)) + ",";
        break;
      case ir::AttrType::Strings:
        for (const auto& x : a.strings) key += x + "\x1f";
        break;
      default:
        return {};  // tensors, graphs, types: not worth hashing
    }
    if (a.is_reference()) key += "@" + a.ref_attr_name;
  }
  return key;
}

bool Inferencer::Impl::infer_through_op_body(ir::Node& n, const ::onnx::OpSchema& s,
                                             const Frame& f) {
  if (!s.HasFunction() && !s.HasContextDependentFunction()) return false;
  auto version = ir::find_opset(*f.imports, n.domain());
  if (!version) return false;
  const schema::OpSignature* sig = schema::lookup(n.domain(), n.op_type(), *version);
  if (!sig) return false;
  std::unique_ptr<ir::Function> dynamic;
  const ir::Function* body = nullptr;
  try {
    if (sig->has_function_body) {
      auto& cached = op_bodies[&s];
      if (!cached) cached = schema::function_body(*sig, *version);
      body = cached.get();
    } else if (sig->has_context_dependent_function) {
      dynamic = schema::context_dependent_body(*sig, *version, schema::call_site_of(n));
      body = dynamic.get();
    }
  } catch (const Error&) {
    return false;  // no body for this call site: outputs stay unknown
  }
  if (!body) return false;
  infer_function_call(n, *body, f);
  return true;
}

void Inferencer::Impl::infer_graph(ir::Graph& g, const Frame& f) {
  for (ir::Node* n : g.nodes()) infer_node(*n, f);
}

void Inferencer::Impl::infer_node(ir::Node& n, const Frame& f) {
  infer_node_types(n, f);
  if (options.data_propagation) propagate_int_values(n);
}

void Inferencer::Impl::infer_node_types(ir::Node& n, const Frame& f) {
  if (const ir::Function* fn = find_function(n)) {
    if (options.check_signature) check_node(n, f);
    infer_function_call(n, *fn, f);
    return;
  }
  const ::onnx::OpSchema* s = find_schema(n, f);
  if (!s) {
    if (const schema::OpSignature* sig = table_signature(n, f)) {
      infer_table_node(n, *sig, f);
      return;
    }
    for (ir::Graph* g : n.subgraphs()) infer_graph(*g, f);
    return;
  }
  if (options.check_signature) check_schema(*s, n);
  if (options.direct_rules && infer_direct(n, *s)) return;
  run_schema_inference(n, *s, f);
}

const schema::OpSignature* Inferencer::Impl::table_signature(const ir::Node& n, const Frame& f) {
  const std::string domain = normal_domain(n.domain());
  auto version = ir::find_opset(*f.imports, domain);
  if (!version) return nullptr;
  const schema::OpSignature* sig = schema::lookup(domain, n.op_type(), *version);
  if (!sig || schema::onnx_schema_of(*sig)) return nullptr;
  return sig;
}

void Inferencer::Impl::run_schema_inference(ir::Node& n, const ::onnx::OpSchema& schema,
                                            const Frame& f) {
  const ::onnx::OpSchema* s = &schema;
  if (n.op_type() == "Constant" && n.domain().empty()) record_constant_node(n, f);
  NodeContext ctx(*this, n, f);
  // An input of unknown type (a polymorphic function's formal input, say)
  // leaves the outputs unknown: libonnx's functions would reject the node.
  bool typed = true;
  for (size_t i = 0; i < n.num_inputs() && typed; ++i) {
    typed = !n.input(i) || !n.input(i)->type().is_none();
  }
  // So does an attribute reference with no call to resolve it (a function
  // body on its own): its value is unknown, not the op's default.
  typed = typed && !has_unknown_attr(n, f);
  if (typed && !s->has_type_and_shape_inference_function() && infer_through_op_body(n, *s, f)) {
    return;
  }
  if (typed && !s->has_type_and_shape_inference_function() && n.domain() == "ai.onnx.ml") {
    std::vector<std::optional<ir::Type>> types = ml_fallback_types(n);
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i]) merge_output(n, i, *types[i]);
    }
  }
  if (typed && s->has_type_and_shape_inference_function()) {
    try {
      s->GetTypeAndShapeInferenceFunction()(ctx);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw Error(ErrorKind::Invalid, node_label(n) + ": " + e.what(), {.node = n.name()});
    }
  }
  for (size_t i = 0; i < n.num_outputs() && i < ctx.outputs().size(); ++i) {
    const auto& tp = ctx.outputs()[i];
    if (tp.value_case() == ::onnx::TypeProto::VALUE_NOT_SET) continue;
    merge_output(n, i, onnx::type_from_proto(tp));
  }
  const auto& done = ctx.inferred_subgraphs();
  for (ir::Graph* g : n.subgraphs()) {
    if (std::find(done.begin(), done.end(), g) == done.end()) infer_graph(*g, f);
  }
  // libonnx's propagators read input types without null checks.
  if (typed && options.data_propagation && s->has_data_propagation_function()) {
    PropagationContext pc(ctx);
    try {
      s->GetDataPropagationFunction()(pc);
    } catch (const std::exception&) {
      // Propagation only sharpens inference; a value it cannot compute stays
      // unknown rather than failing the node.
    }
  }
}

// ---- public ----

Inferencer::Inferencer(const ir::Model& model, Options options)
    : impl_(std::make_unique<Impl>(model, options)) {}
Inferencer::~Inferencer() = default;

void Inferencer::infer_node(ir::Node& node, const std::vector<ir::OpsetImport>* imports) {
  impl_->infer_node(node, Frame{imports ? imports : &impl_->model.opset_imports});
}

void Inferencer::infer_graph(ir::Graph& graph, const std::vector<ir::OpsetImport>* imports) {
  impl_->infer_graph(graph, Frame{imports ? imports : &impl_->model.opset_imports});
}

void Inferencer::check_node(const ir::Node& node, const std::vector<ir::OpsetImport>* imports) {
  impl_->check_node(node, Frame{imports ? imports : &impl_->model.opset_imports});
}

std::optional<std::vector<ir::Dim>> Inferencer::known_value(const ir::Value* v) const {
  const auto* tsp = impl_->shape_data_of(v);
  if (!tsp) return std::nullopt;
  std::vector<ir::Dim> out;
  out.reserve(tsp->dim_size());
  for (const auto& d : tsp->dim()) {
    if (d.has_dim_value()) {
      out.push_back(ir::Dim::known(d.dim_value()));
    } else if (d.has_dim_param()) {
      out.push_back(ir::Dim::symbolic(d.dim_param()));
    } else {
      out.push_back(ir::Dim::unknown());
    }
  }
  return out;
}

std::shared_ptr<const ir::Tensor> Inferencer::constant(const ir::Value* v) const {
  return impl_->constant_of(v);
}

void Inferencer::set_constant(const ir::Value* v, std::shared_ptr<const ir::Tensor> t) {
  impl_->constants[v] = std::move(t);
  impl_->tensor_protos.erase(v);
  impl_->shape_data.erase(v);
}

void Inferencer::forget(const ir::Value* v) {
  impl_->shape_data.erase(v);
  impl_->constants.erase(v);
  impl_->tensor_protos.erase(v);
}

const Options& Inferencer::options() const {
  return impl_->options;
}

void run(ir::Model& model, const Options& options) {
  Inferencer inf(model, options);
  inf.infer_graph(*model.graph);
  for (const auto& fn : model.functions) {
    inf.infer_graph(*fn->body, fn->opset_imports.empty() ? nullptr : &fn->opset_imports);
  }
}

}  // namespace oxs::infer
