// IR -> protobuf. Writes the canonical encoding for IR built in memory and
// reproduces a loaded proto exactly by honouring the proto_quirks bits and
// the graphs' value_info overrides. Tensor bytes go inline unless a
// TensorPlacer (set by save() for external data) takes them.
#include <algorithm>
#include <climits>
#include <cstring>
#include <unordered_map>

#include "oxs/ir/error.h"
#include "oxs/onnx/attr_fields.h"
#include "oxs/onnx/proto_convert.h"
#include "oxs/onnx/proto_util.h"
#include "oxs/onnx/quirks.h"

namespace oxs::onnx {

namespace {

using ir::DataType;
using wire::TensorProto;

bool type_present(const ir::Type& t) {
  return t.kind() != ir::Type::Kind::None || !t.denotation.empty() || t.opaque ||
         (t.proto_quirks & (quirk::kTypePresent | quirk::kTypeDenotationEmpty));
}

void shape_to_proto(const ir::Shape& s, wire::TensorShapeProto* p) {
  p->mutable_dim()->Reserve(static_cast<int>(s.rank()));
  for (const ir::Dim& d : s.dims()) {
    auto* pd = p->add_dim();
    if (d.is_known()) {
      pd->set_dim_value(d.value());
    } else if (d.is_symbolic()) {
      pd->set_dim_param(d.symbol());
    }
    if (!d.denotation.empty() || (d.proto_quirks & quirk::kDimDenotationEmpty)) {
      pd->set_denotation(d.denotation);
    }
  }
}

// Widens each element of `bytes` (as Src) into a repeated field of Dst.
template <class Src, class Dst>
void widen(std::span<const std::byte> bytes, google::protobuf::RepeatedField<Dst>* out) {
  const size_t n = bytes.size() / sizeof(Src);
  out->Reserve(static_cast<int>(n));
  for (size_t i = 0; i < n; ++i) {
    Src v;
    std::memcpy(&v, bytes.data() + i * sizeof(Src), sizeof(Src));
    out->AddAlreadyReserved(static_cast<Dst>(v));
  }
}

template <class T>
void copy_into(std::span<const std::byte> bytes, google::protobuf::RepeatedField<T>* out) {
  const size_t n = bytes.size() / sizeof(T);
  out->Resize(static_cast<int>(n), T{});
  if (n) std::memcpy(out->mutable_data(), bytes.data(), n * sizeof(T));
}

void node_device_configuration(const ir::NodeDeviceConfiguration& c,
                               wire::NodeDeviceConfigurationProto* p) {
  if (c.has_configuration_id || !c.configuration_id.empty()) {
    p->set_configuration_id(c.configuration_id);
  }
  for (const ir::ShardingSpec& s : c.sharding_specs) {
    auto* sp = p->add_sharding_spec();
    if (s.has_tensor_name || !s.tensor_name.empty()) sp->set_tensor_name(s.tensor_name);
    sp->mutable_device()->Add(s.devices.begin(), s.devices.end());
    for (const auto& [key, group] : s.index_to_device_group_map) {
      auto* e = sp->add_index_to_device_group_map();
      e->set_key(key);
      e->mutable_value()->Add(group.begin(), group.end());
    }
    for (const ir::ShardedDim& d : s.sharded_dims) {
      auto* dp = sp->add_sharded_dim();
      if (d.has_axis || d.axis != 0) dp->set_axis(d.axis);
      for (const ir::SimpleShardedDim& x : d.simple_sharding) {
        auto* xp = dp->add_simple_sharding();
        if (x.kind == ir::SimpleShardedDim::Kind::Value) xp->set_dim_value(x.dim_value);
        if (x.kind == ir::SimpleShardedDim::Kind::Param) xp->set_dim_param(x.dim_param);
        if (x.has_num_shards || x.num_shards != 0) xp->set_num_shards(x.num_shards);
      }
    }
  }
  if (c.has_pipeline_stage || c.pipeline_stage != 0) p->set_pipeline_stage(c.pipeline_stage);
}

class Writer {
 public:
  explicit Writer(const ToProtoOptions& options) : opt_(options) {}

