// Every example of the seed documents (onnxscript's README, the ONNX Script
// announcement, onnxscript's issues) compiles, passes libonnx's checker and
// the onnx Python checker, and produces the expected graph (golden text in
// tests/script/scripts/*.golden; set OXS_UPDATE_GOLDEN=1 to rewrite them
// after checking the differences by hand).
#include <gtest/gtest.h>

#include "script/compile_util.h"

namespace oxs::script {
namespace {

using testing::compile_ok;
using testing::conformance_problems;
using testing::python_checker;
using testing::read_file;
using testing::script_path;

struct Seed {
  const char* file;
  const char* golden;
  std::optional<int64_t> opset;
  bool inline_functions = false;
  bool functions_only = false;
};

class SeedScripts : public ::testing::TestWithParam<Seed> {};

TEST_P(SeedScripts, CompileCheckAndMatchGolden) {
  const Seed& s = GetParam();
  SourceFile file(s.file, read_file(script_path(s.file)));
  ASSERT_FALSE(file.text().empty()) << "missing " << script_path(s.file);
  CompileOptions options;
  options.opset = s.opset;
  options.inline_functions = s.inline_functions;
  options.functions_only = s.functions_only;
  CompileResult r = compile_source(file, options);
  for (const auto& d : r.diagnostics) {
    EXPECT_NE(d.severity, Severity::kError) << render(file, d);
  }
  ASSERT_TRUE(r.ok()) << render(file, r.diagnostics);
  EXPECT_EQ(conformance_problems(*r.model), "");
  EXPECT_EQ(python_checker(*r.model, s.golden), "");
  std::string text = ir::print(*r.model);
  std::string golden_path = script_path(s.golden);
  if (std::getenv("OXS_UPDATE_GOLDEN")) {
    std::ofstream(golden_path, std::ios::binary) << text;
  }
  EXPECT_EQ(text, read_file(golden_path)) << "golden: " << golden_path;
}

INSTANTIATE_TEST_SUITE_P(
    Seeds, SeedScripts,
    ::testing::Values(
        Seed{"readme_hardmax.py", "readme_hardmax.golden", {}},
        Seed{"readme_hardmax.py", "readme_hardmax_inline.golden", {}, true},
        Seed{"readme_hardmax.py", "readme_hardmax_library.golden", {}, false, true},
        Seed{"gelu.py", "gelu.golden", {}}, Seed{"gemmgelu.py", "gemmgelu.golden", {}},
        Seed{"aten_chunk.py", "aten_chunk.golden", 17}, Seed{"aten_add.py", "aten_add.golden", {}},
        Seed{"func_with_str.py", "func_with_str.golden", {}},
        Seed{"elu_del.py", "elu_del.golden", {}}, Seed{"leaky_relu.py", "leaky_relu.golden", {}}),
    [](const ::testing::TestParamInfo<Seed>& info) {
      std::string n = info.param.golden;
      n = n.substr(0, n.find('.'));
      return n;
    });

TEST(SeedScripts, ReadmeWarnsAboutModuleLevelFString) {
  SourceFile file("readme.py", read_file(script_path("readme_hardmax.py")));
  CompileResult r = compile_source(file);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, Severity::kWarning);
  EXPECT_NE(r.diagnostics[0].message.find("f-strings"), std::string::npos);
}

TEST(SeedScripts, AtenChunkCompilesAtItsOwnOpset18) {
  // onnxscript's ATen functions import opset18; oxs knows ai.onnx up to 28.
  SourceFile file("aten_chunk.py", read_file(script_path("aten_chunk.py")));
  CompileResult r = compile_source(file);
  ASSERT_TRUE(r.ok()) << render(file, r.diagnostics);
  EXPECT_EQ(ir::find_opset(r.model->opset_imports, ""), 18);
}

TEST(SeedScripts, EntryDefaultsToLastDecoratedFunction) {
  SourceFile file("hm.py", read_file(script_path("readme_hardmax.py")));
  CompileResult r = compile_source(file);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.model->graph->name(), "sample_model");
  ASSERT_EQ(r.model->functions.size(), 1u);
  EXPECT_EQ(r.model->functions[0]->name, "onnx_hardmax");
  EXPECT_EQ(r.model->functions[0]->domain, "this");
  EXPECT_EQ(r.model->functions[0]->attributes, std::vector<std::string>{"axis"});
}

TEST(SeedScripts, FuncWithStrAsEntryFoldsTheStringTest) {
  // As the model's graph, mode has its default "foo": the if is decided while
  // compiling and only `return input` remains.
  CompileOptions options;
  options.entry = "FuncWithStr";
  SourceFile file("f.py", read_file(script_path("func_with_str.py")));
  CompileResult r = compile_source(file, options);
  // input has no annotation: the model's input needs a type.
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      render(file, r.diagnostics).find("error[E0314]: input 'input' of the model needs a type"),
      std::string::npos);
}

}  // namespace
}  // namespace oxs::script
