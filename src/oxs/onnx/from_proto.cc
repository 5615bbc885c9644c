// ModelProto -> IR. Each graph is read in three passes so that names resolve
// whatever the node order: (1) inputs, initializers and every node with its
// outputs define names in the graph's scope; (2) attributes (subgraphs see
// the complete scope chain of their enclosing graphs) and node inputs are
// resolved; (3) graph outputs and value_info attach their ValueInfoProtos.
// A name defined nowhere becomes an annotation value so that loading never
// fails on a structurally invalid graph; ir::verify reports it.
#include <unordered_map>

#include "oxs/ir/error.h"
#include "oxs/onnx/attr_fields.h"
#include "oxs/onnx/external_data.h"
#include "oxs/onnx/proto_convert.h"
#include "oxs/onnx/proto_util.h"
#include "oxs/onnx/quirks.h"

namespace oxs::onnx {

namespace {

using google::protobuf::RepeatedPtrField;

// Open-addressing table from name to value (keys are the values' own
// names, so nothing is copied). Loading a large graph is dominated by name
// lookups; a flat table costs about one cache miss per lookup where
// std::unordered_map costs several.
class NameTable {
 public:
  void reserve(size_t n) {
    size_t want = 16;
    while (want < n * 2) want *= 2;
    if (want > slots_.size()) rehash(want);
  }
  ir::Value* find(std::string_view name) const {
    if (slots_.empty()) return nullptr;
    const size_t h = hash(name);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.value) return nullptr;
      if (s.hash == h && s.value->name() == name) return s.value;
    }
  }
  // Keeps the first value of a name.
  void emplace(ir::Value* v) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    const size_t h = hash(v->name());
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.value) {
        s = {h, v};
        ++size_;
        return;
      }
      if (s.hash == h && s.value->name() == v->name()) return;
    }
  }

 private:
  struct Slot {
    size_t hash;
    ir::Value* value;
  };
  static size_t hash(std::string_view s) { return std::hash<std::string_view>()(s); }
  void rehash(size_t n) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(n, Slot{0, nullptr});
    mask_ = n - 1;
    for (const Slot& s : old) {
      if (!s.value) continue;
      for (size_t i = s.hash & mask_;; i = (i + 1) & mask_) {
        if (!slots_[i].value) {
          slots_[i] = s;
          break;
        }
      }
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

// Names visible in one graph; the chain through `parent` gives the enclosing
// graphs' names, so lookups cost O(nesting depth).
struct Scope {
  NameTable names;
  const Scope* parent = nullptr;

  ir::Value* find(std::string_view n) const {
    for (const Scope* s = this; s; s = s->parent) {
      if (ir::Value* v = s->names.find(n)) return v;
    }
    return nullptr;
  }
  ir::Value* find_local(std::string_view n) const { return names.find(n); }
  // The first definition of a name wins; the verifier reports the others.
  void define(ir::Value* v) {
    if (!v->name().empty()) names.emplace(v);
  }
};

std::string take(std::string* s) {
  return std::move(*s);
}

ir::Dim dim_from_proto(const wire::TensorShapeProto::Dimension& d) {
  ir::Dim out;
  if (d.has_dim_value()) {
    out = ir::Dim::known(d.dim_value());
  } else if (d.has_dim_param()) {
    out = ir::Dim::symbolic(d.dim_param());
  }
  if (d.has_denotation()) {
    out.denotation = d.denotation();
    if (out.denotation.empty()) out.proto_quirks |= quirk::kDimDenotationEmpty;
  }
  return out;
}

std::optional<ir::Shape> shape_from_proto(bool has, const wire::TensorShapeProto& s) {
  if (!has) return std::nullopt;
  std::vector<ir::Dim> dims;
  dims.reserve(static_cast<size_t>(s.dim_size()));
  for (const auto& d : s.dim()) dims.push_back(dim_from_proto(d));
  return ir::Shape(std::move(dims));
}

// Deep equality including everything the writer emits (denotations, quirks).
bool same_type(const ir::Type& a, const ir::Type& b) {
  if (a.kind() != b.kind() || a.elem_type() != b.elem_type() || a.denotation != b.denotation ||
      !(a.opaque ? b.opaque && *a.opaque == *b.opaque : !b.opaque) ||
      a.proto_quirks != b.proto_quirks || a.shape().has_value() != b.shape().has_value()) {
    return false;
  }
  if (a.shape()) {
    const auto& da = a.shape()->dims();
    const auto& db = b.shape()->dims();
    if (da.size() != db.size()) return false;
    for (size_t i = 0; i < da.size(); ++i) {
      if (!(da[i] == db[i]) || da[i].denotation != db[i].denotation ||
          da[i].proto_quirks != db[i].proto_quirks) {
        return false;
      }
    }
  }
  if (!a.element() || !b.element()) return !a.element() && !b.element();
  return same_type(*a.element(), *b.element());
}

struct Info {
  ir::Type type;
  std::string doc;
  ir::StringPairs metadata;
  uint32_t quirks = 0;
};

ir::DeviceConfiguration device_configuration(wire::DeviceConfigurationProto& p,
                                             const std::string& file) {
  check_known_fields(p, "DeviceConfigurationProto", file);
  ir::DeviceConfiguration c;
  c.has_name = p.has_name();
  c.name = take(p.mutable_name());
  c.has_num_devices = p.has_num_devices();
  c.num_devices = p.num_devices();
  for (auto& d : *p.mutable_device()) c.devices.push_back(std::move(d));
  return c;
}

ir::ShardingSpec sharding_spec(wire::ShardingSpecProto& p, const std::string& file) {
  check_known_fields(p, "ShardingSpecProto", file);
  ir::ShardingSpec s;
  s.has_tensor_name = p.has_tensor_name();
  s.tensor_name = take(p.mutable_tensor_name());
  s.devices.assign(p.device().begin(), p.device().end());
  for (const auto& e : p.index_to_device_group_map()) {
    check_known_fields(e, "IntIntListEntryProto", file);
    s.index_to_device_group_map.emplace_back(
        e.key(), std::vector<int64_t>(e.value().begin(), e.value().end()));
  }
  for (const auto& d : p.sharded_dim()) {
    check_known_fields(d, "ShardedDimProto", file);
    ir::ShardedDim sd;
    sd.has_axis = d.has_axis();
    sd.axis = d.axis();
    for (const auto& simple : d.simple_sharding()) {
      check_known_fields(simple, "SimpleShardedDimProto", file);
      ir::SimpleShardedDim x;
      if (simple.has_dim_value()) {
        x.kind = ir::SimpleShardedDim::Kind::Value;
        x.dim_value = simple.dim_value();
      } else if (simple.has_dim_param()) {
        x.kind = ir::SimpleShardedDim::Kind::Param;
        x.dim_param = simple.dim_param();
      }
      x.has_num_shards = simple.has_num_shards();
      x.num_shards = simple.num_shards();
      sd.simple_sharding.push_back(std::move(x));
    }
    s.sharded_dims.push_back(std::move(sd));
  }
  return s;
}

ir::NodeDeviceConfiguration node_device_configuration(wire::NodeDeviceConfigurationProto& p,
                                                      const std::string& file) {
  check_known_fields(p, "NodeDeviceConfigurationProto", file);
  ir::NodeDeviceConfiguration c;
  c.has_configuration_id = p.has_configuration_id();
  c.configuration_id = take(p.mutable_configuration_id());
  for (auto& s : *p.mutable_sharding_spec()) c.sharding_specs.push_back(sharding_spec(s, file));
  c.has_pipeline_stage = p.has_pipeline_stage();
  c.pipeline_stage = p.pipeline_stage();
  return c;
}

class Reader {
 public:
  explicit Reader(const FromProtoContext& ctx) : ctx_(ctx) {
    if (!ctx_.data_files) ctx_.data_files = std::make_shared<DataFileRegistry>();
  }
  const FromProtoContext& ctx() const { return ctx_; }

  ir::Model model(wire::ModelProto& p);
  void fill_graph(ir::Graph& g, wire::GraphProto& p, Scope& scope);
  std::unique_ptr<ir::Function> function(wire::FunctionProto& p);
  ir::Attr attr(wire::AttributeProto& p, ir::Graph* graph, const Scope* scope);

 private:
  Info info(wire::ValueInfoProto& vp);
  void read_nodes(ir::Graph& g, RepeatedPtrField<wire::NodeProto>& nodes, Scope& scope);
  ir::Value* resolve(const std::string& name, ir::Graph& g, Scope& scope);
  std::unique_ptr<ir::Graph> subgraph(wire::GraphProto& p, ir::Graph* graph, const Scope* scope);
  void opsets(RepeatedPtrField<wire::OperatorSetIdProto>& in, std::vector<ir::OpsetImport>& out);
  // Attaches each ValueInfoProto of `list` (GraphProto/FunctionProto
  // value_info) to `g.value_info`: the first one naming a value of this
  // graph describes it, any other that differs becomes an override.
  void value_infos(ir::Graph& g, RepeatedPtrField<wire::ValueInfoProto>& list, Scope& scope,
                   std::vector<ir::Value*>& described);
  void occurrence(ir::Graph& g, wire::ValueInfoProto& vp, ir::Value* v,
                  ir::Graph::ValueInfoOverride::List list, size_t index,
                  std::vector<ir::Value*>& described);

  FromProtoContext ctx_;
};

void Reader::opsets(RepeatedPtrField<wire::OperatorSetIdProto>& in,
                    std::vector<ir::OpsetImport>& out) {
  out.reserve(static_cast<size_t>(in.size()));
  for (auto& o : in) {
    // has_*() before mutable_*(), which sets the field's presence.
    const bool has_domain = o.has_domain();
    ir::OpsetImport imp{take(o.mutable_domain()), o.version()};
    if (!has_domain) imp.proto_quirks |= quirk::kOpsetNoDomain;
    if (!o.has_version()) imp.proto_quirks |= quirk::kOpsetNoVersion;
    out.push_back(std::move(imp));
  }
}

Info Reader::info(wire::ValueInfoProto& vp) {
  check_known_fields(vp, "ValueInfoProto", ctx_.file);
  Info out;
  if (vp.has_type()) out.type = type_from_proto(vp.type());
  if (!vp.has_name()) out.quirks |= quirk::kValueNoName;
  if (vp.has_doc_string()) {
    out.doc = take(vp.mutable_doc_string());
    if (out.doc.empty()) out.quirks |= quirk::kValueDocEmpty;
  }
  out.metadata = take_pairs(*vp.mutable_metadata_props());
  return out;
}

ir::Value* Reader::resolve(const std::string& name, ir::Graph& g, Scope& scope) {
  if (ir::Value* v = scope.find(name)) return v;
  ir::Value* v = g.add_annotation_value(name);
  g.names().claim_value(name);
  scope.define(v);
  return v;
}

std::unique_ptr<ir::Graph> Reader::subgraph(wire::GraphProto& p, ir::Graph* graph,
                                            const Scope* scope) {
  auto sub = graph ? graph->make_subgraph() : std::make_unique<ir::Graph>();
  Scope inner;
  inner.parent = scope;
  fill_graph(*sub, p, inner);
  return sub;
}

void Reader::read_nodes(ir::Graph& g, RepeatedPtrField<wire::NodeProto>& nodes, Scope& scope) {
  ir::NameAuthority& names = g.names();
  // Inputs defined earlier in this graph are resolved at once, while the
  // table entry is still in cache (topologically sorted graphs need nothing
  // more); the rest wait until every name of the graph is known, and so do
  // attributes, whose subgraphs must see the complete scope.
  struct Deferred {
    ir::Node* node;
    uint32_t index;
    const std::string* name;
  };
  std::vector<Deferred> deferred;
  std::vector<std::pair<ir::Node*, wire::NodeProto*>> with_attrs;
  for (auto& np : nodes) {
    check_known_fields(np, "NodeProto", ctx_.file);
    // has_*() before mutable_*(), which sets the field's presence.
    const bool has_op_type = np.has_op_type();
    const bool has_domain = np.has_domain();
    auto n = std::make_unique<ir::Node>(take(np.mutable_op_type()), take(np.mutable_domain()),
                                        std::span<ir::Value* const>{},
                                        static_cast<size_t>(np.output_size()));
    if (!has_op_type) n->proto_quirks |= quirk::kNodeNoOpType;
    if (has_domain && n->domain().empty()) n->proto_quirks |= quirk::kNodeDomainEmpty;
    if (np.has_name()) {
      n->set_name(take(np.mutable_name()));
      if (n->name().empty()) {
        n->proto_quirks |= quirk::kNodeNameEmpty;
      } else {
        names.claim_node(n->name());
      }
    }
    if (np.has_doc_string()) {
      n->doc_string = take(np.mutable_doc_string());
      if (n->doc_string.empty()) n->proto_quirks |= quirk::kNodeDocEmpty;
    }
    if (np.has_overload()) {
      n->overload = take(np.mutable_overload());
      if (n->overload.empty()) n->proto_quirks |= quirk::kNodeOverloadEmpty;
    }
    n->metadata_props = take_pairs(*np.mutable_metadata_props());
    for (auto& c : *np.mutable_device_configurations()) {
      n->device_configurations.push_back(node_device_configuration(c, ctx_.file));
    }
    for (int i = 0; i < np.input_size(); ++i) {
      const std::string& in = np.input(i);
      ir::Value* v = in.empty() ? nullptr : scope.find_local(in);
      if (!v && !in.empty()) deferred.push_back({n.get(), static_cast<uint32_t>(i), &in});
      n->append_input(v);
    }
    for (int i = 0; i < np.output_size(); ++i) {
      std::string* out = np.mutable_output(i);
      if (out->empty()) {
        n->remove_output(static_cast<size_t>(i), /*keep_slot=*/true);
        continue;
      }
      ir::Value* v = n->output(static_cast<size_t>(i));
      v->set_name(take(out));
      names.claim_value(v->name());
      scope.define(v);
    }
    ir::Node* raw = g.append(std::move(n));
    if (np.attribute_size() > 0) with_attrs.emplace_back(raw, &np);
  }
  for (auto& [n, np] : with_attrs) {
    auto& attrs = n->mutable_attrs();
    attrs.reserve(static_cast<size_t>(np->attribute_size()));
    for (auto& ap : *np->mutable_attribute()) attrs.push_back(attr(ap, &g, &scope));
    n->adopt_subgraphs();
  }
  for (const Deferred& d : deferred) d.node->set_input(d.index, resolve(*d.name, g, scope));
}

void Reader::fill_graph(ir::Graph& g, wire::GraphProto& p, Scope& scope) {
  check_known_fields(p, "GraphProto", ctx_.file);
  ir::NameAuthority& names = g.names();
  if (p.has_name()) {
    g.set_name(take(p.mutable_name()));
  } else {
    g.proto_quirks |= quirk::kGraphNoName;
  }
  if (p.has_doc_string()) {
    g.doc_string = take(p.mutable_doc_string());
    if (g.doc_string.empty()) g.proto_quirks |= quirk::kGraphDocEmpty;
  }
  g.metadata_props = take_pairs(*p.mutable_metadata_props());
  scope.names.reserve(static_cast<size_t>(p.input_size() + p.initializer_size()) +
                      static_cast<size_t>(p.node_size()) * 2);

  // Values whose own type/doc came from a ValueInfoProto of this graph.
  constexpr uint32_t kDescribed = quirk::kValueDescribedWhileLoading;
  std::vector<ir::Value*> described;
  for (auto& vp : *p.mutable_input()) {
    Info in = info(vp);
    ir::Value* v = g.add_input(take(vp.mutable_name()), std::move(in.type));
    v->doc_string = std::move(in.doc);
    v->metadata_props = std::move(in.metadata);
    v->proto_quirks = in.quirks | kDescribed;
    if (!v->name().empty()) names.claim_value(v->name());
    scope.define(v);
    described.push_back(v);
  }
  for (auto& tp : *p.mutable_initializer()) {
    std::shared_ptr<ir::Tensor> t = tensor_from_proto(tp, ctx_);
    ir::Value* in = scope.find_local(t->name);
    if (in && in->is_graph_input() && !in->is_initializer()) {
      g.set_input_initializer(in, std::move(t));  // IR < 4: an input with a default
    } else {
      std::string name = t->name;
      ir::Value* v = g.add_initializer(std::move(name), std::move(t));
      names.claim_value(v->name());
      scope.define(v);
    }
  }
  for (auto& sp : *p.mutable_sparse_initializer()) {
    g.sparse_initializers.push_back(sparse_tensor_from_proto(sp, ctx_));
  }

  read_nodes(g, *p.mutable_node(), scope);

  using List = ir::Graph::ValueInfoOverride::List;
  for (int i = 0; i < p.output_size(); ++i) {
    auto& vp = *p.mutable_output(i);
    ir::Value* v = vp.name().empty() ? nullptr : scope.find(vp.name());
    if (!v) {
      v = g.add_annotation_value(vp.name());
      if (!v->name().empty()) names.claim_value(v->name());
    }
    g.add_output(v);
    occurrence(g, vp, v, List::Output, static_cast<size_t>(i), described);
  }
  value_infos(g, *p.mutable_value_info(), scope, described);
  for (ir::Value* v : described) v->proto_quirks &= ~kDescribed;
  for (auto& qa : *p.mutable_quantization_annotation()) {
    ir::TensorAnnotation a;
    a.tensor_name = take(qa.mutable_tensor_name());
    for (auto& e : *qa.mutable_quant_parameter_tensor_names()) {
      a.quant_parameter_tensor_names.emplace_back(take(e.mutable_key()), take(e.mutable_value()));
    }
    g.quantization_annotation.push_back(std::move(a));
  }
}

// A ValueInfoProto describes its value if it is the first one of this graph
// to name it; any other that differs is kept as an override.
void Reader::occurrence(ir::Graph& g, wire::ValueInfoProto& vp, ir::Value* v,
                        ir::Graph::ValueInfoOverride::List list, size_t index,
                        std::vector<ir::Value*>& described) {
  constexpr uint32_t kDescribed = quirk::kValueDescribedWhileLoading;
  Info in = info(vp);
  const bool local = v->graph() == &g;
  if (local && !(v->proto_quirks & kDescribed)) {
    v->set_type(std::move(in.type));
    v->doc_string = std::move(in.doc);
    v->metadata_props = std::move(in.metadata);
    v->proto_quirks = in.quirks | kDescribed;
    described.push_back(v);
    return;
  }
  if (local && same_type(v->type(), in.type) && v->doc_string == in.doc &&
      v->metadata_props == in.metadata && (v->proto_quirks & ~kDescribed) == in.quirks) {
    return;
  }
  g.value_info_overrides.push_back(
      {list, index, v, std::move(in.type), std::move(in.doc), std::move(in.metadata), in.quirks});
}

void Reader::value_infos(ir::Graph& g, RepeatedPtrField<wire::ValueInfoProto>& list, Scope& scope,
                         std::vector<ir::Value*>& described) {
  ir::NameAuthority& names = g.names();
  g.value_info.reserve(static_cast<size_t>(list.size()));
  std::unordered_map<std::string_view, ir::Value*> annotations;
  for (int i = 0; i < list.size(); ++i) {
    auto& vp = *list.Mutable(i);
    // Only this graph's values: a subgraph annotating an outer name gets an
    // annotation value rather than retyping the outer value.
    ir::Value* v = vp.name().empty() ? nullptr : scope.find_local(vp.name());
    if (!v) {
      auto it = annotations.find(vp.name());
      if (it != annotations.end()) {
        v = it->second;
      } else {
        v = g.add_annotation_value(vp.name());
        if (!v->name().empty()) names.claim_value(v->name());
        annotations.emplace(v->name(), v);
      }
    }
    g.value_info.push_back(v);
    occurrence(g, vp, v, ir::Graph::ValueInfoOverride::List::ValueInfo, static_cast<size_t>(i),
               described);
  }
}

ir::Attr Reader::attr(wire::AttributeProto& p, ir::Graph* graph, const Scope* scope) {
  using ir::AttrType;
  check_known_fields(p, "AttributeProto", ctx_.file);
  ir::Attr a;
  if (!p.has_name()) a.proto_quirks |= quirk::kAttrNoName;
  a.name = take(p.mutable_name());
  if (p.has_ref_attr_name()) {
    a.ref_attr_name = take(p.mutable_ref_attr_name());
    if (a.ref_attr_name.empty()) a.proto_quirks |= quirk::kAttrRefEmpty;
  }
  if (p.has_doc_string()) {
    a.doc_string = take(p.mutable_doc_string());
    if (a.doc_string.empty()) a.proto_quirks |= quirk::kAttrDocEmpty;
  }
  uint32_t present = 0;
  if (p.has_f()) {
    a.f = p.f();
    present |= quirk::kAttrHasF;
  }
  if (p.has_i()) {
    a.i = p.i();
    present |= quirk::kAttrHasI;
  }
  if (p.has_s()) {
    a.s = take(p.mutable_s());
    present |= quirk::kAttrHasS;
  }
  if (p.has_t()) {
    a.t = tensor_from_proto(*p.mutable_t(), ctx_);
    present |= quirk::kAttrHasT;
  }
  if (p.has_g()) {
    a.g = subgraph(*p.mutable_g(), graph, scope);
    present |= quirk::kAttrHasG;
  }
  if (p.has_sparse_tensor()) {
    a.sparse_tensor = sparse_tensor_from_proto(*p.mutable_sparse_tensor(), ctx_);
    present |= quirk::kAttrHasSparse;
  }
  if (p.has_tp()) {
    a.tp = type_from_proto(p.tp());
    present |= quirk::kAttrHasTp;
  }
  a.floats.assign(p.floats().begin(), p.floats().end());
  a.ints.assign(p.ints().begin(), p.ints().end());
  a.strings.reserve(static_cast<size_t>(p.strings_size()));
  for (auto& s : *p.mutable_strings()) a.strings.push_back(std::move(s));
  for (auto& t : *p.mutable_tensors()) a.tensors.push_back(tensor_from_proto(t, ctx_));
  for (auto& sub : *p.mutable_graphs()) a.graphs.push_back(subgraph(sub, graph, scope));
  for (auto& s : *p.mutable_sparse_tensors()) {
    a.sparse_tensors.push_back(sparse_tensor_from_proto(s, ctx_));
  }
  for (const auto& t : p.type_protos()) a.type_protos.push_back(type_from_proto(t));

  if (p.has_type()) {
    a.type = static_cast<AttrType>(p.type());
  } else {
    // IR version 1-2 files carry no type: infer it from the one field set.
    a.proto_quirks |= quirk::kAttrNoType;
    struct Candidate {
      bool set;
      AttrType type;
    };
    const Candidate candidates[] = {
        {p.has_f(), AttrType::Float},
        {p.has_i(), AttrType::Int},
        {p.has_s(), AttrType::String},
        {p.has_t(), AttrType::Tensor},
        {p.has_g(), AttrType::Graph},
        {p.has_sparse_tensor(), AttrType::SparseTensor},
        {p.has_tp(), AttrType::TypeProto},
        {p.floats_size() > 0, AttrType::Floats},
        {p.ints_size() > 0, AttrType::Ints},
        {p.strings_size() > 0, AttrType::Strings},
        {p.tensors_size() > 0, AttrType::Tensors},
        {p.graphs_size() > 0, AttrType::Graphs},
        {p.sparse_tensors_size() > 0, AttrType::SparseTensors},
        {p.type_protos_size() > 0, AttrType::TypeProtos},
    };
    int count = 0;
    for (const Candidate& c : candidates) {
      if (c.set) {
        ++count;
        a.type = c.type;
      }
    }
    if (count != 1) a.type = AttrType::Undefined;
  }
  if (present != natural_attr_fields(a)) a.proto_quirks |= quirk::kAttrExplicitFields | present;
  return a;
}

std::unique_ptr<ir::Function> Reader::function(wire::FunctionProto& p) {
  check_known_fields(p, "FunctionProto", ctx_.file);
  auto f = std::make_unique<ir::Function>();
  if (!p.has_name()) f->proto_quirks |= quirk::kFunctionNoName;
  f->name = take(p.mutable_name());
  if (p.has_domain() && p.domain().empty()) f->proto_quirks |= quirk::kFunctionDomainEmpty;
  f->domain = take(p.mutable_domain());
  if (p.has_doc_string()) {
    f->doc_string = take(p.mutable_doc_string());
    if (f->doc_string.empty()) f->proto_quirks |= quirk::kFunctionDocEmpty;
  }
  if (p.has_overload()) {
    f->overload = take(p.mutable_overload());
    if (f->overload.empty()) f->proto_quirks |= quirk::kFunctionOverloadEmpty;
  }
  for (auto& s : *p.mutable_attribute()) f->attributes.push_back(std::move(s));
  // Parameters with defaults are listed apart in the proto; the IR lists
  // every parameter name in `attributes` and keeps the defaults beside.
  for (auto& ap : *p.mutable_attribute_proto()) {
    ir::Attr a = attr(ap, nullptr, nullptr);
    f->attributes.push_back(a.name);
    f->attribute_defaults.push_back(std::move(a));
  }
  opsets(*p.mutable_opset_import(), f->opset_imports);
  f->metadata_props = take_pairs(*p.mutable_metadata_props());
  ir::Graph& body = *f->body;
  Scope scope;
  for (auto& name : *p.mutable_input()) {
    ir::Value* v = body.add_input(std::move(name));
    body.names().claim_value(v->name());
    scope.define(v);
  }
  read_nodes(body, *p.mutable_node(), scope);
  for (const std::string& name : p.output()) {
    body.add_output(name.empty() ? body.add_annotation_value({}) : resolve(name, body, scope));
  }
  std::vector<ir::Value*> described;
  value_infos(body, *p.mutable_value_info(), scope, described);
  for (ir::Value* v : described) v->proto_quirks &= ~quirk::kValueDescribedWhileLoading;
  return f;
}

ir::Model Reader::model(wire::ModelProto& p) {
  check_known_fields(p, "ModelProto", ctx_.file);
  ir::Model m;
  m.has_ir_version = p.has_ir_version();
  m.ir_version = p.ir_version();
  m.has_model_version = p.has_model_version();
  m.model_version = p.model_version();
  opsets(*p.mutable_opset_import(), m.opset_imports);
  if (p.has_producer_name()) {
    m.producer_name = take(p.mutable_producer_name());
    if (m.producer_name.empty()) m.proto_quirks |= quirk::kModelProducerNameEmpty;
  }
  if (p.has_producer_version()) {
    m.producer_version = take(p.mutable_producer_version());
    if (m.producer_version.empty()) m.proto_quirks |= quirk::kModelProducerVersionEmpty;
  }
  if (p.has_domain()) {
    m.domain = take(p.mutable_domain());
    if (m.domain.empty()) m.proto_quirks |= quirk::kModelDomainEmpty;
  }
  if (p.has_doc_string()) {
    m.doc_string = take(p.mutable_doc_string());
    if (m.doc_string.empty()) m.proto_quirks |= quirk::kModelDocEmpty;
  }
  for (auto& e : *p.mutable_metadata_props()) {
    m.metadata_props.emplace_back(take(e.mutable_key()), take(e.mutable_value()));
  }
  Scope main_scope;
  if (p.has_graph()) {
    const auto& gp = p.graph();
    m.graph->names().reserve(
        static_cast<size_t>(gp.input_size() + gp.initializer_size() + gp.node_size()),
        static_cast<size_t>(gp.node_size()));
    fill_graph(*m.graph, *p.mutable_graph(), main_scope);
  } else {
    m.proto_quirks |= quirk::kModelNoGraph;
  }
  for (auto& f : *p.mutable_functions()) m.functions.push_back(function(f));
  for (auto& c : *p.mutable_configuration()) {
    m.configuration.push_back(device_configuration(c, ctx_.file));
  }
  // Training graphs may read the main graph's initializers.
  for (auto& tp : *p.mutable_training_info()) {
    check_known_fields(tp, "TrainingInfoProto", ctx_.file);
    ir::TrainingInfo t;
    auto read = [&](bool has, wire::GraphProto* gp) -> std::unique_ptr<ir::Graph> {
      if (!has) return nullptr;
      auto g = m.graph->make_subgraph();
      Scope s;
      s.parent = &main_scope;
      fill_graph(*g, *gp, s);
      return g;
    };
    // has_*() before mutable_*(), which sets the field's presence.
    const bool has_initialization = tp.has_initialization();
    const bool has_algorithm = tp.has_algorithm();
    t.initialization = read(has_initialization, tp.mutable_initialization());
    t.algorithm = read(has_algorithm, tp.mutable_algorithm());
    for (auto& e : *tp.mutable_initialization_binding()) {
      t.initialization_binding.emplace_back(take(e.mutable_key()), take(e.mutable_value()));
    }
    for (auto& e : *tp.mutable_update_binding()) {
      t.update_binding.emplace_back(take(e.mutable_key()), take(e.mutable_value()));
    }
    m.training_info.push_back(std::move(t));
  }
  return m;
}

// The values visible from `g` (its own and its ancestors'), innermost last.
void scope_chain(ir::Graph* g, std::vector<std::unique_ptr<Scope>>& out) {
  if (!g) return;
  scope_chain(g->parent(), out);
  auto s = std::make_unique<Scope>();
  s->parent = out.empty() ? nullptr : out.back().get();
  for (ir::Value* v : g->inputs()) s->define(v);
  for (ir::Value* v : g->initializers()) s->define(v);
  for (ir::Node* n : g->nodes()) {
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      if (ir::Value* v = n->output(i)) s->define(v);
    }
  }
  out.push_back(std::move(s));
}

}  // namespace

