// The progress line of long work (cli/progress.h): drawn on stderr only when
// it is a terminal (script(1) gives the command a pseudo-terminal), erased
// when the work is done, never sent down a pipe or into a file; --quiet
// removes it; --verbose adds a line per step with its time, on any stderr.
// `oxs run`'s node line is in run_options_test.cc.
#include <gtest/gtest.h>

#include <string>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

const std::string kMlp = source_path("examples/models/mlp.onnx");
const std::string kScript = source_path("examples/hardmax.py");

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliProgress, ConvertShowsLoadingAndSavingOnATerminalOnly) {
  TempDir dir;
  const std::string out = dir.file("out.onnx");
  const std::string cmd = oxs_bin() + " convert " + kMlp + " " + out;
  std::string tty = terminal_output(cmd);
  EXPECT_TRUE(has(tty, "\roxs: loading " + kMlp)) << tty;
  EXPECT_TRUE(has(tty, "\roxs: saving " + out)) << tty;
  EXPECT_TRUE(has(tty, "\r\033[K")) << tty;  // erased once done
  tty = terminal_output(cmd + " --quiet");
  EXPECT_FALSE(has(tty, "oxs: loading")) << tty;
  EXPECT_FALSE(has(tty, "\033[K")) << tty;

  RunResult piped = run_oxs({"convert", kMlp, out});
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_FALSE(has(piped.err, "loading")) << piped.err;
  EXPECT_FALSE(has(piped.err, "\r")) << piped.err;
  piped = run_oxs({"convert", kMlp, out, "--verbose"});
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_TRUE(has(piped.err, "oxs: loading " + kMlp + " took ")) << piped.err;
  EXPECT_TRUE(has(piped.err, "oxs: saving " + out + " took ")) << piped.err;
  EXPECT_FALSE(has(piped.err, "\r")) << piped.err;
}

TEST(CliProgress, OptShowsEachPassOnATerminalOnly) {
  TempDir dir;
  const std::string out = dir.file("opt.onnx");
  const std::string cmd = oxs_bin() + " opt " + kMlp + " -o " + out;
  std::string tty = terminal_output(cmd);
  EXPECT_TRUE(has(tty, "\roxs: optimizing " + kMlp + ": [1/")) << tty;
  EXPECT_TRUE(has(tty, "wrote " + out)) << tty;
  tty = terminal_output(cmd + " -q");
  EXPECT_FALSE(has(tty, "optimizing")) << tty;

  RunResult piped = run_oxs({"opt", kMlp, "-o", out});
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_FALSE(has(piped.err, "[1/")) << piped.err;
  EXPECT_FALSE(has(piped.err, "\r")) << piped.err;
  piped = run_oxs({"opt", kMlp, "-o", out, "--verbose"});
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_TRUE(has(piped.err, "oxs: pass ")) << piped.err;
  EXPECT_TRUE(has(piped.err, "oxs: optimizing " + kMlp + " took ")) << piped.err;
}

TEST(CliProgress, CompileSaysWhatItCompilesOnATerminalOnly) {
  TempDir dir;
  const std::string out = dir.file("h.onnx");
  std::string tty = terminal_output(oxs_bin() + " compile " + kScript + " -o " + out);
  EXPECT_TRUE(has(tty, "\roxs: compiling " + kScript)) << tty;
  EXPECT_TRUE(has(tty, "\roxs: saving " + out)) << tty;
  RunResult piped = run_oxs({"compile", kScript, "-o", out});
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_FALSE(has(piped.err, "compiling")) << piped.err;
  EXPECT_FALSE(has(piped.err, "\r")) << piped.err;
}

}  // namespace
}  // namespace oxs::testing
