// Test helper: save a model and run the official onnx checker (with full
// shape inference) on it through /usr/bin/python3.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "oxs/ir/model.h"
#include "oxs/onnx/model_io.h"

namespace oxs::testing {

// Returns "" if the checker accepts the model, else its output.
inline std::string onnx_checker(const ir::Model& m, const std::string& stem) {
  auto dir = std::filesystem::temp_directory_path() / "oxs_builder_tests";
  std::filesystem::create_directories(dir);
  std::string path = (dir / (stem + ".onnx")).string();
  onnx::save(m, path);
  std::string cmd =
      "/usr/bin/python3 -c \"import onnx,sys; "
      "onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)\" " +
      path + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "popen failed";
  char buf[512];
  while (fgets(buf, sizeof buf, p)) out += buf;
  int rc = pclose(p);
  return rc == 0 ? std::string() : (out.empty() ? "checker failed" : out);
}

}  // namespace oxs::testing
