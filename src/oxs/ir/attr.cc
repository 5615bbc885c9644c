#include "oxs/ir/attr.h"

#include "oxs/ir/graph.h"

namespace oxs::ir {

const char* attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::Undefined:
      return "undefined";
    case AttrType::Float:
      return "float";
    case AttrType::Int:
      return "int";
    case AttrType::String:
      return "string";
    case AttrType::Tensor:
      return "tensor";
    case AttrType::Graph:
      return "graph";
    case AttrType::Floats:
      return "floats";
    case AttrType::Ints:
      return "ints";
    case AttrType::Strings:
      return "strings";
    case AttrType::Tensors:
      return "tensors";
    case AttrType::Graphs:
      return "graphs";
    case AttrType::SparseTensor:
      return "sparse_tensor";
    case AttrType::SparseTensors:
      return "sparse_tensors";
    case AttrType::TypeProto:
      return "type_proto";
    case AttrType::TypeProtos:
      return "type_protos";
  }
  return "invalid";
}

Attr::Attr(Attr&&) noexcept = default;
Attr& Attr::operator=(Attr&&) noexcept = default;
Attr::~Attr() = default;

Attr Attr::clone() const {
  Attr a(name, type);
  a.ref_attr_name = ref_attr_name;
  a.doc_string = doc_string;
  a.proto_quirks = proto_quirks;
  a.f = f;
  a.i = i;
  a.s = s;
  a.t = t;
  if (g) a.g = g->clone();
  a.sparse_tensor = sparse_tensor;
  a.tp = tp;
  a.floats = floats;
  a.ints = ints;
  a.strings = strings;
  a.tensors = tensors;
  for (const auto& sub : graphs) a.graphs.push_back(sub->clone());
  a.sparse_tensors = sparse_tensors;
  a.type_protos = type_protos;
  return a;
}

Attr Attr::of_float(std::string name, float v) {
  Attr a(std::move(name), AttrType::Float);
  a.f = v;
  return a;
}

Attr Attr::of_int(std::string name, int64_t v) {
  Attr a(std::move(name), AttrType::Int);
  a.i = v;
  return a;
}

Attr Attr::of_string(std::string name, std::string v) {
  Attr a(std::move(name), AttrType::String);
  a.s = std::move(v);
  return a;
}

Attr Attr::of_floats(std::string name, std::vector<float> v) {
  Attr a(std::move(name), AttrType::Floats);
  a.floats = std::move(v);
  return a;
}

Attr Attr::of_ints(std::string name, std::vector<int64_t> v) {
  Attr a(std::move(name), AttrType::Ints);
  a.ints = std::move(v);
  return a;
}

Attr Attr::of_strings(std::string name, std::vector<std::string> v) {
  Attr a(std::move(name), AttrType::Strings);
  a.strings = std::move(v);
  return a;
}

Attr Attr::of_tensor(std::string name, std::shared_ptr<Tensor> v) {
  Attr a(std::move(name), AttrType::Tensor);
  a.t = std::move(v);
  return a;
}

Attr Attr::of_graph(std::string name, std::unique_ptr<Graph> g) {
  Attr a(std::move(name), AttrType::Graph);
  a.g = std::move(g);
  return a;
}

Attr Attr::reference(std::string name, AttrType type, std::string ref_attr_name) {
  Attr a(std::move(name), type);
  a.ref_attr_name = std::move(ref_attr_name);
  return a;
}

}  // namespace oxs::ir
