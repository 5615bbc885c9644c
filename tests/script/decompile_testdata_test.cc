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
#include "oxs/script/decompile/decompile.h"
#include "oxs/script/front/diagnostics.h"
#include "oxs/script/front/parser.h"
#include "testdata.h"

namespace oxs::script {
namespace {

namespace fs = std::filesystem;
using testing::backend_test_id;
using testing::backend_test_models;
using testing::kTestData;

TEST(DecompileTestdata, EveryModelDecompilesToParsableScript) {
  ASSERT_TRUE(fs::exists(kTestData)) << "install libonnx-testdata (scripts/install-deps)";
  std::vector<std::string> models = backend_test_models();
  auto excluded = testing::read_exclusions("decompile_exclusions.txt");
  size_t passed = 0, failed = 0, skipped = 0;
  std::string failures;
  for (const std::string& path : models) {
    std::string id = backend_test_id(path);
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
