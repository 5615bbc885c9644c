// The README's examples, followed top to bottom as a new user would: every
// `$ command` of its code blocks runs (bash, in a scratch directory holding
// the repository's examples/, with the built oxs first on PATH), exits as its
// shown output implies (an `oxs: error` or `differ:` line means a failure,
// `echo $?` shows the code), and prints every line shown after it (lines with
// "..." elide and are skipped).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <sstream>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

struct Example {
  int line = 0;
  std::string command;
  std::vector<std::string> expected;
};

std::vector<Example> readme_examples() {
  std::istringstream in(slurp(source_path("README.md")));
  std::vector<Example> out;
  std::string line;
  bool in_block = false;
  Example* current = nullptr;  // the example whose output the block shows
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.rfind("```", 0) == 0) {
      in_block = !in_block;
      current = nullptr;
      continue;
    }
    if (!in_block) continue;
    if (line.rfind("$ ", 0) == 0) {
      out.push_back({n, line.substr(2), {}});
      current = &out.back();
    } else if (current && !line.empty()) {
      current->expected.push_back(line);
    }
  }
  return out;
}

struct Shell {
  int code;
  std::string out;
};

Shell bash(const std::string& command, const std::string& cwd) {
  const std::string bin_dir = std::filesystem::path(oxs_bin()).parent_path().string();
  std::string quoted;
  for (char c : command) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  const std::string cmd =
      "cd '" + cwd + "' && PATH='" + bin_dir + "':$PATH bash -c '" + quoted + "' 2>&1";
  int code = 0;
  std::string out = shell_output(cmd, &code);
  return {code, out};
}

TEST(CliReadme, EveryExampleRunsInOrderAndPrintsWhatItShows) {
  TempDir dir;
  std::filesystem::create_directory_symlink(source_path("examples"), dir.file("examples"));
  std::vector<Example> examples = readme_examples();
  ASSERT_GE(examples.size(), 30u);
  int last_code = 0;
  for (const Example& e : examples) {
    SCOPED_TRACE("README.md:" + std::to_string(e.line) + ": $ " + e.command);
    if (e.command == "echo $?") {
      ASSERT_EQ(e.expected.size(), 1u);
      EXPECT_EQ(std::to_string(last_code), e.expected[0]);
      continue;
    }
    Shell r = bash(e.command, dir.path());
    bool fails = false;
    for (const std::string& x : e.expected) {
      fails = fails || x.rfind("oxs: error", 0) == 0 || x.find(" differ:") != std::string::npos;
    }
    if (fails) {
      EXPECT_NE(r.code, 0) << r.out;
    } else {
      EXPECT_EQ(r.code, 0) << r.out;
    }
    last_code = r.code;
    for (const std::string& x : e.expected) {
      if (x.find("...") != std::string::npos) continue;
      EXPECT_NE(r.out.find(x), std::string::npos) << "missing line: " << x << "\nin:\n" << r.out;
    }
  }
}

}  // namespace
}  // namespace oxs::testing
