// One test per converter diagnostic, with the message users see, and a file
// with independent errors that reports all of them in one run.
#include <gtest/gtest.h>

#include "script/compile_util.h"

namespace oxs::script {
namespace {

using testing::diagnostics_of;

constexpr const char* kHeader =
    "from onnxscript import FLOAT, INT64, script\n"
    "from onnxscript import opset15 as op\n";

// The diagnostics of a script made of kHeader and `body`.
std::string errors(const std::string& body, const CompileOptions& options = {}) {
  return diagnostics_of(std::string(kHeader) + body, options);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CompileDiagnostics, UnknownOpSuggestsTheClosest) {
  EXPECT_EQ(errors("@script()\n"
                   "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
                   "    return op.Reul(x)\n"),
            "t.py:5:15: error[E0302]: unknown op 'Reul' in ai.onnx opset 15\n"
            "    return op.Reul(x)\n"
            "              ^~~~\n"
            "  hint: did you mean 'Relu'?\n");
}

TEST(CompileDiagnostics, UnknownAttributeSuggestsTheClosest) {
  EXPECT_EQ(errors("@script()\n"
                   "def f(x: FLOAT[\"N\"]) -> INT64[1]:\n"
                   "    return op.ArgMax(x, axs=0)\n"),
            "t.py:5:25: error[E0303]: ArgMax-13 has no attribute 'axs' (inputs: data)\n"
            "    return op.ArgMax(x, axs=0)\n"
            "                        ^~~~~\n"
            "  hint: did you mean 'axis'?\n");
}

TEST(CompileDiagnostics, WrongInputCount) {
  std::string e = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return op.Add(x)\n");
  EXPECT_TRUE(has(e, "t.py:5:12: error[E0304]: Add-14 requires input 'B' (input 2 of 2: A, B)"))
      << e;
  std::string many = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return op.Relu(x, x)\n");
  EXPECT_TRUE(has(many, "error[E0304]: Relu-14 takes at most 1 input (X), got 2")) << many;
}

TEST(CompileDiagnostics, AttributeTypeMismatch) {
  std::string e = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> INT64[1]:\n"
      "    return op.ArgMax(x, axis=1.5)\n");
  EXPECT_TRUE(has(e,
                  "error[E0305]: attribute 'axis' of ArgMax-13 takes an int, got the Python "
                  "float 1.5"))
      << e;
  EXPECT_TRUE(has(e, "hint: write an int, e.g. 1")) << e;
  // An attribute parameter of the wrong type.
  std::string p = errors(
      "@script()\n"
      "def g(x, alpha: str):\n"
      "    return op.Elu(x, alpha=alpha)\n"
      "@script()\n"
      "def m(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return g(x, alpha=\"a\")\n");
  EXPECT_TRUE(has(p,
                  "error[E0305]: attribute 'alpha' of Elu-6 takes a float, got the attribute "
                  "parameter 'alpha' (string)"))
      << p;
}

TEST(CompileDiagnostics, MissingAttribute) {
  std::string e = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return op.Cast(x)\n");
  EXPECT_TRUE(has(e, "t.py:5:12: error[E0306]: Cast-13 requires attribute 'to' (an int)")) << e;
  // A script function's attribute without a default, read by its body.
  std::string f = errors(
      "@script()\n"
      "def g(x, axis: int):\n"
      "    return op.ArgMax(x, axis=axis)\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> INT64[1]:\n"
      "    return g(x)\n");
  EXPECT_TRUE(has(f, "error[E0306]: 'g' requires attribute 'axis' (an int)")) << f;
}

TEST(CompileDiagnostics, UnboundName) {
  EXPECT_EQ(errors("@script()\n"
                   "def f(value: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
                   "    return valeu + 1.0\n"),
            "t.py:5:12: error[E0301]: name 'valeu' is not defined\n"
            "    return valeu + 1.0\n"
            "           ^~~~~\n"
            "  hint: did you mean 'value'?\n");
}

TEST(CompileDiagnostics, UseAfterDel) {
  std::string e = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"], y: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    del y\n"
      "    return x + y\n");
  EXPECT_TRUE(has(e, "error[E0301]: 'y' is used after `del y`")) << e;
  EXPECT_TRUE(has(e, "note: deleted at line 5")) << e;
}

