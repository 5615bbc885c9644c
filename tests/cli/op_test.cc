// `oxs op`: operator signatures from the schema room.
#include <gtest/gtest.h>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliOp, GemmAtTheLatestOpset) {
  RunResult r = run_oxs({"op", "Gemm"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Gemm-13 (ai.onnx, opsets 13 to 28)\n", 0), 0u) << r.out;
  EXPECT_TRUE(contains(r.out, "  C: T (optional)\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "  alpha: float = 1.0\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "  transA: int = 0\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "  T: tensor(float16), tensor(float)")) << r.out;
}

TEST(CliOp, AnOlderOpsetAndAnotherDomain) {
  RunResult r = run_oxs({"op", "Split", "--opset", "11"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Split-11 (ai.onnx, opsets 11 to 12)\n", 0), 0u) << r.out;
  EXPECT_TRUE(contains(r.out, "  split: ints\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "  outputs: T (variadic, at least 1)\n")) << r.out;
  r = run_oxs({"op", "LinearClassifier", "--domain", "ai.onnx.ml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "  coefficients: floats (required)\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "  post_transform: string = \"NONE\"\n")) << r.out;
}

TEST(CliOp, ErrorsSayWhy) {
  RunResult r = run_oxs({"op", "Reul"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "did you mean 'Relu'")) << r.err;
  r = run_oxs({"op", "LayerNormalization", "--opset", "16"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "introduced at opset 17")) << r.err;
  r = run_oxs({"op", "Relu", "--domain", "com.example"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "unknown op domain 'com.example'")) << r.err;
  EXPECT_EQ(run_oxs({"op", "Relu", "--opset", "0"}).code, 2);
}

}  // namespace
}  // namespace oxs::testing