  void model(const ir::Model& m, wire::ModelProto* p);
  void graph(const ir::Graph& g, wire::GraphProto* p);
  void function(const ir::Function& f, wire::FunctionProto* p);
  void node(const ir::Node& n, wire::NodeProto* p);
  void attr(const ir::Attr& a, wire::AttributeProto* p);
  void tensor(const ir::Tensor& t, TensorProto* p, const std::string& name);
  void sparse(const ir::SparseTensor& s, wire::SparseTensorProto* p);
  // Like tensor(), but raw bytes are not copied into `p`: returns true and
  // sets `raw` to them when the tensor's data is raw_data (to be appended by
  // the caller), false when the data went into `p` or elsewhere.
  bool tensor_deferring_raw(const ir::Tensor& t, TensorProto* p, const std::string& name,
                            std::span<const std::byte>* raw);
  // The graph whose initializers graph() leaves out (written by the caller).
  const ir::Graph* omit_initializers_of = nullptr;

 private:
  class Overrides;
  void entry(const Overrides& overrides, const ir::Value* v,
             ir::Graph::ValueInfoOverride::List list, size_t index, wire::ValueInfoProto* out);
  void value_info(const std::string& name, const ir::Type& type, const std::string& doc,
                  const ir::StringPairs& metadata, uint32_t quirks, wire::ValueInfoProto* p);

  void inline_data(const ir::Tensor& t, TensorProto* p);
  void count_inline(uint64_t bytes);
  void opsets(const std::vector<ir::OpsetImport>& in,
              google::protobuf::RepeatedPtrField<wire::OperatorSetIdProto>* out);

