#include "oxs/script/front/ast.h"

namespace oxs::script {

const char* expr_kind_name(ExprKind kind) {
  switch (kind) {
    case ExprKind::kBoolOp:
      return "BoolOp";
    case ExprKind::kNamedExpr:
      return "NamedExpr";
    case ExprKind::kBinOp:
      return "BinOp";
    case ExprKind::kUnaryOp:
      return "UnaryOp";
    case ExprKind::kLambda:
      return "Lambda";
    case ExprKind::kIfExp:
      return "IfExp";
    case ExprKind::kDict:
      return "Dict";
    case ExprKind::kSet:
      return "Set";
    case ExprKind::kListComp:
      return "ListComp";
    case ExprKind::kSetComp:
      return "SetComp";
    case ExprKind::kDictComp:
      return "DictComp";
    case ExprKind::kGeneratorExp:
      return "GeneratorExp";
    case ExprKind::kAwait:
      return "Await";
    case ExprKind::kYield:
      return "Yield";
    case ExprKind::kYieldFrom:
      return "YieldFrom";
    case ExprKind::kCompare:
      return "Compare";
    case ExprKind::kCall:
      return "Call";
    case ExprKind::kConstant:
      return "Constant";
    case ExprKind::kAttribute:
      return "Attribute";
    case ExprKind::kSubscript:
      return "Subscript";
    case ExprKind::kStarred:
      return "Starred";
    case ExprKind::kName:
      return "Name";
    case ExprKind::kList:
      return "List";
    case ExprKind::kTuple:
      return "Tuple";
    case ExprKind::kSlice:
      return "Slice";
  }
  return "Expr";
}

const char* stmt_kind_name(StmtKind kind) {
  switch (kind) {
    case StmtKind::kFunctionDef:
      return "FunctionDef";
    case StmtKind::kClassDef:
      return "ClassDef";
    case StmtKind::kReturn:
      return "Return";
    case StmtKind::kDelete:
      return "Delete";
    case StmtKind::kAssign:
      return "Assign";
    case StmtKind::kAugAssign:
      return "AugAssign";
    case StmtKind::kAnnAssign:
      return "AnnAssign";
    case StmtKind::kFor:
      return "For";
    case StmtKind::kWhile:
      return "While";
    case StmtKind::kIf:
      return "If";
    case StmtKind::kWith:
      return "With";
    case StmtKind::kRaise:
      return "Raise";
    case StmtKind::kTry:
      return "Try";
    case StmtKind::kAssert:
      return "Assert";
    case StmtKind::kImport:
      return "Import";
    case StmtKind::kImportFrom:
      return "ImportFrom";
    case StmtKind::kGlobal:
      return "Global";
    case StmtKind::kNonlocal:
      return "Nonlocal";
    case StmtKind::kExpr:
      return "Expr";
    case StmtKind::kPass:
      return "Pass";
    case StmtKind::kBreak:
      return "Break";
    case StmtKind::kContinue:
      return "Continue";
  }
  return "Stmt";
}

const char* binop_name(BinOpKind op) {
  switch (op) {
    case BinOpKind::kAdd:
      return "Add";
    case BinOpKind::kSub:
      return "Sub";
    case BinOpKind::kMult:
      return "Mult";
    case BinOpKind::kMatMult:
      return "MatMult";
    case BinOpKind::kDiv:
      return "Div";
    case BinOpKind::kFloorDiv:
      return "FloorDiv";
    case BinOpKind::kMod:
      return "Mod";
    case BinOpKind::kPow:
      return "Pow";
    case BinOpKind::kLShift:
      return "LShift";
    case BinOpKind::kRShift:
      return "RShift";
    case BinOpKind::kBitOr:
      return "BitOr";
    case BinOpKind::kBitXor:
      return "BitXor";
    case BinOpKind::kBitAnd:
      return "BitAnd";
  }
  return "BinOp";
}

const char* binop_symbol(BinOpKind op) {
  switch (op) {
    case BinOpKind::kAdd:
      return "+";
    case BinOpKind::kSub:
      return "-";
    case BinOpKind::kMult:
      return "*";
    case BinOpKind::kMatMult:
      return "@";
    case BinOpKind::kDiv:
      return "/";
    case BinOpKind::kFloorDiv:
      return "//";
    case BinOpKind::kMod:
      return "%";
    case BinOpKind::kPow:
      return "**";
    case BinOpKind::kLShift:
      return "<<";
    case BinOpKind::kRShift:
      return ">>";
    case BinOpKind::kBitOr:
      return "|";
    case BinOpKind::kBitXor:
      return "^";
    case BinOpKind::kBitAnd:
      return "&";
  }
  return "?";
}

const char* unaryop_symbol(UnaryOpKind op) {
  switch (op) {
    case UnaryOpKind::kInvert:
      return "~";
    case UnaryOpKind::kNot:
      return "not";
    case UnaryOpKind::kUAdd:
      return "+";
    case UnaryOpKind::kUSub:
      return "-";
  }
  return "?";
}

const char* cmpop_symbol(CmpOpKind op) {
  switch (op) {
    case CmpOpKind::kEq:
      return "==";
    case CmpOpKind::kNotEq:
      return "!=";
    case CmpOpKind::kLt:
      return "<";
    case CmpOpKind::kLtE:
      return "<=";
    case CmpOpKind::kGt:
      return ">";
    case CmpOpKind::kGtE:
      return ">=";
    case CmpOpKind::kIs:
      return "is";
    case CmpOpKind::kIsNot:
      return "is not";
    case CmpOpKind::kIn:
      return "in";
    case CmpOpKind::kNotIn:
      return "not in";
  }
  return "?";
}

const char* boolop_symbol(BoolOpKind op) {
  return op == BoolOpKind::kAnd ? "and" : "or";
}

}  // namespace oxs::script
