// Hostile models and hostile directories against check, info, print and
// run: recursion among local functions, very deep call chains, terminal
// control characters in names, symbolic links in --output-dir, and an
// --output-dir that cannot be used. Each must end in a clear message and
// exit code 1 (or succeed), never a crash.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hostile_model_util.h"
#include "oxs/ir/call_graph.h"
#include "run_oxs.h"

namespace oxs::testing {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool has_control_chars(const std::string& text) {
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n') || u == 0x7f) return true;
  }
  return false;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(CliHostile, RecursiveFunctionFailsCheckWithTheCycleNamed) {
  TempDir dir;
  const std::string model = dir.file("rec.onnx");
  onnx::save(model_with_functions({{"f", {"f"}}}), model);
  for (const char* flag : {"", "--no-shape-inference"}) {
    std::vector<std::string> args{"check", model};
    if (*flag) args.push_back(flag);
    RunResult r = run_oxs(args);
    EXPECT_EQ(r.code, 1) << flag << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, "function 'local.f': calls itself (local.f -> local.f)")) << r.err;
    EXPECT_TRUE(contains(r.err, "onnx checker and shape inference were skipped")) << r.err;
  }
}

TEST(CliHostile, CycleOfFunctionsFailsCheck) {
  TempDir dir;
  const std::string model = dir.file("cycle.onnx");
  onnx::save(model_with_functions({{"a", {"b"}}, {"b", {"c"}}, {"c", {"a"}}}), model);
  RunResult r = run_oxs({"check", model});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "cycle of calls (local.a -> local.b -> local.c -> local.a)"))
      << r.err;
  // info and print do not expand calls: they show the model.
  EXPECT_EQ(run_oxs({"info", model}).code, 0);
  EXPECT_EQ(run_oxs({"print", model}).code, 0);
}

// 10,000 nested calls: check gives a clear depth error instead of letting
// libonnx's recursive inference overflow the stack; info and print work.
TEST(CliHostile, DeepCallChainIsAClearErrorInCheckAndFineInInfoAndPrint) {
  TempDir dir;
  const std::string model = dir.file("deep.onnx");
  onnx::save(model_with_call_chain(10000), model);
  RunResult r = run_oxs({"check", model});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "function calls nest 10000 deep (local.f0 -> ... -> local.f9999)"))
      << r.err;
  RunResult info = run_oxs({"info", model});
  EXPECT_EQ(info.code, 0) << info.err;
  EXPECT_TRUE(contains(info.out, "functions:    10000")) << info.out.substr(0, 2000);
  RunResult print = run_oxs({"print", model});
  EXPECT_EQ(print.code, 0) << print.err;
  EXPECT_TRUE(contains(print.out, "function local.f9999")) << print.err;
}

// A chain at the limit (ir::kMaxExpandedCallDepth) is checked by libonnx
// as usual, without exhausting the stack.
TEST(CliHostile, CallChainAtTheLimitIsChecked) {
  TempDir dir;
  const std::string model = dir.file("chain.onnx");
  onnx::save(model_with_call_chain(int(ir::kMaxExpandedCallDepth)), model);
  RunResult r = run_oxs({"check", model});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "ok: 1 nodes, opset 17 (local 1)\n");
}

ir::Model model_with_control_chars() {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  m.producer_name = "evil\x1b]0;pwned\x07";
  ir::Graph& g = *m.graph;
  g.set_name("g\x1b[2J");
  ir::Value* x = g.add_input("x\x1b[31m", float2());
  ir::Value* in[] = {x};
  ir::Node* n = g.create_node("Relu", in);
  n->set_name("node\x07\x1b[1A");
  n->output(0)->set_name("y\x1b[0m\x9b");
  n->output(0)->set_type(float2());
  g.add_output(n->output(0));
  return m;
}

TEST(CliHostile, ControlCharactersInNamesAreEscapedEverywhere) {
  TempDir dir;
  const std::string model = dir.file("ctl.onnx");
  onnx::save(model_with_control_chars(), model);
  RunResult info = run_oxs({"info", model});
  EXPECT_EQ(info.code, 0) << info.err;
  EXPECT_FALSE(has_control_chars(info.out)) << info.out;
  EXPECT_TRUE(contains(info.out, "evil\\x1b]0;pwned\\x07")) << info.out;
  EXPECT_TRUE(contains(info.out, "x\\x1b[31m: float[2]")) << info.out;

  RunResult print = run_oxs({"print", model});
  EXPECT_EQ(print.code, 0) << print.err;
  EXPECT_FALSE(has_control_chars(print.out)) << print.out;
  EXPECT_TRUE(contains(print.out, "# node\\x07\\x1b[1A")) << print.out;

  RunResult run = run_oxs({"run", model, "--random", "--trace", "-o", dir.file("out")});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_FALSE(has_control_chars(run.out)) << run.out;
  EXPECT_FALSE(has_control_chars(run.err)) << run.err;
  EXPECT_TRUE(contains(run.out, "Relu 'node\\x07\\x1b[1A'")) << run.out;

  // Diagnostics: an input name that the model lacks is echoed back escaped,
  // and the verifier's messages quote names escaped.
  RunResult bad = run_oxs({"run", model, "--input", "x\x1b[31m=missing.npy"});
  EXPECT_EQ(bad.code, 1) << bad.err;
  EXPECT_FALSE(has_control_chars(bad.err)) << bad.err;
}

