// The command line itself: help, version, exit codes, error lines.
#include <gtest/gtest.h>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliMain, HelpListsEveryCommand) {
  RunResult r = run_oxs({"--help"});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* cmd : {"info", "check", "convert", "print", "op"}) {
    EXPECT_TRUE(contains(r.out, cmd)) << cmd << "\n" << r.out;
  }
}

TEST(CliMain, EverySubcommandHasHelpWithAnExample) {
  for (const char* cmd : {"info", "check", "convert", "print", "op"}) {
    RunResult r = run_oxs({cmd, "--help"});
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.err;
    EXPECT_TRUE(contains(r.out, "Example")) << cmd << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, std::string("oxs ") + cmd)) << cmd << "\n" << r.out;
  }
}

TEST(CliMain, Version) {
  RunResult r = run_oxs({"--version"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "oxs 0.")) << r.out;
  EXPECT_TRUE(contains(r.out, "opsets up to 28")) << r.out;
}

TEST(CliMain, UsageErrorsExitWith2) {
  RunResult r = run_oxs({"frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "unknown command 'frobnicate'")) << r.err;
  r = run_oxs({"chekc", "m.onnx"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'check'")) << r.err;
  EXPECT_EQ(run_oxs({"info"}).code, 2);  // MODEL missing
  EXPECT_EQ(run_oxs({"info", "a.onnx", "b.onnx"}).code, 2);
  EXPECT_EQ(run_oxs({"print", "--max-elements", "lots", "m.onnx"}).code, 2);
}

TEST(CliMain, MissingFileIsAnInputError) {
  for (const char* cmd : {"info", "check", "print"}) {
    RunResult r = run_oxs({cmd, "/nonexistent/dir/model.onnx"});
    EXPECT_EQ(r.code, 1) << cmd << ": " << r.err;
    EXPECT_EQ(r.err.rfind("oxs: error: ", 0), 0u) << r.err;
    EXPECT_TRUE(contains(r.err, "/nonexistent/dir/model.onnx")) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    // One line, no stack of internal details.
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
}

TEST(CliMain, GarbageFileIsAnInputError) {
  const std::string garbage = source_path("tests/cli/data/garbage.onnx");
  for (const char* cmd : {"info", "check", "print"}) {
    RunResult r = run_oxs({cmd, garbage});
    EXPECT_EQ(r.code, 1) << cmd << ": " << r.err;
    EXPECT_EQ(r.err.rfind("oxs: error: ", 0), 0u) << r.err;
    EXPECT_TRUE(contains(r.err, "garbage.onnx")) << r.err;
  }
}

TEST(CliMain, DirectoryInsteadOfFileIsAnInputError) {
  TempDir dir;
  RunResult r = run_oxs({"info", dir.path()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("oxs: error: ", 0), 0u) << r.err;
}

// Only the named command is declared and set up (help.h); another command's
// name after it is a stray argument of the named one, as when every
// command was declared, and `oxs help CMD` still shows CMD's options.
TEST(CliMain, AnotherCommandsNameAfterTheCommandIsAStrayArgument) {
  const std::string mlp = source_path("examples/models/mlp.onnx");
  RunResult r = run_oxs({"info", mlp, "check"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err,
            "oxs: error: info: The following argument was not expected: check; run `oxs info "
            "--help`\n");
  r = run_oxs({"op", "Relu", "info"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "oxs: error: op: ")) << r.err;
  r = run_oxs({"help", "convert"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "--external-data")) << r.out;
}

}  // namespace
}  // namespace oxs::testing
