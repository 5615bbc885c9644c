// `oxs check` (infer::check_model) on every model of ONNX 1.23's backend node
// tests: ai.onnx opsets up to 28, IR up to 14, the new element types. These
// models are valid, so every one must pass; the only exclusions are listed
// below, each with its reason. Prints "N passed, N failed, N excluded".
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "onnx123_gaps.h"
#include "oxs/infer/check_model.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"

namespace oxs::infer {
namespace {

constexpr const char* kBackend123 = OXS_ONNX_BACKEND_1_23_DIR "/node";

// Test name -> why it cannot pass here.
const std::map<std::string, std::string>& exclusions() {
  static const std::map<std::string, std::string> e = {
      {"test_dft_irfft_opset19",
       "imports opset 19, so DFT-17 is in force, whose libonnx 1.12 inference refuses "
       "onesided=1 with inverse=1 (irfft); ONNX 1.23 allows it"},
  };
  return e;
}

TEST(Backend123Check, EveryNodeModelPassesCheck) {
  if (!std::filesystem::is_directory(kBackend123)) {
    FAIL() << "ONNX 1.23 backend test data not found at " << kBackend123;
  }
  std::vector<std::filesystem::path> dirs;
  for (const auto& e : std::filesystem::directory_iterator(kBackend123)) {
    if (std::filesystem::is_regular_file(e.path() / "model.onnx")) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  ASSERT_GT(dirs.size(), 1500u);
  size_t passed = 0, failed = 0, excluded = 0;
  for (const auto& dir : dirs) {
    const std::string name = dir.filename();
    if (exclusions().count(name) || oxs::testing::is_onnx123_gap(name)) {
      ++excluded;
      continue;
    }
    std::string problems;
    try {
      ir::Model model = onnx::load((dir / "model.onnx").string());
      schema::ConformanceOptions options;
      options.model_dir = dir.string();
      for (const CheckIssue& issue : check_model(model, options)) {
        if (!issue.note) problems += issue.stage + ": " + issue.message + "\n";
      }
    } catch (const Error& e) {
      problems = std::string("oxs::Error: ") + e.what();
    }
    if (problems.empty()) {
      ++passed;
    } else {
      ++failed;
      ADD_FAILURE() << name << ":\n" << problems.substr(0, 1500);
    }
  }
  std::cout << passed << " passed, " << failed << " failed, " << excluded << " excluded"
            << std::endl;
  EXPECT_EQ(failed, 0u);
}

}  // namespace
}  // namespace oxs::infer
