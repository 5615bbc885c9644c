// Runs the built `oxs` binary (env OXS_BIN) with arguments, capturing exit
// code, stdout and stderr. No shell is involved, so arguments need no quoting.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace oxs::testing {

struct RunResult {
  int code = -1;  // exit code; 128+signal when killed by a signal
  std::string out;
  std::string err;
};

inline std::string oxs_bin() {
  const char* bin = std::getenv("OXS_BIN");
  return bin && *bin ? bin : std::string(OXS_BINARY_DIR) + "/oxs";
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "oxs_cli_XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// With `cwd`, the binary runs in that directory.
inline RunResult run_oxs(const std::vector<std::string>& args, const std::string& cwd = "") {
  TempDir dir;
  const std::string out_path = dir.file("stdout"), err_path = dir.file("stderr");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::string bin = oxs_bin();
  if (!cwd.empty()) bin = std::filesystem::absolute(bin).string();
  std::vector<std::string> storage{bin};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, bin.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot run " + bin + " (is OXS_BIN set?)");
  int status = 0;
  waitpid(pid, &status, 0);
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

// Runs `command` through /bin/sh; returns its stdout (add 2>&1 for stderr)
// and, in `code`, its exit code.
inline std::string shell_output(const std::string& command, int* code = nullptr) {
  FILE* p = popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + command);
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  if (code) *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// `command` (a shell command line) with a pseudo-terminal as its stdin,
// stdout and stderr (script(1)); returns what the terminal showed.
inline std::string terminal_output(const std::string& command) {
  return shell_output("script -qec '" + command + "' /dev/null 2>&1");
}

inline std::string source_path(const std::string& relative) {
  return std::string(OXS_SOURCE_DIR) + "/" + relative;
}

}  // namespace oxs::testing
