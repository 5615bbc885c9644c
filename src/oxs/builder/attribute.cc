// make_attr: C++ values to ir::Attr, one overload per attribute type.
#include "oxs/builder/attribute.h"

namespace oxs::builder {

ir::Attr make_attr(std::string name, float v) {
  return ir::Attr::of_float(std::move(name), v);
}
ir::Attr make_attr(std::string name, int64_t v) {
  return ir::Attr::of_int(std::move(name), v);
}
ir::Attr make_attr(std::string name, std::string v) {
  return ir::Attr::of_string(std::move(name), std::move(v));
}
ir::Attr make_attr(std::string name, ir::Tensor v) {
  return ir::Attr::of_tensor(std::move(name), std::make_shared<ir::Tensor>(std::move(v)));
}
ir::Attr make_attr(std::string name, std::unique_ptr<ir::Graph> v) {
  return ir::Attr::of_graph(std::move(name), std::move(v));
}
ir::Attr make_attr(std::string name, ir::SparseTensor v) {
  ir::Attr a(std::move(name), ir::AttrType::SparseTensor);
  a.sparse_tensor = std::make_shared<ir::SparseTensor>(std::move(v));
  return a;
}
ir::Attr make_attr(std::string name, ir::Type v) {
  ir::Attr a(std::move(name), ir::AttrType::TypeProto);
  a.tp = std::move(v);
  return a;
}
ir::Attr make_attr(std::string name, std::vector<float> v) {
  return ir::Attr::of_floats(std::move(name), std::move(v));
}
ir::Attr make_attr(std::string name, std::vector<int64_t> v) {
  return ir::Attr::of_ints(std::move(name), std::move(v));
}
ir::Attr make_attr(std::string name, std::vector<std::string> v) {
  return ir::Attr::of_strings(std::move(name), std::move(v));
}
ir::Attr make_attr(std::string name, std::vector<ir::Tensor> v) {
  ir::Attr a(std::move(name), ir::AttrType::Tensors);
  for (auto& t : v) a.tensors.push_back(std::make_shared<ir::Tensor>(std::move(t)));
  return a;
}
ir::Attr make_attr(std::string name, std::vector<std::unique_ptr<ir::Graph>> v) {
  ir::Attr a(std::move(name), ir::AttrType::Graphs);
  a.graphs = std::move(v);
  return a;
}
ir::Attr make_attr(std::string name, std::vector<ir::SparseTensor> v) {
  ir::Attr a(std::move(name), ir::AttrType::SparseTensors);
  for (auto& t : v) a.sparse_tensors.push_back(std::make_shared<ir::SparseTensor>(std::move(t)));
  return a;
}
ir::Attr make_attr(std::string name, std::vector<ir::Type> v) {
  ir::Attr a(std::move(name), ir::AttrType::TypeProtos);
  a.type_protos = std::move(v);
  return a;
}

}  // namespace oxs::builder