TEST(CompileDiagnostics, MissingReturnOnSomePath) {
  EXPECT_EQ(errors("@script()\n"
                   "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
                   "    if op.ReduceMax(x) > 0.0:\n"
                   "        return x\n"),
            "t.py:4:5: error[E0307]: 'f' does not return a value on every path\n"
            "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
            "    ^\n"
            "  hint: add a return at the end of the function (or in the branch that lacks one)\n");
}

TEST(CompileDiagnostics, MixedOpsetVersions) {
  std::string e = errors(
      "from onnxscript import opset17\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return opset17.Relu(op.Relu(x))\n");
  EXPECT_TRUE(has(e,
                  "t.py:6:20: error[E0308]: mixed versions of opset ai.onnx: this uses version "
                  "17, but the model already uses version 15"))
      << e;
  EXPECT_TRUE(has(e, "note: version 15 comes from line 2")) << e;
  // --opset retargets every import: no conflict.
  CompileOptions o;
  o.opset = 17;
  EXPECT_EQ(errors("from onnxscript import opset17\n"
                   "@script()\n"
                   "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
                   "    return opset17.Relu(op.Relu(x))\n",
                   o),
            "");
}

TEST(CompileDiagnostics, UnsupportedSyntaxSaysWhatToWrite) {
  std::string e = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    ys = [x for _ in range(3)]\n"
      "    return x\n");
  EXPECT_TRUE(has(e, "error[E0309]: a comprehension is not supported in ONNX Script")) << e;
  EXPECT_TRUE(has(e, "hint: write the list out, or use a for loop over range(...)")) << e;
  std::string f = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    for v in x:\n"
      "        pass\n"
      "    return x\n");
  EXPECT_TRUE(has(f,
                  "error[E0309]: a for loop in a script iterates over range(stop) or "
                  "range(start, stop[, step])"))
      << f;
  std::string g = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    x[0] = 1.0\n"
      "    return x\n");
  EXPECT_TRUE(has(g,
                  "error[E0309]: assigning to a subscript has no ONNX meaning: tensors are "
                  "immutable"))
      << g;
}

TEST(CompileDiagnostics, PythonConstructWithNoOnnxMeaning) {
  std::string e = errors(
      "import numpy as np\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return np.exp(x)\n");
  EXPECT_TRUE(has(e, "t.py:6:12: error[E0310]: 'numpy.exp' has no ONNX meaning in a script")) << e;
  std::string p = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    print(x)\n"
      "    return x\n");
  EXPECT_TRUE(has(p, "error[E0310]: print() has no ONNX meaning in a script")) << p;
  std::string a = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    assert x is not None\n"
      "    return x\n");
  EXPECT_TRUE(has(a, "error[E0310]: assert has no ONNX meaning: a graph cannot fail")) << a;
}

TEST(CompileDiagnostics, UnsupportedOpsetNamesTheNewest) {
  std::string e = errors("from onnxscript import opset29\n");
  EXPECT_TRUE(has(e,
                  "t.py:3:24: error[E0311]: ai.onnx opset 29 is not supported: the newest "
                  "ai.onnx opset oxs knows is 28"))
      << e;
}

TEST(CompileDiagnostics, UndefinedOnSomePath) {
  std::string e = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    if op.ReduceMax(x) > 0.0:\n"
      "        y = x\n"
      "    return y\n");
  EXPECT_TRUE(has(e,
                  "error[E0316]: 'y' is assigned in the if branch but has no value when the "
                  "else branch runs, and it is used after the if"))
      << e;
  std::string l = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    for i in range(3):\n"
      "        acc = acc + x\n"
      "    return x\n");
  EXPECT_TRUE(has(l, "error[E0316]: 'acc' is assigned in this loop but has no value before it"))
      << l;
}

