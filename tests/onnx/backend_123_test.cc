// Every model of ONNX 1.23's backend node tests (opsets up to 28, IR up to
// 14, float8/int4/int2/float4 tensors, new fields) must load and save back to
// the same ModelProto (compared as parsed messages of oxs's wire format, so
// every field of IR 14 counts), and load into an IR that ir::verify accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "oxs/ir/error.h"
#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"
#include "test_util.h"

namespace oxs::onnx {
namespace {

using testing::parse_model;
using testing::proto_diff;
using testing::read_file;

std::string canonical_bytes(const google::protobuf::Message& m) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
  }  // the streams trim `out` to what was written when they close
  return out;
}

constexpr const char* kBackend123 = OXS_ONNX_BACKEND_1_23_DIR "/node";

std::vector<std::string> backend_models() {
  std::vector<std::string> out;
  if (!std::filesystem::is_directory(kBackend123)) return out;
  for (const auto& e : std::filesystem::directory_iterator(kBackend123)) {
    auto model = e.path() / "model.onnx";
    if (std::filesystem::is_regular_file(model)) out.push_back(model);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Backend123, EveryNodeModelRoundTripsExactly) {
  const auto files = backend_models();
  if (files.empty()) FAIL() << "ONNX 1.23 backend test data not found at " << kBackend123;
  ASSERT_GT(files.size(), 1500u) << "the ONNX 1.23 backend node tests look incomplete";
  size_t passed = 0, failed = 0;
  for (const std::string& path : files) {
    std::string diff;
    try {
      const oxs::wire::ModelProto original = parse_model(read_file(path));
      ir::Model model = load(path);
      const oxs::wire::ModelProto saved = parse_model(save_to_bytes(model));
      // Equal messages serialize to equal bytes (fields in number order);
      // unlike the differencer, bytes also tell NaN payloads apart and do not
      // call NaN != NaN a difference.
      if (canonical_bytes(original) != canonical_bytes(saved)) diff = proto_diff(original, saved);
      if (diff.empty() && canonical_bytes(original) != canonical_bytes(saved))
        diff = "(bytes differ)";
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
      ADD_FAILURE() << path << ":\n" << diff.substr(0, 2000);
    }
  }
  std::cout << passed << " passed, " << failed << " failed" << std::endl;
  EXPECT_EQ(failed, 0u);
}

}  // namespace
}  // namespace oxs::onnx
