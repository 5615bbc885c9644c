// `oxs check`: verifier, ONNX checker and strict shape inference. The bad
// models come from examples/models/make_models.py.
#include <gtest/gtest.h>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliCheck, ValidModel) {
  RunResult r = run_oxs({"check", source_path("examples/models/mlp.onnx")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "ok: 4 nodes, opset 17\n");
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(CliCheck, CheckerProblem) {
  RunResult r = run_oxs({"check", source_path("tests/cli/data/bad_arity.onnx")});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(contains(r.err, "oxs: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "onnx checker")) << r.err;
  EXPECT_TRUE(contains(r.err, "lonely_gemm")) << r.err;
  EXPECT_TRUE(contains(r.err, "1 problem found")) << r.err;
}

TEST(CliCheck, EveryMisspeltOpWithSuggestions) {
  RunResult r = run_oxs({"check", source_path("tests/cli/data/bad_ops.onnx")});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "op schema: node 'typo1': unknown op 'Reul'")) << r.err;
  EXPECT_TRUE(contains(r.err, "did you mean 'Relu'")) << r.err;
  EXPECT_TRUE(contains(r.err, "node 'typo2': unknown op 'Softmaxx'")) << r.err;
  EXPECT_TRUE(contains(r.err, "did you mean 'Softmax'")) << r.err;
  EXPECT_TRUE(contains(r.err, "2 problems found")) << r.err;
}

TEST(CliCheck, ShapeInferenceProblem) {
  const std::string model = source_path("tests/cli/data/bad_shape.onnx");
  RunResult r = run_oxs({"check", model});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "onnx shape inference")) << r.err;
  EXPECT_TRUE(contains(r.err, "Add")) << r.err;
  // The same model passes when inference is skipped.
  RunResult skipped = run_oxs({"check", "--no-shape-inference", model});
  EXPECT_EQ(skipped.code, 0) << skipped.err;
  EXPECT_EQ(skipped.out, "ok: 1 nodes, opset 17\n");
}

}  // namespace
}  // namespace oxs::testing