TEST(CompileDiagnostics, ModelInputsNeedTypesAndRanks) {
  std::string e = errors(
      "@script()\n"
      "def f(x) -> FLOAT[\"N\"]:\n"
      "    return x\n");
  EXPECT_TRUE(has(e, "error[E0314]: input 'x' of the model needs a type")) << e;
  std::string r = errors(
      "@script()\n"
      "def f(x: FLOAT[...]) -> FLOAT[\"N\"]:\n"
      "    return x\n");
  EXPECT_TRUE(has(r,
                  "error[E0314]: input 'x' of the model needs a rank: FLOAT[...] leaves it "
                  "unknown"))
      << r;
}

TEST(CompileDiagnostics, RecursionIsReported) {
  std::string e = errors(
      "@script()\n"
      "def f(x):\n"
      "    return f(x)\n"
      "@script()\n"
      "def m(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return f(x)\n");
  EXPECT_TRUE(has(e, "error[E0318]: 'f' calls itself; ONNX functions cannot be recursive")) << e;
}

TEST(CompileDiagnostics, UnpackMismatch) {
  std::string e = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    a, b, c = op.TopK(x, op.Constant(value_ints=[1]))\n"
      "    return a\n");
  EXPECT_TRUE(has(e, "error[E0317]: TopK-11 has 2 outputs, but 3 are unpacked")) << e;
}

TEST(CompileDiagnostics, UndecoratedHelperIsNotCompiled) {
  std::string e = errors(
      "def helper(x):\n"
      "    return op.Relu(x)\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return helper(x)\n");
  EXPECT_TRUE(has(e, "error[E0321]: 'helper' is not a script function, so it is not compiled"))
      << e;
  EXPECT_TRUE(has(e, "hint: decorate it with @script() to call it from a script")) << e;
}

TEST(CompileDiagnostics, ThreeIndependentErrorsInOneRun) {
  std::string e = errors(
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    a = op.Reul(x)\n"
      "    b = op.ArgMax(x, axs=0)\n"
      "    return undefined_name\n"
      "@script()\n"
      "def g(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    return op.Add(x)\n");
  EXPECT_TRUE(has(e, "t.py:5:12: error[E0302]")) << e;
  EXPECT_TRUE(has(e, "t.py:6:22: error[E0303]")) << e;
  EXPECT_TRUE(has(e, "t.py:7:12: error[E0301]")) << e;
  EXPECT_TRUE(has(e, "t.py:10:12: error[E0304]")) << e;
  size_t count = 0;
  for (size_t p = e.find(": error["); p != std::string::npos; p = e.find(": error[", p + 1))
    ++count;
  EXPECT_EQ(count, 4u) << e;
}

TEST(CompileDiagnostics, NoDecoratedFunction) {
  EXPECT_EQ(
      errors("x = 1\n"),
      "t.py:1:1: error[E0314]: no function decorated with @script() in t.py\n"
      "from onnxscript import FLOAT, INT64, script\n"
      "^\n"
      "  hint: decorate the model's function with @script() (from onnxscript import script)\n");
}

TEST(CompileDiagnostics, EveryErrorHasAHintOrNote) {
  // A spread of errors: each must come with a hint (what to do).
  std::string e = errors(
      "import numpy as np\n"
      "@script()\n"
      "def f(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n"
      "    a = op.Reul(x)\n"
      "    b = [x for x in range(2)]\n"
      "    c = np.ones(3)\n"
      "    return x\n");
  size_t errs = 0, hints = 0;
  for (size_t p = e.find(": error["); p != std::string::npos; p = e.find(": error[", p + 1)) ++errs;
  for (size_t p = e.find("  hint: "); p != std::string::npos; p = e.find("  hint: ", p + 1))
    ++hints;
  EXPECT_EQ(errs, 3u) << e;
  EXPECT_EQ(hints, errs) << e;
}

}  // namespace
}  // namespace oxs::script
