// The round trip ONNX -> ONNX Script -> ONNX: for every model of the ONNX
// backend test data, decompile, compile the source again and compare with
// the original structurally (ir::diff). And ONNX Script -> ONNX -> ONNX
// Script -> ONNX on the compiler's own example scripts.
//
// Normalizations (each an ir::DiffOptions flag or a step below, all exact
// in meaning):
//   - a Constant node equals an initializer holding the same tensor (always);
//   - graph inputs that also have an initializer (IR < 4 weights) are
//     compared as initializers: ONNX Script has no default tensor inputs;
//   - Identity nodes are looked through (the compiler's cleanup drops them);
//   - nodes that feed no graph output are ignored (the compiler drops them);
//   - a recompiled graph output may carry a more precise type (inference);
//   - opset imports are compared for the domains that nodes use.
// Models that cannot round-trip are listed in roundtrip_exclusions.txt with
// the reason; an excluded model that round-trips fails the test, so the list
// stays honest.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "oxs/ir/error.h"
#include "oxs/ir/structural_diff.h"
#include "oxs/onnx/model_io.h"
#include "oxs/script/compile.h"
#include "oxs/script/decompile/decompile.h"
#include "testdata.h"

namespace oxs::script {
namespace {

namespace fs = std::filesystem;
using testing::backend_test_id;
using testing::backend_test_models;
using testing::kTestData;

ir::DiffOptions roundtrip_options() {
  ir::DiffOptions o;
  o.look_through_identity = true;
  o.compare_dead_nodes = false;
  o.allow_refined_output_types = true;
  return o;
}

// Empty when `m` survives decompile -> compile unchanged, else why not.
std::string round_trip(ir::Model& m, const std::string& name) {
  for (size_t i = m.graph->inputs().size(); i-- > 0;) {
    if (m.graph->inputs()[i]->is_initializer()) m.graph->demote_input_to_initializer(i);
  }
  DecompileResult src = decompile(m);
  SourceFile file(name + ".py", src.source);
  CompileResult r = compile_source(file);
  if (!r.ok()) return "does not compile: " + render(file, r.diagnostics[0]);
  ir::DiffResult d = ir::diff(m, *r.model, roundtrip_options());
  if (!d.equivalent()) return "not equivalent:\n" + d.to_string() + "--- source ---\n" + src.source;
  return "";
}

TEST(RoundTrip, EveryBackendTestModelSurvivesDecompileAndCompile) {
  ASSERT_TRUE(fs::exists(kTestData)) << "install libonnx-testdata (scripts/install-deps)";
  std::vector<std::string> models = backend_test_models();
  auto excluded = testing::read_exclusions("roundtrip_exclusions.txt");
  size_t passed = 0, failed = 0, skipped = 0;
  std::string failures;
  for (const std::string& path : models) {
    std::string id = backend_test_id(path);
    std::string problem;
    try {
      ir::Model m = onnx::load(path);
      problem = round_trip(m, id);
    } catch (const Error& e) {
      problem = std::string("error: ") + e.what();
    }
    if (excluded.count(id)) {
      ++skipped;
      if (problem.empty()) {
        ++failed;
        failures += id + ": listed in roundtrip_exclusions.txt but round-trips; remove it\n";
      }
    } else if (problem.empty()) {
      ++passed;
    } else {
      ++failed;
      if (failed <= 20) failures += id + ": " + problem + "\n";
    }
  }
  std::printf("round trip: %zu passed, %zu failed, %zu excluded (of %zu)\n", passed, failed,
              skipped, models.size());
  EXPECT_EQ(failed, 0u) << failures;
  // The exclusions stay a short list: at most 1% of the models.
  EXPECT_LE(skipped * 100, models.size());
}

TEST(RoundTrip, CompilerExamplesCompileDecompileCompile) {
  std::vector<std::string> scripts = {OXS_SOURCE_DIR "/examples/hardmax.py"};
  for (const auto& e : fs::directory_iterator(OXS_SOURCE_DIR "/tests/script/scripts")) {
    if (e.path().extension() == ".py") scripts.push_back(e.path().string());
  }
  std::sort(scripts.begin(), scripts.end());
  size_t compiled = 0;
  for (const std::string& path : scripts) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    SourceFile file(path, text.str());
    // Some scripts import opset18, as onnxscript's users do: retarget to 17.
    CompileOptions options;
    options.opset = 17;
    CompileResult first = compile_source(file, options);
    ASSERT_TRUE(first.ok()) << path << ": " << render(file, first.diagnostics[0]);
    ++compiled;
    std::string problem = round_trip(*first.model, path);
    EXPECT_EQ(problem, "") << path;
  }
  EXPECT_GE(compiled, 10u);
}

}  // namespace
}  // namespace oxs::script
