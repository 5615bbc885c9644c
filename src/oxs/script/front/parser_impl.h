// Internal to the parser (parser.cc, parser_expr.cc): the recursive-descent
// Parser class. Not part of the public API.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "oxs/script/front/ast.h"
#include "oxs/script/front/codes.h"
#include "oxs/script/front/diagnostics.h"
#include "oxs/script/front/parser.h"
#include "oxs/script/front/token.h"

namespace oxs::script::detail {

class Parser {
 public:
  Parser(const SourceFile& file, std::vector<Token> tokens, DiagnosticSink& sink, Module& module);

  void parse_module();
  void parse_single_expression();

 private:
  // Thrown after a syntax error has been reported (or silenced because the
  // lexer already reported it); caught at the statement level.
  struct Unwind {};
  // Thrown once the error cap is reached; caught at the top.
  struct Stop {};

  // Saves the nesting depth and restores it on scope exit, so that every
  // deeper() of a scope is undone even when unwinding.
  class DepthScope {
   public:
    explicit DepthScope(Parser& p) : p_(p), saved_(p.depth_) {}
    ~DepthScope() { p_.depth_ = saved_; }
    DepthScope(const DepthScope&) = delete;
    DepthScope& operator=(const DepthScope&) = delete;

   private:
    Parser& p_;
    int saved_;
  };

  // ---- tokens ----
  const Token& peek(size_t ahead = 0) const;
  const Token& previous() const { return tokens_[pos_ > 0 ? pos_ - 1 : 0]; }
  const Token& advance();
  bool check(TokenKind kind) const { return peek().kind == kind; }
  bool match(TokenKind kind);
  // Consumes `kind` or fails with "expected <kind> <context>, found <token>".
  const Token& expect(TokenKind kind, std::string_view context);
  static bool starts_expression(TokenKind kind);
  Span here_after_previous() const;

  // ---- errors ----
  [[noreturn]] void fail(std::string_view code, Span span, std::string message,
                         std::string hint = {});
  // Fails at the current token, silently if the lexer already reported it.
  [[noreturn]] void unexpected(std::string message, std::string hint = {});
  void report(std::string_view code, Span span, std::string message, std::string hint = {});
  void deeper();
  void synchronize();

  // ---- statements (parser.cc) ----
  void statements_until(Body& out, TokenKind end);
  void statement(Body& out);
  void simple_statements(Body& out);
  Stmt* small_statement();
  Stmt* expression_statement();
  Body block(std::string_view what, const Token& header);
  void expect_colon(std::string_view after, bool is_condition = false);
  Stmt* function_def(std::vector<Expr*> decorators, const Token* async_token);
  Stmt* class_def(std::vector<Expr*> decorators);
  Stmt* decorated();
  // `elif_index` is 0 for `if`, n for the n-th `elif` of a chain.
  Stmt* if_statement(int elif_index);
  Stmt* while_statement();
  Stmt* for_statement(const Token* async_token);
  Stmt* try_statement();
  Stmt* with_statement(const Token* async_token);
  Stmt* import_statement();
  Stmt* from_import_statement();
  std::string dotted_name();
  void check_python2_statement();
  void lift_docstring(Body& body, std::optional<std::string>& doc, Span& doc_span);

  // ---- expressions (parser_expr.cc) ----
  Expr* star_expressions();
  Expr* star_expressions_or_yield();
  Expr* star_expression();
  Expr* star_named_expression();
  Expr* named_expression();
  Expr* expression();
  Expr* lambda();
  Expr* disjunction();
  Expr* conjunction();
  Expr* inversion();
  Expr* comparison();
  Expr* binary(int level);
  Expr* factor();
  Expr* power();
  Expr* await_primary();
  Expr* primary();
  Expr* atom();
  Expr* strings();
  Expr* number();
  Expr* parenthesized();
  Expr* list_display();
  Expr* brace_display();
  Expr* yield_expression();
  Expr* subscript_index();
  Expr* slice_item();
  Expr* target_list(TokenKind stop);
  Expr* target_element();
  void comprehension_clauses(std::vector<Comprehension>& out);
  Comp* make_comp(ExprKind kind, Span span, Expr* elt, Expr* value);
  void call_arguments(std::vector<Expr*>& args, std::vector<Keyword>& keywords,
                      std::string_view what);
  std::vector<Param> parameters(TokenKind end, bool annotations);
  // Reports (and unwinds) unless `target` can be assigned (or deleted) to.
  void check_target(const Expr* target, bool del);
  static const char* describe_expr(const Expr* e);

  template <class T, class... Args>
  T* make(Span span, Args&&... args) {
    return module_.arena.make<T>(span, std::forward<Args>(args)...);
  }

  const SourceFile& file_;
  std::vector<Token> tokens_;
  DiagnosticSink& sink_;
  Module& module_;
  size_t pos_ = 0;
  int depth_ = 0;
  // An int literal 2**63 right after '-': valid only as the operand of that
  // minus, where factor() folds it into INT64_MIN.
  Expr* pending_int64_min_ = nullptr;
};

}  // namespace oxs::script::detail
