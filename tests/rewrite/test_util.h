// Helpers of the rewrite tests: models from ONNX's textual syntax (libonnx's
// parser, then our loader), running a pass list, printing a graph.
#pragma once

#include <gtest/gtest.h>
#include <onnx/defs/parser.h>

#include <memory>
#include <string>
#include <vector>

#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/onnx/model_io.h"
#include "oxs/rewrite/passes/manager.h"

namespace oxs::rewrite::testing {

inline ir::Model parse_model(const char* text) {
  ::onnx::ModelProto proto;
  auto status = ::onnx::OnnxParser::Parse(proto, text);
  if (!status.IsOK()) throw Error(ErrorKind::Input, "test model: " + status.ErrorMessage());
  std::string bytes;
  proto.SerializeToString(&bytes);
  return onnx::load_from_bytes(bytes, ".", "test.onnx");
}

// Runs the named passes with `verify` (equality by default) on `m`.
inline std::vector<PassStats> optimize(ir::Model& m, const std::vector<std::string>& names,
                                       const std::string& verify = "equality") {
  std::vector<std::unique_ptr<Pass>> passes;
  for (const auto& n : names) passes.push_back(make_pass(n));
  PipelineOptions o;
  if (!verify.empty()) o.verify = VerifySpec::parse(verify);
  return run_pipeline(m, passes, o);
}

// The op types of the main graph's nodes in order: "Add,Relu".
inline std::string ops(const ir::Model& m) {
  std::string s;
  for (const ir::Node* n : m.graph->nodes()) s += (s.empty() ? "" : ",") + n->op_type();
  return s;
}

}  // namespace oxs::rewrite::testing
