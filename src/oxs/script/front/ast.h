// Abstract syntax tree of the Python subset ONNX Script is written in.
//
// The tree mirrors Python's own `ast` module (same node names and fields,
// elif chains as nested If, docstrings lifted out of bodies) so that the
// converter reads like onnxscript's. It covers everything Python syntax can
// express that is plausible in a script, including constructs ONNX Script will
// reject (classes, lambdas, comprehensions, try, with, ...): rejecting them is
// the converter's job, with the node's Span. The front end knows no ONNX.
//
// Spans: an expression's span covers all of it (a parenthesized tuple's
// includes its parentheses; a parenthesized group's does not, as in Python).
// A compound statement's span covers its header only (`def f(x) -> T:`,
// `if x > 0:`), which is what a diagnostic about it should underline.
//
// Nodes live in the Module's AstArena and point to each other with plain
// pointers; destroying the Module frees them all without recursion. Switch on
// `kind` and use `as<T>()` (checked by assert) or `dyn<T>()` (nullptr if not T).
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oxs/script/front/source.h"

namespace oxs::script {

enum class ExprKind : uint8_t {
  kBoolOp,
  kNamedExpr,
  kBinOp,
  kUnaryOp,
  kLambda,
  kIfExp,
  kDict,
  kSet,
  kListComp,
  kSetComp,
  kDictComp,
  kGeneratorExp,
  kAwait,
  kYield,
  kYieldFrom,
  kCompare,
  kCall,
  kConstant,
  kAttribute,
  kSubscript,
  kStarred,
  kName,
  kList,
  kTuple,
  kSlice,
};

enum class StmtKind : uint8_t {
  kFunctionDef,
  kClassDef,
  kReturn,
  kDelete,
  kAssign,
  kAugAssign,
  kAnnAssign,
  kFor,
  kWhile,
  kIf,
  kWith,
  kRaise,
  kTry,
  kAssert,
  kImport,
  kImportFrom,
  kGlobal,
  kNonlocal,
  kExpr,
  kPass,
  kBreak,
  kContinue,
};

enum class BoolOpKind : uint8_t { kAnd, kOr };
enum class BinOpKind : uint8_t {
  kAdd,
  kSub,
  kMult,
  kMatMult,
  kDiv,
  kFloorDiv,
  kMod,
  kPow,
  kLShift,
  kRShift,
  kBitOr,
  kBitXor,
  kBitAnd,
};
enum class UnaryOpKind : uint8_t { kInvert, kNot, kUAdd, kUSub };
enum class CmpOpKind : uint8_t { kEq, kNotEq, kLt, kLtE, kGt, kGtE, kIs, kIsNot, kIn, kNotIn };
enum class ConstantKind : uint8_t { kNone, kBool, kInt, kFloat, kStr, kBytes, kEllipsis };
enum class ParamKind : uint8_t {
  kPositionalOnly,  // before '/'
  kNormal,
  kVarArgs,      // *args
  kKeywordOnly,  // after '*' or *args
  kVarKeywords,  // **kwargs
};

// Python's names ("Add", "BinOp", "FunctionDef") and symbols ("+", "<=").
const char* expr_kind_name(ExprKind kind);
const char* stmt_kind_name(StmtKind kind);
const char* binop_name(BinOpKind op);
const char* binop_symbol(BinOpKind op);
const char* unaryop_symbol(UnaryOpKind op);  // "-", "+", "~", "not"
const char* cmpop_symbol(CmpOpKind op);      // "==", "is not", "not in", ...
const char* boolop_symbol(BoolOpKind op);    // "and", "or"

struct Node {
  virtual ~Node() = default;
  Span span;
};

struct Expr : Node {
  const ExprKind kind;
  explicit Expr(ExprKind k) : kind(k) {}
  template <class T>
  T& as() {
    assert(T::classof(kind));
    return static_cast<T&>(*this);
  }
  template <class T>
  const T& as() const {
    assert(T::classof(kind));
    return static_cast<const T&>(*this);
  }
  template <class T>
  const T* dyn() const {
    return T::classof(kind) ? static_cast<const T*>(this) : nullptr;
  }
};

struct Stmt : Node {
  const StmtKind kind;
  explicit Stmt(StmtKind k) : kind(k) {}
  template <class T>
  T& as() {
    assert(T::classof(kind));
    return static_cast<T&>(*this);
  }
  template <class T>
  const T& as() const {
    assert(T::classof(kind));
    return static_cast<const T&>(*this);
  }
  template <class T>
  const T* dyn() const {
    return T::classof(kind) ? static_cast<const T*>(this) : nullptr;
  }
};

#define OXS_EXPR_NODE(Type, Kind)   \
  static bool classof(ExprKind k) { \
    return k == ExprKind::Kind;     \
  }                                 \
  Type() : Expr(ExprKind::Kind) {}
#define OXS_STMT_NODE(Type, Kind)   \
  static bool classof(StmtKind k) { \
    return k == StmtKind::Kind;     \
  }                                 \
  Type() : Stmt(StmtKind::Kind) {}

// A function or lambda parameter. `default_value` and `annotation` may be null.
struct Param {
  ParamKind kind = ParamKind::kNormal;
  std::string name;
  Span span;  // the name (with its '*' / '**')
  Expr* annotation = nullptr;
  Expr* default_value = nullptr;
};

// `name=value` in a call or class header; `arg` is empty for `**value`.
struct Keyword {
  std::string arg;
  Expr* value = nullptr;
  Span span;
};

// One `for target in iter if cond...` clause of a comprehension.
struct Comprehension {
  Expr* target = nullptr;
  Expr* iter = nullptr;
  std::vector<Expr*> ifs;
  bool is_async = false;
};

// ---- Expressions -----------------------------------------------------------

struct BoolOp : Expr {
  OXS_EXPR_NODE(BoolOp, kBoolOp)
  BoolOpKind op = BoolOpKind::kAnd;
  std::vector<Expr*> values;  // two or more
};

struct NamedExpr : Expr {  // target := value
  OXS_EXPR_NODE(NamedExpr, kNamedExpr)
  Expr* target = nullptr;  // a Name
  Expr* value = nullptr;
};

struct BinOp : Expr {
  OXS_EXPR_NODE(BinOp, kBinOp)
  BinOpKind op = BinOpKind::kAdd;
  Expr* left = nullptr;
  Expr* right = nullptr;
  Span op_span;
};

struct UnaryOp : Expr {
  OXS_EXPR_NODE(UnaryOp, kUnaryOp)
  UnaryOpKind op = UnaryOpKind::kUSub;
  Expr* operand = nullptr;
};

struct Lambda : Expr {
  OXS_EXPR_NODE(Lambda, kLambda)
  std::vector<Param> params;
  Expr* body = nullptr;
};

struct IfExp : Expr {  // body if test else orelse
  OXS_EXPR_NODE(IfExp, kIfExp)
  Expr* test = nullptr;
  Expr* body = nullptr;
  Expr* orelse = nullptr;
};

struct Dict : Expr {
  OXS_EXPR_NODE(Dict, kDict)
  std::vector<Expr*> keys;  // null for `**value`
  std::vector<Expr*> values;
};

struct Set : Expr {
  OXS_EXPR_NODE(Set, kSet)
  std::vector<Expr*> elts;
};

// ListComp, SetComp, GeneratorExp (elt) and DictComp (key: elt, value: value).
struct Comp : Expr {
  static bool classof(ExprKind k) {
    return k == ExprKind::kListComp || k == ExprKind::kSetComp || k == ExprKind::kDictComp ||
           k == ExprKind::kGeneratorExp;
  }
  explicit Comp(ExprKind k) : Expr(k) {}
  Expr* elt = nullptr;
  Expr* value = nullptr;  // DictComp only
  std::vector<Comprehension> generators;
};

struct Await : Expr {
  OXS_EXPR_NODE(Await, kAwait)
  Expr* value = nullptr;
};

// `yield value` (value may be null) and `yield from value`.
struct Yield : Expr {
  static bool classof(ExprKind k) { return k == ExprKind::kYield || k == ExprKind::kYieldFrom; }
  explicit Yield(ExprKind k) : Expr(k) {}
  Expr* value = nullptr;
};

struct Compare : Expr {  // left ops[0] comparators[0] ops[1] comparators[1] ...
  OXS_EXPR_NODE(Compare, kCompare)
  Expr* left = nullptr;
  std::vector<CmpOpKind> ops;
  std::vector<Expr*> comparators;
};

struct Call : Expr {
  OXS_EXPR_NODE(Call, kCall)
  Expr* func = nullptr;
  std::vector<Expr*> args;  // may contain Starred
  std::vector<Keyword> keywords;
};

struct Constant : Expr {
  OXS_EXPR_NODE(Constant, kConstant)
  ConstantKind value_kind = ConstantKind::kNone;
  bool bool_value = false;
  int64_t int_value = 0;
  double float_value = 0;
  std::string str_value;  // kStr (UTF-8) and kBytes
};

struct Attribute : Expr {  // value.attr
  OXS_EXPR_NODE(Attribute, kAttribute)
  Expr* value = nullptr;
  std::string attr;
  Span attr_span;
};

struct Subscript : Expr {  // value[slice]; several axes make slice a Tuple
  OXS_EXPR_NODE(Subscript, kSubscript)
  Expr* value = nullptr;
  Expr* slice = nullptr;
};

struct Starred : Expr {  // *value
  OXS_EXPR_NODE(Starred, kStarred)
  Expr* value = nullptr;
};

struct Name : Expr {
  OXS_EXPR_NODE(Name, kName)
  std::string id;
};

struct List : Expr {
  OXS_EXPR_NODE(List, kList)
  std::vector<Expr*> elts;
};

struct Tuple : Expr {
  OXS_EXPR_NODE(Tuple, kTuple)
  std::vector<Expr*> elts;
  bool parenthesized = false;
};

struct Slice : Expr {  // lower:upper:step, each may be null; only inside Subscript
  OXS_EXPR_NODE(Slice, kSlice)
  Expr* lower = nullptr;
  Expr* upper = nullptr;
  Expr* step = nullptr;
};

// ---- Statements ------------------------------------------------------------

using Body = std::vector<Stmt*>;

struct FunctionDef : Stmt {
  OXS_STMT_NODE(FunctionDef, kFunctionDef)
  std::string name;
  Span name_span;
  std::vector<Expr*> decorators;
  std::vector<Param> params;
  Expr* returns = nullptr;
  // A leading string statement is lifted out of `body` into these.
  std::optional<std::string> docstring;
  Span docstring_span;
  Body body;
  bool is_async = false;
};

struct ClassDef : Stmt {
  OXS_STMT_NODE(ClassDef, kClassDef)
  std::string name;
  Span name_span;
  std::vector<Expr*> decorators;
  std::vector<Expr*> bases;
  std::vector<Keyword> keywords;
  std::optional<std::string> docstring;
  Span docstring_span;
  Body body;
};

struct Return : Stmt {
  OXS_STMT_NODE(Return, kReturn)
  Expr* value = nullptr;  // null for a bare `return`
};

struct Delete : Stmt {
  OXS_STMT_NODE(Delete, kDelete)
  std::vector<Expr*> targets;
};

struct Assign : Stmt {  // targets[0] = targets[1] = ... = value
  OXS_STMT_NODE(Assign, kAssign)
  std::vector<Expr*> targets;  // Name, Attribute, Subscript, Starred, Tuple, List
  Expr* value = nullptr;
};

struct AugAssign : Stmt {  // target op= value
  OXS_STMT_NODE(AugAssign, kAugAssign)
  Expr* target = nullptr;
  BinOpKind op = BinOpKind::kAdd;
  Expr* value = nullptr;
};

struct AnnAssign : Stmt {  // target: annotation [= value]
  OXS_STMT_NODE(AnnAssign, kAnnAssign)
  Expr* target = nullptr;
  Expr* annotation = nullptr;
  Expr* value = nullptr;
  bool simple = false;  // target is a bare Name, not parenthesized
};

struct For : Stmt {
  OXS_STMT_NODE(For, kFor)
  Expr* target = nullptr;
  Expr* iter = nullptr;
  Body body;
  Body orelse;
  bool is_async = false;
};

struct While : Stmt {
  OXS_STMT_NODE(While, kWhile)
  Expr* test = nullptr;
  Body body;
  Body orelse;
};

struct If : Stmt {  // `elif` is an If alone in orelse, as in Python
  OXS_STMT_NODE(If, kIf)
  Expr* test = nullptr;
  Body body;
  Body orelse;
  bool is_elif = false;  // this If was written as `elif`
};

struct WithItem {
  Expr* context = nullptr;
  Expr* target = nullptr;  // after `as`, may be null
};

struct With : Stmt {
  OXS_STMT_NODE(With, kWith)
  std::vector<WithItem> items;
  Body body;
  bool is_async = false;
};

struct Raise : Stmt {
  OXS_STMT_NODE(Raise, kRaise)
  Expr* exc = nullptr;
  Expr* cause = nullptr;
};

struct ExceptHandler {
  Span span;
  Expr* type = nullptr;  // null for a bare `except:`
  std::string name;      // after `as`, may be empty
  Body body;
};

struct Try : Stmt {
  OXS_STMT_NODE(Try, kTry)
  Body body;
  std::vector<ExceptHandler> handlers;
  Body orelse;
  Body finalbody;
};

struct Assert : Stmt {
  OXS_STMT_NODE(Assert, kAssert)
  Expr* test = nullptr;
  Expr* msg = nullptr;
};

struct Alias {  // `name as asname`; name is dotted ("a.b") or "*"
  std::string name;
  std::string asname;
  Span span;
};

struct Import : Stmt {
  OXS_STMT_NODE(Import, kImport)
  std::vector<Alias> names;
};

struct ImportFrom : Stmt {  // from <level dots><module> import names
  OXS_STMT_NODE(ImportFrom, kImportFrom)
  std::string module;  // may be empty with level > 0
  int level = 0;
  std::vector<Alias> names;
};

struct Global : Stmt {
  OXS_STMT_NODE(Global, kGlobal)
  std::vector<std::string> names;
};

struct Nonlocal : Stmt {
  OXS_STMT_NODE(Nonlocal, kNonlocal)
  std::vector<std::string> names;
};

struct ExprStmt : Stmt {
  OXS_STMT_NODE(ExprStmt, kExpr)
  Expr* value = nullptr;
};

struct Pass : Stmt {
  OXS_STMT_NODE(Pass, kPass)
};

struct Break : Stmt {
  OXS_STMT_NODE(Break, kBreak)
};

struct Continue : Stmt {
  OXS_STMT_NODE(Continue, kContinue)
};

#undef OXS_EXPR_NODE
#undef OXS_STMT_NODE

// Owns every node of one Module.
class AstArena {
 public:
  template <class T, class... Args>
  T* make(Span span, Args&&... args) {
    auto node = std::make_unique<T>(std::forward<Args>(args)...);
    node->span = span;
    T* raw = node.get();
    nodes_.push_back(std::move(node));
    return raw;
  }
  size_t size() const { return nodes_.size(); }

 private:
  std::vector<std::unique_ptr<Node>> nodes_;
};

struct Module {
  AstArena arena;
  Span span;
  std::optional<std::string> docstring;
  Span docstring_span;
  Body body;
};

// A readable S-expression of the tree, one statement per line, for golden
// tests and `oxs parse --dump`. Spans are not printed.
std::string dump(const Module& module);
std::string dump(const Stmt& stmt);
std::string dump(const Expr& expr);

}  // namespace oxs::script
