// The front end never crashes or hangs on any input: random bytes, mutated
// scripts and every truncation of valid scripts. Diagnostics always carry
// spans inside the file, and every failed parse says why.
#include <gtest/gtest.h>

#include <random>

#include "script/util.h"

namespace oxs::script {
namespace {

constexpr const char* kCorpus[] = {
    R"py(from onnxscript import FLOAT, script
from onnxscript import opset15 as op

@script()
def onnx_hardmax(X, axis: int):
    """Hardmax."""
    argmax = op.ArgMax(X, axis=axis, keepdims=False)
    xshape = op.Shape(X, start=axis)
    zero = op.Constant(value_ints=[0])
    depth = op.GatherElements(xshape, zero)
    values = op.Constant(value_ints=[0, 1])
    return op.OneHot(argmax, depth, op.CastLike(values, X), axis=axis)

@script()
def sample_model(X: FLOAT[64, 128], Wt: FLOAT[128, 10], Bias: FLOAT[10]) -> FLOAT[64, 10]:
    matmul = op.MatMul(X, Wt) + Bias
    return onnx_hardmax(matmul, axis=1)
)py",
    R"py(def f(x, *args, k=1, **kw) -> T:
    if x > 0 and not y or z is not None:
        a, *b = x[1:2, ..., ::-1], {k: v for k, v in d.items() if v}
    elif x:
        while i < 10:
            i += 1; continue
        else:
            pass
    else:
        try:
            raise E("m\n\t\x41") from e
        except (A, B) as e:
            del a[0], b.c
        finally:
            with open(f) as g: yield g
    return lambda q=-2**-3: q if q else (q := 1e-3) @ 0x1F
class C(B, metaclass=M):
    x: int = b'\x00' b"\\"
    y = '''multi
line''' r'\d'
)py",
};

void check_run(const std::string& text) {
  SourceFile file("r.py", text);
  ParseResult r = parse(file);
  for (const Diagnostic& d : r.diagnostics) {
    ASSERT_LE(d.span.begin, d.span.end) << d.message;
    ASSERT_LE(d.span.end, file.size()) << d.message;
    ASSERT_FALSE(d.message.empty());
    ASSERT_FALSE(d.code.empty());
  }
  std::string rendered = render(file, r.diagnostics);
  if (r.ok()) {
    ASSERT_TRUE(r.diagnostics.empty());
    ASSERT_FALSE(dump(r.module).empty());
  } else {
    ASSERT_FALSE(rendered.empty());
  }
}

TEST(Robustness, CorpusParses) {
  for (const char* text : kCorpus) {
    SourceFile file("c.py", text);
    ParseResult r = parse(file);
    EXPECT_EQ(render(file, r.diagnostics), "");
  }
}

TEST(Robustness, EveryTruncationOfValidScripts) {
  for (const char* text : kCorpus) {
    std::string s = text;
    for (size_t n = 0; n <= s.size(); ++n) check_run(s.substr(0, n));
  }
}

TEST(Robustness, RandomBytes) {
  std::mt19937 rng(20240611);
  for (int i = 0; i < 5000; ++i) {
    std::string s(rng() % 200, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    check_run(s);
  }
}

TEST(Robustness, RandomTokenSoup) {
  static const char* const kPieces[] = {
      "(",       ")",      "[",    "]",       "{",       "}",   ":",      ",",   "\n",
      "\n    ",  "\t",     "\\\n", "'",       "\"",      "'''", "x",      "1",   "1.5e3",
      "if ",     "else ",  "def ", "return ", "=",       "==",  "**",     "-",   "*",
      "lambda ", "for ",   " in ", "not ",    "and ",    "@",   "...",    ".",   "yield ",
      "f'x'",    "b'y'",   "#c",   ";",       ":=",      "->",  "class ", "try", "except",
      "async ",  "await ", "0x",   "_",       "\xc3\xa9"};
  std::mt19937 rng(7);
  for (int i = 0; i < 10000; ++i) {
    std::string s;
    int n = static_cast<int>(rng() % 60);
    for (int j = 0; j < n; ++j) s += kPieces[rng() % std::size(kPieces)];
    check_run(s);
  }
}

TEST(Robustness, MutatedScripts) {
  std::mt19937 rng(42);
  static const char kBytes[] = "()[]{}:,.=+-*/\n \t'\"\\#@0aZ_\x00\xff";
  for (int i = 0; i < 5000; ++i) {
    std::string s = kCorpus[i % std::size(kCorpus)];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0:
          s.erase(at, 1 + rng() % 5);
          break;
        case 1:
          s.insert(at, 1, kBytes[rng() % (sizeof kBytes - 1)]);
          break;
        default:
          s[at] = kBytes[rng() % (sizeof kBytes - 1)];
          break;
      }
    }
    check_run(s);
  }
}

TEST(Robustness, PathologicalShapes) {
  check_run(std::string(100000, '('));
  check_run(std::string(100000, ')'));
  check_run(std::string(100000, '['));
  check_run(std::string(50000, '-') + "1");
  check_run(std::string(50000, '\\'));
  check_run(std::string(50000, '\''));
  check_run(std::string(50000, '"'));
  check_run(std::string(50000, '\n'));
  check_run(std::string(50000, ' ') + "x");
  check_run(std::string(1000, '\t') + "x");
  std::string staircase;
  for (int i = 0; i < 2000; ++i) staircase += std::string(static_cast<size_t>(i), ' ') + "if x:\n";
  check_run(staircase);
  std::string deco;
  for (int i = 0; i < 10000; ++i) deco += "@d\n";
  check_run(deco);
  check_run("x = " + std::string(10000, '"') + "\n");
  check_run("def f(" + std::string(10000, '*') + "):\n  pass\n");
}

}  // namespace
}  // namespace oxs::script