  const ToProtoOptions& opt_;
  uint64_t inline_bytes_ = 0;
  std::span<const std::byte>* defer_raw_ = nullptr;  // set during tensor_deferring_raw
  bool deferred_ = false;
};

bool Writer::tensor_deferring_raw(const ir::Tensor& t, TensorProto* p, const std::string& name,
                                  std::span<const std::byte>* raw) {
  defer_raw_ = raw;
  deferred_ = false;
  try {
    tensor(t, p, name);
  } catch (...) {
    defer_raw_ = nullptr;
    throw;
  }
  defer_raw_ = nullptr;
  return deferred_;
}

void Writer::count_inline(uint64_t bytes) {
  inline_bytes_ += bytes;
  if (inline_bytes_ > opt_.max_inline_bytes) {
    throw Error(ErrorKind::Unsupported,
                "the model's tensors need more than " + std::to_string(opt_.max_inline_bytes) +
                    " bytes inline, over protobuf's 2 GiB limit for one file; save with "
                    "external data (--external-data, SaveOptions::ExternalData::External)",
                {.file = opt_.file});
  }
}

void Writer::opsets(const std::vector<ir::OpsetImport>& in,
                    google::protobuf::RepeatedPtrField<wire::OperatorSetIdProto>* out) {
  for (const ir::OpsetImport& o : in) {
    auto* p = out->Add();
    if (!(o.proto_quirks & quirk::kOpsetNoDomain)) p->set_domain(o.domain);
    if (!(o.proto_quirks & quirk::kOpsetNoVersion)) p->set_version(o.version);
  }
}

void Writer::value_info(const std::string& name, const ir::Type& type, const std::string& doc,
                        const ir::StringPairs& metadata, uint32_t quirks, wire::ValueInfoProto* p) {
  if (!(quirks & quirk::kValueNoName)) p->set_name(name);
  if (type_present(type)) type_to_proto(type, p->mutable_type());
  if (!doc.empty() || (quirks & quirk::kValueDocEmpty)) p->set_doc_string(doc);
  put_pairs(metadata, p->mutable_metadata_props());
}

void Writer::inline_data(const ir::Tensor& t, TensorProto* p) {
  if (t.dtype() == DataType::String) {
    uint64_t total = 0;
    for (const std::string& s : t.strings) total += s.size();
    count_inline(total);
    p->mutable_string_data()->Reserve(static_cast<int>(t.strings.size()));
    for (const std::string& s : t.strings) p->add_string_data(s);
    return;
  }
  count_inline(t.stored_size());
  if (t.encoding != ir::Tensor::Encoding::Typed) {
    auto b = t.bytes();
    if (defer_raw_) {
      *defer_raw_ = b;
      deferred_ = true;
      return;
    }
    p->set_raw_data(reinterpret_cast<const char*>(b.data()), b.size());
    return;
  }
  auto b = t.bytes();
  switch (t.dtype()) {
    case DataType::Float:
    case DataType::Complex64:
      copy_into(b, p->mutable_float_data());
      break;
    case DataType::Int32:
      copy_into(b, p->mutable_int32_data());
      break;
    case DataType::Int16:
      widen<int16_t>(b, p->mutable_int32_data());
      break;
    case DataType::Int8:
      widen<int8_t>(b, p->mutable_int32_data());
      break;
    case DataType::Uint16:
    case DataType::Float16:
    case DataType::BFloat16:
      widen<uint16_t>(b, p->mutable_int32_data());
      break;
    case DataType::Uint8:
    case DataType::Bool:
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float8E8M0:
    case DataType::Uint4:  // packed bytes, one per entry
    case DataType::Int4:
    case DataType::Float4E2M1:
    case DataType::Uint2:
    case DataType::Int2:
      widen<uint8_t>(b, p->mutable_int32_data());
      break;
    case DataType::Int64:
      copy_into(b, p->mutable_int64_data());
      break;
    case DataType::Double:
    case DataType::Complex128:
      copy_into(b, p->mutable_double_data());
      break;
    case DataType::Uint32:
      widen<uint32_t>(b, p->mutable_uint64_data());
      break;
    case DataType::Uint64:
      copy_into(b, p->mutable_uint64_data());
      break;
    case DataType::String:
    case DataType::Undefined:
      break;
  }
}

void Writer::tensor(const ir::Tensor& t, TensorProto* p, const std::string& name) {
  p->mutable_dims()->Reserve(static_cast<int>(t.dims().size()));
  for (int64_t d : t.dims()) p->add_dims(d);
  const uint32_t q = t.proto_quirks;
  if (!(q & quirk::kTensorNoDataType)) p->set_data_type(static_cast<int32_t>(t.dtype()));
  if (!name.empty() || (q & quirk::kTensorNameEmpty)) p->set_name(name);
  if (!t.doc_string.empty() || (q & quirk::kTensorDocEmpty)) p->set_doc_string(t.doc_string);
  if (t.has_segment) {
    auto* s = p->mutable_segment();
    if (!(q & quirk::kTensorSegmentNoBegin)) s->set_begin(t.segment_begin);
    if (!(q & quirk::kTensorSegmentNoEnd)) s->set_end(t.segment_end);
  }
  if (opt_.placer && t.dtype() != DataType::String && opt_.placer(t, p)) return;
  if (t.encoding != ir::Tensor::Encoding::External) {
    // Entries kept from a file that listed them without data_location EXTERNAL.
    for (const auto& [k, v] : t.external.entries) {
      auto* e = p->add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
  }
  if (q & quirk::kTensorDataLocationDefault) p->set_data_location(TensorProto::DEFAULT);
  put_pairs(t.metadata_props, p->mutable_metadata_props());
  inline_data(t, p);
}

void Writer::sparse(const ir::SparseTensor& s, wire::SparseTensorProto* p) {
  tensor(s.values, p->mutable_values(), s.values.name);
  tensor(s.indices, p->mutable_indices(), s.indices.name);
  for (int64_t d : s.dims) p->add_dims(d);
}

void Writer::attr(const ir::Attr& a, wire::AttributeProto* p) {
  const uint32_t q = a.proto_quirks;
  if (!(q & quirk::kAttrNoName)) p->set_name(a.name);
  if (!a.ref_attr_name.empty() || (q & quirk::kAttrRefEmpty)) p->set_ref_attr_name(a.ref_attr_name);
  if (!a.doc_string.empty() || (q & quirk::kAttrDocEmpty)) p->set_doc_string(a.doc_string);
  if (!(q & quirk::kAttrNoType)) {
    p->set_type(static_cast<wire::AttributeProto_AttributeType>(a.type));
  }
  const uint32_t fields = attr_fields_to_write(a);
  if (fields & quirk::kAttrHasF) p->set_f(a.f);
  if (fields & quirk::kAttrHasI) p->set_i(a.i);
  if (fields & quirk::kAttrHasS) p->set_s(a.s);
  if (fields & quirk::kAttrHasT) {
    auto* t = p->mutable_t();
    if (a.t) tensor(*a.t, t, a.t->name);
  }
  if (fields & quirk::kAttrHasG) {
    auto* g = p->mutable_g();
    if (a.g) graph(*a.g, g);
  }
  if (fields & quirk::kAttrHasSparse) {
    auto* s = p->mutable_sparse_tensor();
    if (a.sparse_tensor) sparse(*a.sparse_tensor, s);
  }
  if (fields & quirk::kAttrHasTp) type_to_proto(a.tp, p->mutable_tp());
  p->mutable_floats()->Add(a.floats.begin(), a.floats.end());
  p->mutable_ints()->Add(a.ints.begin(), a.ints.end());
  for (const std::string& s : a.strings) p->add_strings(s);
  for (const auto& t : a.tensors) tensor(*t, p->add_tensors(), t->name);
  for (const auto& g : a.graphs) graph(*g, p->add_graphs());
  for (const auto& s : a.sparse_tensors) sparse(*s, p->add_sparse_tensors());
  for (const ir::Type& t : a.type_protos) type_to_proto(t, p->add_type_protos());
}

void Writer::node(const ir::Node& n, wire::NodeProto* p) {
  static const std::string kEmpty;
  p->mutable_input()->Reserve(static_cast<int>(n.num_inputs()));
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    ir::Value* v = n.input(i);
    p->add_input(v ? v->name() : kEmpty);
  }
  p->mutable_output()->Reserve(static_cast<int>(n.num_outputs()));
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    ir::Value* v = n.output(i);
    p->add_output(v ? v->name() : kEmpty);
  }
  const uint32_t q = n.proto_quirks;
  if (!n.name().empty() || (q & quirk::kNodeNameEmpty)) p->set_name(n.name());
  if (!(q & quirk::kNodeNoOpType)) p->set_op_type(n.op_type());
  if (!n.domain().empty() || (q & quirk::kNodeDomainEmpty)) p->set_domain(n.domain());
  for (const ir::Attr& a : n.attrs()) attr(a, p->add_attribute());
  if (!n.doc_string.empty() || (q & quirk::kNodeDocEmpty)) p->set_doc_string(n.doc_string);
  if (!n.overload.empty() || (q & quirk::kNodeOverloadEmpty)) p->set_overload(n.overload);
  put_pairs(n.metadata_props, p->mutable_metadata_props());
  for (const ir::NodeDeviceConfiguration& c : n.device_configurations) {
    node_device_configuration(c, p->add_device_configurations());
  }
}

// A graph's value_info overrides by (list, index).
class Writer::Overrides {
 public:
  explicit Overrides(const ir::Graph& g) {
    for (const auto& o : g.value_info_overrides) by_slot_[key(o.list, o.index)] = &o;
  }
  const ir::Graph::ValueInfoOverride* find(const ir::Value* v,
                                           ir::Graph::ValueInfoOverride::List list,
                                           size_t index) const {
    if (by_slot_.empty()) return nullptr;
    auto it = by_slot_.find(key(list, index));
    return it != by_slot_.end() && it->second->value == v ? it->second : nullptr;
  }

