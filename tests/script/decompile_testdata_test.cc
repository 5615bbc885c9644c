// Decompiles every model of the ONNX backend test data and checks that the
// result is ONNX Script our parser accepts without a diagnostic. Models that
// ONNX Script cannot express are listed in decompile_exclusions.txt with the
// reason; an excluded model that decompiles is reported too, so the list
// stays honest.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"
#include "oxs/script/decompile.h"
#include "oxs/script/diagnostics.h"
#include "oxs/script/parser.h"

namespace oxs::script {
namespace {

namespace fs = std::filesystem;
const char* kTestData = "/usr/share/libonnx-testdata/data";

// "node/test_foo" -> reason
std::map<std::string, std::string> exclusions() {
  std::map<std::string, std::string> out;
  std::ifstream in(std::string(OXS_SOURCE_DIR) + "/tests/script/decompile_exclusions.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.find(' ');
    out[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  return out;
}

TEST(DecompileTestdata, EveryModelDecompilesToParsableScript) {
  ASSERT_TRUE(fs::exists(kTestData)) << "install libonnx-testdata (scripts/install-deps)";
  std::vector<std::string> models;
  for (const auto& e : fs::recursive_directory_iterator(kTestData)) {
    if (e.path().filename() == "model.onnx") models.push_back(e.path().string());
  }
  std::sort(models.begin(), models.end());
  auto excluded = exclusions();
  size_t passed = 0, failed = 0, skipped = 0;
  std::string failures;
  for (const std::string& path : models) {
    std::string id = fs::path(path).parent_path().lexically_relative(kTestData).string();
    bool is_excluded = excluded.count(id) > 0;
    std::string problem;
    try {
      ir::Model m = onnx::load(path);
      DecompileResult r = decompile(m);
      SourceFile file(id + ".py", r.source);
      ParseResult p = parse(file);
      if (!p.ok()) problem = "does not parse: " + render(file, p.diagnostics[0]);
    } catch (const Error& e) {
      problem = e.what();
    }
    if (is_excluded) {
      ++skipped;
      if (problem.empty()) {
        ++failed;
        failures += id + ": listed in decompile_exclusions.txt but decompiles; remove it\n";
      }
      continue;
    }
    if (problem.empty()) {
      ++passed;
    } else {
      ++failed;
      failures += id + ": " + problem + "\n";
    }
  }
  std::printf("decompile: %zu passed, %zu failed, %zu excluded\n", passed, failed, skipped);
  EXPECT_EQ(failed, 0u) << failures;
}

}  // namespace
}  // namespace oxs::script
