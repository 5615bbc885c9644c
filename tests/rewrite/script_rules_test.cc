// Rules written in ONNX Script (tests/rewrite/rules/*.py), compiled by our
// own compiler: matching, checks, rewrites, verification of the seed's
// BreakAdds, and errors with their file:line:col.
#include "oxs/rewrite/rules/script_rules.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "oxs/rewrite/driver/explain.h"
#include "test_util.h"

namespace oxs::rewrite {
namespace {

using testing::ops;
using testing::parse_model;

std::string rule_path(const std::string& name) {
  return std::string(OXS_SOURCE_DIR) + "/tests/rewrite/rules/" + name;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<PassStats> run_rule_file(ir::Model& m, const std::string& file,
                                     const std::string& verify) {
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(make_script_rule_pass(rule_path(file), read(rule_path(file))));
  PipelineOptions o;
  o.verify = VerifySpec::parse(verify);
  return run_pipeline(m, passes, o);
}

const char* kModel = R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x, float[2,3] y) => (float[2,3] out) <float two = {2.0}> {
      a = Transpose<perm = [1, 0]>(x)
      b = Transpose<perm = [1, 0]>(a)
      c = Mul(b, two)
      d = Add(c, y)
      out = Relu(d)
    })";

TEST(ScriptRules, BreakAddsFileIsCaughtByEqualityAndBisected) {
  auto m = parse_model(kModel);
  try {
    run_rule_file(m, "BreakAdds.py", "equality");
    FAIL() << "verification did not fail";
  } catch (const VerificationError& e) {
    EXPECT_EQ(e.pass(), "BreakAdds");
    ASSERT_TRUE(e.culprit().has_value());
    EXPECT_EQ(e.culprit()->application.rule, "BreakAdds");
    EXPECT_EQ(e.culprit()->application.before, "%d = Add(%c, %y)");
    EXPECT_EQ(e.culprit()->application.after, "%Add = Add(%c, %c)  # Add\n");
  }
}

TEST(ScriptRules, CheckFunctionIsEvaluatedOnTheMatch) {
  // Add(y, y): check `x != y` is false, so BreakAdds leaves it alone.
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] y) => (float[2] out) { out = Add(y, y) })");
  auto stats = run_rule_file(m, "BreakAdds.py", "equality");
  EXPECT_EQ(stats[0].total_applications, 0u);
  auto rule = load_script_rule(rule_path("BreakAdds.py"), read(rule_path("BreakAdds.py")));
  std::string why = explain(m, *rule, *m.graph->first_node());
  EXPECT_NE(why.find("check failed: " + rule_path("BreakAdds.py") + ":14: `x != y` is false"),
            std::string::npos)
      << why;
}

TEST(ScriptRules, AttributesAndConstantsMatchByValue) {
  auto m = parse_model(kModel);
  run_rule_file(m, "DoubleTranspose.py", "equality");
  run_rule_file(m, "MulTwo.py", "equality");
  EXPECT_EQ(ops(m), "Identity,Add,Add,Relu");
  // A Mul by 3 is not MulTwo's pattern.
  auto three = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x) => (float[2] out) <float k = {3.0}> { out = Mul(x, k) })");
  auto stats = run_rule_file(three, "MulTwo.py", "equality");
  EXPECT_EQ(stats[0].total_applications, 0u);
}

void expect_error(const std::string& text, const std::string& where, const std::string& what) {
  try {
    load_script_rule("bad.py", text);
    FAIL() << "no error for " << text;
  } catch (const Error& e) {
    EXPECT_NE(e.describe().find(where), std::string::npos) << e.describe();
    EXPECT_NE(e.describe().find(what), std::string::npos) << e.describe();
  }
}

TEST(ScriptRules, BadRuleFilesAreClearErrors) {
  const std::string head =
      "from onnxscript import opset17 as op\nfrom onnxscript import script\n\n\n";
  expect_error(head + "@script()\ndef pattern(x):\n    return op.Relu(x)\n", "bad.py:1:1",
               "needs @script() functions 'pattern' and 'rewrite'");
  expect_error(head +
                   "@script()\ndef pattern(x):\n    return op.Relu(x)\n\n\n"
                   "@script()\ndef rewrite(z):\n    return op.Relu(z)\n",
               "bad.py:11:5", "rewrite's parameter 'z' is not a parameter of pattern");
  expect_error(head +
                   "@script()\ndef pattern(x):\n    return op.Relu(x)\n\n\n"
                   "def check(x):\n    return x + 1\n\n\n"
                   "@script()\ndef rewrite(x):\n    return op.Relu(x)\n",
               "bad.py:11:12", "check: unsupported expression");
  expect_error(head + "@script()\ndef pattern(x):\n    return op.Relu(x\n", "bad.py:7", "");
  expect_error(head +
                   "@script()\ndef pattern(x):\n    return op.Relu(x)\n\n\n"
                   "@script()\ndef rewrite(x):\n    return op.Relu(x), op.Neg(x)\n",
               "bad.py:11:5", "rewrite returns 2 value(s) but pattern returns 1");
  expect_error(head +
                   "@script()\ndef pattern(x):\n    return op.Reluu(x)\n\n\n"
                   "@script()\ndef rewrite(x):\n    return op.Relu(x)\n",
               "bad.py:7", "Reluu");
}

}  // namespace
}  // namespace oxs::rewrite
