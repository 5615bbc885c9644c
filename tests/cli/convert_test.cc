// `oxs convert`: external data out and back, in-place protection.
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

TEST(CliConvert, ExternalDataAndBack) {
  TempDir dir;
  const std::string ext = dir.file("mlp_ext.onnx");
  RunResult r = run_oxs({"convert", kMlp, ext, "--external-data=64"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "wrote " + ext)) << r.out;
  ASSERT_TRUE(fs::exists(ext));
  ASSERT_TRUE(fs::exists(ext + ".data"));

  // W1 (128 B) and W2 (96 B) are >= 64 bytes; B1 (32 B) and B2 (12 B) are not.
  RunResult info = run_oxs({"info", ext});
  ASSERT_EQ(info.code, 0) << info.err;
  EXPECT_TRUE(contains(info.out, "  inline:     2 tensors, 44 B\n")) << info.out;
  EXPECT_TRUE(contains(info.out, "  external:   2 tensors, 224 B\n")) << info.out;
  RunResult check = run_oxs({"check", ext});
  EXPECT_EQ(check.code, 0) << check.err;
  // print shows where the data lives instead of reading it.
  RunResult printed = run_oxs({"print", ext});
  ASSERT_EQ(printed.code, 0) << printed.err;
  EXPECT_TRUE(contains(printed.out, "<external \"mlp_ext.onnx.data\"")) << printed.out;

  const std::string back = dir.file("mlp_back.onnx");
  r = run_oxs({"convert", ext, back, "--inline-data"});
  ASSERT_EQ(r.code, 0) << r.err;
  info = run_oxs({"info", back});
  EXPECT_TRUE(contains(info.out, "  inline:     4 tensors, 268 B\n")) << info.out;
  // Inline again: the text form (values included) equals the original's.
  RunResult original = run_oxs({"print", kMlp});
  RunResult round_trip = run_oxs({"print", back});
  ASSERT_EQ(original.code, 0);
  EXPECT_EQ(original.out, round_trip.out);
}

TEST(CliConvert, ExternalDataDefaultThresholdIs1KiB) {
  TempDir dir;
  const std::string out = dir.file("m.onnx");
  // Every tensor of the MLP is below 1024 bytes: all stay inline.
  RunResult r = run_oxs({"convert", kMlp, out, "--external-data"});
  ASSERT_EQ(r.code, 0) << r.err;
  RunResult info = run_oxs({"info", out});
  EXPECT_TRUE(contains(info.out, "  external:   0 tensors, 0 B\n")) << info.out;
  r = run_oxs({"convert", kMlp, out, "--external-data=0"});
  ASSERT_EQ(r.code, 0) << r.err;
  info = run_oxs({"info", out});
  EXPECT_TRUE(contains(info.out, "  external:   4 tensors, 268 B\n")) << info.out;
  r = run_oxs({"convert", kMlp, out, "--external-data=1KiB"});
  ASSERT_EQ(r.code, 0) << r.err;
  info = run_oxs({"info", out});
  EXPECT_TRUE(contains(info.out, "  external:   0 tensors, 0 B\n")) << info.out;
}

TEST(CliConvert, PlainResaveKeepsTheModel) {
  TempDir dir;
  const std::string out = dir.file("copy.onnx");
  RunResult r = run_oxs({"convert", kMlp, out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(run_oxs({"print", kMlp}).out, run_oxs({"print", out}).out);
  EXPECT_FALSE(fs::exists(out + ".data"));
}

TEST(CliConvert, RefusesToOverwriteItsInput) {
  TempDir dir;
  const std::string model = dir.file("m.onnx");
  fs::copy_file(kMlp, model);
  const auto before = fs::file_size(model);
  RunResult r = run_oxs({"convert", model, model});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "--in-place")) << r.err;
  // The same file through another spelling is still the same file.
  r = run_oxs({"convert", model, dir.path() + "/./m.onnx"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(fs::file_size(model), before);

  r = run_oxs({"convert", model, model, "--in-place", "--external-data=64"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(model + ".data"));
  RunResult check = run_oxs({"check", model});
  EXPECT_EQ(check.code, 0) << check.err;
}

TEST(CliConvert, BadOptions) {
  TempDir dir;
  EXPECT_EQ(run_oxs({"convert", kMlp, dir.file("x.onnx"), "--inline-data", "--external-data"}).code,
            2);
  EXPECT_EQ(run_oxs({"convert", kMlp}).code, 2);
  EXPECT_EQ(run_oxs({"convert", kMlp, dir.file("x.onnx"), "--external-data=lots"}).code, 2);
  // Unwritable target: an I/O error, exit 1, and no file left behind.
  RunResult r = run_oxs({"convert", kMlp, "/nonexistent/dir/out.onnx"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("oxs: error: ", 0), 0u) << r.err;
}

}  // namespace
}  // namespace oxs::testing