 private:
  static uint64_t key(ir::Graph::ValueInfoOverride::List list, size_t index) {
    return (static_cast<uint64_t>(list) << 63) | index;
  }
  std::unordered_map<uint64_t, const ir::Graph::ValueInfoOverride*> by_slot_;
};

void Writer::entry(const Overrides& overrides, const ir::Value* v,
                   ir::Graph::ValueInfoOverride::List list, size_t index,
                   wire::ValueInfoProto* out) {
  if (const auto* o = overrides.find(v, list, index)) {
    value_info(v->name(), o->type, o->doc_string, o->metadata_props, o->proto_quirks, out);
  } else {
    value_info(v->name(), v->type(), v->doc_string, v->metadata_props, v->proto_quirks, out);
  }
}

void Writer::graph(const ir::Graph& g, wire::GraphProto* p) {
  p->mutable_node()->Reserve(static_cast<int>(g.num_nodes()));
  for (const ir::Node* n : g.nodes()) node(*n, p->add_node());
  if (!(g.proto_quirks & quirk::kGraphNoName)) p->set_name(g.name());
  for (const ir::Value* v : g.initializers()) {
    if (&g == omit_initializers_of) break;
    auto* t = p->add_initializer();
    if (v->const_value()) {
      tensor(*v->const_value(), t, v->name());
    } else {
      t->set_name(v->name());
    }
  }
  for (const auto& s : g.sparse_initializers) sparse(*s, p->add_sparse_initializer());
  if (!g.doc_string.empty() || (g.proto_quirks & quirk::kGraphDocEmpty)) {
    p->set_doc_string(g.doc_string);
  }
  for (const ir::Value* v : g.inputs()) {
    value_info(v->name(), v->type(), v->doc_string, v->metadata_props, v->proto_quirks,
               p->add_input());
  }
  using List = ir::Graph::ValueInfoOverride::List;
  const Overrides overrides(g);
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    entry(overrides, g.outputs()[i], List::Output, i, p->add_output());
  }
  for (size_t i = 0; i < g.value_info.size(); ++i) {
    entry(overrides, g.value_info[i], List::ValueInfo, i, p->add_value_info());
  }
  put_pairs(g.metadata_props, p->mutable_metadata_props());
  for (const ir::TensorAnnotation& a : g.quantization_annotation) {
    auto* qa = p->add_quantization_annotation();
    // Absent and empty are the same here (an annotation names a tensor).
    if (!a.tensor_name.empty()) qa->set_tensor_name(a.tensor_name);
    for (const auto& [k, v] : a.quant_parameter_tensor_names) {
      auto* e = qa->add_quant_parameter_tensor_names();
      e->set_key(k);
      e->set_value(v);
    }
  }
}

