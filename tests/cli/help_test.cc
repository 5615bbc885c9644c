// Help as users reach for it: bare `oxs`, `oxs help CMD`, and every example
// of every command's --help run as written (in a scratch directory that has
// the bundled examples/), in the order `oxs --help` lists the commands.
#include <gtest/gtest.h>

#include <sstream>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The command names of `oxs --help`, in order.
std::vector<std::string> commands() {
  RunResult r = run_oxs({"--help"});
  std::vector<std::string> out;
  std::istringstream in(r.out.substr(r.out.find("Subcommands:")));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line) && line.rfind("  ", 0) == 0) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    out.push_back(name);
  }
  return out;
}

TEST(CliHelp, BareOxsPrintsTheCommandList) {
  RunResult bare = run_oxs({});
  EXPECT_EQ(bare.code, 0) << bare.err;
  EXPECT_EQ(bare.out, run_oxs({"--help"}).out);
  EXPECT_EQ(bare.out, run_oxs({"help"}).out);
  for (const char* c : {"info", "check", "run", "diff", "infer", "extract", "completion", "help"}) {
    EXPECT_TRUE(contains(bare.out, std::string("\n  ") + c + " ")) << c << "\n" << bare.out;
  }
}

TEST(CliHelp, HelpCmdIsCmdDashDashHelp) {
  for (const std::string& c : commands()) {
    if (c == "help") continue;
    RunResult a = run_oxs({"help", c});
    EXPECT_EQ(a.code, 0) << c << ": " << a.err;
    EXPECT_EQ(a.out, run_oxs({c, "--help"}).out) << c;
    EXPECT_TRUE(contains(a.out, "Usage: oxs " + c)) << a.out;
  }
  RunResult r = run_oxs({"help", "runn"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "unknown command 'runn' (did you mean 'run'?)")) << r.err;
}

// Splits an example line on spaces (the examples use no quoting).
std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

TEST(CliHelp, EveryExampleInEveryHelpRuns) {
  TempDir dir;
  std::filesystem::create_directory_symlink(source_path("examples"), dir.file("examples"));
  size_t ran = 0;
  for (const std::string& c : commands()) {
    if (c == "help") continue;
    RunResult help = run_oxs({c, "--help"});
    const size_t at = help.out.find("Example");
    ASSERT_NE(at, std::string::npos) << c << " --help has no example:\n" << help.out;
    std::istringstream in(help.out.substr(at));
    std::string line;
    size_t examples = 0;
    while (std::getline(in, line)) {
      if (line.rfind("  oxs ", 0) != 0) continue;
      std::vector<std::string> args = words_of(line);
      args.erase(args.begin());  // "oxs"
      RunResult r = run_oxs(args, dir.path());
      EXPECT_EQ(r.code, 0) << "`" << line.substr(2) << "` (from oxs " << c << " --help):\n"
                           << r.err;
      ++examples;
    }
    EXPECT_GT(examples, 0u) << c << " --help shows no runnable `oxs ...` line";
    ran += examples;
  }
  EXPECT_GE(ran, 15u);
}

}  // namespace
}  // namespace oxs::testing