ir::Model sequence_model() {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  g.set_name("seq");
  ir::Value* x = g.add_input("x", float2());
  ir::Value* in[] = {x, x};
  ir::Node* n = g.create_node("SequenceConstruct", in);
  n->output(0)->set_name("s");
  n->output(0)->set_type(ir::Type::sequence(float2()));
  ir::Value* one[] = {x};
  ir::Node* r = g.create_node("Relu", one);
  r->output(0)->set_name("y");
  r->output(0)->set_type(float2());
  g.add_output(n->output(0));
  g.add_output(r->output(0));
  return m;
}

// A link planted at an output's name is replaced by the output, and the
// file it pointed to is left alone.
TEST(CliHostile, RunOutputReplacesAPlantedSymlinkInsteadOfWritingThroughIt) {
  TempDir dir;
  const std::string model = dir.file("seq.onnx");
  onnx::save(sequence_model(), model);
  const std::string victim = dir.file("victim.txt");
  write_text(victim, "precious");
  fs::create_directory(dir.file("out"));
  fs::create_symlink(victim, dir.file("out/y.npy"));
  RunResult r = run_oxs({"run", model, "--random", "-o", dir.file("out")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(victim), "precious");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir.file("out/y.npy"))));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir.file("out/s/1.npy"))));
}

// A sequence output whose directory is a link elsewhere: refused, and
// nothing there is deleted or overwritten.
TEST(CliHostile, RunRefusesToWriteASequenceThroughASymlinkedDirectory) {
  TempDir dir;
  const std::string model = dir.file("seq.onnx");
  onnx::save(sequence_model(), model);
  fs::create_directory(dir.file("elsewhere"));
  write_text(dir.file("elsewhere/0.npy"), "keep me");
  fs::create_directory(dir.file("elsewhere/3"));
  fs::create_directory(dir.file("out"));
  fs::create_directory_symlink(dir.file("elsewhere"), dir.file("out/s"));
  RunResult r = run_oxs({"run", model, "--random", "-o", dir.file("out")});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "is a symbolic link; refusing to write through it")) << r.err;
  EXPECT_EQ(slurp(dir.file("elsewhere/0.npy")), "keep me");
  EXPECT_TRUE(fs::is_directory(dir.file("elsewhere/3")));
}

// Stale elements of an earlier run are removed; a link among them is
// removed itself, without touching what it points to.
TEST(CliHostile, StaleSequenceElementsAreRemovedWithoutFollowingLinks) {
  TempDir dir;
  const std::string model = dir.file("seq.onnx");
  onnx::save(sequence_model(), model);
  fs::create_directory(dir.file("victim"));
  write_text(dir.file("victim/data"), "keep me");
  fs::create_directories(dir.file("out/s/7"));
  write_text(dir.file("out/s/5.npy"), "stale");
  fs::create_directory_symlink(dir.file("victim"), dir.file("out/s/9"));
  write_text(dir.file("out/s/notes.txt"), "user file");
  RunResult r = run_oxs({"run", model, "--random", "-o", dir.file("out")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir.file("out/s/9"))));
  EXPECT_FALSE(fs::exists(dir.file("out/s/7")));
  EXPECT_FALSE(fs::exists(dir.file("out/s/5.npy")));
  EXPECT_EQ(slurp(dir.file("victim/data")), "keep me");
  EXPECT_EQ(slurp(dir.file("out/s/notes.txt")), "user file");
  EXPECT_TRUE(fs::exists(dir.file("out/s/0.npy")));
}

TEST(CliHostile, OutputDirThatIsAFileIsAClearError) {
  TempDir dir;
  const std::string model = dir.file("seq.onnx");
  onnx::save(sequence_model(), model);
  write_text(dir.file("file"), "x");
  RunResult r = run_oxs({"run", model, "--random", "-o", dir.file("file")});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "cannot use as output directory: it exists and is not a directory"))
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;  // refused before the model ran
}

// /proc refuses new directories even to root (the tests may run as root,
// for whom permission bits do not apply).
TEST(CliHostile, OutputDirThatCannotBeCreatedIsAClearError) {
  TempDir dir;
  const std::string model = dir.file("seq.onnx");
  onnx::save(sequence_model(), model);
  RunResult r = run_oxs({"run", model, "--random", "-o", "/proc/oxs-test-out"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "cannot use as output directory: cannot create /proc/oxs-test-out"))
      << r.err;
}

}  // namespace
}  // namespace oxs::testing