void Writer::function(const ir::Function& f, wire::FunctionProto* p) {
  const uint32_t q = f.proto_quirks;
  if (!(q & quirk::kFunctionNoName)) p->set_name(f.name);
  for (const ir::Value* v : f.body->inputs()) p->add_input(v->name());
  for (const ir::Value* v : f.body->outputs()) p->add_output(v->name());
  for (const std::string& a : f.attributes) {
    const bool has_default = std::any_of(f.attribute_defaults.begin(), f.attribute_defaults.end(),
                                         [&](const ir::Attr& d) { return d.name == a; });
    if (!has_default) p->add_attribute(a);
  }
  p->mutable_node()->Reserve(static_cast<int>(f.body->num_nodes()));
  for (const ir::Node* n : f.body->nodes()) node(*n, p->add_node());
  if (!f.doc_string.empty() || (q & quirk::kFunctionDocEmpty)) p->set_doc_string(f.doc_string);
  opsets(f.opset_imports, p->mutable_opset_import());
  if (!f.domain.empty() || (q & quirk::kFunctionDomainEmpty)) p->set_domain(f.domain);
  for (const ir::Attr& a : f.attribute_defaults) attr(a, p->add_attribute_proto());
  using List = ir::Graph::ValueInfoOverride::List;
  const Overrides overrides(*f.body);
  for (size_t i = 0; i < f.body->value_info.size(); ++i) {
    entry(overrides, f.body->value_info[i], List::ValueInfo, i, p->add_value_info());
  }
  if (!f.overload.empty() || (q & quirk::kFunctionOverloadEmpty)) p->set_overload(f.overload);
  put_pairs(f.metadata_props, p->mutable_metadata_props());
}

