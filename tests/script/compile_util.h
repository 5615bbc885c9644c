// Helpers for the compiler tests: compile a script (from text or from
// tests/script/scripts/), render its diagnostics, check the model with
// libonnx's checker (schema::check_conformance) and, for files, with the
// onnx Python package's full checker.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "oxs/ir/printer.h"
#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"
#include "oxs/schema/conformance.h"
#include "oxs/script/compile.h"

namespace oxs::script::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string script_path(const std::string& name) {
  return std::string(OXS_SOURCE_DIR) + "/tests/script/scripts/" + name;
}

// Compiles `text` as t.py; returns the rendered diagnostics (errors and warnings).
inline std::string diagnostics_of(const std::string& text, const CompileOptions& options = {}) {
  SourceFile file("t.py", text);
  CompileResult r = compile_source(file, options);
  return render(file, r.diagnostics);
}

// The problems libonnx's checker and strict shape inference find; "" if none.
inline std::string conformance_problems(const ir::Model& m) {
  std::string out;
  for (const auto& issue : ir::verify(m))
    out += "verify: " + issue.where + ": " + issue.message + "\n";
  for (const auto& issue : schema::check_conformance(m)) {
    out += issue.stage + ": " + issue.message + "\n";
  }
  return out;
}

// Saves `m` and runs onnx.checker.check_model(full_check=True) from Python.
inline std::string python_checker(const ir::Model& m, const std::string& tag) {
  std::string path = std::string(OXS_BINARY_DIR) + "/script_test_" + tag + ".onnx";
  onnx::save(m, path);
  std::string cmd =
      "/usr/bin/python3 -c \"import onnx,sys; "
      "onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)\" " +
      path + " > " + path + ".log 2>&1";
  int rc = std::system(cmd.c_str());
  std::string log = read_file(path + ".log");
  std::remove(path.c_str());
  std::remove((path + ".log").c_str());
  return rc == 0 ? std::string() : "python checker failed: " + log;
}

// Compiles `text`; fails the test (with the diagnostics) if it does not.
inline std::optional<ir::Model> compile_ok(const std::string& text,
                                           const CompileOptions& options = {}) {
  SourceFile file("t.py", text);
  CompileResult r = compile_source(file, options);
  if (!r.ok()) {
    ADD_FAILURE() << "compile failed:\n" << render(file, r.diagnostics);
    return std::nullopt;
  }
  std::string problems = conformance_problems(*r.model);
  EXPECT_EQ(problems, "") << ir::print(*r.model);
  return std::move(r.model);
}

}  // namespace oxs::script::testing
