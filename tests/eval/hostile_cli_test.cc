// Hostile input through `oxs run` ($OXS_BIN): a Loop with 2^62 trips stops
// at --max-seconds, one that collects a scan output every trip stops at
// --memory-limit-mb, and Ctrl-C (SIGINT) stops a run cleanly; each exits 1
// with a clear message and writes no output file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "hostile_util.h"
#include "oxs/onnx/model_io.h"

extern char** environ;

namespace oxs::eval::hostile {
namespace {

namespace fs = std::filesystem;

// Loop(M = 2^62, cond = true) over one carried float[2]: runs for ever.
// With `collect`, the body also returns a fresh float[2] as a scan output
// every trip (the hostile replay's Loop that grew to 3.4 GB under
// --memory-limit-mb 500).
ir::Model endless_loop(bool collect = false) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  auto body = std::make_unique<ir::Graph>();
  body->add_input("i", ir::Type::tensor(DataType::Int64, ir::Shape{}));
  ir::Value* cond = body->add_input("c", ir::Type::tensor(DataType::Bool, ir::Shape{}));
  ir::Value* v = body->add_input("v", ir::Type::tensor(DataType::Float, ir::Shape{2}));
  body->add_output(cond);
  ir::Value* vv[] = {v};
  body->add_output(body->create_node("Neg", vv)->output(0));
  if (collect) body->add_output(body->create_node("Abs", vv)->output(0));
  Tensor t(DataType::Bool, {});
  t.mutable_data<bool>()[0] = true;
  ir::Value* ins[] = {
      g.add_initializer("trip", std::make_shared<ir::Tensor>(i64({}, {int64_t{1} << 62}).to_ir())),
      g.add_initializer("cond", std::make_shared<ir::Tensor>(t.to_ir())),
      g.add_input("x", ir::Type::tensor(DataType::Float, ir::Shape{2}))};
  ir::Node* loop = g.create_node("Loop", ins, collect ? 2 : 1);
  loop->set_name("bomb");
  loop->set_attr(ir::Attr::of_graph("body", std::move(body)));
  loop->output(0)->set_name("y");
  g.add_output(loop->output(0));
  if (collect) {
    loop->output(1)->set_name("all");
    g.add_output(loop->output(1));
  }
  return m;
}

class HostileCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "oxs_hostile_cli_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    oxs::onnx::save(endless_loop(), (dir_ / "loop.onnx").string());
    oxs::onnx::save(endless_loop(true), (dir_ / "collect.onnx").string());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Starts `oxs run` on the loop model (output to DIR/out) with `extra`
  // arguments; stderr and stdout go to DIR/log.
  pid_t start(std::vector<std::string> extra, const char* model = "loop.onnx") {
    const char* bin = std::getenv("OXS_BIN");
    std::vector<std::string> args = {bin ? bin : OXS_BINARY_DIR "/oxs",
                                     "run",
                                     (dir_ / model).string(),
                                     "--random",
                                     "--output-dir",
                                     (dir_ / "out").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    std::string log = (dir_ / "log").string();
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid = -1;
    const int err = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    EXPECT_EQ(err, 0) << "cannot start " << argv[0] << " (build the oxs target first)";
    // Never hand back -1 or 0: kill() on them signals every process (or the
    // whole group) of the user, not the child.
    return err == 0 ? pid : pid_t(-1);
  }
  int wait_exit(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    return WEXITSTATUS(status);
  }
  std::string log() {
    std::ifstream in(dir_ / "log");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  fs::path dir_;
};

TEST_F(HostileCli, MaxSecondsStopsAnEndlessLoop) {
  pid_t pid = start({"--max-seconds", "0.3"});
  ASSERT_GT(pid, 0);
  EXPECT_EQ(wait_exit(pid), 1) << log();
  EXPECT_NE(log().find("time limit of 0.3 s"), std::string::npos) << log();
  EXPECT_FALSE(fs::exists(dir_ / "out" / "y.npy"));
}

TEST_F(HostileCli, MemoryLimitStopsALoopThatCollectsAScanOutputEveryTrip) {
  // No time limit stops it first (the backstop of 120 s would say "time
  // limit", which the test refuses): the memory limit alone does.
  pid_t pid = start({"--memory-limit-mb", "50", "--max-seconds", "120"}, "collect.onnx");
  ASSERT_GT(pid, 0);
  EXPECT_EQ(wait_exit(pid), 1) << log();
  // Every trip allocates (the body's Abs, the Loop's iteration number and
  // condition) and collects: whichever charge passes the limit first is
  // named, with its node.
  const std::string text = log();
  EXPECT_NE(text.find("oxs: error: node '"), std::string::npos) << text;
  EXPECT_NE(text.find("would take the memory held by this run to"), std::string::npos) << text;
  EXPECT_NE(text.find("over the limit of 52428800 bytes"), std::string::npos) << text;
  EXPECT_EQ(text.find("time limit"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "all.npy"));
}

TEST_F(HostileCli, CtrlCStopsTheRunCleanly) {
  // With --trace the log grows once the loop runs (stdout is flushed when its
  // buffer fills): press Ctrl-C then, not before the handler is installed.
  pid_t pid = start({"--trace"});
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 2000 && (!fs::exists(dir_ / "log") || fs::file_size(dir_ / "log") == 0);
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 1) << log();
  EXPECT_NE(log().find("interrupted (Ctrl-C)"), std::string::npos) << log();
  EXPECT_FALSE(fs::exists(dir_ / "out" / "y.npy"));
}

}  // namespace
}  // namespace oxs::eval::hostile
