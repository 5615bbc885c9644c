// Tokens of the Python subset that ONNX Script is written in.
//
// The lexer turns a SourceFile into a flat vector of Tokens that ends with
// kEndOfFile; indentation is made explicit by kIndent / kDedent, and logical
// line ends by kNewline. Literal values are decoded here (escapes resolved,
// numbers converted) so that the parser never looks at raw text again. No
// knowledge of ONNX belongs here.
#pragma once

#include <cstdint>
#include <string>

#include "oxs/script/front/source.h"

namespace oxs::script {

enum class TokenKind : uint8_t {
  kEndOfFile,
  kNewline,
  kIndent,
  kDedent,
  kName,
  kInt,
  kFloat,
  kImaginary,  // 1j: lexed so the parser can reject it with a clear message
  kString,     // str literal, value decoded
  kBytes,      // bytes literal, value decoded
  kFString,    // f-string: raw body in value; the parser rejects it
  kError,      // a lexical error, already reported; the parser stays silent about it

  // Keywords.
  kFalse,
  kNone,
  kTrue,
  kAnd,
  kAs,
  kAssert,
  kAsync,
  kAwait,
  kBreak,
  kClass,
  kContinue,
  kDef,
  kDel,
  kElif,
  kElse,
  kExcept,
  kFinally,
  kFor,
  kFrom,
  kGlobal,
  kIf,
  kImport,
  kIn,
  kIs,
  kLambda,
  kNonlocal,
  kNot,
  kOr,
  kPass,
  kRaise,
  kReturn,
  kTry,
  kWhile,
  kWith,
  kYield,

  // Brackets.
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,

  // Operators and delimiters.
  kComma,
  kColon,
  kSemicolon,
  kDot,
  kEllipsis,
  kArrow,
  kColonEqual,
  kAt,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kDoubleSlash,
  kPercent,
  kDoubleStar,
  kLeftShift,
  kRightShift,
  kAmper,
  kVBar,
  kCircumflex,
  kTilde,
  kLess,
  kGreater,
  kLessEqual,
  kGreaterEqual,
  kEqEqual,
  kNotEqual,
  kEqual,
  kPlusEqual,
  kMinusEqual,
  kStarEqual,
  kSlashEqual,
  kDoubleSlashEqual,
  kPercentEqual,
  kDoubleStarEqual,
  kAtEqual,
  kAmperEqual,
  kVBarEqual,
  kCircumflexEqual,
  kRightShiftEqual,
  kLeftShiftEqual,
};

struct Token {
  TokenKind kind = TokenKind::kEndOfFile;
  Span span;
  // kName: the identifier. kString / kBytes: decoded contents. kFString: raw
  // body. kInt / kFloat / kImaginary: the literal's text.
  std::string text;
  // kInt: the value, valid when !int_overflow (values above INT64_MAX are kept
  // so that -9223372036854775808 can be folded by the parser).
  uint64_t int_value = 0;
  bool int_overflow = false;  // does not fit in 64 bits at all
  double float_value = 0;     // kFloat and kImaginary
};

// "'('", "'if'", "name", "end of line", ... for messages.
const char* token_kind_description(TokenKind kind);
// How a token reads in a message: "'foo'" for names, "')'", "end of line", ...
std::string describe(const Token& token);

bool is_keyword(TokenKind kind);

}  // namespace oxs::script
