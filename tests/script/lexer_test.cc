#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "script/util.h"

namespace oxs::script {
namespace {

using testing::kinds;
using K = TokenKind;

std::vector<Token> lex(const std::string& text, DiagnosticSink& sink) {
  SourceFile file("t.py", text);
  return tokenize(file, sink);
}

Token single(const std::string& text) {
  DiagnosticSink sink;
  std::vector<Token> tokens = lex(text, sink);
  EXPECT_TRUE(sink.diagnostics().empty()) << text << ": " << sink.diagnostics()[0].message;
  EXPECT_GE(tokens.size(), 2u);
  return tokens[0];
}

std::string first_error(const std::string& text) {
  DiagnosticSink sink;
  lex(text, sink);
  if (sink.diagnostics().empty()) return "";
  const Diagnostic& d = sink.diagnostics()[0];
  return d.code + ": " + d.message;
}

TEST(SourceFile, LineColumnLookup) {
  SourceFile f("a.py", "ab\ncd\r\nef\rgh");
  EXPECT_EQ(f.line_count(), 4u);
  EXPECT_EQ(f.line_col(0), (LineCol{1, 1}));
  EXPECT_EQ(f.line_col(1), (LineCol{1, 2}));
  EXPECT_EQ(f.line_col(3), (LineCol{2, 1}));
  EXPECT_EQ(f.line_col(7), (LineCol{3, 1}));
  EXPECT_EQ(f.line_col(10), (LineCol{4, 1}));
  EXPECT_EQ(f.line_col(1000), (LineCol{4, 3}));
  EXPECT_EQ(f.line_text(2), "cd");
  EXPECT_EQ(f.line_text(3), "ef");
  EXPECT_EQ(f.line_text(9), "");
}

TEST(SourceFile, ColumnsCountCharactersNotBytes) {
  SourceFile f("a.py", "\xc3\xa9t\xc3\xa9 = 1");  // "été = 1"
  EXPECT_EQ(f.line_col(6), (LineCol{1, 5}));
}

TEST(Lexer, SimpleStatement) {
  EXPECT_EQ(kinds("x = op.Add(a, 1)\n"),
            (std::vector<K>{K::kName, K::kEqual, K::kName, K::kDot, K::kName, K::kLParen, K::kName,
                            K::kComma, K::kInt, K::kRParen, K::kNewline}));
}

TEST(Lexer, NewlineAddedAtEndOfFile) {
  EXPECT_EQ(kinds("x"), (std::vector<K>{K::kName, K::kNewline}));
  EXPECT_EQ(kinds(""), (std::vector<K>{}));
  EXPECT_EQ(kinds("\n\n# only a comment\n"), (std::vector<K>{}));
}

TEST(Lexer, IndentAndDedent) {
  EXPECT_EQ(kinds("if a:\n  b\n  if c:\n    d\ne\n"),
            (std::vector<K>{K::kIf, K::kName, K::kColon, K::kNewline, K::kIndent, K::kName,
                            K::kNewline, K::kIf, K::kName, K::kColon, K::kNewline, K::kIndent,
                            K::kName, K::kNewline, K::kDedent, K::kDedent, K::kName, K::kNewline}));
}

TEST(Lexer, DedentsClosedAtEndOfFile) {
  EXPECT_EQ(kinds("def f():\n    return 1"),
            (std::vector<K>{K::kDef, K::kName, K::kLParen, K::kRParen, K::kColon, K::kNewline,
                            K::kIndent, K::kReturn, K::kInt, K::kNewline, K::kDedent}));
}

TEST(Lexer, BlankAndCommentLinesDoNotChangeIndentation) {
  EXPECT_EQ(kinds("if a:\n    b\n\n  # odd comment\n        \n    c\n"),
            (std::vector<K>{K::kIf, K::kName, K::kColon, K::kNewline, K::kIndent, K::kName,
                            K::kNewline, K::kName, K::kNewline, K::kDedent}));
}

TEST(Lexer, TabsCountToMultiplesOfEight) {
  DiagnosticSink sink;
  lex("if a:\n\tb\n        c\n", sink);  // tab == 8 spaces in both orders? no: inconsistent
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].code, "E0105");
  EXPECT_EQ(sink.diagnostics()[0].message, "inconsistent use of tabs and spaces in indentation");
  EXPECT_EQ(first_error("if a:\n\tb\n\tc\n"), "");
}

TEST(Lexer, BadDedent) {
  EXPECT_EQ(first_error("if a:\n    b\n  c\n"),
            "E0106: unindent does not match any outer indentation level");
}

