// Every model of ONNX's own test data (libonnx-testdata) must survive
// load -> save_to_bytes with a ModelProto identical to the original field
// for field, presence included, and load into an IR that ir::verify accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "oxs/ir/error.h"
#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"
#include "test_util.h"

namespace oxs::onnx {
namespace {

using testing::parse_model;
using testing::proto_diff;
using testing::read_file;

constexpr const char* kTestData = "/usr/share/libonnx-testdata/data";

std::vector<std::string> testdata_models() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kTestData)) {
    if (e.is_regular_file() && e.path().filename() == "model.onnx") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Conformance, EveryTestdataModelRoundTripsExactly) {
  const auto files = testdata_models();
  // The package ships about 1,070 models; far fewer means a broken install.
  ASSERT_GT(files.size(), 1000u) << "libonnx-testdata is missing or incomplete at " << kTestData;
  size_t passed = 0, failed = 0;
  for (const std::string& path : files) {
    const oxs::wire::ModelProto original = parse_model(read_file(path));
    std::string diff;
    try {
      ir::Model model = load(path);
      diff = proto_diff(original, parse_model(save_to_bytes(model)));
      // These models are valid, so names must have resolved to a sound IR
      // (outer-scope references in subgraphs included).
      for (const auto& issue : ir::verify(model)) {
        diff += "verifier: " + issue.where + ": " + issue.message + "\n";
      }
    } catch (const Error& e) {
      diff = std::string("oxs::Error: ") + e.what();
    }
    if (diff.empty()) {
      ++passed;
    } else {
      ++failed;
      ADD_FAILURE() << path << ":\n" << diff.substr(0, 4000);
    }
  }
  std::cout << passed << " passed, " << failed << " failed" << std::endl;
  EXPECT_EQ(failed, 0u);
}

}  // namespace
}  // namespace oxs::onnx
