// `oxs diff` and `oxs decompile` through the binary: exit codes, output, the
// side file for weights, and refusals.
#include <gtest/gtest.h>

#include <filesystem>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kMlp = source_path("examples/models/mlp.onnx");

TEST(CliDiff, SameModelIsEquivalentAcrossStorageForms) {
  TempDir dir;
  const std::string ext = dir.file("mlp_ext.onnx");
  ASSERT_EQ(run_oxs({"convert", kMlp, ext, "--external-data=64"}).code, 0);
  RunResult r = run_oxs({"diff", kMlp, ext});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "equivalent\n");
}

TEST(CliDiff, DifferentModelsExitOneAndNameTheNodes) {
  RunResult r =
      run_oxs({"diff", kMlp, "/usr/share/libonnx-testdata/data/node/test_relu/model.onnx"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "differ:")) << r.out;
  EXPECT_TRUE(contains(r.out, "difference: ")) << r.out;
  RunResult missing = run_oxs({"diff", kMlp, "/nonexistent/model.onnx"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_TRUE(contains(missing.err, "/nonexistent/model.onnx")) << missing.err;
}

TEST(CliDecompile, WritesSourceAndWeights) {
  TempDir dir;
  const std::string py = dir.file("mlp.py");
  RunResult r =
      run_oxs({"decompile", kMlp, "-o", py, "--weights", "mlp.weights", "--max-inline", "8"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "wrote " + py + " and mlp.weights")) << r.out;
  std::string source = slurp(py);
  EXPECT_TRUE(contains(source, "@script()\ndef mlp(X: FLOAT['N', 4]) -> FLOAT['N', 3]:")) << source;
  EXPECT_TRUE(contains(source,
                       "external_tensor('W1', TensorProto.FLOAT, [8, 4], 'mlp.weights', "
                       "offset=0, length=128)"))
      << source;
  EXPECT_TRUE(contains(source,
                       "B2 = op.Constant(value=make_tensor('B2', TensorProto.FLOAT, [3], "
                       "[0.5, 0.0, -0.5]))"))
      << source;
  EXPECT_GE(fs::file_size(dir.file("mlp.weights")), 128u + 96u);
  // To stdout without -o.
  RunResult out = run_oxs({"decompile", kMlp});
  ASSERT_EQ(out.code, 0) << out.err;
  EXPECT_TRUE(contains(out.out, "    Y = op.Softmax(logits, axis=-1)\n    return Y\n")) << out.out;
}

TEST(CliDecompile, RoundTripsThroughCompileWithAWeightsFile) {
  TempDir dir;
  const std::string py = dir.file("mlp.py");
  ASSERT_EQ(
      run_oxs({"decompile", kMlp, "-o", py, "--weights", "mlp.weights", "--max-inline", "8"}).code,
      0);
  const std::string back = dir.file("back.onnx");
  RunResult c = run_oxs({"compile", py, "-o", back});
  ASSERT_EQ(c.code, 0) << c.err;
  RunResult d = run_oxs({"diff", kMlp, back});
  EXPECT_EQ(d.code, 0) << d.out;
  EXPECT_EQ(d.out, "equivalent\n");
  // external_tensor(...) is checked like external data of a model.
  std::string source = slurp(py);
  auto rewrite = [&](const std::string& from, const std::string& to) {
    std::string s = source;
    s.replace(s.find(from), from.size(), to);
    std::ofstream(dir.file("bad.py")) << s;
    return run_oxs({"compile", dir.file("bad.py"), "-o", dir.file("bad.onnx")});
  };
  RunResult escape = rewrite("'mlp.weights', offset=0", "'../mlp.weights', offset=0");
  EXPECT_EQ(escape.code, 1);
  EXPECT_TRUE(contains(escape.err, "has a '..' component")) << escape.err;
  RunResult past_end = rewrite("offset=128, length=96", "offset=4096, length=96");
  EXPECT_EQ(past_end.code, 1);
  EXPECT_TRUE(contains(past_end.err, "is outside 'mlp.weights'")) << past_end.err;
  RunResult wrong_length = rewrite("offset=128, length=96", "offset=128, length=8");
  EXPECT_EQ(wrong_length.code, 1);
  EXPECT_TRUE(contains(wrong_length.err, "length 8 does not match its type and dims (96 bytes)"))
      << wrong_length.err;
  EXPECT_FALSE(fs::exists(dir.file("bad.onnx")));
}

TEST(CliDecompile, RefusesBadRequests) {
  TempDir dir;
  RunResult no_out = run_oxs({"decompile", kMlp, "--weights", "w.bin"});
  EXPECT_EQ(no_out.code, 2) << no_out.err;
  EXPECT_TRUE(contains(no_out.err, "--weights needs -o FILE.py")) << no_out.err;
  RunResult dir_part = run_oxs({"decompile", kMlp, "-o", dir.file("m.py"), "--weights", "x/w.bin"});
  EXPECT_EQ(dir_part.code, 2) << dir_part.err;
  EXPECT_FALSE(fs::exists(dir.file("m.py")));
  const std::string garbage = dir.file("garbage.onnx");
  { std::ofstream(garbage) << "this is not a model"; }
  RunResult bad = run_oxs({"decompile", garbage, "-o", dir.file("g.py")});
  EXPECT_EQ(bad.code, 1);
  EXPECT_TRUE(contains(bad.err, garbage)) << bad.err;
  EXPECT_FALSE(fs::exists(dir.file("g.py")));
}

}  // namespace
}  // namespace oxs::testing
