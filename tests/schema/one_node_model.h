// A model of one ai.onnx node, built in memory for the version-converter
// tests (tests/schema, tests/cli): typed inputs, the node, typed outputs.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "oxs/ir/model.h"

namespace oxs::testing {

struct TypedName {
  std::string name;
  ir::Type type;
};

inline ir::Model one_node_model(int64_t opset, const std::string& op,
                                const std::vector<TypedName>& inputs,
                                const std::vector<TypedName>& outputs,
                                std::vector<ir::Attr> attrs = {}) {
  ir::Model m;
  m.ir_version = 10;
  m.opset_imports.push_back(ir::OpsetImport{"", opset});
  m.graph = std::make_unique<ir::Graph>("g");
  std::vector<ir::Value*> ins;
  for (const TypedName& i : inputs) {
    ins.push_back(i.name.empty() ? nullptr : m.graph->add_input(i.name, i.type));
  }
  ir::Node* n = m.graph->create_node(op, ins, outputs.size());
  n->set_name("the_" + op);
  for (size_t i = 0; i < outputs.size(); ++i) {
    n->output(i)->set_name(outputs[i].name);
    n->output(i)->set_type(outputs[i].type);
    m.graph->add_output(n->output(i));
  }
  for (ir::Attr& a : attrs) n->set_attr(std::move(a));
  return m;
}

inline ir::Type float_tensor(std::initializer_list<int64_t> dims) {
  return ir::Type::tensor(ir::DataType::Float, ir::Shape(dims));
}

}  // namespace oxs::testing
