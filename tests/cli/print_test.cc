// `oxs print` on the bundled MLP.
#include <gtest/gtest.h>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliPrint, Mlp) {
  RunResult r = run_oxs({"print", source_path("examples/models/mlp.onnx")});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string& out = r.out;
  EXPECT_EQ(out.rfind("ir_version 8, opsets {ai.onnx: 17}, producer \"oxs-examples\" \"0.1\"\n", 0),
            0u)
      << out;
  EXPECT_TRUE(contains(out, "graph \"mlp\" {\n")) << out;
  EXPECT_TRUE(contains(out, "  input %X: float[N,4]\n")) << out;
  // B2 is small: printed in full. W1 has 32 values: the first 8 and a count.
  EXPECT_TRUE(contains(out, "  init %B2: float[3] = [0.5, 0.0, -0.5]\n")) << out;
  EXPECT_TRUE(contains(out, "  init %W1: float[8,4] = [")) << out;
  EXPECT_TRUE(contains(out, "... (32 values)]\n")) << out;
  EXPECT_TRUE(contains(out, "= Gemm(%X, %W1, %B1) {transB=1}  # fc1\n")) << out;
  EXPECT_TRUE(contains(out, "= Relu(%H)  # relu1\n")) << out;
  EXPECT_TRUE(contains(out, "= Softmax(%logits) {axis=-1}  # softmax\n")) << out;
  EXPECT_TRUE(contains(out, "  output %Y: float[N,3]\n}\n")) << out;
  // Node lines come in graph order.
  EXPECT_LT(out.find("# fc1"), out.find("# relu1"));
  EXPECT_LT(out.find("# relu1"), out.find("# fc2"));
}

TEST(CliPrint, Options) {
  const std::string model = source_path("examples/models/mlp.onnx");
  RunResult r = run_oxs({"print", "--no-node-names", "--max-elements", "2", "--doc", model});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "# fc1")) << r.out;
  EXPECT_TRUE(contains(r.out, "  init %B2: float[3] = [0.5, 0.0, ... (3 values)]\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "# A tiny classifier")) << r.out;
}

TEST(CliPrint, SubgraphsAreIndented) {
  RunResult r = run_oxs({"print", "/usr/share/libonnx-testdata/data/node/test_loop11/model.onnx"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(
      contains(r.out, "= Loop(%trip_count, %cond, %y)\n      body: graph \"loop_body\" {\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "\n        %cond_out: bool[] = Identity(%cond_in)")) << r.out;
}

}  // namespace
}  // namespace oxs::testing