TEST(Lexer, ImplicitJoiningInsideBrackets) {
  EXPECT_EQ(kinds("f(a,\n  b\n)\n"), (std::vector<K>{K::kName, K::kLParen, K::kName, K::kComma,
                                                     K::kName, K::kRParen, K::kNewline}));
  EXPECT_EQ(kinds("x = [1,\n# c\n2]\n").size(), 8u);
}

TEST(Lexer, BackslashContinuation) {
  EXPECT_EQ(kinds("x = 1 + \\\n    2\n"),
            (std::vector<K>{K::kName, K::kEqual, K::kInt, K::kPlus, K::kInt, K::kNewline}));
  EXPECT_EQ(first_error("x = 1 \\ 2\n"),
            "E0110: unexpected character after line continuation character");
  EXPECT_EQ(first_error("x = 1 \\"),
            "E0110: unexpected end of file after line continuation character");
}

TEST(Lexer, AllOperators) {
  EXPECT_EQ(kinds("** // @ -> := += -= *= /= //= %= **= @= &= |= ^= >>= <<= ... < > <= >= == != "
                  "<< >> & | ^ ~ % ; ."),
            (std::vector<K>{K::kDoubleStar,
                            K::kDoubleSlash,
                            K::kAt,
                            K::kArrow,
                            K::kColonEqual,
                            K::kPlusEqual,
                            K::kMinusEqual,
                            K::kStarEqual,
                            K::kSlashEqual,
                            K::kDoubleSlashEqual,
                            K::kPercentEqual,
                            K::kDoubleStarEqual,
                            K::kAtEqual,
                            K::kAmperEqual,
                            K::kVBarEqual,
                            K::kCircumflexEqual,
                            K::kRightShiftEqual,
                            K::kLeftShiftEqual,
                            K::kEllipsis,
                            K::kLess,
                            K::kGreater,
                            K::kLessEqual,
                            K::kGreaterEqual,
                            K::kEqEqual,
                            K::kNotEqual,
                            K::kLeftShift,
                            K::kRightShift,
                            K::kAmper,
                            K::kVBar,
                            K::kCircumflex,
                            K::kTilde,
                            K::kPercent,
                            K::kSemicolon,
                            K::kDot,
                            K::kNewline}));
}

TEST(Lexer, KeywordsAndIdentifiers) {
  EXPECT_EQ(kinds("if not x and y or None is True"),
            (std::vector<K>{K::kIf, K::kNot, K::kName, K::kAnd, K::kName, K::kOr, K::kNone, K::kIs,
                            K::kTrue, K::kNewline}));
  EXPECT_EQ(single("match").kind, K::kName);  // soft keyword
  Token t = single("_x1");
  EXPECT_EQ(t.text, "_x1");
  EXPECT_EQ(single("\xc3\xa9t\xc3\xa9").text, "\xc3\xa9t\xc3\xa9");
}

TEST(Lexer, Integers) {
  EXPECT_EQ(single("0").int_value, 0u);
  EXPECT_EQ(single("00").int_value, 0u);
  EXPECT_EQ(single("1_000_000").int_value, 1000000u);
  EXPECT_EQ(single("0xff").int_value, 255u);
  EXPECT_EQ(single("0XFF").int_value, 255u);
  EXPECT_EQ(single("0x_f_f").int_value, 255u);
  EXPECT_EQ(single("0o17").int_value, 15u);
  EXPECT_EQ(single("0b1010").int_value, 10u);
  EXPECT_EQ(single("18446744073709551615").int_value, 18446744073709551615u);
  EXPECT_FALSE(single("18446744073709551615").int_overflow);
  EXPECT_TRUE(single("18446744073709551616").int_overflow);
}

TEST(Lexer, Floats) {
  EXPECT_DOUBLE_EQ(single("1.5").float_value, 1.5);
  EXPECT_DOUBLE_EQ(single("1.").float_value, 1.0);
  EXPECT_DOUBLE_EQ(single(".5").float_value, 0.5);
  EXPECT_DOUBLE_EQ(single("1e-3").float_value, 1e-3);
  EXPECT_DOUBLE_EQ(single("1E+3").float_value, 1000.0);
  EXPECT_DOUBLE_EQ(single("1_0.2_5e1_0").float_value, 10.25e10);
  EXPECT_EQ(single("1.5").kind, K::kFloat);
  EXPECT_EQ(single("2e5").kind, K::kFloat);
  EXPECT_TRUE(std::isinf(single("1e999").float_value));
  EXPECT_EQ(single("3j").kind, K::kImaginary);
}

TEST(Lexer, NumberFollowedByKeyword) {
  EXPECT_EQ(kinds("1if x else 2"),
            (std::vector<K>{K::kInt, K::kIf, K::kName, K::kElse, K::kInt, K::kNewline}));
}