void Writer::model(const ir::Model& m, wire::ModelProto* p) {
  const uint32_t q = m.proto_quirks;
  if (m.has_ir_version) p->set_ir_version(m.ir_version);
  opsets(m.opset_imports, p->mutable_opset_import());
  if (!m.producer_name.empty() || (q & quirk::kModelProducerNameEmpty)) {
    p->set_producer_name(m.producer_name);
  }
  if (!m.producer_version.empty() || (q & quirk::kModelProducerVersionEmpty)) {
    p->set_producer_version(m.producer_version);
  }
  if (!m.domain.empty() || (q & quirk::kModelDomainEmpty)) p->set_domain(m.domain);
  if (m.has_model_version || m.model_version != 0) p->set_model_version(m.model_version);
  if (!m.doc_string.empty() || (q & quirk::kModelDocEmpty)) p->set_doc_string(m.doc_string);
  if (m.graph && !(q & quirk::kModelNoGraph)) graph(*m.graph, p->mutable_graph());
  put_pairs(m.metadata_props, p->mutable_metadata_props());
  for (const ir::TrainingInfo& t : m.training_info) {
    auto* tp = p->add_training_info();
    if (t.initialization) graph(*t.initialization, tp->mutable_initialization());
    if (t.algorithm) graph(*t.algorithm, tp->mutable_algorithm());
    for (const auto& [k, v] : t.initialization_binding) {
      auto* e = tp->add_initialization_binding();
      e->set_key(k);
      e->set_value(v);
    }
    for (const auto& [k, v] : t.update_binding) {
      auto* e = tp->add_update_binding();
      e->set_key(k);
      e->set_value(v);
    }
  }
  for (const auto& f : m.functions) function(*f, p->add_functions());
  for (const ir::DeviceConfiguration& c : m.configuration) {
    auto* cp = p->add_configuration();
    if (c.has_name || !c.name.empty()) cp->set_name(c.name);
    if (c.has_num_devices || c.num_devices != 0) cp->set_num_devices(c.num_devices);
    for (const std::string& d : c.devices) cp->add_device(d);
  }
}

const ToProtoOptions& default_options() {
  static const ToProtoOptions options;
  return options;
}

}  // namespace

void type_to_proto(const ir::Type& t, wire::TypeProto* p) {
  using Kind = ir::Type::Kind;
  const uint32_t q = t.proto_quirks;
  switch (t.kind()) {
    case Kind::None:
      if (t.opaque) {
        auto* o = p->mutable_opaque_type();
        if (!t.opaque->domain.empty() || (q & quirk::kTypeOpaqueDomainEmpty)) {
          o->set_domain(t.opaque->domain);
        }
        if (!t.opaque->name.empty() || (q & quirk::kTypeOpaqueNameEmpty)) {
          o->set_name(t.opaque->name);
        }
      }
      break;
    case Kind::Tensor: {
      auto* tt = p->mutable_tensor_type();
      if (!(q & quirk::kTypeNoElemType)) tt->set_elem_type(static_cast<int32_t>(t.elem_type()));
      if (t.shape()) shape_to_proto(*t.shape(), tt->mutable_shape());
      break;
    }
    case Kind::SparseTensor: {
      auto* tt = p->mutable_sparse_tensor_type();
      if (!(q & quirk::kTypeNoElemType)) tt->set_elem_type(static_cast<int32_t>(t.elem_type()));
      if (t.shape()) shape_to_proto(*t.shape(), tt->mutable_shape());
      break;
    }
    case Kind::Sequence: {
      auto* s = p->mutable_sequence_type();
      if (t.element() && type_present(*t.element())) {
        type_to_proto(*t.element(), s->mutable_elem_type());
      }
      break;
    }
    case Kind::Optional: {
      auto* s = p->mutable_optional_type();
      if (t.element() && type_present(*t.element())) {
        type_to_proto(*t.element(), s->mutable_elem_type());
      }
      break;
    }
    case Kind::Map: {
      auto* mt = p->mutable_map_type();
      if (!(q & quirk::kTypeNoElemType)) mt->set_key_type(static_cast<int32_t>(t.elem_type()));
      if (t.element() && type_present(*t.element())) {
        type_to_proto(*t.element(), mt->mutable_value_type());
      }
      break;
    }
  }
  if (!t.denotation.empty() || (q & quirk::kTypeDenotationEmpty)) {
    p->set_denotation(t.denotation);
  }
}

void model_to_proto(const ir::Model& model, wire::ModelProto* proto,
                    const ToProtoOptions& options) {
  Writer(options).model(model, proto);
}

namespace {

size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}

