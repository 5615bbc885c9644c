// The language, construct by construct: each entry of the construct scripts
// (tests/script/scripts/constructs_*.py) compiles, passes libonnx's checker
// and strict shape inference, and has the structure the construct implies.
#include <gtest/gtest.h>

#include <map>

#include "script/compile_util.h"

namespace oxs::script {
namespace {

using testing::compile_ok;
using testing::conformance_problems;
using testing::python_checker;
using testing::read_file;
using testing::script_path;

// op type -> count over the graph, its subgraphs and function bodies.
std::map<std::string, int> op_counts(const ir::Model& m) {
  std::map<std::string, int> out;
  auto add = [&](const ir::Graph& g) {
    g.for_each_node_recursive([&](ir::Node* n) { ++out[n->op_type()]; });
  };
  add(*m.graph);
  for (const auto& f : m.functions) add(*f->body);
  return out;
}

struct Case {
  const char* file;
  const char* entry;
  std::vector<std::pair<std::string, int>> min_ops;  // op -> at least this many
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.file << ": " << c.entry;
}

class Constructs : public ::testing::TestWithParam<Case> {};

TEST_P(Constructs, CompilesAndChecks) {
  const Case& c = GetParam();
  SourceFile file(c.file, read_file(script_path(c.file)));
  CompileOptions options;
  options.entry = c.entry;
  CompileResult r = compile_source(file, options);
  ASSERT_TRUE(r.ok()) << render(file, r.diagnostics);
  EXPECT_EQ(conformance_problems(*r.model), "") << ir::print(*r.model);
  EXPECT_EQ(python_checker(*r.model, std::string("constructs_") + c.entry), "");
  auto counts = op_counts(*r.model);
  for (const auto& [op, n] : c.min_ops) {
    EXPECT_GE(counts[op], n) << op << " in\n" << ir::print(*r.model);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Scripts, Constructs,
    ::testing::Values(
        Case{"constructs_loops.py", "sum_loop", {{"Loop", 1}, {"Add", 1}}},
        Case{"constructs_loops.py", "range_loop", {{"Loop", 1}, {"If", 1}}},
        Case{"constructs_loops.py", "while_loop", {{"Loop", 1}, {"If", 1}, {"Less", 2}}},
        Case{"constructs_loops.py", "early", {{"If", 2}}},
        Case{"constructs_misc.py",
             "subs",
             {{"Slice", 5}, {"Gather", 2}, {"Squeeze", 3}, {"Unsqueeze", 1}}},
        Case{"constructs_misc.py",
             "calls",
             {{"TopK", 1},
              {"Relu", 1},
              {"Where", 1},
              {"MatMul", 1},
              {"Floor", 1},
              {"Mod", 1},
              {"Pow", 1},
              {"And", 1}}},
        Case{"constructs_misc.py", "attrs", {{"ReduceSum", 1}}},
        Case{"constructs_misc.py", "loop_body", {{"Loop", 1}, {"Cast", 1}}},
        Case{"constructs_misc.py", "scan_body", {{"Scan", 1}}},
        Case{"constructs_misc.py", "if_attr", {{"If", 1}}},
        Case{"constructs_misc.py", "use_custom", {{"custom_fn", 1}, {"Neg", 1}}},
        // @graph() bodies at module level, ops of a custom Opset("com.example", 1).
        Case{"constructs_graph.py", "m", {{"Loop", 1}, {"Scale", 1}}},
        // Imports (onnx_opset, onnx_types, import onnxscript), @script(op) and
        // @script(default_opset=op), TypeVars, unions, Annotated, Optional
        // (a variant without the omitted input), Sequence inputs, FLOAT[None].
        Case{"constructs_types.py",
             "seq_in",
             {{"generic", 1}, {"opt__without_bias", 1}, {"SequenceAt", 1}}}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.entry); });

TEST(Constructs, ModFloatUsesFmod) {
  auto m = compile_ok(
      "from onnxscript import FLOAT, INT64, script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"], k: INT64[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return op.Cast(k % 3, to=FLOAT) + x % 2.0\n");
  ASSERT_TRUE(m);
  int fmod1 = 0, fmod0 = 0;
  m->graph->for_each_node_recursive([&](ir::Node* n) {
    if (n->op_type() != "Mod") return;
    const ir::Attr* a = n->attr("fmod");
    (a && a->i == 1 ? fmod1 : fmod0)++;
  });
  EXPECT_EQ(fmod1, 1);
  EXPECT_EQ(fmod0, 1);
}

TEST(Constructs, LiteralsTakeTheOtherSidesType) {
  // Known element type: a typed constant; unknown (a function input): CastLike.
  auto m = compile_ok(
      "from onnxscript import DOUBLE, script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def g(x):\n"
      "    return x + 1\n"
      "@script()\n"
      "def f(x: DOUBLE[\"N\"]) -> DOUBLE[\"N\"]:\n"
      "    return g(x * 2)\n");
  ASSERT_TRUE(m);
  std::string text = ir::print(*m);
  EXPECT_NE(text.find("double[] = [2.0]"), std::string::npos) << text;
  EXPECT_NE(text.find("CastLike"), std::string::npos) << text;
}

TEST(Constructs, AttributeUsedAsValueReferencesTheAttribute) {
  auto m = compile_ok(
      "from onnxscript import FLOAT, script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def scale(x, s: float = 2.0, n: int = 3, axes: list[int] = [0]):\n"
      "    return x * s + op.Cast(n, to=FLOAT) + op.Cast(op.Constant(value_ints=axes), to=FLOAT)\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return scale(x, n=4)\n");
  ASSERT_TRUE(m);
  std::string text = ir::print(*m);
  EXPECT_NE(text.find("value_float=@s"), std::string::npos) << text;
  EXPECT_NE(text.find("value_int=@n"), std::string::npos) << text;
  EXPECT_NE(text.find("value_ints=@axes"), std::string::npos) << text;
  // Defaults are passed at the call (IR 8 functions have no attribute defaults).
  EXPECT_NE(text.find("{s=2.0, n=4, axes=[0]}"), std::string::npos) << text;
}

TEST(Constructs, FunctionsOnlyKeepsEveryScriptFunction) {
  CompileOptions o;
  o.functions_only = true;
  auto m = compile_ok(
      "from onnxscript import script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def a(x):\n"
      "    return op.Relu(x)\n"
      "@script()\n"
      "def b(x):\n"
      "    return a(x) + 1.0\n",
      o);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->functions.size(), 2u);
  EXPECT_EQ(m->graph->num_nodes(), 0u);
}

TEST(Constructs, SequenceInputOfAFunctionStaysASequence) {
  // Eager calls bind a list of arrays to it by the input's type.
  CompileOptions o;
  o.functions_only = true;
  auto m = compile_ok(
      "from typing import Sequence\n"
      "from onnxscript import FLOAT, script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def cat(tensors: Sequence[FLOAT[...]], x: FLOAT[...], dim: int = 0):\n"
      "    return op.Add(op.ConcatFromSequence(tensors, axis=dim), x)\n",
      o);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->functions.size(), 1u);
  const auto& inputs = m->functions[0]->body->inputs();
  ASSERT_EQ(inputs.size(), 2u);
  ASSERT_EQ(inputs[0]->type().kind(), ir::Type::Kind::Sequence);
  EXPECT_EQ(inputs[0]->type().element()->elem_type(), ir::DataType::Float);
  EXPECT_TRUE(inputs[1]->type().is_tensor());
}

TEST(Constructs, GraphValueForATensorAttributeSaysItIsComputed) {
  SourceFile file(
      "t.py",
      "from onnxscript import script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def f(x):\n"
      "    return op.ConstantOfShape(op.Shape(x), value=op.Constant(value_ints=[1]))\n");
  CompileOptions o;
  o.functions_only = true;
  CompileResult r = compile_source(file, o);
  ASSERT_FALSE(r.ok());
  std::string text = render(file, r.diagnostics);
  EXPECT_NE(text.find("takes a tensor, got a value computed in the graph"), std::string::npos)
      << text;
}

TEST(Constructs, UnreachableFunctionsAreDropped) {
  auto m = compile_ok(
      "from onnxscript import FLOAT, script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def unused(x):\n"
      "    return op.Relu(x)\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return op.Neg(x)\n");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->functions.empty());
}

