// Helpers of the rewrite tests: models from ONNX's textual syntax (libonnx's
// parser, then our loader), running a pass list, printing a graph.
#pragma once

#include <gtest/gtest.h>
#include <onnx/defs/parser.h>

#include <cstdio>
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

// Saves `m` under the test temp dir as `file` and runs onnx's checker
// (full_check) on it; "" when it passes, else the checker's output.
inline std::string onnx_checker(const ir::Model& m, const std::string& file) {
  std::string path = ::testing::TempDir() + "/" + file;
  onnx::save(m, path);
  std::string cmd = "/usr/bin/python3 -c \"import onnx; onnx.checker.check_model(onnx.load('" +
                    path + "'), full_check=True)\" 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  return status == 0 ? "" : out.empty() ? "checker failed" : out;
}

}  // namespace oxs::rewrite::testing
