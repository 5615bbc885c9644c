// `oxs compile` end to end (the binary ctest points OXS_BIN at): exit codes,
// the model written, diagnostics on stderr.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include "script/compile_util.h"

namespace oxs::script {
namespace {

using testing::read_file;

struct CliRun {
  int code;
  std::string out, err;
};

CliRun oxs(const std::string& args) {
  const char* bin = std::getenv("OXS_BIN");
  std::string exe = bin ? bin : std::string(OXS_BINARY_DIR) + "/oxs";
  EXPECT_TRUE(std::filesystem::exists(exe))
      << "no oxs binary at " << exe << " (build the oxs target)";
  // Unique per process and call: ctest runs tests in parallel.
  static int counter = 0;
  std::string base = std::string(OXS_BINARY_DIR) + "/script_cli_" + std::to_string(getpid()) + "_" +
                     std::to_string(counter++);
  std::string cmd = exe + " " + args + " > " + base + ".out 2> " + base + ".err";
  int rc = std::system(cmd.c_str());
  CliRun r{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, read_file(base + ".out"),
           read_file(base + ".err")};
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

TEST(CompileCli, CompilesTheBundledExample) {
  std::string out = std::string(OXS_BINARY_DIR) + "/script_cli_hardmax.onnx";
  CliRun r =
      oxs("compile " + std::string(OXS_SOURCE_DIR) + "/examples/hardmax.py -o " + out + " --print");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("graph \"sample_model\""), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("oxs: wrote"), std::string::npos) << r.err;
  CliRun check = oxs("check " + out);
  EXPECT_EQ(check.code, 0) << check.err;
  EXPECT_EQ(check.out, "ok: 3 nodes, opset 15 (this 1)\n");
  std::remove(out.c_str());
}

TEST(CompileCli, ErrorsGoToStderrWithExitCode1) {
  std::string src = std::string(OXS_BINARY_DIR) + "/script_cli_bad.py";
  std::ofstream(src) << "from onnxscript import FLOAT, script\n"
                        "from onnxscript import opset15 as op\n"
                        "@script()\n"
                        "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
                        "    return op.Reul(x)\n";
  std::string out = std::string(OXS_BINARY_DIR) + "/script_cli_bad.onnx";
  CliRun r = oxs("compile " + src + " -o " + out);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("error[E0302]: unknown op 'Reul' in ai.onnx opset 15"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("1 error, no model written"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  std::remove(src.c_str());
}

TEST(CompileCli, OptionsEntryOpsetFunctionsOnly) {
  std::string dir = std::string(OXS_SOURCE_DIR) + "/tests/script/scripts/";
  std::string out = std::string(OXS_BINARY_DIR) + "/script_cli_opts.onnx";
  CliRun r =
      oxs("compile " + dir + "aten_chunk.py --opset 17 -e aten_chunk --functions-only -o " + out);
  EXPECT_EQ(r.code, 0) << r.err;
  CliRun missing = oxs("compile " + dir + "aten_chunk.py -o " + out + " -e nope --opset 17");
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("error[E0314]: no function 'nope'"), std::string::npos) << missing.err;
  CliRun usage = oxs("compile " + dir + "aten_chunk.py");
  EXPECT_EQ(usage.code, 2) << usage.err;
  std::remove(out.c_str());
}

}  // namespace
}  // namespace oxs::script
