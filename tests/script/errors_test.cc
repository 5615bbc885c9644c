// Syntax errors: exact rendered diagnostics, recovery, limits.
#include <gtest/gtest.h>

#include "script/util.h"
#include "test_names.h"

namespace oxs::script {
namespace {

using testing::errors_of;

TEST(Render, FormatWithHintAndNotes) {
  SourceFile file("model.py", "x = 1\ny = foo(a, b)\n");
  Diagnostic d;
  d.code = "E0999";
  d.message = "something is wrong";
  d.span = {10, 19};  // foo(a, b)... from 'foo'
  d.hint = "do it differently";
  d.notes = {"first note"};
  EXPECT_EQ(render(file, d),
            "model.py:2:5: error[E0999]: something is wrong\n"
            "y = foo(a, b)\n"
            "    ^~~~~~~~~\n"
            "  hint: do it differently\n"
            "  note: first note\n");
}

TEST(Render, CaretLineKeepsTabsAndCountsCharacters) {
  SourceFile file("t.py", "\tx = \xc3\xa9\xc3\xa9 + $\n");
  Diagnostic d;
  d.code = "E0101";
  d.message = "m";
  d.span = {12, 13};
  EXPECT_EQ(render(file, d),
            "t.py:1:11: error[E0101]: m\n"
            "\tx = \xc3\xa9\xc3\xa9 + $\n"
            "\t         ^\n");
}

TEST(Render, SpanRunningPastTheLineIsCutAtItsEnd) {
  SourceFile file("t.py", "ab\ncd\n");
  Diagnostic d;
  d.message = "m";
  d.span = {1, 5};
  d.severity = Severity::kWarning;
  EXPECT_EQ(render(file, d), "t.py:1:2: warning: m\nab\n ^\n");
}

TEST(Render, ControlBytesAreBlanked) {
  SourceFile file("t.py", std::string("a\0b\n", 4));
  Diagnostic d;
  d.code = "E0101";
  d.message = "m";
  d.span = {1, 2};
  EXPECT_EQ(render(file, d), "t.py:1:2: error[E0101]: m\na b\n ^\n");
}

TEST(Sink, CapsErrors) {
  DiagnosticSink sink(3);
  for (int i = 0; i < 10; ++i) sink.error("E0201", {0, 0}, std::to_string(i));
  ASSERT_EQ(sink.diagnostics().size(), 4u);
  EXPECT_TRUE(sink.full());
  EXPECT_EQ(sink.diagnostics()[3].code, "E0001");
  EXPECT_EQ(sink.diagnostics()[3].message, "too many errors (3), stopping here");
}

struct ErrorCase {
  const char* source;
  const char* rendered;
};

const ErrorCase kErrors[] = {
    {"if x > 0\n    y = 1\n",
     "t.py:1:9: error[E0202]: missing ':' after 'if' condition\n"
     "if x > 0\n"
     "        ^\n"
     "  hint: add ':' at the end of the line\n"},
    {"def f(x)\n    pass\n",
     "t.py:1:9: error[E0202]: missing ':' after function signature\n"
     "def f(x)\n"
     "        ^\n"
     "  hint: add ':' at the end of the line\n"},
    {"for i in range(3)\n    pass\n",
     "t.py:1:18: error[E0202]: missing ':' after 'for' header\n"
     "for i in range(3)\n"
     "                 ^\n"
     "  hint: add ':' at the end of the line\n"},
    {"if x = 1:\n    pass\n",
     "t.py:1:6: error[E0212]: cannot assign with '=' in 'if' condition\n"
     "if x = 1:\n"
     "     ^\n"
     "  hint: use '==' to compare, or ':=' to assign inside an expression\n"},
    {"print \"hello\"\n",
     "t.py:1:1: error[E0206]: missing parentheses in call to 'print'\n"
     "print \"hello\"\n"
     "^~~~~~~~~~~~~\n"
     "  hint: 'print x' is Python 2: write print(\"hello\")\n"},
    {"def f():\nreturn 1\n",
     "t.py:2:1: error[E0203]: expected an indented block after function definition on line 1\n"
     "return 1\n"
     "^~~~~~\n"
     "  hint: indent the body, or write 'pass' for an empty one\n"},
    {"x = 1\n    y = 2\n",
     "t.py:2:5: error[E0204]: unexpected indent\n"
     "    y = 2\n"
     "    ^\n"
     "  hint: indent a line only to start a block after a ':'\n"},
    {"else:\n    pass\n",
     "t.py:1:1: error[E0201]: unexpected 'else'\n"
     "else:\n"
     "^~~~\n"
     "  hint: it must follow its block ('if', 'for', 'while' or 'try') at the same "
     "indentation\n"},
    {"f(a b)\n",
     "t.py:1:3: error[E0211]: invalid syntax. Perhaps you forgot a comma?\n"
     "f(a b)\n"
     "  ^~~\n"},
    {"def g(a b):\n    pass\n",
     "t.py:1:7: error[E0211]: invalid syntax. Perhaps you forgot a comma?\n"
     "def g(a b):\n"
     "      ^~~\n"},
    {"f(x.y=1)\n",
     "t.py:1:3: error[E0212]: expression cannot contain assignment, perhaps you meant \"==\"?\n"
     "f(x.y=1)\n"
     "  ^~~~\n"
     "  hint: a keyword argument is a plain name: f(name=value)\n"},
    {"f(a=1, a=2)\n",
     "t.py:1:8: error[E0210]: keyword argument repeated: 'a'\n"
     "f(a=1, a=2)\n"
     "       ^\n"},
    {"f(a=1, b)\n",
     "t.py:1:8: error[E0210]: positional argument follows keyword argument\n"
     "f(a=1, b)\n"
     "       ^\n"
     "  hint: put positional arguments before keyword arguments\n"},
    {"f() = 3\n",
     "t.py:1:1: error[E0205]: cannot assign to function call\n"
     "f() = 3\n"
     "^~~\n"
     "  hint: to compare values, use '==' instead of '='\n"},
    {"x + 1 = 2\n",
     "t.py:1:1: error[E0205]: cannot assign to expression\n"
     "x + 1 = 2\n"
     "^~~~~\n"},
    {"(a, b) += 1\n",
     "t.py:1:1: error[E0205]: 'tuple' is an illegal target for augmented assignment\n"
     "(a, b) += 1\n"
     "^~~~~~\n"
     "  hint: augmented assignment takes a single name, attribute or subscript\n"},
    {"x = 'abc\n",
     "t.py:1:5: error[E0102]: unterminated string literal (detected at line 1)\n"
     "x = 'abc\n"
     "    ^~~~\n"
     "  hint: close the string with '\n"},
    {"x = (1, 2\n",
     "t.py:1:5: error[E0108]: '(' was never closed\n"
     "x = (1, 2\n"
     "    ^\n"},
    {"x = 1 +\n",
     "t.py:1:8: error[E0201]: expected an expression, found end of line\n"
     "x = 1 +\n"
     "       ^\n"},
    {"def f(a=1, b):\n  pass\n",
     "t.py:1:12: error[E0209]: parameter without a default follows parameter with a default\n"
     "def f(a=1, b):\n"
     "           ^\n"
     "  hint: give 'b' a default value, or move it before the parameters with defaults\n"},
    {"def f(*, **k):\n  pass\n",
     "t.py:1:7: error[E0209]: named parameters must follow bare '*'\n"
     "def f(*, **k):\n"
     "      ^\n"},
    {"x = f\"a{b}\"\n",
     "t.py:1:5: error[E0207]: f-strings are not supported in ONNX Script\n"
     "x = f\"a{b}\"\n"
     "    ^~~~~~~\n"
     "  hint: use a plain string literal\n"},
    {"x = 3j\n",
     "t.py:1:5: error[E0207]: complex literals are not supported\n"
     "x = 3j\n"
     "    ^~\n"
     "  hint: ONNX Script has no complex constants\n"},
    {"x = 99999999999999999999999\n",
     "t.py:1:5: error[E0104]: integer literal 99999999999999999999999 does not fit in int64\n"
     "x = 99999999999999999999999\n"
     "    ^~~~~~~~~~~~~~~~~~~~~~~\n"
     "  hint: ONNX integers are at most 9223372036854775807\n"},
    {"x = a if b\n",
     "t.py:1:11: error[E0201]: expected 'else' after 'if' expression, found end of line\n"
     "x = a if b\n"
     "          ^\n"
     "  hint: a conditional expression looks like: a if condition else b\n"},
    {"try:\n    pass\nx = 1\n",
     "t.py:1:1: error[E0201]: 'try' without 'except' or 'finally'\n"
     "try:\n"
     "^~~\n"
     "  hint: add an 'except ...:' or 'finally:' block\n"},
    {"x = 1 + \t\t(2 $ 3)\n",
     "t.py:1:14: error[E0101]: invalid character '$'\n"
     "x = 1 + \t\t(2 $ 3)\n"
     "        \t\t   ^\n"
     "  hint: this character has no meaning in Python\n"},
    {"if x:\n\ty = 1\n        z = 2\n",
     "t.py:3:1: error[E0105]: inconsistent use of tabs and spaces in indentation\n"
     "        z = 2\n"
     "^~~~~~~~\n"
     "  hint: indent with spaces only\n"},
    {"f(a, [1, 2)\n",
     "t.py:1:11: error[E0109]: closing ')' does not match opening '['\n"
     "f(a, [1, 2)\n"
     "          ^\n"
     "  note: '[' was opened on line 1\n"
     "t.py:1:2: error[E0108]: '(' was never closed\n"
     "f(a, [1, 2)\n"
     " ^\n"},
};

class Errors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(Errors, RenderExactly) {
  EXPECT_EQ(errors_of(GetParam().source), GetParam().rendered);
}

// Shown by gtest for a failing case instead of the struct's bytes.
void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << "source:\n" << c.source;
}

INSTANTIATE_TEST_SUITE_P(Syntax, Errors, ::testing::ValuesIn(kErrors), [](const auto& info) {
  return oxs::testing::readable_test_name(info.param.source);
});

TEST(Recovery, ThreeIndependentErrorsAreAllReported) {
  const char* source =
      "def f(x):\n"
      "    if x > 0\n"
      "        y = 1\n"
      "    z = (1 +)\n"
      "    print z\n"
      "    return y\n";
  EXPECT_EQ(errors_of(source),
            "t.py:2:13: error[E0202]: missing ':' after 'if' condition\n"
            "    if x > 0\n"
            "            ^\n"
            "  hint: add ':' at the end of the line\n"
            "t.py:4:13: error[E0201]: expected an expression, found ')'\n"
            "    z = (1 +)\n"
            "            ^\n"
            "t.py:5:5: error[E0206]: missing parentheses in call to 'print'\n"
            "    print z\n"
            "    ^~~~~~~\n"
            "  hint: 'print x' is Python 2: write print(z)\n");
}

TEST(Recovery, GoodStatementsAroundErrorsAreKept) {
  SourceFile file("t.py",
                  "a = 1\n"
                  "b = = 2\n"
                  "def f(x):\n"
                  "    return x +\n"
                  "c = 3\n");
  ParseResult r = parse(file);
  EXPECT_EQ(r.diagnostics.size(), 2u);
  EXPECT_EQ(dump(r.module), "(module\n  (= a 1)\n  (def f (params x))\n  (= c 3))\n");
}

TEST(Recovery, ErrorsInsideTheBlockOfABrokenHeaderAreFound) {
  std::string out = errors_of(
      "if x = 1:\n"
      "    y = (1 +\n"
      "    )\n"
      "else:\n"
      "    z = 1 2\n"
      "w = 1\n");
  EXPECT_NE(out.find("t.py:1:6: error[E0212]"), std::string::npos) << out;
  EXPECT_NE(out.find("t.py:3:5: error[E0201]: expected an expression, found ')'"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("else"), std::string::npos) << out;  // no cascade on 'else'
}

TEST(Recovery, ErrorCapStopsTheRun) {
  std::string text;
  for (int i = 0; i < 500; ++i) text += "x = = 1\n";
  SourceFile file("t.py", text);
  ParseResult r = parse(file);
  ASSERT_EQ(r.diagnostics.size(), DiagnosticSink::kDefaultMaxErrors + 1);
  EXPECT_EQ(r.diagnostics.back().code, "E0001");
}

TEST(Limits, DeepNestingIsAnErrorNotACrash) {
  std::string text = "x = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n";
  std::string out = errors_of(text);
  EXPECT_NE(out.find("error[E0002]: expression is too deeply nested (more than 200 levels)"),
            std::string::npos)
      << out.substr(0, 300);
  for (const char* unit : {"-", "not ", "[", "a.", "f(", "lambda: ", "x if y else "}) {
    std::string deep = "y = ";
    for (int i = 0; i < 3000; ++i) deep += unit;
    deep += "1\n";
    EXPECT_NE(errors_of(deep).find("E0002"), std::string::npos) << unit;
  }
}

TEST(Limits, LongOperatorChainIsAnErrorNotADeepTree) {
  std::string text = "x = 1";
  for (int i = 0; i < 100000; ++i) text += " + 1";
  EXPECT_NE(errors_of(text + "\n").find("E0002"), std::string::npos);
  std::string ok = "x = 1";
  for (int i = 0; i < 150; ++i) ok += " + 1";
  EXPECT_EQ(errors_of(ok + "\n"), "");
}

TEST(Limits, LongElifChainsAreCappedNotDeep) {
  std::string ok = "if x:\n  pass\n";
  for (int i = 0; i < 900; ++i) ok += "elif x:\n  pass\n";
  ok += "else:\n  pass\ny = 1\n";
  SourceFile file("t.py", ok);
  ParseResult r = parse(file);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.module.body.size(), 2u);
  EXPECT_FALSE(dump(r.module).empty());

  std::string bad = "if x:\n  pass\n";
  for (int i = 0; i < 200000; ++i) bad += "elif x:\n  pass\n";
  bad += "y = 1\n";
  SourceFile bad_file("t.py", bad);
  ParseResult b = parse(bad_file);
  ASSERT_EQ(b.diagnostics.size(), 1u);
  EXPECT_EQ(b.diagnostics[0].message, "too many 'elif' branches (more than 1000)");
  ASSERT_EQ(b.module.body.size(), 1u);  // y = 1 survives
}

TEST(Limits, NestingJustUnderTheLimitParses) {
  std::string text = "x = " + std::string(50, '(') + "1" + std::string(50, ')') + "\n";
  EXPECT_EQ(errors_of(text), "");
}

TEST(Limits, LargeFlatInputsParse) {
  std::string text = "x = [";
  for (int i = 0; i < 100000; ++i) text += "1, ";
  text += "]\n";
  for (int i = 0; i < 20000; ++i) text += "y = op.Add(x, x)\n";
  SourceFile file("t.py", text);
  ParseResult r = parse(file);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.module.body.size(), 20001u);
}

}  // namespace
}  // namespace oxs::script
