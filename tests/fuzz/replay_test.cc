// Replays every file of fuzz/corpus/<harness>/ through its harness entry
// (fuzz/harness.h) in the ordinary build: the seeds and every crash a
// fuzzer once found stay regression tests without libFuzzer. A case passes
// when the entry returns (with a result or an oxs::Error); a crash or any
// other exception fails it. fuzz/corpus/replay_exclusions.txt names files
// that are known to fail, each with the reason; it must stay empty of
// files that pass (the test says so).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/harness.h"

namespace oxs::fuzz {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(OXS_SOURCE_DIR) / "fuzz" / "corpus";

struct Case {
  std::string harness;
  fs::path file;
  std::string excluded_because;  // empty: must pass
};

// Shown by GoogleTest (and so in ctest's list) instead of the object's bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.harness << "/" << c.file.filename().string();
}

// "harness/file  reason" per line; '#' starts a comment.
std::map<std::string, std::string> exclusions() {
  std::map<std::string, std::string> out;
  std::ifstream in(kCorpus / "replay_exclusions.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find_first_of(" \t");
    const std::string key = line.substr(0, space);
    std::string reason =
        space == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", space));
    out[key] = reason.empty() ? "(no reason given)" : reason;
  }
  return out;
}

std::vector<Case> all_cases() {
  std::vector<Case> out;
  const auto excluded = exclusions();
  for (const Harness& h : harnesses()) {
    const fs::path dir = kCorpus / std::string(h.name);
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      auto it = excluded.find(std::string(h.name) + "/" + f.filename().string());
      out.push_back({std::string(h.name), f, it == excluded.end() ? "" : it->second});
    }
  }
  return out;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Replay : public ::testing::TestWithParam<Case> {};

TEST_P(Replay, HarnessReturns) {
  const Case& c = GetParam();
  if (!c.excluded_because.empty()) {
    GTEST_SKIP() << "excluded (fuzz/corpus/replay_exclusions.txt): " << c.excluded_because;
  }
  const std::string bytes = read_all(c.file);
  for (const Harness& h : harnesses()) {
    if (h.name != c.harness) continue;
    try {
      h.entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      FAIL() << c.file << ": an exception other than oxs::Error escaped: " << e.what();
    }
    return;
  }
  FAIL() << "no harness named " << c.harness;
}

INSTANTIATE_TEST_SUITE_P(Corpus, Replay, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name =
                               info.param.harness + "_" + info.param.file.filename().string();
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

// Every harness has seeds, and the exclusion list names only real files.
TEST(ReplayCorpus, EveryHarnessHasSeedsAndExclusionsNameRealFiles) {
  for (const Harness& h : harnesses()) {
    const fs::path dir = kCorpus / std::string(h.name);
    EXPECT_TRUE(fs::is_directory(dir) && !fs::is_empty(dir)) << dir << " has no seeds";
  }
  for (const auto& [key, reason] : exclusions()) {
    EXPECT_TRUE(fs::is_regular_file(kCorpus / key)) << key << " is excluded but does not exist";
  }
}

}  // namespace
}  // namespace oxs::fuzz