ir::Type type_from_proto(const wire::TypeProto& p) {
  using wire::TypeProto;
  ir::Type t;
  switch (p.value_case()) {
    case TypeProto::kTensorType: {
      const auto& tt = p.tensor_type();
      t = ir::Type::tensor(static_cast<ir::DataType>(tt.elem_type()),
                           shape_from_proto(tt.has_shape(), tt.shape()));
      if (!tt.has_elem_type()) t.proto_quirks |= quirk::kTypeNoElemType;
      break;
    }
    case TypeProto::kSparseTensorType: {
      const auto& tt = p.sparse_tensor_type();
      t = ir::Type::sparse_tensor(static_cast<ir::DataType>(tt.elem_type()),
                                  shape_from_proto(tt.has_shape(), tt.shape()));
      if (!tt.has_elem_type()) t.proto_quirks |= quirk::kTypeNoElemType;
      break;
    }
    case TypeProto::kSequenceType: {
      const auto& s = p.sequence_type();
      t = ir::Type::sequence(s.has_elem_type() ? type_from_proto(s.elem_type()) : ir::Type());
      break;
    }
    case TypeProto::kOptionalType: {
      const auto& s = p.optional_type();
      t = ir::Type::optional(s.has_elem_type() ? type_from_proto(s.elem_type()) : ir::Type());
      break;
    }
    case TypeProto::kMapType: {
      const auto& mt = p.map_type();
      t = ir::Type::map(static_cast<ir::DataType>(mt.key_type()),
                        mt.has_value_type() ? type_from_proto(mt.value_type()) : ir::Type());
      if (!mt.has_key_type()) t.proto_quirks |= quirk::kTypeNoElemType;
      break;
    }
    case TypeProto::kOpaqueType: {
      const auto& o = p.opaque_type();
      t.proto_quirks |= quirk::kTypeOpaque;
      t.opaque = std::make_shared<const ir::Type::Opaque>(ir::Type::Opaque{o.domain(), o.name()});
      if (o.has_domain() && o.domain().empty()) t.proto_quirks |= quirk::kTypeOpaqueDomainEmpty;
      if (o.has_name() && o.name().empty()) t.proto_quirks |= quirk::kTypeOpaqueNameEmpty;
      break;
    }
    case TypeProto::VALUE_NOT_SET:
      t.proto_quirks |= quirk::kTypePresent;
      break;
  }
  if (p.has_denotation()) {
    t.denotation = p.denotation();
    if (t.denotation.empty()) t.proto_quirks |= quirk::kTypeDenotationEmpty;
  }
  return t;
}

ir::Model model_from_proto(wire::ModelProto& proto, const FromProtoContext& ctx) {
  return Reader(ctx).model(proto);
}

ir::Attr attr_from_proto(wire::AttributeProto& proto, const FromProtoContext& ctx) {
  return Reader(ctx).attr(proto, nullptr, nullptr);
}

ir::Attr attr_from_proto(wire::AttributeProto& proto, const FromProtoContext& ctx,
                         ir::Graph* scope) {
  std::vector<std::unique_ptr<Scope>> chain;
  scope_chain(scope, chain);
  return Reader(ctx).attr(proto, scope, chain.empty() ? nullptr : chain.back().get());
}

std::unique_ptr<ir::Graph> graph_from_proto(wire::GraphProto& proto, const FromProtoContext& ctx) {
  auto g = std::make_unique<ir::Graph>();
  Scope scope;
  Reader(ctx).fill_graph(*g, proto, scope);
  return g;
}

std::unique_ptr<ir::Function> function_from_proto(wire::FunctionProto& proto,
                                                  const FromProtoContext& ctx) {
  return Reader(ctx).function(proto);
}

}  // namespace oxs::onnx
