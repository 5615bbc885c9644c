// Verification after passes, bisection to the rule application at fault,
// the output models against onnx's checker and ONNX Runtime, and `oxs opt`.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "eval/ort_check.h"
#include "oxs/rewrite/verify/verify.h"
#include "test_util.h"

namespace oxs::rewrite {
namespace {

namespace fs = std::filesystem;
using testing::ops;
using testing::optimize;
using testing::parse_model;

const char* kTwoAdds = R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x, float[2,3] y) => (float[2,3] out) {
      s = Relu(x)
      same = Add(s, s)
      a = Add(same, y)
      b = Add(a, x)
      out = Relu(b)
    })";

TEST(Verification, BreakAddsIsCaughtAndBisectedToItsFirstNode) {
  auto m = parse_model(kTwoAdds);
  try {
    optimize(m, {"break-adds"}, "equality");
    FAIL() << "verification did not fail";
  } catch (const VerificationError& e) {
    EXPECT_EQ(e.pass(), "break-adds");
    EXPECT_EQ(e.figures().output, "out");
    ASSERT_TRUE(e.culprit().has_value());
    // Add(s, s) is left alone (x == y); the first broken Add is 'a'.
    EXPECT_EQ(e.culprit()->application.rule, "BreakAdds");
    EXPECT_EQ(e.culprit()->application.index, 1u);
    EXPECT_EQ(e.culprit()->applications_in_pass, 2u);
    EXPECT_EQ(e.culprit()->application.before, "%a = Add(%same, %y)");
    EXPECT_EQ(e.culprit()->application.after, "%Add = Add(%same, %same)  # Add\n");
    std::string msg = e.message();
    EXPECT_NE(msg.find("verification (equality) failed after pass 'break-adds': output 'out'"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("bisection: application 1 of 2"), std::string::npos) << msg;
  }
}

TEST(Verification, BisectionFindsALaterApplication) {
  // Only the second Add is broken: 'a' adds y to itself already (y == y).
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x, float[2] y) => (float[2] out) {
      a = Add(y, y)
      b = Add(a, x)
      out = Relu(b)
    })");
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(make_pass("break-adds"));
  PipelineOptions o;
  o.verify = VerifySpec::parse("tolerance=1e-6,1e-6");
  try {
    run_pipeline(m, passes, o);
    FAIL() << "verification did not fail";
  } catch (const VerificationError& e) {
    ASSERT_TRUE(e.culprit().has_value());
    EXPECT_EQ(e.culprit()->application.before, "%b = Add(%a, %x)");
  }
}

TEST(Verification, CorrectPassesVerifyAndMetricsCatchBrokenOnes) {
  auto m = parse_model(kTwoAdds);
  EXPECT_NO_THROW(optimize(m, default_pipeline(), "equality"));
  auto broken = parse_model(kTwoAdds);
  EXPECT_THROW(optimize(broken, {"break-adds"}, "metric=cosine:0.9999"), VerificationError);
}

TEST(Verification, MetricsFigures) {
  eval::Tensor a =
      eval::Tensor::of<float>(ir::DataType::Float, {2, 2}, std::vector<float>{1, 2, 3, 4});
  eval::Tensor b =
      eval::Tensor::of<float>(ir::DataType::Float, {2, 2}, std::vector<float>{1, 2, 4, 3});
  auto figs = compare_outputs({"o"}, {a}, {b}, VerifySpec::parse("metric=top1:0.5"));
  ASSERT_EQ(figs.size(), 1u);
  EXPECT_DOUBLE_EQ(figs[0].max_abs, 1.0);
  EXPECT_DOUBLE_EQ(figs[0].max_rel, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(figs[0].top1, 0.5);
  EXPECT_NEAR(figs[0].cosine, 29.0 / 30.0, 1e-12);
  EXPECT_TRUE(figs[0].ok);
  EXPECT_FALSE(compare_outputs({"o"}, {a}, {b}, VerifySpec::parse("metric=top1:0.6"))[0].ok);
  EXPECT_FALSE(compare_outputs({"o"}, {a}, {b}, VerifySpec::parse("metric=max-abs:0.5"))[0].ok);
  EXPECT_TRUE(compare_outputs({"o"}, {a}, {b}, VerifySpec::parse("tolerance=0,1"))[0].ok);
  EXPECT_FALSE(compare_outputs({"o"}, {a}, {b}, VerifySpec::parse("equality"))[0].ok);
  EXPECT_THROW(VerifySpec::parse("metric=f1:0.5"), Error);
  EXPECT_THROW(VerifySpec::parse("tolerance=1e-3"), Error);
  EXPECT_THROW(VerifySpec::parse("equal"), Error);
}

// A small transformer-style block: projections, a softmax attention, a
// residual, redundant ops for the cleanup passes.
const char* kBlock = R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[4,8] x) => (float[4,8] y)
      <float[8,8] wq = {0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8, 0.8,0.7,0.6,0.5,0.4,0.3,0.2,0.1,
                        0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1, 0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,
                        0.3,0.1,0.3,0.1,0.3,0.1,0.3,0.1, 0.1,0.3,0.1,0.3,0.1,0.3,0.1,0.3,
                        0.5,0.4,0.3,0.2,0.1,0.0,0.1,0.2, 0.0,0.1,0.0,0.1,0.0,0.1,0.0,0.1},
       float[8] bq = {0.1,0.0,0.1,0.0,0.1,0.0,0.1,0.0}, float one = {1.0}, float[1] zero = {0.0},
       float scale = {0.35355339}, int64[2] shape = {4, 8}> {
      xi = Identity(x)
      q0 = MatMul(xi, wq)
      q = Add(q0, bq)
      k0 = MatMul(xi, wq)
      k = Add(k0, bq)
      kt = Transpose<perm = [1, 0]>(k)
      kt2 = Transpose<perm = [1, 0]>(kt)
      ktt = Transpose<perm = [1, 0]>(kt2)
      s0 = MatMul(q, ktt)
      s = Mul(s0, scale)
      p = Softmax<axis = -1>(s)
      p1 = Mul(p, one)
      o = MatMul(p1, xi)
      r = Add(o, zero)
      rr = Reshape(r, shape)
      d = Dropout(rr)
      y = Add(d, x)
    })";

