#include "oxs/script/front/lexer.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <utility>

#include "oxs/script/front/codes.h"

namespace oxs::script {
namespace {

bool is_ident_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool is_ident_char(unsigned char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

struct Keyword {
  std::string_view text;
  TokenKind kind;
};
constexpr Keyword kKeywords[] = {
    {"False", TokenKind::kFalse},
    {"None", TokenKind::kNone},
    {"True", TokenKind::kTrue},
    {"and", TokenKind::kAnd},
    {"as", TokenKind::kAs},
    {"assert", TokenKind::kAssert},
    {"async", TokenKind::kAsync},
    {"await", TokenKind::kAwait},
    {"break", TokenKind::kBreak},
    {"class", TokenKind::kClass},
    {"continue", TokenKind::kContinue},
    {"def", TokenKind::kDef},
    {"del", TokenKind::kDel},
    {"elif", TokenKind::kElif},
    {"else", TokenKind::kElse},
    {"except", TokenKind::kExcept},
    {"finally", TokenKind::kFinally},
    {"for", TokenKind::kFor},
    {"from", TokenKind::kFrom},
    {"global", TokenKind::kGlobal},
    {"if", TokenKind::kIf},
    {"import", TokenKind::kImport},
    {"in", TokenKind::kIn},
    {"is", TokenKind::kIs},
    {"lambda", TokenKind::kLambda},
    {"nonlocal", TokenKind::kNonlocal},
    {"not", TokenKind::kNot},
    {"or", TokenKind::kOr},
    {"pass", TokenKind::kPass},
    {"raise", TokenKind::kRaise},
    {"return", TokenKind::kReturn},
    {"try", TokenKind::kTry},
    {"while", TokenKind::kWhile},
    {"with", TokenKind::kWith},
    {"yield", TokenKind::kYield},
};

bool keyword_kind(std::string_view s, TokenKind* kind) {
  for (const Keyword& k : kKeywords) {
    if (k.text == s) {
      *kind = k.kind;
      return true;
    }
  }
  return false;
}

struct Operator {
  std::string_view text;
  TokenKind kind;
};
// Longest first, so the first match is the longest.
constexpr Operator kOperators[] = {
    {"**=", TokenKind::kDoubleStarEqual},
    {"//=", TokenKind::kDoubleSlashEqual},
    {">>=", TokenKind::kRightShiftEqual},
    {"<<=", TokenKind::kLeftShiftEqual},
    {"...", TokenKind::kEllipsis},
    {"**", TokenKind::kDoubleStar},
    {"//", TokenKind::kDoubleSlash},
    {"<<", TokenKind::kLeftShift},
    {">>", TokenKind::kRightShift},
    {"<=", TokenKind::kLessEqual},
    {">=", TokenKind::kGreaterEqual},
    {"==", TokenKind::kEqEqual},
    {"!=", TokenKind::kNotEqual},
    {"->", TokenKind::kArrow},
    {":=", TokenKind::kColonEqual},
    {"+=", TokenKind::kPlusEqual},
    {"-=", TokenKind::kMinusEqual},
    {"*=", TokenKind::kStarEqual},
    {"/=", TokenKind::kSlashEqual},
    {"%=", TokenKind::kPercentEqual},
    {"@=", TokenKind::kAtEqual},
    {"&=", TokenKind::kAmperEqual},
    {"|=", TokenKind::kVBarEqual},
    {"^=", TokenKind::kCircumflexEqual},
    {"(", TokenKind::kLParen},
    {")", TokenKind::kRParen},
    {"[", TokenKind::kLBracket},
    {"]", TokenKind::kRBracket},
    {"{", TokenKind::kLBrace},
    {"}", TokenKind::kRBrace},
    {",", TokenKind::kComma},
    {":", TokenKind::kColon},
    {";", TokenKind::kSemicolon},
    {".", TokenKind::kDot},
    {"@", TokenKind::kAt},
    {"+", TokenKind::kPlus},
    {"-", TokenKind::kMinus},
    {"*", TokenKind::kStar},
    {"/", TokenKind::kSlash},
    {"%", TokenKind::kPercent},
    {"&", TokenKind::kAmper},
    {"|", TokenKind::kVBar},
    {"^", TokenKind::kCircumflex},
    {"~", TokenKind::kTilde},
    {"<", TokenKind::kLess},
    {">", TokenKind::kGreater},
    {"=", TokenKind::kEqual},
};

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  Lexer(const SourceFile& file, DiagnosticSink& sink)
      : file_(file), src_(file.text()), sink_(sink) {}

  std::vector<Token> run();

 private:
  char at(size_t i) const { return i < src_.size() ? src_[i] : '\0'; }
  bool eof() const { return pos_ >= src_.size(); }
  Span span_from(size_t begin) const {
    return {static_cast<uint32_t>(begin), static_cast<uint32_t>(pos_)};
  }
  Token& emit(TokenKind kind, size_t begin) {
    Token t;
    t.kind = kind;
    t.span = span_from(begin);
    out_.push_back(std::move(t));
    return out_.back();
  }
  Diagnostic& error(std::string_view code, Span span, std::string message, std::string hint = {}) {
    return sink_.error(std::string(code), span, std::move(message), std::move(hint));
  }
  bool is_newline_at(size_t i) const { return at(i) == '\n' || at(i) == '\r'; }
  size_t newline_length(size_t i) const {
    if (at(i) == '\r' && at(i + 1) == '\n' && i + 1 < src_.size()) return 2;
    return is_newline_at(i) && i < src_.size() ? 1 : 0;
  }

  void indentation();
  void identifier_or_string();
  void number();
  void string(size_t begin, bool raw, bool bytes, bool fstring);
  bool escape(std::string& value, bool bytes);
  void operator_or_invalid();
  void close_bracket(TokenKind kind, char open, size_t begin);
  void finish();

  const SourceFile& file_;
  std::string_view src_;
  DiagnosticSink& sink_;
  size_t pos_ = 0;
  std::vector<Token> out_;
  // Indentation columns (tabs to multiples of 8) and the same with tabs as 1:
  // a line is consistent when both orders agree, as in CPython.
  std::vector<uint32_t> indents_{0};
  std::vector<uint32_t> alt_indents_{0};
  std::vector<std::pair<char, size_t>> brackets_;
  bool at_line_start_ = true;
};

std::vector<Token> Lexer::run() {
  while (true) {
    if (at_line_start_ && brackets_.empty()) indentation();
    while (!eof() && (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\f')) ++pos_;
    if (eof()) break;
    char c = src_[pos_];
    if (c == '#') {
      while (!eof() && !is_newline_at(pos_)) ++pos_;
      continue;
    }
    if (c == '\n' || c == '\r') {
      size_t begin = pos_;
      pos_ += newline_length(pos_);
      if (brackets_.empty()) {
        if (!out_.empty() && out_.back().kind != TokenKind::kNewline) {
          emit(TokenKind::kNewline, begin);
        }
        at_line_start_ = true;
      }
      continue;
    }
    if (c == '\\') {
      size_t begin = pos_;
      ++pos_;
      if (size_t len = newline_length(pos_)) {
        pos_ += len;
        if (eof()) {
          error(code::kBadContinuation, span_from(begin),
                "unexpected end of file after line continuation character");
        }
      } else if (eof()) {
        error(code::kBadContinuation, span_from(begin),
              "unexpected end of file after line continuation character");
      } else {
        error(code::kBadContinuation, span_from(begin),
              "unexpected character after line continuation character",
              "'\\' continues a line only when it is the last character on it");
        emit(TokenKind::kError, begin);
      }
      continue;
    }
    if (is_ident_start(static_cast<unsigned char>(c))) {
      identifier_or_string();
    } else if (is_digit(c) || (c == '.' && is_digit(at(pos_ + 1)))) {
      number();
    } else if (c == '\'' || c == '"') {
      string(pos_, false, false, false);
    } else {
      operator_or_invalid();
    }
  }
  finish();
  return std::move(out_);
}

void Lexer::indentation() {
  at_line_start_ = false;
  size_t begin = pos_;
  uint32_t col = 0, alt = 0;
  for (; !eof(); ++pos_) {
    char c = src_[pos_];
    if (c == ' ') {
      ++col;
      ++alt;
    } else if (c == '\t') {
      col = (col / 8 + 1) * 8;
      ++alt;
    } else if (c == '\f') {
      col = alt = 0;
    } else {
      break;
    }
  }
  // Blank and comment-only lines do not count for indentation.
  if (eof() || src_[pos_] == '#' || is_newline_at(pos_)) return;
  // A continuation line's leading backslash would be odd but is not a new level.
  Span span = span_from(begin);
  if (col == indents_.back()) {
    if (alt != alt_indents_.back()) {
      error(code::kInconsistentTabs, span, "inconsistent use of tabs and spaces in indentation",
            "indent with spaces only");
    }
  } else if (col > indents_.back()) {
    if (alt <= alt_indents_.back()) {
      error(code::kInconsistentTabs, span, "inconsistent use of tabs and spaces in indentation",
            "indent with spaces only");
    }
    if (indents_.size() > kMaxIndentLevels) {
      error(code::kTooManyIndentLevels, span,
            "too many levels of indentation (more than " + std::to_string(kMaxIndentLevels) + ")");
      return;
    }
    indents_.push_back(col);
    alt_indents_.push_back(alt);
    emit(TokenKind::kIndent, begin);
  } else {
    while (indents_.size() > 1 && col < indents_.back()) {
      indents_.pop_back();
      alt_indents_.pop_back();
      Token t;
      t.kind = TokenKind::kDedent;
      t.span = {static_cast<uint32_t>(pos_), static_cast<uint32_t>(pos_)};
      out_.push_back(std::move(t));
    }
    if (col != indents_.back()) {
      error(code::kBadDedent, span, "unindent does not match any outer indentation level",
            "indent this line exactly like an enclosing block");
    } else if (alt != alt_indents_.back()) {
      error(code::kInconsistentTabs, span, "inconsistent use of tabs and spaces in indentation",
            "indent with spaces only");
    }
  }
}

void Lexer::identifier_or_string() {
  size_t begin = pos_;
  while (!eof() && is_ident_char(static_cast<unsigned char>(src_[pos_]))) ++pos_;
  std::string_view word = src_.substr(begin, pos_ - begin);
  if (!eof() && (src_[pos_] == '\'' || src_[pos_] == '"') && word.size() <= 2) {
    bool raw = false, bytes = false, fstring = false, unicode = false, valid = true;
    for (char c : word) {
      switch (c) {
        case 'r':
        case 'R':
          valid &= !raw;
          raw = true;
          break;
        case 'b':
        case 'B':
          valid &= !bytes;
          bytes = true;
          break;
        case 'f':
        case 'F':
          valid &= !fstring;
          fstring = true;
          break;
        case 'u':
        case 'U':
          valid &= !unicode;
          unicode = true;
          break;
        default:
          valid = false;
      }
    }
    valid &= !(bytes && fstring) && !(unicode && (raw || bytes || fstring));
    if (valid) {
      string(begin, raw, bytes, fstring);
      return;
    }
    error(code::kInvalidStringPrefix, span_from(begin),
          "invalid string prefix '" + std::string(word) + "'",
          "valid prefixes are r, b, rb, u (and f, which ONNX Script does not support)");
    emit(TokenKind::kError, begin);
    return;
  }
  TokenKind kind = TokenKind::kName;
  keyword_kind(word, &kind);
  Token& t = emit(kind, begin);
  if (kind == TokenKind::kName) t.text = std::string(word);
}

void Lexer::number() {
  size_t begin = pos_;
  auto fail = [&](std::string message, std::string hint = {}) {
    while (!eof() && (is_ident_char(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '.'))
      ++pos_;
    error(code::kInvalidNumber, span_from(begin), std::move(message), std::move(hint));
    emit(TokenKind::kError, begin);
  };
  // Digits with single underscores between them; returns false on a bad '_'.
  auto digits = [&](int radix, uint64_t* value, bool* overflow, size_t* count) {
    *count = 0;
    while (!eof()) {
      if (src_[pos_] == '_') {
        if (*count == 0 || digit_value(at(pos_ + 1)) >= radix) return false;
        ++pos_;
        continue;
      }
      int d = digit_value(src_[pos_]);
      if (d >= radix) break;
      if (*value > (std::numeric_limits<uint64_t>::max() - d) / radix) *overflow = true;
      *value = *value * radix + d;
      ++*count;
      ++pos_;
    }
    return true;
  };

  uint64_t value = 0;
  bool overflow = false;
  size_t count = 0;
  char p = at(pos_ + 1);
  if (src_[pos_] == '0' && (p == 'x' || p == 'X' || p == 'o' || p == 'O' || p == 'b' || p == 'B')) {
    int radix = (p == 'x' || p == 'X') ? 16 : (p == 'o' || p == 'O') ? 8 : 2;
    const char* name = radix == 16 ? "hexadecimal" : radix == 8 ? "octal" : "binary";
    pos_ += 2;
    if (at(pos_) == '_') ++pos_;  // 0x_ff is valid Python
    if (!digits(radix, &value, &overflow, &count) || count == 0 ||
        is_ident_char(static_cast<unsigned char>(at(pos_)))) {
      fail(std::string("invalid ") + name + " literal");
      return;
    }
    Token& t = emit(TokenKind::kInt, begin);
    t.text = std::string(src_.substr(begin, pos_ - begin));
    t.int_value = value;
    t.int_overflow = overflow;
    return;
  }

  bool is_float = false;
  if (!digits(10, &value, &overflow, &count)) {
    fail("invalid decimal literal", "'_' may only separate two digits");
    return;
  }
  size_t int_digits_end = pos_;
  if (at(pos_) == '.' && !(at(pos_ + 1) == '.' && at(pos_ + 2) == '.')) {
    is_float = true;
    ++pos_;
    uint64_t ignored = 0;
    bool ignored_overflow = false;
    size_t frac = 0;
    if (at(pos_) != '_' && !digits(10, &ignored, &ignored_overflow, &frac)) {
      fail("invalid decimal literal", "'_' may only separate two digits");
      return;
    }
  }
  if ((at(pos_) == 'e' || at(pos_) == 'E') &&
      (is_digit(at(pos_ + 1)) ||
       ((at(pos_ + 1) == '+' || at(pos_ + 1) == '-') && is_digit(at(pos_ + 2))))) {
    is_float = true;
    pos_ += (at(pos_ + 1) == '+' || at(pos_ + 1) == '-') ? 2 : 1;
    uint64_t ignored = 0;
    bool ignored_overflow = false;
    size_t exp = 0;
    if (!digits(10, &ignored, &ignored_overflow, &exp)) {
      fail("invalid decimal literal", "'_' may only separate two digits");
      return;
    }
  }
  bool imaginary = false;
  if (at(pos_) == 'j' || at(pos_) == 'J') {
    imaginary = true;
    ++pos_;
  }
  if (is_ident_char(static_cast<unsigned char>(at(pos_)))) {
    // "1if x else 2" is valid Python: a keyword may follow a number directly.
    size_t end = pos_;
    while (end < src_.size() && is_ident_char(static_cast<unsigned char>(src_[end]))) ++end;
    TokenKind kind;
    if (!keyword_kind(src_.substr(pos_, end - pos_), &kind)) {
      fail("invalid decimal literal", "a name cannot start with a digit");
      return;
    }
  }
  std::string text(src_.substr(begin, pos_ - begin));
  std::string clean;
  for (char c : text) {
    if (c != '_' && c != 'j' && c != 'J') clean += c;
  }
  if (imaginary || is_float) {
    Token& t = emit(imaginary ? TokenKind::kImaginary : TokenKind::kFloat, begin);
    t.text = std::move(text);
    t.float_value = std::strtod(clean.c_str(), nullptr);
    return;
  }
  // "00" is fine, "012" is not: Python 3 has no implicit octal.
  if (src_[begin] == '0' && value != 0) {
    error(code::kInvalidNumber, span_from(begin),
          "leading zeros in decimal integer literals are not permitted",
          "use an 0o prefix for an octal integer, e.g. 0o" +
              std::string(src_.substr(begin + 1, int_digits_end - begin - 1)));
    emit(TokenKind::kError, begin);
    return;
  }
  Token& t = emit(TokenKind::kInt, begin);
  t.text = std::move(text);
  t.int_value = value;
  t.int_overflow = overflow;
}

// Decodes the escape at pos_ (which is just past the backslash).
// Returns false if it was invalid (already reported).
bool Lexer::escape(std::string& value, bool bytes) {
  size_t begin = pos_ - 1;
  if (eof()) return true;
  char c = src_[pos_];
  if (size_t len = newline_length(pos_)) {
    pos_ += len;  // backslash-newline joins the lines inside the literal
    return true;
  }
  ++pos_;
  switch (c) {
    case '\\':
      value += '\\';
      return true;
    case '\'':
      value += '\'';
      return true;
    case '"':
      value += '"';
      return true;
    case 'a':
      value += '\a';
      return true;
    case 'b':
      value += '\b';
      return true;
    case 'f':
      value += '\f';
      return true;
    case 'n':
      value += '\n';
      return true;
    case 'r':
      value += '\r';
      return true;
    case 't':
      value += '\t';
      return true;
    case 'v':
      value += '\v';
      return true;
    default:
      break;
  }
  if (c >= '0' && c <= '7') {
    uint32_t v = static_cast<uint32_t>(c - '0');
    for (int i = 0; i < 2 && at(pos_) >= '0' && at(pos_) <= '7' && !eof(); ++i) {
      v = v * 8 + static_cast<uint32_t>(src_[pos_++] - '0');
    }
    if (bytes) {
      value += static_cast<char>(v & 0xFF);
    } else {
      append_utf8(value, v);
    }
    return true;
  }
  int width = c == 'x' ? 2 : (!bytes && c == 'u') ? 4 : (!bytes && c == 'U') ? 8 : 0;
  if (width > 0) {
    uint32_t v = 0;
    for (int i = 0; i < width; ++i) {
      int d = eof() ? 99 : digit_value(src_[pos_]);
      if (d >= 16) {
        error(code::kInvalidEscape, span_from(begin),
              std::string("invalid \\") + c + " escape: expected " + std::to_string(width) +
                  " hex digits");
        return false;
      }
      v = v * 16 + static_cast<uint32_t>(d);
      ++pos_;
    }
    if (bytes) {
      value += static_cast<char>(v);
    } else if (v > 0x10FFFF) {
      error(code::kInvalidEscape, span_from(begin), "invalid \\U escape: beyond U+10FFFF");
      return false;
    } else {
      append_utf8(value, v);
    }
    return true;
  }
  if (!bytes && c == 'N') {
    error(code::kInvalidEscape, span_from(begin), "\\N{...} escapes are not supported",
          "write the character itself or a \\u escape");
    return false;
  }
  // Unknown escapes keep their backslash, as in Python.
  value += '\\';
  pos_ = begin + 1;
  return true;
}

void Lexer::string(size_t begin, bool raw, bool bytes, bool fstring) {
  char quote = src_[pos_];
  bool triple = at(pos_ + 1) == quote && at(pos_ + 2) == quote && pos_ + 2 < src_.size();
  pos_ += triple ? 3 : 1;
  std::string value;
  bool ok = true;
  while (true) {
    if (eof() || (!triple && is_newline_at(pos_))) {
      LineCol at_end = file_.line_col(static_cast<uint32_t>(pos_));
      Span open{static_cast<uint32_t>(begin), static_cast<uint32_t>(begin)};
      open.end = static_cast<uint32_t>(pos_);
      error(code::kUnterminatedString, open,
            std::string(triple ? "unterminated triple-quoted string literal"
                               : "unterminated string literal") +
                " (detected at line " + std::to_string(at_end.line) + ")",
            std::string("close the string with ") +
                (triple ? std::string(3, quote) : std::string(1, quote)));
      emit(TokenKind::kError, begin);
      return;
    }
    char c = src_[pos_];
    if (c == quote) {
      if (!triple) {
        ++pos_;
        break;
      }
      if (at(pos_ + 1) == quote && at(pos_ + 2) == quote && pos_ + 2 < src_.size()) {
        pos_ += 3;
        break;
      }
      value += c;
      ++pos_;
      continue;
    }
    if (c == '\\') {
      ++pos_;
      if (raw || fstring) {
        // The backslash stays, but still protects the next character (a quote).
        value += '\\';
        if (!eof()) value += src_[pos_++];
      } else {
        ok &= escape(value, bytes);
      }
      continue;
    }
    if (bytes && static_cast<unsigned char>(c) >= 0x80) {
      size_t b = pos_;
      ++pos_;
      error(code::kInvalidCharacter, span_from(b),
            "bytes can only contain ASCII literal characters", "use a \\x escape instead");
      ok = false;
      continue;
    }
    value += c;
    ++pos_;
  }
  if (!ok) {
    emit(TokenKind::kError, begin);
    return;
  }
  Token& t = emit(fstring ? TokenKind::kFString
                  : bytes ? TokenKind::kBytes
                          : TokenKind::kString,
                  begin);
  t.text = std::move(value);
}

void Lexer::close_bracket(TokenKind kind, char open, size_t begin) {
  ++pos_;
  char close = src_[begin];
  if (brackets_.empty()) {
    error(code::kUnmatchedBracket, span_from(begin), std::string("unmatched '") + close + "'");
    emit(TokenKind::kError, begin);
    return;
  }
  auto [top, top_offset] = brackets_.back();
  brackets_.pop_back();
  if (top != open) {
    Diagnostic& d =
        error(code::kMismatchedBracket, span_from(begin),
              std::string("closing '") + close + "' does not match opening '" + top + "'");
    // Appended piecewise: g++ 12 -O3 warns falsely (-Wrestrict) on "'" + std::string.
    std::string note(1, '\'');
    note += top;
    note += "' was opened on line ";
    note += std::to_string(file_.line_col(static_cast<uint32_t>(top_offset)).line);
    d.notes.push_back(std::move(note));
    emit(TokenKind::kError, begin);
    return;
  }
  emit(kind, begin);
}

void Lexer::operator_or_invalid() {
  size_t begin = pos_;
  char c = src_[pos_];
  switch (c) {
    case '(':
    case '[':
    case '{':
      brackets_.emplace_back(c, pos_);
      break;
    case ')':
      close_bracket(TokenKind::kRParen, '(', begin);
      return;
    case ']':
      close_bracket(TokenKind::kRBracket, '[', begin);
      return;
    case '}':
      close_bracket(TokenKind::kRBrace, '{', begin);
      return;
    default:
      break;
  }
  std::string_view rest = src_.substr(pos_);
  for (const Operator& op : kOperators) {
    if (rest.substr(0, op.text.size()) == op.text) {
      pos_ += op.text.size();
      emit(op.kind, begin);
      return;
    }
  }
  // Anything else is invalid; report a run of such bytes once.
  auto invalid = [&](size_t i) {
    if (i >= src_.size()) return false;
    unsigned char b = static_cast<unsigned char>(src_[i]);
    return !(is_ident_char(b) || b == ' ' || b == '\t' || b == '\f' || b == '\n' || b == '\r' ||
             b == '#' || b == '\'' || b == '"' || b == '\\' ||
             std::string_view("()[]{},:;.@+-*/%&|^~<>=").find(static_cast<char>(b)) !=
                 std::string_view::npos);
  };
  while (invalid(pos_) && !(src_[pos_] == '!' && at(pos_ + 1) == '=')) ++pos_;
  if (pos_ == begin) ++pos_;
  std::string message, hint;
  unsigned char b = static_cast<unsigned char>(c);
  if (b == 0) {
    message = "source contains a null byte";
  } else if (b < 0x20 || b == 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%02X", b);
    message = std::string("invalid control character U+00") + buf;
  } else {
    message = std::string("invalid character '") + c + "'";
    if (c == '!') hint = "write 'not x' for negation or '!=' for inequality";
    if (c == '$' || c == '?' || c == '`') hint = "this character has no meaning in Python";
  }
  error(code::kInvalidCharacter, span_from(begin), message, hint);
  emit(TokenKind::kError, begin);
}

void Lexer::finish() {
  if (!brackets_.empty()) {
    auto [open, offset] = brackets_.back();
    Span span{static_cast<uint32_t>(offset), static_cast<uint32_t>(offset + 1)};
    error(code::kUnclosedBracket, span, std::string("'") + open + "' was never closed");
    Token t;
    t.kind = TokenKind::kError;
    t.span = {static_cast<uint32_t>(pos_), static_cast<uint32_t>(pos_)};
    out_.push_back(std::move(t));
  }
  Span end{static_cast<uint32_t>(pos_), static_cast<uint32_t>(pos_)};
  if (!out_.empty() && out_.back().kind != TokenKind::kNewline) {
    Token t;
    t.kind = TokenKind::kNewline;
    t.span = end;
    out_.push_back(std::move(t));
  }
  for (size_t i = 1; i < indents_.size(); ++i) {
    Token t;
    t.kind = TokenKind::kDedent;
    t.span = end;
    out_.push_back(std::move(t));
  }
  Token t;
  t.kind = TokenKind::kEndOfFile;
  t.span = end;
  out_.push_back(std::move(t));
}

}  // namespace

std::vector<Token> tokenize(const SourceFile& file, DiagnosticSink& sink) {
  return Lexer(file, sink).run();
}

}  // namespace oxs::script
