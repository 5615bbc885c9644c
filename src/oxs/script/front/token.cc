#include "oxs/script/front/token.h"

namespace oxs::script {

const char* token_kind_description(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEndOfFile:
      return "end of file";
    case TokenKind::kNewline:
      return "end of line";
    case TokenKind::kIndent:
      return "indent";
    case TokenKind::kDedent:
      return "unindent";
    case TokenKind::kName:
      return "name";
    case TokenKind::kInt:
      return "integer literal";
    case TokenKind::kFloat:
      return "float literal";
    case TokenKind::kImaginary:
      return "imaginary literal";
    case TokenKind::kString:
      return "string literal";
    case TokenKind::kBytes:
      return "bytes literal";
    case TokenKind::kFString:
      return "f-string";
    case TokenKind::kError:
      return "invalid token";
    case TokenKind::kFalse:
      return "'False'";
    case TokenKind::kNone:
      return "'None'";
    case TokenKind::kTrue:
      return "'True'";
    case TokenKind::kAnd:
      return "'and'";
    case TokenKind::kAs:
      return "'as'";
    case TokenKind::kAssert:
      return "'assert'";
    case TokenKind::kAsync:
      return "'async'";
    case TokenKind::kAwait:
      return "'await'";
    case TokenKind::kBreak:
      return "'break'";
    case TokenKind::kClass:
      return "'class'";
    case TokenKind::kContinue:
      return "'continue'";
    case TokenKind::kDef:
      return "'def'";
    case TokenKind::kDel:
      return "'del'";
    case TokenKind::kElif:
      return "'elif'";
    case TokenKind::kElse:
      return "'else'";
    case TokenKind::kExcept:
      return "'except'";
    case TokenKind::kFinally:
      return "'finally'";
    case TokenKind::kFor:
      return "'for'";
    case TokenKind::kFrom:
      return "'from'";
    case TokenKind::kGlobal:
      return "'global'";
    case TokenKind::kIf:
      return "'if'";
    case TokenKind::kImport:
      return "'import'";
    case TokenKind::kIn:
      return "'in'";
    case TokenKind::kIs:
      return "'is'";
    case TokenKind::kLambda:
      return "'lambda'";
    case TokenKind::kNonlocal:
      return "'nonlocal'";
    case TokenKind::kNot:
      return "'not'";
    case TokenKind::kOr:
      return "'or'";
    case TokenKind::kPass:
      return "'pass'";
    case TokenKind::kRaise:
      return "'raise'";
    case TokenKind::kReturn:
      return "'return'";
    case TokenKind::kTry:
      return "'try'";
    case TokenKind::kWhile:
      return "'while'";
    case TokenKind::kWith:
      return "'with'";
    case TokenKind::kYield:
      return "'yield'";
    case TokenKind::kLParen:
      return "'('";
    case TokenKind::kRParen:
      return "')'";
    case TokenKind::kLBracket:
      return "'['";
    case TokenKind::kRBracket:
      return "']'";
    case TokenKind::kLBrace:
      return "'{'";
    case TokenKind::kRBrace:
      return "'}'";
    case TokenKind::kComma:
      return "','";
    case TokenKind::kColon:
      return "':'";
    case TokenKind::kSemicolon:
      return "';'";
    case TokenKind::kDot:
      return "'.'";
    case TokenKind::kEllipsis:
      return "'...'";
    case TokenKind::kArrow:
      return "'->'";
    case TokenKind::kColonEqual:
      return "':='";
    case TokenKind::kAt:
      return "'@'";
    case TokenKind::kPlus:
      return "'+'";
    case TokenKind::kMinus:
      return "'-'";
    case TokenKind::kStar:
      return "'*'";
    case TokenKind::kSlash:
      return "'/'";
    case TokenKind::kDoubleSlash:
      return "'//'";
    case TokenKind::kPercent:
      return "'%'";
    case TokenKind::kDoubleStar:
      return "'**'";
    case TokenKind::kLeftShift:
      return "'<<'";
    case TokenKind::kRightShift:
      return "'>>'";
    case TokenKind::kAmper:
      return "'&'";
    case TokenKind::kVBar:
      return "'|'";
    case TokenKind::kCircumflex:
      return "'^'";
    case TokenKind::kTilde:
      return "'~'";
    case TokenKind::kLess:
      return "'<'";
    case TokenKind::kGreater:
      return "'>'";
    case TokenKind::kLessEqual:
      return "'<='";
    case TokenKind::kGreaterEqual:
      return "'>='";
    case TokenKind::kEqEqual:
      return "'=='";
    case TokenKind::kNotEqual:
      return "'!='";
    case TokenKind::kEqual:
      return "'='";
    case TokenKind::kPlusEqual:
      return "'+='";
    case TokenKind::kMinusEqual:
      return "'-='";
    case TokenKind::kStarEqual:
      return "'*='";
    case TokenKind::kSlashEqual:
      return "'/='";
    case TokenKind::kDoubleSlashEqual:
      return "'//='";
    case TokenKind::kPercentEqual:
      return "'%='";
    case TokenKind::kDoubleStarEqual:
      return "'**='";
    case TokenKind::kAtEqual:
      return "'@='";
    case TokenKind::kAmperEqual:
      return "'&='";
    case TokenKind::kVBarEqual:
      return "'|='";
    case TokenKind::kCircumflexEqual:
      return "'^='";
    case TokenKind::kRightShiftEqual:
      return "'>>='";
    case TokenKind::kLeftShiftEqual:
      return "'<<='";
  }
  return "token";
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kName:
      return "name '" + token.text + "'";
    case TokenKind::kInt:
    case TokenKind::kFloat:
    case TokenKind::kImaginary:
      return std::string(token_kind_description(token.kind)) + " '" + token.text + "'";
    default:
      return token_kind_description(token.kind);
  }
}

bool is_keyword(TokenKind kind) {
  return kind >= TokenKind::kFalse && kind <= TokenKind::kYield;
}

}  // namespace oxs::script
