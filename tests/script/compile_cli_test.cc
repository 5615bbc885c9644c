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

// `oxs run FILE.py`: the entry defaults as in compile, --random makes the
// inputs from the annotations, attribute values are read by declared type.
TEST(CompileCli, RunScriptEagerlyWithDefaultsAndRandomInputs) {
  std::string src = std::string(OXS_BINARY_DIR) + "/script_cli_eager.py";
  std::ofstream(src) << "from onnxscript import FLOAT, script\n"
                        "from onnxscript import opset17 as op\n"
                        "@script()\n"
                        "def scale(x: FLOAT[3], alpha: float = 0.5, axis: int = 0):\n"
                        "    a = op.Constant(value_float=alpha)\n"
                        "    return op.Add(op.Mul(x, 0.0), op.CastLike(a, x))\n";
  CliRun r = oxs("run " + src + " --random --arg alpha=2");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("input x: float[3]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[2, 2, 2]"), std::string::npos) << r.out;
  CliRun bad = oxs("run " + src + " -e scale --random --arg axis=1.5");
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("is an int"), std::string::npos) << bad.err;
  std::remove(src.c_str());
}

TEST(CompileCli, FileWithoutFunctionsIsAnErrorUnlessAllowEmpty) {
  std::string src = std::string(OXS_BINARY_DIR) + "/script_cli_empty.py";
  std::ofstream(src) << "import numpy as np\nx = np.zeros(3)\n";
  std::string out = std::string(OXS_BINARY_DIR) + "/script_cli_empty.onnx";
  std::remove(out.c_str());
  CliRun r = oxs("compile " + src + " --functions-only -o " + out);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  CliRun ok = oxs("compile " + src + " --functions-only --allow-empty -o " + out);
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  std::remove(src.c_str());
}

}  // namespace
}  // namespace oxs::script
