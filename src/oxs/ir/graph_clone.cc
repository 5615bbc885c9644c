// Graph::clone: a deep copy in one pass. Values defined inside the cloned
// graph (and its subgraphs) map to their copies; any other value is an outer
// reference and stays as it is.
#include <unordered_map>

#include "oxs/ir/graph.h"

namespace oxs::ir {

namespace {

using ValueMap = std::unordered_map<const Value*, Value*>;

std::unique_ptr<Graph> clone_into(const Graph& src, ValueMap& map,
                                  std::shared_ptr<NameAuthority> names);

Value* mapped(const ValueMap& map, Value* v) {
  if (!v) return nullptr;
  auto it = map.find(v);
  return it == map.end() ? v : it->second;
}

void copy_value_fields(const Value& from, Value* to) {
  to->set_type(from.type());
  to->doc_string = from.doc_string;
  to->metadata_props = from.metadata_props;
  to->proto_quirks = from.proto_quirks;
  to->set_const_value(from.const_value());
}

std::unique_ptr<Graph> clone_into(const Graph& src, ValueMap& map,
                                  std::shared_ptr<NameAuthority> names) {
  auto g = std::make_unique<Graph>(src.name());
  if (names) g->set_name_authority(std::move(names));
  g->doc_string = src.doc_string;
  g->metadata_props = src.metadata_props;
  g->proto_quirks = src.proto_quirks;
  for (Value* in : src.inputs()) {
    Value* c = g->add_input(in->name(), in->type());
    c->doc_string = in->doc_string;
    c->metadata_props = in->metadata_props;
    c->proto_quirks = in->proto_quirks;
    map[in] = c;
  }
  for (Value* init : src.initializers()) {
    if (init->is_graph_input()) {
      g->set_input_initializer(map[init], init->const_value());
    } else {
      Value* c = g->add_initializer(init->name(), init->const_value());
      copy_value_fields(*init, c);
      map[init] = c;
    }
  }
  for (Node* n : src.nodes()) {
    std::vector<Value*> ins;
    ins.reserve(n->num_inputs());
    for (size_t i = 0; i < n->num_inputs(); ++i) ins.push_back(mapped(map, n->input(i)));
    auto c = std::make_unique<Node>(n->op_type(), n->domain(), ins, n->num_outputs());
    c->set_name(n->name());
    c->doc_string = n->doc_string;
    c->overload = n->overload;
    c->metadata_props = n->metadata_props;
    c->device_configurations = n->device_configurations;
    c->proto_quirks = n->proto_quirks;
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      Value* o = n->output(i);
      if (!o) {
        c->remove_output(i, /*keep_slot=*/true);
        continue;
      }
      c->output(i)->set_name(o->name());
      copy_value_fields(*o, c->output(i));
      map[o] = c->output(i);
    }
    for (const Attr& a : n->attrs()) {
      bool has_graphs = a.g || !a.graphs.empty();
      Attr copy = has_graphs ? Attr(a.name, a.type) : a.clone();
      if (has_graphs) {
        // Subgraphs must read this clone's values: clone them with the map.
        copy.ref_attr_name = a.ref_attr_name;
        copy.doc_string = a.doc_string;
        copy.proto_quirks = a.proto_quirks;
        if (a.g) copy.g = clone_into(*a.g, map, g->name_authority());
        for (const auto& sub : a.graphs) {
          copy.graphs.push_back(clone_into(*sub, map, g->name_authority()));
        }
      }
      c->mutable_attrs().push_back(std::move(copy));
    }
    g->append(std::move(c));
  }
  for (Value* out : src.outputs()) g->add_output(mapped(map, out));
  for (Value* vi : src.value_info) {
    auto it = map.find(vi);
    if (it != map.end()) {
      g->value_info.push_back(it->second);
    } else {
      Value* c = g->add_annotation_value(vi->name(), vi->type());
      c->doc_string = vi->doc_string;
      c->metadata_props = vi->metadata_props;
      c->proto_quirks = vi->proto_quirks;
      map[vi] = c;
      g->value_info.push_back(c);
    }
  }
  g->quantization_annotation = src.quantization_annotation;
  g->sparse_initializers = src.sparse_initializers;
  for (const Graph::ValueInfoOverride& o : src.value_info_overrides) {
    Graph::ValueInfoOverride copy = o;
    copy.value = mapped(map, const_cast<Value*>(o.value));
    g->value_info_overrides.push_back(std::move(copy));
  }
  return g;
}

}  // namespace

std::unique_ptr<Graph> Graph::clone() const {
  ValueMap map;
  return clone_into(*this, map, nullptr);
}

}  // namespace oxs::ir