TEST(Constructs, StaticConditionsPickOneBranch) {
  auto m = compile_ok(
      "from onnxscript import FLOAT, script\n"
      "from onnxscript import opset17 as op\n"
      "DEBUG = False\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"], mode: str = \"relu\") -> FLOAT[\"N\"]:\n"
      "    if DEBUG:\n"
      "        x = op.Identity(x)\n"
      "    if mode == \"relu\":\n"
      "        return op.Relu(x)\n"
      "    return op.Neg(x)\n");
  ASSERT_TRUE(m);
  auto counts = op_counts(*m);
  EXPECT_EQ(counts["If"], 0);
  EXPECT_EQ(counts["Relu"], 1);
  EXPECT_EQ(counts["Neg"], 0);
}

TEST(Constructs, OuterValuesAreCapturedInBranches) {
  auto m = compile_ok(
      "from onnxscript import FLOAT, script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"], y: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    z = x * y\n"
      "    if op.ReduceSum(x) > 0.0:\n"
      "        z = z + y\n"
      "    else:\n"
      "        z = z - y\n"
      "    return z\n");
  ASSERT_TRUE(m);
  std::string text = ir::print(*m);
  EXPECT_NE(text.find("Add(%z, %y)"), std::string::npos) << text;
  EXPECT_NE(text.find("Sub(%z, %y)"), std::string::npos) << text;
}