TEST(OutputModels, PassOnnxCheckerAndMatchOnnxRuntime) {
  auto m = parse_model(kBlock);
  optimize(m, default_pipeline(), "tolerance=1e-5,1e-6");
  // The residual Add(MatMul(p, x), x) is a Gemm too: its bias x is [4, 8].
  EXPECT_EQ(ops(m), "Gemm,Transpose,MatMul,Mul,Softmax,Gemm");
  EXPECT_EQ(testing::onnx_checker(m, "oxs_rewrite_block.onnx"), "");
  eval::ort_test::OrtCase c;
  c.rtol = 1e-4;
  c.atol = 1e-5;
  eval::ort_test::check_against_ort(m, "rewrite_block", c);
}

// ---- oxs opt ----

std::string oxs() {
  return std::getenv("OXS_BIN") ? std::string(std::getenv("OXS_BIN"))
                                : std::string(OXS_BINARY_DIR) + "/oxs";
}

TEST(OptCommand, BadPassNameIsAClearErrorAndNothingIsWritten) {
  fs::path dir = fs::path(::testing::TempDir()) / "oxs_opt_cli";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto m = parse_model(kTwoAdds);
  onnx::save(m, (dir / "in.onnx").string());
  fs::remove(dir / "out.onnx");
  int code = 0;
  std::string out = eval::ort_test::shell(oxs() + " opt " + (dir / "in.onnx").string() + " -o " +
                                              (dir / "out.onnx").string() + " --passes fold,flod",
                                          &code);
  EXPECT_NE(code, 0);
  EXPECT_NE(code, 3);
  EXPECT_NE(out.find("unknown pass 'flod' (did you mean 'fold'?)"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "out.onnx"));

  out = eval::ort_test::shell(oxs() + " opt " + (dir / "in.onnx").string() + " -o " +
                                  (dir / "out.onnx").string() +
                                  " -q --passes break-adds --verify equality",
                              &code);
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(
      out.find("bisection: application 1 of 2 in this pass broke it: rule 'BreakAdds' at Add\n"
               "  before: %a = Add(%same, %y)"),
      std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(dir / "out.onnx"));

  out = eval::ort_test::shell(
      oxs() + " opt " + (dir / "in.onnx").string() + " -o " + (dir / "out.onnx").string() +
          " -q --stats --verify equality --keep-intermediates " + (dir / "steps").string(),
      &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_TRUE(fs::exists(dir / "out.onnx"));
  EXPECT_TRUE(fs::exists(dir / "steps" / "01_noop.onnx"));
  EXPECT_TRUE(fs::exists(dir / "steps" / "03_infer.onnx"));
  EXPECT_NE(out.find("nodes in"), std::string::npos) << out;
}

TEST(OptCommand, ConfigFileWithARuleFileIsVerified) {
  fs::path dir = fs::path(::testing::TempDir()) / "oxs_opt_config";
  fs::create_directories(dir);
  auto m = parse_model(kTwoAdds);
  onnx::save(m, (dir / "in.onnx").string());
  fs::copy_file(std::string(OXS_SOURCE_DIR) + "/tests/rewrite/rules/BreakAdds.py",
                dir / "BreakAdds.py", fs::copy_options::overwrite_existing);
  std::ofstream(dir / "opt.yaml") << "passes:\n  - rules: BreakAdds.py\nverify: equality\n";
  std::ofstream(dir / "bad.yaml") << "passes:\n  - rules: BreakAdds.py\nverfy: equality\n";
  int code = 0;
  std::string out =
      eval::ort_test::shell(oxs() + " opt " + (dir / "in.onnx").string() + " -q -o " +
                                (dir / "out.onnx").string() + " -c " + (dir / "opt.yaml").string(),
                            &code);
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(out.find("failed after pass 'BreakAdds'"), std::string::npos) << out;
  out =
      eval::ort_test::shell(oxs() + " opt " + (dir / "in.onnx").string() + " -q -o " +
                                (dir / "out.onnx").string() + " -c " + (dir / "bad.yaml").string(),
                            &code);
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(out.find("bad.yaml:3:1: unknown key 'verfy'"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "out.onnx"));
}

TEST(OptCommand, InputDirFeedsVerification) {
  fs::path dir = fs::path(::testing::TempDir()) / "oxs_opt_inputs";
  fs::create_directories(dir / "in");
  auto m = parse_model(kTwoAdds);
  onnx::save(m, (dir / "m.onnx").string());
  // x = -1 everywhere: Relu(x) is 0, so Add(same, y) and Add(same, same)
  // differ only through y; with y = 0 BreakAdds changes nothing visible.
  std::vector<float> minus(6, -1.0f), zeros(6, 0.0f);
  eval::write_npy((dir / "in" / "x.npy").string(),
                  eval::Tensor::of<float>(ir::DataType::Float, {2, 3}, minus));
  eval::write_npy((dir / "in" / "y.npy").string(),
                  eval::Tensor::of<float>(ir::DataType::Float, {2, 3}, zeros));
  int code = 0;
  std::string out = eval::ort_test::shell(
      oxs() + " opt " + (dir / "m.onnx").string() + " -q -o " + (dir / "out.onnx").string() +
          " --passes break-adds --verify equality --input-dir " + (dir / "in").string(),
      &code);
  // On these inputs the wrong pass is invisible (random inputs catch it above):
  // verification is only as good as its data, and the data came from the dir.
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("verified (equality)"), std::string::npos) << out;
}

