// What the compiler says about code onnxscript users write that is not (or
// not only) ONNX Script: Python outside script functions, syntax errors,
// decorators, opset conflicts, values absent on one path, files that yield
// nothing; and hostile inputs (deep call chains, huge folded constants).
#include <gtest/gtest.h>

#include "oxs/eval/session.h"
#include "oxs/ir/structural_diff.h"
#include "oxs/script/decompile/decompile.h"
#include "script/compile_util.h"

namespace oxs::script {
namespace {

using testing::compile_ok;
using testing::diagnostics_of;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

constexpr const char* kHeader =
    "from onnxscript import FLOAT, script\n"
    "from onnxscript import opset17 as op\n";

std::string with_header(const std::string& body) {
  return std::string(kHeader) + body;
}

TEST(CompatDiagnostics, SyntaxErrorOnAReturnLineIsAnErrorAtItsPosition) {
  std::string d =
      diagnostics_of(with_header("@script()\n"
                                 "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
                                 "    return op.Add(x x)\n"));
  EXPECT_TRUE(has(d, "t.py:5:19: error[E0211]")) << d;
  EXPECT_FALSE(has(d, "E0307")) << d;
  EXPECT_FALSE(has(d, "outside script functions")) << d;
}

TEST(CompatDiagnostics, SyntaxErrorAfterAReturnIsAnError) {
  std::string d =
      diagnostics_of(with_header("@script()\n"
                                 "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
                                 "    return x\n"
                                 "    z = (\n"));
  EXPECT_TRUE(has(d, "t.py:6:9: error[E0108]")) << d;
}

TEST(CompatDiagnostics, SyntaxErrorInModuleLevelPythonIsAnError) {
  std::string d =
      diagnostics_of(with_header("print('a' 'b' +)\n"
                                 "@script()\n"
                                 "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
                                 "    return op.Neg(x)\n"));
  EXPECT_TRUE(has(d, "t.py:3:16: error[")) << d;
}

TEST(CompatDiagnostics, ValidPythonOutsideScriptsIsOnlyANote) {
  std::string src = with_header(
      "def helper(n):\n"
      "    try:\n"
      "        s = f\"{n}\"\n"
      "    except Exception:\n"
      "        raise ValueError('bad')\n"
      "    return 123456789012345678901234567890\n"
      "@script()\n"
      "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
      "    return op.Neg(x)\n");
  std::string d = diagnostics_of(src);
  EXPECT_FALSE(has(d, "error")) << d;
  EXPECT_TRUE(has(d, "note[E0207]")) << d;
  EXPECT_TRUE(has(d, "note[E0104]")) << d;
  compile_ok(src);
}

TEST(CompatDiagnostics, FStringUnderAnotherDecoratorIsANote) {
  std::string d =
      diagnostics_of(with_header("import functools\n"
                                 "@functools.lru_cache()\n"
                                 "def name(n):\n"
                                 "    return f\"v{n}\"\n"
                                 "@script()\n"
                                 "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
                                 "    return op.Neg(x)\n"));
  EXPECT_TRUE(has(d, "note[E0207]")) << d;
  EXPECT_FALSE(has(d, "error")) << d;
}

TEST(CompatDiagnostics, FStringInsideAScriptIsStillAnError) {
  std::string d =
      diagnostics_of(with_header("@script()\n"
                                 "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
                                 "    s = f\"{x}\"\n"
                                 "    return x\n"));
  EXPECT_TRUE(has(d, "error[E0207]")) << d;
}

TEST(CompatDiagnostics, NoneOnOnePathNamesTheOnnxRule) {
  std::string d =
      diagnostics_of(with_header("@script()\n"
                                 "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
                                 "    z = op.Neg(x)\n"
                                 "    if op.ReduceSum(x) > 0.0:\n"
                                 "        z = None\n"
                                 "    return z\n"));
  EXPECT_TRUE(has(d, "error[E0316]: 'z' is None when the if branch runs")) << d;
  EXPECT_TRUE(has(d, "then_branch and else_branch must produce the same output types")) << d;
}

TEST(CompatDiagnostics, MixedOpsetsInOneModelNameBothFunctions) {
  CompileOptions o;
  o.functions_only = true;
  std::string d = diagnostics_of(
      "from onnxscript import FLOAT, script, opset16, opset17\n"
      "@script(default_opset=opset16)\n"
      "def a(x):\n"
      "    return opset16.Neg(x)\n"
      "@script(default_opset=opset17)\n"
      "def b(x):\n"
      "    return opset17.Neg(x)\n",
      o);
  EXPECT_TRUE(has(d, "error[E0308]")) << d;
  EXPECT_TRUE(has(d, "'b' uses version 17, 'a' uses version 16")) << d;
}

TEST(CompatDiagnostics, OpsetOfAFunctionOutsideTheModelDoesNotConflict) {
  auto m = compile_ok(
      "from onnxscript import FLOAT, script, opset16, opset15\n"
      "from onnxscript import opset17 as op\n"
      "@script(default_opset=opset16)\n"
      "def a(x):\n"
      "    return opset16.Neg(x)\n"
      "@script()\n"
      "def main(x: FLOAT[3]) -> FLOAT[3]:\n"
      "    return op.Neg(x)\n");
  ASSERT_TRUE(m);
  for (const auto& imp : m->opset_imports) {
    if (imp.domain.empty()) {
      EXPECT_EQ(imp.version, 17);  // opset15 is imported, never used
    }
  }
}

TEST(CompatDiagnostics, FunctionOutsideTheModelIsCheckedAgainstItsOwnOpset) {
  // Squeeze's axes is an attribute in opset 11 and an input from opset 13.
  auto m = compile_ok(
      "from onnxscript import FLOAT, script, opset11\n"
      "from onnxscript import opset17 as op\n"
      "@script(default_opset=opset11)\n"
      "def old_squeeze(x):\n"
      "    return opset11.Squeeze(x, axes=[0])\n"
      "@script()\n"
      "def main(x: FLOAT[1, 3]) -> FLOAT[1, 3]:\n"
      "    return op.Neg(x)\n");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->functions.empty());
  std::string d = diagnostics_of(
      "from onnxscript import FLOAT, script, opset11\n"
      "@script(default_opset=opset11)\n"
      "def bad(x):\n"
      "    return opset11.Squeeze(x, axis=[0])\n"
      "@script()\n"
      "def main(x: FLOAT[1, 3]) -> FLOAT[1, 3]:\n"
      "    return opset11.Neg(x)\n");
  EXPECT_TRUE(has(d, "error[E0303]")) << d;  // its errors are still reported
}

TEST(CompatDiagnostics, ScriptNestedInAPlainDefIsReportedByName) {
  std::string d =
      diagnostics_of(with_header("def make(alpha):\n"
                                 "    @script()\n"
                                 "    def inner(x):\n"
                                 "        return op.Mul(x, alpha)\n"
                                 "    return inner\n"));
  EXPECT_TRUE(has(d, "warning[E0309]: 'inner' is a @script function nested in 'make'")) << d;
  EXPECT_TRUE(has(d, "oxs.script")) << d;
  EXPECT_TRUE(has(d, "error[E0314]: no function decorated with @script()")) << d;
}

TEST(CompatDiagnostics, UnknownDecoratorOnOnnxScriptIsReported) {
  std::string src = with_header(
      "@register(\"aten::abs\")\n"
      "def abs_(x):\n"
      "    return op.Abs(x)\n");
  std::string d = diagnostics_of(src);
  EXPECT_TRUE(has(d, "warning[E0309]: 'abs_' calls ONNX ops but its decorator @register")) << d;
  EXPECT_TRUE(has(d, "--decorator register")) << d;
}

TEST(CompatDiagnostics, RegistrationDecoratorCountsAsScriptAndRecordsNames) {
  std::string src = with_header(
      "@register(\"aten::abs\", \"aten::absolute\")\n"
      "def abs_(x):\n"
      "    return op.Abs(x)\n");
  CompileOptions o;
  o.functions_only = true;
  o.script_decorators = {"register"};
  SourceFile file("t.py", src);
  CompileResult r = compile_source(file, o);
  ASSERT_TRUE(r.ok()) << render(file, r.diagnostics);
  ASSERT_EQ(r.functions.size(), 1u);
  EXPECT_EQ(r.functions[0].registered_names,
            (std::vector<std::string>{"aten::abs", "aten::absolute"}));
  bool recorded = false;
  for (const auto& [k, v] : r.model->metadata_props) {
    recorded = recorded || (k == "oxs.registered.abs_" && v == "aten::abs,aten::absolute");
  }
  EXPECT_TRUE(recorded);
}

TEST(CompatDiagnostics, EmptyFileIsAnErrorUnlessAllowed) {
  CompileOptions o;
  o.functions_only = true;
  std::string d = diagnostics_of("import numpy as np\nx = 1\n", o);
  EXPECT_TRUE(has(d, "error[E0314]")) << d;
  o.allow_empty = true;
  SourceFile file("t.py", "import numpy as np\nx = 1\n");
  CompileResult r = compile_source(file, o);
  EXPECT_EQ(render(file, r.diagnostics), "");
}

TEST(CompatDiagnostics, ExplicitIdentityIsKept) {
  auto m =
      compile_ok(with_header("@script()\n"
                             "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
                             "    y = op.Identity(x)\n"
                             "    return op.Identity(y)\n"));
  ASSERT_TRUE(m);
  size_t identities = 0;
  for (const ir::Node* n : m->graph->nodes()) identities += n->op_type() == "Identity";
  EXPECT_EQ(identities, 2u);
}

TEST(CompatDiagnostics, CleanupOptionRemovesIdentity) {
  CompileOptions o;
  o.cleanup = true;
  auto m = compile_ok(with_header("@script()\n"
                                  "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
                                  "    y = op.Identity(x)\n"
                                  "    return op.Neg(y)\n"),
                      o);
  ASSERT_TRUE(m);
  for (const ir::Node* n : m->graph->nodes()) EXPECT_NE(n->op_type(), "Identity");
}

// issue #17: a chain of 1,500 script functions (each calls the previous)
// compiles without deep recursion.
TEST(CompatHostile, LongChainOfScriptCallsCompiles) {
  std::string src = with_header("@script()\ndef f0(x):\n    return op.Neg(x)\n");
  const int n = 1500;
  for (int k = 1; k < n; ++k) {
    src += "@script()\ndef f" + std::to_string(k) + "(x):\n    return f" + std::to_string(k - 1) +
           "(x)\n";
  }
  src += "@script()\ndef main(x: FLOAT[3]) -> FLOAT[3]:\n    return f" + std::to_string(n - 1) +
         "(x)\n";
  SourceFile file("chain.py", src);
  CompileResult r = compile_source(file);
  // Either a model or a clear error (inference nests calls): never a crash.
  if (r.ok()) {
    EXPECT_EQ(r.model->functions.size(), static_cast<size_t>(n));
  } else {
    std::string d = render(file, r.diagnostics);
    EXPECT_TRUE(has(d, "nest deeper")) << d.substr(0, 2000);
  }
}

TEST(CompatHostile, HugeListRepetitionIsAClearError) {
  std::string d =
      diagnostics_of(with_header("N = [0] * 2**62\n"
                                 "@script()\n"
                                 "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
                                 "    return op.Add(x, len(N))\n"));
  EXPECT_TRUE(has(d, "error[E0323]")) << d;
  EXPECT_TRUE(has(d, "too large")) << d;
}

TEST(CompatHostile, HugeStringRepetitionIsAClearError) {
  std::string d =
      diagnostics_of(with_header("S = 'a' * 10**12\n"
                                 "@script()\n"
                                 "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
                                 "    return op.Add(x, len(S))\n"));
  EXPECT_TRUE(has(d, "error[E0323]")) << d;
}

TEST(CompatHostile, RepeatedConcatenationStopsAtTheLimit) {
  std::string src = std::string(kHeader) + "@script()\ndef f(x: FLOAT[3]) -> FLOAT[3]:\n";
  src += "    a = [0] * 1024\n";
  for (int k = 0; k < 20; ++k) src += "    a = a + a\n";
  src += "    return op.Add(x, float(len(a)))\n";
  std::string d = diagnostics_of(src);
  EXPECT_TRUE(has(d, "error[E0323]")) << d;
}

TEST(CompatHostile, EmptyRepetitionIsEmpty) {
  compile_ok(
      with_header("S = '' * 10**12\n"
                  "L = [] * 10**12\n"
                  "@script()\n"
                  "def f(x: FLOAT[3]) -> FLOAT[3]:\n"
                  "    return op.Add(x, float(len(S) + len(L)))\n"));
}

// issue #17: nesting as deep as the parser allows compiles or stops with a
// named limit; nothing recurses without bound.
TEST(CompatHostile, DeepExpressionsAndStatementsEndCleanly) {
  std::string expr = "x";
  for (int k = 0; k < 40; ++k) expr = "op.Neg(" + expr + ")";
  compile_ok(with_header("@script()\ndef f(x: FLOAT[3]) -> FLOAT[3]:\n    return " + expr + "\n"));

  std::string sum = "x";
  for (int k = 0; k < 5000; ++k) sum += " + x";
  std::string d = diagnostics_of(
      with_header("@script()\ndef f(x: FLOAT[3]) -> FLOAT[3]:\n    return " + sum + "\n"));
  EXPECT_TRUE(has(d, "error[E0002]")) << d.substr(0, 500);

  std::string ifs = "@script()\ndef f(x: FLOAT[3]) -> FLOAT[3]:\n    y = x\n";
  std::string pad = "    ";
  for (int k = 0; k < 60; ++k) {
    ifs += pad + "if op.ReduceSum(x) > " + std::to_string(k) + ".0:\n";
    pad += " ";
  }
  ifs += pad + "y = op.Neg(y)\n    return y\n";
  d = diagnostics_of(with_header(ifs));
  EXPECT_TRUE(has(d, "error[E0320]: control flow nests more than 31 graphs deep")) << d;

  std::string static_ifs =
      "@script()\ndef f(x: FLOAT[3], flag: bool = True) -> FLOAT[3]:\n    y = x\n";
  pad = "    ";
  for (int k = 0; k < 90; ++k) {
    static_ifs += pad + "if flag:\n";
    pad += " ";
  }
  static_ifs += pad + "y = op.Neg(y)\n    return y\n";
  compile_ok(with_header(static_ifs));
}

// Graph input/output names that are not identifiers survive decompile and
// compile through @script(io_names=...) (issue #10, item 6).
TEST(CompatDiagnostics, IoNamesKeepOnnxNamesOfTheGraph) {
  auto m = compile_ok(
      with_header("@script(io_names={'input_1': 'input.1', 'onnx__Out_9': 'onnx::Out_9'})\n"
                  "def g(input_1: FLOAT[2]) -> FLOAT[2]:\n"
                  "    onnx__Out_9 = op.Relu(input_1)\n"
                  "    return onnx__Out_9\n"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->graph->inputs()[0]->name(), "input.1");
  EXPECT_EQ(m->graph->outputs()[0]->name(), "onnx::Out_9");
  std::string d =
      diagnostics_of(with_header("@script(io_names=['x'])\n"
                                 "def g(x: FLOAT[2]) -> FLOAT[2]:\n"
                                 "    return op.Relu(x)\n"));
  EXPECT_TRUE(has(d, "error[E0315]: io_names= takes a dict")) << d;
}

// A model as torch exports them: Identity nodes on weights and outputs,
// names that are not identifiers. Decompile then compile gives an
// equivalent model with the same graph input and output names.
TEST(CompatDiagnostics, TorchStyleModelSurvivesDecompileAndCompile) {
  ir::Model m;
  m.opset_imports = {{"", 14}};
  ir::Graph& g = *m.graph;
  g.set_name("torch_jit");
  ir::Value* x = g.add_input(
      "input.1",
      ir::Type::tensor(ir::DataType::Float, ir::Shape({ir::Dim::known(2), ir::Dim::known(4)})));
  std::vector<float> w(12, 0.5f);
  ir::Value* wv = g.add_initializer(
      "onnx::MatMul_7",
      std::make_shared<ir::Tensor>(ir::Tensor::from<float>(ir::DataType::Float, {4, 3}, w)));
  ir::Value* in0[] = {wv};
  ir::Node* id = g.create_node("Identity", in0);
  id->output(0)->set_name("l.weight");
  ir::Value* in1[] = {x, id->output(0)};
  ir::Node* mm = g.create_node("MatMul", in1);
  mm->set_name("/l/MatMul");
  mm->output(0)->set_name("/l/MatMul_output_0");
  ir::Value* in2[] = {mm->output(0)};
  ir::Node* relu = g.create_node("Relu", in2);
  relu->output(0)->set_name("/Relu_output_0");
  ir::Value* in3[] = {relu->output(0)};
  ir::Node* out = g.create_node("Identity", in3);
  out->output(0)->set_name("onnx::Out_9");
  out->output(0)->set_type(
      ir::Type::tensor(ir::DataType::Float, ir::Shape({ir::Dim::known(2), ir::Dim::known(3)})));
  g.add_output(out->output(0));

  std::string src = decompile(m).source;
  auto back = compile_ok(src);
  ASSERT_TRUE(back) << src;
  EXPECT_EQ(back->graph->inputs()[0]->name(), "input.1") << src;
  EXPECT_EQ(back->graph->outputs()[0]->name(), "onnx::Out_9") << src;
  ir::DiffResult d = ir::diff(m, *back);
  EXPECT_TRUE(d.equivalent()) << d.to_string() << "\n" << src;
}

// numpy pairs tensor indices (A[i, j, 2] with i of shape (2, 1) and j of
// shape (3,) is (2, 3)); an int after them is placed after their dims. In a
// generic function (ranks unknown) that placement is a named error.
TEST(CompatDiagnostics, PairedTensorIndicesThenAnInt) {
  auto m = compile_ok(
      with_header("from onnxscript import INT64\n"
                  "@script()\n"
                  "def f(A: FLOAT[3, 4, 5], i: INT64[2, 1], j: INT64[3]) -> FLOAT[2, 3]:\n"
                  "    return A[i, j, 2]\n"));
  ASSERT_TRUE(m);
  std::vector<float> a(60);
  for (size_t k = 0; k < a.size(); ++k) a[k] = static_cast<float>(k);
  std::vector<int64_t> i = {0, 2}, j = {1, 3, -1};
  eval::Session s(*m);
  auto out = s.run(
      {{"A", eval::Tensor::of<float>(ir::DataType::Float, {3, 4, 5}, std::span<const float>(a))},
       {"i", eval::Tensor::of<int64_t>(ir::DataType::Int64, {2, 1}, std::span<const int64_t>(i))},
       {"j", eval::Tensor::of<int64_t>(ir::DataType::Int64, {3}, std::span<const int64_t>(j))}});
  const eval::Tensor& y = out.at(0).tensor();
  ASSERT_EQ(y.dims(), (eval::Dims{2, 3}));
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) {
      int64_t jj = j[c] < 0 ? j[c] + 4 : j[c];
      EXPECT_EQ(y.data<float>()[r * 3 + c], a[i[r] * 20 + jj * 5 + 2]) << r << "," << c;
    }
  }
  CompileOptions library;
  library.functions_only = true;
  std::string d = diagnostics_of(with_header("@script()\n"
                                             "def g(A, i, j):\n"
                                             "    return A[i, j, 2]\n"),
                                 library);
  EXPECT_TRUE(has(d, "error[E0309]: the rank of this tensor index is not known")) << d;
}

}  // namespace
}  // namespace oxs::script
