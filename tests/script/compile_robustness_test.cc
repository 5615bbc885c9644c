// The compiler never crashes, throws or hangs, whatever the input: every
// seed script with each line deleted, with each line duplicated, and with
// pseudo-random byte edits, compiles to a model or to diagnostics.
#include <gtest/gtest.h>

#include <random>

#include "script/compile_util.h"

namespace oxs::script {
namespace {

using testing::read_file;
using testing::script_path;

const char* kFiles[] = {"readme_hardmax.py", "gelu.py",    "aten_chunk.py", "aten_add.py",
                        "func_with_str.py",  "elu_del.py", "leaky_relu.py", "constructs_loops.py",
                        "constructs_misc.py"};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p <= text.size()) {
    size_t e = text.find('\n', p);
    if (e == std::string::npos) e = text.size();
    out.push_back(text.substr(p, e - p));
    p = e + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& ls) {
  std::string s;
  for (const auto& l : ls) s += l + "\n";
  return s;
}

// Compiles without escaping exceptions; a failed compile must say why.
void survives(const std::string& name, const std::string& text) {
  SourceFile file(name, text);
  CompileOptions o;
  o.opset = 17;
  CompileResult r;
  EXPECT_NO_THROW(r = compile_source(file, o)) << text;
  if (!r.ok()) {
    bool has_error = false;
    for (const auto& d : r.diagnostics) has_error = has_error || d.severity == Severity::kError;
    EXPECT_TRUE(has_error) << "failed without an error:\n" << text;
  }
}

TEST(CompileRobustness, EachLineDeletedOrDuplicated) {
  for (const char* f : kFiles) {
    auto ls = lines_of(read_file(script_path(f)));
    for (size_t k = 0; k < ls.size(); ++k) {
      auto del = ls;
      del.erase(del.begin() + static_cast<long>(k));
      survives(f, join(del));
      auto dup = ls;
      dup.insert(dup.begin() + static_cast<long>(k), ls[k]);
      survives(f, join(dup));
    }
  }
}

TEST(CompileRobustness, RandomEdits) {
  std::mt19937 rng(12345);
  const std::string alphabet = "()[]:,.=+-*/%@<>!~ \n\tabxyzop0123456789_'\"#\\";
  for (const char* f : kFiles) {
    std::string text = read_file(script_path(f));
    for (int round = 0; round < 60; ++round) {
      std::string t = text;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !t.empty(); ++e) {
        size_t pos = rng() % t.size();
        switch (rng() % 3) {
          case 0:
            t.erase(pos, 1 + rng() % 8);
            break;
          case 1:
            t.insert(pos, 1, alphabet[rng() % alphabet.size()]);
            break;
          default:
            t[pos] = alphabet[rng() % alphabet.size()];
        }
      }
      survives(f, t);
    }
  }
}

TEST(CompileRobustness, PathologicalShapesEndWithAnError) {
  // Returns inside many nested ifs repeat the code after them: the work
  // budget stops it with an error instead of running for ever.
  std::string s =
      "from onnxscript import FLOAT, script\nfrom onnxscript import opset17 as op\n"
      "@script()\ndef f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n";
  for (int k = 0; k < 40; ++k) {
    s += "    if op.ReduceSum(x) > " + std::to_string(k) + ".0:\n        x = x + 1.0\n";
    s += "    else:\n        if op.ReduceMax(x) > 0.0:\n            return x\n";
  }
  s += "    return x\n";
  SourceFile file("deep.py", s);
  CompileResult r;
  EXPECT_NO_THROW(r = compile_source(file));
  // Either compiled, or stopped by the budget with E0320.
  if (!r.ok()) {
    EXPECT_NE(render(file, r.diagnostics).find("E0320"), std::string::npos);
  }
}

TEST(CompileRobustness, NestingTooDeepForAFileIsAnError) {
  // 40 elifs on tensors nest 40 If graphs: more than a protobuf parser reads.
  std::string s =
      "from onnxscript import FLOAT, script\nfrom onnxscript import opset17 as op\n"
      "@script()\ndef f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n    y = x\n"
      "    s = op.ReduceSum(x)\n    if s > 0.0:\n        y = x + 0.0\n";
  for (int k = 1; k < 40; ++k) {
    s += "    elif s > " + std::to_string(k) + ".0:\n        y = x + 1.0\n";
  }
  s += "    return y\n";
  SourceFile file("deep.py", s);
  CompileResult r = compile_source(file);
  ASSERT_FALSE(r.ok());
  std::string text = render(file, r.diagnostics);
  EXPECT_NE(text.find("error[E0320]: control flow nests more than 31 graphs deep"),
            std::string::npos)
      << text;
  // 30 levels compile, and the file loads back.
  std::string ok =
      "from onnxscript import FLOAT, script\nfrom onnxscript import opset17 as op\n"
      "@script()\ndef f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n    y = x\n"
      "    s = op.ReduceSum(x)\n    if s > 0.0:\n        y = x + 0.0\n";
  for (int k = 1; k < 30; ++k) {
    ok += "    elif s > " + std::to_string(k) + ".0:\n        y = x + 1.0\n";
  }
  ok += "    return y\n";
  SourceFile okf("ok.py", ok);
  CompileResult r2 = compile_source(okf);
  ASSERT_TRUE(r2.ok()) << render(okf, r2.diagnostics);
  std::string path = std::string(OXS_BINARY_DIR) + "/script_test_deep.onnx";
  onnx::save(*r2.model, path);
  EXPECT_NO_THROW(onnx::load(path));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace oxs::script