// Reference data as one .npz archive (written by numpy itself), from the
// command line and from a config's `reference:`. The same data as above makes
// BreakAdds invisible; an archive array naming no input is an error.
TEST(OptCommand, NpzReferenceFeedsVerification) {
  fs::path dir = fs::path(::testing::TempDir()) / "oxs_opt_npz";
  fs::remove_all(dir);
  fs::create_directories(dir / "data");
  auto m = parse_model(kTwoAdds);
  onnx::save(m, (dir / "m.onnx").string());
  int code = 0;
  std::string py = eval::ort_test::shell(
      "/usr/bin/python3 -c \"import numpy as np; d='" + (dir / "data").string() +
          "'; np.savez(d + '/ref.npz', x=-np.ones((2, 3), np.float32), y=np.zeros((2, 3), "
          "np.float32)); np.savez(d + '/bad.npz', x=np.ones((2, 3), np.float32), "
          "q=np.ones(3, np.float32))\"",
      &code);
  ASSERT_EQ(code, 0) << py;
  std::string base = oxs() + " opt " + (dir / "m.onnx").string() + " -q -o " +
                     (dir / "out.onnx").string() + " --passes break-adds --verify equality ";
  std::string out =
      eval::ort_test::shell(base + "--input " + (dir / "data/ref.npz").string(), &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("verified (equality)"), std::string::npos) << out;

  std::ofstream(dir / "opt.yaml")
      << "passes: [break-adds]\nverify: equality\nreference: data/ref.npz\n";
  out =
      eval::ort_test::shell(oxs() + " opt " + (dir / "m.onnx").string() + " -q -o " +
                                (dir / "out.onnx").string() + " -c " + (dir / "opt.yaml").string(),
                            &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("verified (equality)"), std::string::npos) << out;

  // y given by name wins over the archive's y: with y = 2 BreakAdds shows
  // (out = Relu(y - 1) before, Relu(-1) after).
  std::vector<float> ones(6, 2.0f);
  eval::write_npy((dir / "data" / "y1.npy").string(),
                  eval::Tensor::of<float>(ir::DataType::Float, {2, 3}, ones));
  fs::remove(dir / "out.onnx");
  out = eval::ort_test::shell(base + "--input " + (dir / "data/ref.npz").string() +
                                  " --input y=" + (dir / "data/y1.npy").string(),
                              &code);
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(out.find("failed after pass 'break-adds'"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "out.onnx"));

  fs::remove(dir / "out.onnx");
  out = eval::ort_test::shell(base + "--input " + (dir / "data/bad.npz").string(), &code);
  EXPECT_NE(code, 0);
  EXPECT_NE(code, 3);
  EXPECT_NE(out.find("bad.npz': array 'q'"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "out.onnx"));
}

TEST(OptCommand, ListAndExplain) {
  int code = 0;
  std::string out = eval::ort_test::shell(oxs() + " opt --list", &code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(out.find("fuse-gemm"), std::string::npos) << out;
  EXPECT_NE(out.find("default pipeline: noop,algebraic,infer,noop"), std::string::npos) << out;
}

}  // namespace
}  // namespace oxs::rewrite