// Tags (field number << 3 | length-delimited) of the fields spliced in.
constexpr char kModelGraphTag = (7 << 3) | 2;
constexpr char kGraphInitializerTag = (5 << 3) | 2;
constexpr char kTensorRawDataTag = (9 << 3) | 2;

}  // namespace

void write_model(const ir::Model& model, const ToProtoOptions& options, const ByteSink& sink) {
  // Protobuf parsers merge a message's fields in any order and append
  // repeated ones, so the main graph's initializers can follow the rest of
  // the graph, each with its raw bytes written straight from the tensor's
  // storage instead of being copied into the proto first.
  google::protobuf::Arena arena(
      proto_arena_options(model.graph ? model.graph->num_nodes() * 64 : 0));
  auto& proto = *google::protobuf::Arena::CreateMessage<wire::ModelProto>(&arena);
  Writer w(options);
  w.omit_initializers_of = model.graph.get();
  w.model(model, &proto);
  wire::GraphProto* graph = proto.has_graph() ? proto.unsafe_arena_release_graph() : nullptr;

  struct Entry {
    TensorProto* head;
    size_t head_size;
    std::span<const std::byte> raw;
    bool deferred;
    size_t size;  // of the whole TensorProto
  };
  std::vector<Entry> entries;
  uint64_t graph_size = graph ? graph->ByteSizeLong() : 0;
  if (graph) {
    entries.reserve(model.graph->initializers().size());
    for (const ir::Value* v : model.graph->initializers()) {
      Entry e{google::protobuf::Arena::CreateMessage<TensorProto>(&arena), 0, {}, false, 0};
      if (v->const_value()) {
        e.deferred = w.tensor_deferring_raw(*v->const_value(), e.head, v->name(), &e.raw);
      } else {
        e.head->set_name(v->name());
      }
      e.head_size = e.head->ByteSizeLong();
      e.size = e.head_size + (e.deferred ? 1 + varint_size(e.raw.size()) + e.raw.size() : 0);
      graph_size += 1 + varint_size(e.size) + e.size;
      entries.push_back(e);
    }
  }
  const uint64_t total =
      proto.ByteSizeLong() + (graph ? 1 + varint_size(graph_size) + graph_size : 0);
  // Nothing can parse more than 2 GiB as one message, whatever the options.
  if (total > std::min<uint64_t>(options.max_inline_bytes, INT_MAX)) {
    throw Error(ErrorKind::Unsupported,
                "the serialized model would be " + std::to_string(total) +
                    " bytes, over protobuf's 2 GiB limit for one file; save it with external "
                    "data (--external-data, SaveOptions::ExternalData::External)",
                {.file = options.file});
  }
  sink(proto.SerializeAsString());
  if (!graph) return;
  sink(std::string(1, kModelGraphTag) + varint(graph_size));
  {
    // ByteSizeLong() above cached the sizes; serialize without a second pass.
    std::string bytes(graph->GetCachedSize(), '\0');
    graph->SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(bytes.data()));
    sink(bytes);
  }
  for (const Entry& e : entries) {
    std::string head(1, kGraphInitializerTag);
    head += varint(e.size);
    e.head->AppendToString(&head);
    if (e.deferred) {
      head += kTensorRawDataTag;
      head += varint(e.raw.size());
    }
    sink(head);
    if (e.deferred && !e.raw.empty()) {
      sink(std::string_view(reinterpret_cast<const char*>(e.raw.data()), e.raw.size()));
    }
  }
}

void model_to_proto(const ir::Model& model, wire::ModelProto* proto) {
  Writer(default_options()).model(model, proto);
}

void graph_to_proto(const ir::Graph& graph, wire::GraphProto* proto) {
  Writer(default_options()).graph(graph, proto);
}

void function_to_proto(const ir::Function& function, wire::FunctionProto* proto) {
  Writer(default_options()).function(function, proto);
}

void tensor_to_proto(const ir::Tensor& tensor, wire::TensorProto* proto) {
  Writer(default_options()).tensor(tensor, proto, tensor.name);
}

void attr_to_proto(const ir::Attr& attr, wire::AttributeProto* proto) {
  Writer(default_options()).attr(attr, proto);
}

}  // namespace oxs::onnx