TEST(Constructs, ConditionsOnNumbersAreTruthiness) {
  // A bool attribute becomes an int64 Constant; as a condition it is cast.
  auto m = compile_ok(
      "from onnxscript import FLOAT, script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def g(x, flag: bool = True):\n"
      "    y = x\n"
      "    if flag:\n"
      "        y = op.Relu(x)\n"
      "    z = y if not flag else x\n"
      "    return z\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return g(x, flag=False)\n");
  ASSERT_TRUE(m);
  EXPECT_GE(op_counts(*m)["Cast"], 1);
}

TEST(Constructs, BreakInLoopOverUntypedInputs) {
  // One branch passes untyped values through, the other computes typed ones:
  // the If's outputs get one type (found by the benchmark corpus).
  auto m = compile_ok(
      "from onnxscript import FLOAT, script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def g(x):\n"
      "    s = op.ReduceSum(op.Abs(x), keepdims=0) + 1.0\n"
      "    steps = 0\n"
      "    while s < 1000.0:\n"
      "        s = s * 2.0\n"
      "        steps += 1\n"
      "        if steps > 20:\n"
      "            break\n"
      "    return x * s + op.Cast(steps, to=FLOAT)\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return g(x)\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(op_counts(*m)["Loop"], 1);
}

TEST(Constructs, OptionalInputsTestedWithIsNone) {
  // Called with and without bias: two functions, each with the test decided.
  auto m = compile_ok(
      "from typing import Optional\n"
      "from onnxscript import FLOAT, script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def lin(x, bias: Optional[FLOAT] = None):\n"
      "    y = op.Relu(x)\n"
      "    if bias is not None:\n"
      "        y = y + bias\n"
      "    return y\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"], b: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return lin(x) + lin(x, b)\n");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->functions.size(), 2u);
  auto counts = op_counts(*m);
  EXPECT_EQ(counts["If"], 0);
  EXPECT_EQ(counts["Add"], 2);  // one in `lin` with bias, one in f
}

TEST(Constructs, DocstringsBecomeDocStrings) {
  auto m = compile_ok(
      "from onnxscript import FLOAT, script\n"
      "from onnxscript import opset17 as op\n"
      "@script()\n"
      "def g(x):\n"
      "    \"\"\"Negates.\"\"\"\n"
      "    return op.Neg(x)\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    \"\"\"The model.\"\"\"\n"
      "    return g(x)\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->graph->doc_string, "The model.");
  ASSERT_EQ(m->functions.size(), 1u);
  EXPECT_EQ(m->functions[0]->doc_string, "Negates.");
}

}  // namespace
}  // namespace oxs::script
