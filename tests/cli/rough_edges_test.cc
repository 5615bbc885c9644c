// The rough edges of issue #16, each with the behaviour a user expects:
// one-line errors, clear refusals, every difference reported.
#include <gtest/gtest.h>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

size_t lines(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

const std::string kMlp = source_path("examples/models/mlp.onnx");
const std::string kData = source_path("tests/cli/data/");

TEST(CliRoughEdges, WrongInputNameListsTheInputsAndSuggestsTheClosest) {
  RunResult r = run_oxs({"run", kMlp, "--input", "x=" + kData + "mlp_x.npy"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "the model has no input named 'x' (did you mean 'X'?)")) << r.err;
  EXPECT_TRUE(contains(r.err, "its inputs: X (float[N,4])")) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
}

TEST(CliRoughEdges, SameInputTwiceIsAnError) {
  RunResult r = run_oxs(
      {"run", kMlp, "--input", "X=" + kData + "mlp_x.npy", "--input", "X=" + kData + "mlp_x.npy"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--input X is given twice")) << r.err;
  r = run_oxs({"run", source_path("examples/hardmax.py"), "-e", "onnx_hardmax", "--arg", "axis=1",
               "--arg", "axis=0", "--arg", "X=" + source_path("examples/data/hardmax_x.npy")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--arg axis is given twice")) << r.err;
}

TEST(CliRoughEdges, ParseErrorsAreOneLine) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"info"},
                                               {"run"},
                                               {"info", "a.onnx", "b.onnx"},
                                               {"check", "--no-such-flag", "m.onnx"},
                                               {"diff", "a.onnx"}}) {
    RunResult r = run_oxs(args);
    EXPECT_EQ(r.code, 2) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err.rfind("oxs: error: " + args[0] + ": ", 0), 0u) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_TRUE(contains(r.err, "run `oxs " + args[0] + " --help`")) << r.err;
  }
  RunResult r = run_oxs({"info"});
  EXPECT_TRUE(contains(r.err, "MODEL is required")) << r.err;
}

TEST(CliRoughEdges, TextForANumberSaysNotANumber) {
  RunResult r = run_oxs({"print", "--max-elements", "abc", kMlp});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "'abc' is not a number")) << r.err;
  EXPECT_FALSE(contains(r.err, "range")) << r.err;
  r = run_oxs({"print", "--max-elements", "-3", kMlp});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "'-3' must be between 0 and 1048576")) << r.err;
  r = run_oxs({"op", "Gemm", "--opset", "1x"});
  EXPECT_TRUE(contains(r.err, "'1x' is not a number")) << r.err;
}

TEST(CliRoughEdges, CompileRefusesBinaryFilesAndDirectories) {
  RunResult r = run_oxs({"compile", kMlp, "-o", "/dev/null"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_TRUE(contains(r.err, "a binary file, not ONNX Script source")) << r.err;
  EXPECT_TRUE(contains(r.err, "oxs decompile")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  TempDir dir;
  r = run_oxs({"compile", dir.path(), "-o", dir.file("x.onnx")});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "this is a directory")) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  // Latin-1 text without NUL bytes: not UTF-8, refused with the line.
  const std::string latin1 = dir.file("latin1.py");
  {
    std::ofstream f(latin1, std::ios::binary);
    f << "# ok\n# caf\xe9\n";
  }
  r = run_oxs({"compile", latin1, "-o", dir.file("y.onnx")});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "not UTF-8 text (invalid byte at line 2)")) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
}

TEST(CliRoughEdges, DiffReportsEveryKindOfDifferenceWithTensorStatistics) {
  RunResult r = run_oxs({"diff", kMlp, kData + "mlp_changed.onnx"});
  EXPECT_EQ(r.code, 1) << r.err;
  // make_cli_data.py: Relu -> Sigmoid, Softmax axis -1 -> 1, W1[1,2] += 0.5, W1[3,0] -= 0.25.
  EXPECT_TRUE(contains(r.out, "operators differ: Relu vs Sigmoid")) << r.out;
  EXPECT_TRUE(contains(r.out, "attribute 'axis' values differ")) << r.out;
  EXPECT_TRUE(contains(r.out, "2 of 32 elements differ; first at [1,2]")) << r.out;
  EXPECT_TRUE(contains(r.out, "max abs diff 0.5")) << r.out;
}

TEST(CliRoughEdges, InfoShowsMetadataProps) {
  RunResult r = run_oxs({"info", kData + "mlp_metadata.onnx"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "metadata:     2\n  author: oxs tests\n  license: MIT\n")) << r.out;
}

}  // namespace
}  // namespace oxs::testing