TEST(Lexer, InvalidNumbers) {
  EXPECT_EQ(first_error("012"),
            "E0103: leading zeros in decimal integer literals are not permitted");
  EXPECT_EQ(first_error("1__0"), "E0103: invalid decimal literal");
  EXPECT_EQ(first_error("1_"), "E0103: invalid decimal literal");
  EXPECT_EQ(first_error("0x"), "E0103: invalid hexadecimal literal");
  EXPECT_EQ(first_error("0b102"), "E0103: invalid binary literal");
  EXPECT_EQ(first_error("0o8"), "E0103: invalid octal literal");
  EXPECT_EQ(first_error("12abc"), "E0103: invalid decimal literal");
}

TEST(Lexer, Strings) {
  EXPECT_EQ(single("'abc'").text, "abc");
  EXPECT_EQ(single("\"a'b\"").text, "a'b");
  EXPECT_EQ(single("'a\\'b'").text, "a'b");
  EXPECT_EQ(single("'\\n\\t\\\\\\x41\\101\\u00e9'").text, "\n\t\\AA\xc3\xa9");
  EXPECT_EQ(single("'\\U0001F600'").text, "\xf0\x9f\x98\x80");
  EXPECT_EQ(single("'\\q'").text, "\\q");  // unknown escapes are kept
  EXPECT_EQ(single("r'\\n\\''").text, "\\n\\'");
  EXPECT_EQ(single("'''a\n'b'\n'''").text, "a\n'b'\n");
  EXPECT_EQ(single("\"\"\"doc\"\"\"").text, "doc");
  EXPECT_EQ(single("'a\\\nb'").text, "ab");
  EXPECT_EQ(single("u'x'").kind, K::kString);
  Token b = single("b'\\xff\\u'");
  EXPECT_EQ(b.kind, K::kBytes);
  EXPECT_EQ(b.text, "\xff\\u");
  EXPECT_EQ(single("Rb'\\d'").text, "\\d");
  Token f = single("f'{x}'");
  EXPECT_EQ(f.kind, K::kFString);
  EXPECT_EQ(f.text, "{x}");
}

TEST(Lexer, StringErrors) {
  EXPECT_EQ(first_error("x = 'abc\ny = 1\n"),
            "E0102: unterminated string literal (detected at line 1)");
  EXPECT_EQ(first_error("x = '''abc\ny = 1\n"),
            "E0102: unterminated triple-quoted string literal (detected at line 3)");
  EXPECT_EQ(first_error("'\\x4'"), "E0112: invalid \\x escape: expected 2 hex digits");
  EXPECT_EQ(first_error("b'\xc3\xa9'"), "E0101: bytes can only contain ASCII literal characters");
  EXPECT_EQ(first_error("xy'a'"), "E0113: invalid string prefix 'xy'");
  EXPECT_EQ(first_error("'\\N{DASH}'"), "E0112: \\N{...} escapes are not supported");
}

TEST(Lexer, InvalidCharacters) {
  EXPECT_EQ(first_error("a $ b"), "E0101: invalid character '$'");
  EXPECT_EQ(first_error("a ! b"), "E0101: invalid character '!'");
  EXPECT_EQ(first_error(std::string("a\0b", 3)), "E0101: source contains a null byte");
  EXPECT_EQ(first_error("a\x01"), "E0101: invalid control character U+0001");
  DiagnosticSink sink;
  lex("a $$$ b", sink);
  EXPECT_EQ(sink.diagnostics().size(), 1u);  // one run, one error
}

TEST(Lexer, Brackets) {
  EXPECT_EQ(first_error("f(a]"), "E0109: closing ']' does not match opening '('");
  EXPECT_EQ(first_error("a)"), "E0107: unmatched ')'");
  EXPECT_EQ(first_error("f(a, [1,\n"), "E0108: '[' was never closed");
  std::string deep(100000, '(');
  DiagnosticSink sink;
  std::vector<Token> tokens = lex(deep, sink);
  EXPECT_EQ(tokens.size(), 100003u);  // brackets, error, newline, end
}

TEST(Lexer, TooManyIndentLevels) {
  std::string text;
  for (int i = 0; i < 120; ++i) text += std::string(static_cast<size_t>(i), ' ') + "if x:\n";
  EXPECT_EQ(first_error(text), "E0111: too many levels of indentation (more than 100)");
}

TEST(Lexer, SpansPointAtTheText) {
  SourceFile file("t.py", "x = 'ab'  # c\n");
  DiagnosticSink sink;
  std::vector<Token> tokens = tokenize(file, sink);
  ASSERT_EQ(tokens.size(), 5u);
  EXPECT_EQ(file.slice(tokens[2].span), "'ab'");
  EXPECT_EQ(tokens[3].kind, K::kNewline);
  EXPECT_EQ(tokens[3].span.begin, 13u);
}

}  // namespace
}  // namespace oxs::script
