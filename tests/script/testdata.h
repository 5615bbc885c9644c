// The ONNX backend test models (libonnx-testdata) and exclusion lists, for
// the tests that sweep all of them.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace oxs::testing {

inline const char* kTestData = "/usr/share/libonnx-testdata/data";

// Every model.onnx below kTestData, sorted.
inline std::vector<std::string> backend_test_models() {
  std::vector<std::string> models;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kTestData)) {
    if (e.path().filename() == "model.onnx") models.push_back(e.path().string());
  }
  std::sort(models.begin(), models.end());
  return models;
}

// "node/test_foo" for a model path.
inline std::string backend_test_id(const std::string& model_path) {
  return std::filesystem::path(model_path).parent_path().lexically_relative(kTestData).string();
}

// Lines "<test id> <reason>" of tests/script/<file>; '#' starts a comment.
inline std::map<std::string, std::string> read_exclusions(const std::string& file) {
  std::map<std::string, std::string> out;
  std::ifstream in(std::string(OXS_SOURCE_DIR) + "/tests/script/" + file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.find(' ');
    out[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  return out;
}

}  // namespace oxs::testing
