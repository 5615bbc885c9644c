// Runs a one-node ai.onnx model over given tensors (inputs "in0", "in1", ...)
// and returns its first output: for kernel tests that pin down semantics the
// backend test data leaves open.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "oxs/eval/session.h"

namespace oxs::eval {

inline Value run_one_op(const std::string& op, const std::vector<Tensor>& inputs,
                        const std::function<void(ir::Node*)>& set_attrs, int opset) {
  ir::Model m;
  m.opset_imports = {{"", opset}};
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> ins;
  std::map<std::string, Value> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    ins.push_back(g.add_input(name, ir::Type::tensor(inputs[i].dtype())));
    feeds[name] = inputs[i];
  }
  ir::Node* n = g.create_node(op, ins);
  if (set_attrs) set_attrs(n);
  g.add_output(n->output(0));
  Session s(m);
  return s.run(feeds)[0];
}

}  // namespace oxs::eval
