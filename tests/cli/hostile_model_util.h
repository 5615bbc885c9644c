// Hostile models for the CLI tests, built with the IR and saved with
// onnx::save: recursive and deeply nested local functions, names with
// terminal control characters, sequence outputs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "oxs/ir/model.h"
#include "oxs/onnx/model_io.h"

namespace oxs::testing {

inline ir::Type float2() {
  return ir::Type::tensor(ir::DataType::Float, ir::Shape({ir::Dim::known(2)}));
}

// A model y = <first callee>(x) whose local functions (domain "local") are
// `functions`: each (name, callees) applies its callees in turn to its
// input, or Relu when it has none.
inline ir::Model model_with_functions(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& functions) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports = {{"", 17}, {"local", 1}};
  ir::Graph& g = *m.graph;
  g.set_name("main");
  ir::Value* x = g.add_input("x", float2());
  ir::Value* in[] = {x};
  ir::Value* y = g.create_node(functions.front().first, in, 1, "local")->output(0);
  y->set_type(float2());
  g.add_output(y);
  for (const auto& [name, callees] : functions) {
    auto f = std::make_unique<ir::Function>("local", name);
    f->opset_imports = {{"", 17}, {"local", 1}};
    ir::Value* v = f->body->add_input("x");
    if (callees.empty()) {
      ir::Value* args[] = {v};
      v = f->body->create_node("Relu", args)->output(0);
    }
    for (const std::string& callee : callees) {
      ir::Value* args[] = {v};
      v = f->body->create_node(callee, args, 1, "local")->output(0);
    }
    f->body->add_output(v);
    m.functions.push_back(std::move(f));
  }
  return m;
}

// f0 -> f1 -> ... -> f<depth-1>, the last one applying Relu.
inline ir::Model model_with_call_chain(int depth) {
  std::vector<std::pair<std::string, std::vector<std::string>>> fs;
  for (int i = 0; i < depth; ++i) {
    fs.push_back({"f" + std::to_string(i),
                  i + 1 < depth ? std::vector<std::string>{"f" + std::to_string(i + 1)}
                                : std::vector<std::string>{}});
  }
  return model_with_functions(fs);
}

}  // namespace oxs::testing
