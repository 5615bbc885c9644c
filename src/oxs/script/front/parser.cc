// Parser infrastructure, error recovery and statements. Expressions are in
// parser_expr.cc.
#include "oxs/script/front/parser.h"

#include <utility>

#include "oxs/script/front/lexer.h"
#include "oxs/script/front/parser_impl.h"

namespace oxs::script {
namespace detail {

Parser::Parser(const SourceFile& file, std::vector<Token> tokens, DiagnosticSink& sink,
               Module& module)
    : file_(file), tokens_(std::move(tokens)), sink_(sink), module_(module) {}

// ---- tokens ----------------------------------------------------------------

const Token& Parser::peek(size_t ahead) const {
  size_t i = pos_ + ahead;
  return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

const Token& Parser::advance() {
  const Token& t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool Parser::match(TokenKind kind) {
  if (!check(kind)) return false;
  advance();
  return true;
}

const Token& Parser::expect(TokenKind kind, std::string_view context) {
  if (check(kind)) return advance();
  std::string message = std::string("expected ") + token_kind_description(kind);
  if (!context.empty()) message += " " + std::string(context);
  unexpected(message + ", found " + describe(peek()));
}

bool Parser::starts_expression(TokenKind kind) {
  switch (kind) {
    case TokenKind::kName:
    case TokenKind::kInt:
    case TokenKind::kFloat:
    case TokenKind::kImaginary:
    case TokenKind::kString:
    case TokenKind::kBytes:
    case TokenKind::kFString:
    case TokenKind::kTrue:
    case TokenKind::kFalse:
    case TokenKind::kNone:
    case TokenKind::kLParen:
    case TokenKind::kLBracket:
    case TokenKind::kLBrace:
    case TokenKind::kMinus:
    case TokenKind::kPlus:
    case TokenKind::kTilde:
    case TokenKind::kNot:
    case TokenKind::kLambda:
    case TokenKind::kAwait:
    case TokenKind::kEllipsis:
    case TokenKind::kStar:
      return true;
    default:
      return false;
  }
}

// An empty span just after the previous token: where a missing ':' belongs.
Span Parser::here_after_previous() const {
  uint32_t end = previous().span.end;
  return {end, end};
}

// ---- errors ----------------------------------------------------------------

void Parser::report(std::string_view code, Span span, std::string message, std::string hint) {
  sink_.error(std::string(code), span, std::move(message), std::move(hint));
  if (sink_.full()) throw Stop{};
}

void Parser::fail(std::string_view code, Span span, std::string message, std::string hint) {
  report(code, span, std::move(message), std::move(hint));
  throw Unwind{};
}

void Parser::unexpected(std::string message, std::string hint) {
  if (check(TokenKind::kError)) throw Unwind{};
  fail(code::kUnexpectedToken, peek().span, std::move(message), std::move(hint));
}

void Parser::deeper() {
  if (++depth_ > kMaxNestingDepth) {
    // Thrown, so reported once: the statement is abandoned and resynchronized.
    fail(code::kTooDeeplyNested, peek().span,
         "expression is too deeply nested (more than " + std::to_string(kMaxNestingDepth) +
             " levels)",
         "split it into several assignments");
  }
}

// Skips the rest of a broken statement: to the end of its logical line, then
// over the block and the else/elif/except/finally clauses of a broken
// compound statement (parsing them, so that errors inside are still found).
void Parser::synchronize() {
  depth_ = 0;
  pending_int64_min_ = nullptr;
  while (true) {
    TokenKind k = peek().kind;
    if (k == TokenKind::kEndOfFile || k == TokenKind::kDedent) return;
    advance();
    if (k == TokenKind::kNewline) break;
  }
  while (true) {
    if (match(TokenKind::kIndent)) {
      Body discarded;
      statements_until(discarded, TokenKind::kDedent);
      match(TokenKind::kDedent);
      continue;
    }
    TokenKind k = peek().kind;
    if (k == TokenKind::kElif || k == TokenKind::kElse || k == TokenKind::kExcept ||
        k == TokenKind::kFinally) {
      while (!check(TokenKind::kEndOfFile) && !check(TokenKind::kDedent) &&
             !match(TokenKind::kNewline)) {
        advance();
      }
      continue;
    }
    return;
  }
}

// ---- module and blocks -----------------------------------------------------

void Parser::parse_module() {
  module_.span = {0, file_.size()};
  try {
    statements_until(module_.body, TokenKind::kEndOfFile);
  } catch (const Stop&) {
  }
  lift_docstring(module_.body, module_.docstring, module_.docstring_span);
}

void Parser::parse_single_expression() {
  module_.span = {0, file_.size()};
  try {
    try {
      while (match(TokenKind::kNewline) || match(TokenKind::kIndent)) {
      }
      Expr* e = star_expressions();
      auto* s = make<ExprStmt>(e->span);
      s->value = e;
      while (match(TokenKind::kNewline) || match(TokenKind::kDedent)) {
      }
      if (!check(TokenKind::kEndOfFile)) {
        unexpected("expected end of expression, found " + describe(peek()));
      }
      module_.body.push_back(s);
    } catch (const Unwind&) {
    }
  } catch (const Stop&) {
  }
}

void Parser::statements_until(Body& out, TokenKind end) {
  while (!check(end) && !check(TokenKind::kEndOfFile)) {
    size_t before = pos_;
    try {
      statement(out);
    } catch (const Unwind&) {
      synchronize();
    }
    // Every iteration consumes a token, so the loop ends.
    if (pos_ == before) advance();
    if (pos_ == before) return;
  }
}

void Parser::lift_docstring(Body& body, std::optional<std::string>& doc, Span& doc_span) {
  if (body.empty() || body.front()->kind != StmtKind::kExpr) return;
  const Expr* value = body.front()->as<ExprStmt>().value;
  const auto* c = value->dyn<Constant>();
  if (!c || c->value_kind != ConstantKind::kStr) return;
  doc = c->str_value;
  doc_span = value->span;
  body.erase(body.begin());
}

Body Parser::block(std::string_view what, const Token& header) {
  Body body;
  if (!match(TokenKind::kNewline)) {
    simple_statements(body);
    return body;
  }
  if (!check(TokenKind::kIndent)) {
    // Report and go on with an empty body: the next lines are parsed as
    // statements of the enclosing block, which is usually right.
    if (!check(TokenKind::kError)) {
      report(code::kExpectedIndentedBlock, peek().span,
             "expected an indented block after " + std::string(what) + " on line " +
                 std::to_string(file_.line_col(header.span.begin).line),
             "indent the body, or write 'pass' for an empty one");
    }
    return body;
  }
  advance();
  statements_until(body, TokenKind::kDedent);
  match(TokenKind::kDedent);
  return body;
}

void Parser::expect_colon(std::string_view after, bool is_condition) {
  if (match(TokenKind::kColon)) return;
  if (check(TokenKind::kError)) throw Unwind{};
  if (is_condition && check(TokenKind::kEqual)) {
    fail(code::kAssignInExpression, peek().span, "cannot assign with '=' in " + std::string(after),
         "use '==' to compare, or ':=' to assign inside an expression");
  }
  if (check(TokenKind::kNewline) || check(TokenKind::kEndOfFile)) {
    fail(code::kMissingColon, here_after_previous(), "missing ':' after " + std::string(after),
         "add ':' at the end of the line");
  }
  fail(code::kMissingColon, peek().span,
       "expected ':' after " + std::string(after) + ", found " + describe(peek()));
}

// ---- statements ------------------------------------------------------------

void Parser::statement(Body& out) {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::kIndent: {
      report(code::kUnexpectedIndent, peek(1).span, "unexpected indent",
             "indent a line only to start a block after a ':'");
      advance();
      Body discarded;
      statements_until(discarded, TokenKind::kDedent);
      match(TokenKind::kDedent);
      return;
    }
    case TokenKind::kDef:
      out.push_back(function_def({}, nullptr));
      return;
    case TokenKind::kClass:
      out.push_back(class_def({}));
      return;
    case TokenKind::kAt:
      out.push_back(decorated());
      return;
    case TokenKind::kIf:
      out.push_back(if_statement(0));
      return;
    case TokenKind::kWhile:
      out.push_back(while_statement());
      return;
    case TokenKind::kFor:
      out.push_back(for_statement(nullptr));
      return;
    case TokenKind::kTry:
      out.push_back(try_statement());
      return;
    case TokenKind::kWith:
      out.push_back(with_statement(nullptr));
      return;
    case TokenKind::kAsync: {
      const Token& async_token = advance();
      if (check(TokenKind::kDef)) {
        out.push_back(function_def({}, &async_token));
      } else if (check(TokenKind::kFor)) {
        out.push_back(for_statement(&async_token));
      } else if (check(TokenKind::kWith)) {
        out.push_back(with_statement(&async_token));
      } else {
        unexpected("expected 'def', 'for' or 'with' after 'async', found " + describe(peek()));
      }
      return;
    }
    case TokenKind::kElif:
    case TokenKind::kElse:
    case TokenKind::kExcept:
    case TokenKind::kFinally:
      unexpected(std::string("unexpected ") + token_kind_description(t.kind),
                 "it must follow its block ('if', 'for', 'while' or 'try') at the same "
                 "indentation");
    default:
      simple_statements(out);
  }
}

void Parser::simple_statements(Body& out) {
  while (true) {
    out.push_back(small_statement());
    if (!match(TokenKind::kSemicolon)) break;
    if (check(TokenKind::kNewline)) break;
  }
  if (match(TokenKind::kNewline)) return;
  unexpected("unexpected " + describe(peek()) + " after the end of a statement",
             "put each statement on its own line");
}

Stmt* Parser::small_statement() {
  const Token& t = peek();
  Span span = t.span;
  auto finish = [&](Stmt* s) {
    s->span = Span::cover(span, previous().span);
    return s;
  };
  switch (t.kind) {
    case TokenKind::kPass:
      advance();
      return make<Pass>(span);
    case TokenKind::kBreak:
      advance();
      return make<Break>(span);
    case TokenKind::kContinue:
      advance();
      return make<Continue>(span);
    case TokenKind::kReturn: {
      advance();
      auto* s = make<Return>(span);
      if (starts_expression(peek().kind)) s->value = star_expressions();
      return finish(s);
    }
    case TokenKind::kRaise: {
      advance();
      auto* s = make<Raise>(span);
      if (starts_expression(peek().kind)) {
        s->exc = expression();
        if (match(TokenKind::kFrom)) s->cause = expression();
      }
      return finish(s);
    }
    case TokenKind::kGlobal:
    case TokenKind::kNonlocal: {
      advance();
      std::vector<std::string> names;
      do {
        names.push_back(expect(TokenKind::kName, "in a global/nonlocal declaration").text);
      } while (match(TokenKind::kComma));
      if (t.kind == TokenKind::kGlobal) {
        auto* s = make<Global>(span);
        s->names = std::move(names);
        return finish(s);
      }
      auto* s = make<Nonlocal>(span);
      s->names = std::move(names);
      return finish(s);
    }
    case TokenKind::kDel: {
      advance();
      auto* s = make<Delete>(span);
      do {
        if (!starts_expression(peek().kind)) break;
        Expr* target = binary(0);
        check_target(target, /*del=*/true);
        s->targets.push_back(target);
      } while (match(TokenKind::kComma));
      if (s->targets.empty()) unexpected("expected a name after 'del', found " + describe(peek()));
      return finish(s);
    }
    case TokenKind::kAssert: {
      advance();
      auto* s = make<Assert>(span);
      s->test = expression();
      if (match(TokenKind::kComma)) s->msg = expression();
      return finish(s);
    }
    case TokenKind::kImport:
      return import_statement();
    case TokenKind::kFrom:
      return from_import_statement();
    default:
      return expression_statement();
  }
}

// `print x` and `exec code` are the Python 2 statements people still write.
void Parser::check_python2_statement() {
  const Token& t = peek();
  if (t.kind != TokenKind::kName || (t.text != "print" && t.text != "exec")) return;
  TokenKind next = peek(1).kind;
  if (!starts_expression(next) || next == TokenKind::kLParen || next == TokenKind::kLBracket ||
      next == TokenKind::kMinus || next == TokenKind::kPlus || next == TokenKind::kStar ||
      next == TokenKind::kNot) {
    return;
  }
  uint32_t line = file_.line_col(t.span.begin).line;
  std::string_view rest = file_.line_text(line);
  uint32_t from = peek(1).span.begin - file_.line_start(line);
  rest = from < rest.size() ? rest.substr(from) : std::string_view{};
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t')) rest.remove_suffix(1);
  fail(code::kPython2Syntax, Span::cover(t.span, peek(1).span),
       "missing parentheses in call to '" + t.text + "'",
       "'" + t.text + " x' is Python 2: write " + t.text + "(" + std::string(rest) + ")");
}

Stmt* Parser::expression_statement() {
  check_python2_statement();
  bool starts_with_paren = check(TokenKind::kLParen);
  Expr* first = star_expressions_or_yield();
  Span span = first->span;
  if (check(TokenKind::kEqual)) {
    auto* s = make<Assign>(span);
    Expr* value = first;
    while (match(TokenKind::kEqual)) {
      s->targets.push_back(value);
      value = star_expressions_or_yield();
    }
    for (const Expr* target : s->targets) check_target(target, false);
    s->value = value;
    s->span = Span::cover(span, value->span);
    return s;
  }
  if (check(TokenKind::kColon)) {
    if (first->kind == ExprKind::kTuple || first->kind == ExprKind::kList) {
      fail(code::kInvalidTarget, first->span,
           std::string("only a single target (not a ") +
               (first->kind == ExprKind::kTuple ? "tuple" : "list") + ") can be annotated");
    }
    check_target(first, false);
    advance();
    auto* s = make<AnnAssign>(span);
    s->target = first;
    s->simple = first->kind == ExprKind::kName && !starts_with_paren;
    s->annotation = expression();
    if (match(TokenKind::kEqual)) s->value = star_expressions_or_yield();
    s->span = Span::cover(span, previous().span);
    return s;
  }
  static constexpr std::pair<TokenKind, BinOpKind> kAugmented[] = {
      {TokenKind::kPlusEqual, BinOpKind::kAdd},
      {TokenKind::kMinusEqual, BinOpKind::kSub},
      {TokenKind::kStarEqual, BinOpKind::kMult},
      {TokenKind::kAtEqual, BinOpKind::kMatMult},
      {TokenKind::kSlashEqual, BinOpKind::kDiv},
      {TokenKind::kDoubleSlashEqual, BinOpKind::kFloorDiv},
      {TokenKind::kPercentEqual, BinOpKind::kMod},
      {TokenKind::kDoubleStarEqual, BinOpKind::kPow},
      {TokenKind::kLeftShiftEqual, BinOpKind::kLShift},
      {TokenKind::kRightShiftEqual, BinOpKind::kRShift},
      {TokenKind::kVBarEqual, BinOpKind::kBitOr},
      {TokenKind::kCircumflexEqual, BinOpKind::kBitXor},
      {TokenKind::kAmperEqual, BinOpKind::kBitAnd},
  };
  for (auto [kind, op] : kAugmented) {
    if (!check(kind)) continue;
    if (first->kind != ExprKind::kName && first->kind != ExprKind::kAttribute &&
        first->kind != ExprKind::kSubscript) {
      fail(code::kInvalidTarget, first->span,
           std::string("'") + describe_expr(first) +
               "' is an illegal target for augmented assignment",
           "augmented assignment takes a single name, attribute or subscript");
    }
    advance();
    auto* s = make<AugAssign>(span);
    s->target = first;
    s->op = op;
    s->value = star_expressions_or_yield();
    s->span = Span::cover(span, s->value->span);
    return s;
  }
  auto* s = make<ExprStmt>(span);
  s->value = first;
  return s;
}

Stmt* Parser::decorated() {
  std::vector<Expr*> decorators;
  while (match(TokenKind::kAt)) {
    decorators.push_back(named_expression());
    expect(TokenKind::kNewline, "after decorator");
  }
  if (check(TokenKind::kDef)) return function_def(std::move(decorators), nullptr);
  if (check(TokenKind::kClass)) return class_def(std::move(decorators));
  if (check(TokenKind::kAsync) && peek(1).kind == TokenKind::kDef) {
    const Token& async_token = advance();
    return function_def(std::move(decorators), &async_token);
  }
  unexpected("expected 'def' or 'class' after decorator, found " + describe(peek()));
}

Stmt* Parser::function_def(std::vector<Expr*> decorators, const Token* async_token) {
  const Token& def = advance();
  const Token& start = async_token ? *async_token : def;
  auto* s = make<FunctionDef>(start.span);
  s->is_async = async_token != nullptr;
  s->decorators = std::move(decorators);
  const Token& name = expect(TokenKind::kName, "after 'def'");
  s->name = name.text;
  s->name_span = name.span;
  if (!check(TokenKind::kLParen)) {
    unexpected("expected '(' after function name, found " + describe(peek()),
               "a function definition looks like: def " + name.text + "(x, y):");
  }
  advance();
  s->params = parameters(TokenKind::kRParen, true);
  expect(TokenKind::kRParen, "to close the parameter list");
  if (match(TokenKind::kArrow)) s->returns = expression();
  expect_colon("function signature");
  s->span = Span::cover(start.span, previous().span);
  s->body = block("function definition", def);
  lift_docstring(s->body, s->docstring, s->docstring_span);
  return s;
}

Stmt* Parser::class_def(std::vector<Expr*> decorators) {
  const Token& kw = advance();
  auto* s = make<ClassDef>(kw.span);
  s->decorators = std::move(decorators);
  const Token& name = expect(TokenKind::kName, "after 'class'");
  s->name = name.text;
  s->name_span = name.span;
  if (match(TokenKind::kLParen)) call_arguments(s->bases, s->keywords, "class bases");
  expect_colon("class header");
  s->span = Span::cover(kw.span, previous().span);
  s->body = block("class definition", kw);
  lift_docstring(s->body, s->docstring, s->docstring_span);
  return s;
}

Stmt* Parser::if_statement(int elif_index) {
  bool is_elif = elif_index > 0;
  if (elif_index > kMaxElifBranches) {
    fail(code::kTooDeeplyNested, peek().span,
         "too many 'elif' branches (more than " + std::to_string(kMaxElifBranches) + ")",
         "split the chain with a nested 'if' in an 'else' block");
  }
  const Token& kw = advance();
  auto* s = make<If>(kw.span);
  s->is_elif = is_elif;
  s->test = named_expression();
  expect_colon(is_elif ? "'elif' condition" : "'if' condition", true);
  s->span = Span::cover(kw.span, previous().span);
  s->body = block(is_elif ? "'elif' statement" : "'if' statement", kw);
  if (check(TokenKind::kElif)) {
    s->orelse.push_back(if_statement(elif_index + 1));
  } else if (check(TokenKind::kElse)) {
    const Token& else_kw = advance();
    expect_colon("'else'");
    s->orelse = block("'else' statement", else_kw);
  }
  return s;
}

Stmt* Parser::while_statement() {
  const Token& kw = advance();
  auto* s = make<While>(kw.span);
  s->test = named_expression();
  expect_colon("'while' condition", true);
  s->span = Span::cover(kw.span, previous().span);
  s->body = block("'while' statement", kw);
  if (check(TokenKind::kElse)) {
    const Token& else_kw = advance();
    expect_colon("'else'");
    s->orelse = block("'else' statement", else_kw);
  }
  return s;
}

Stmt* Parser::for_statement(const Token* async_token) {
  const Token& kw = advance();
  const Token& start = async_token ? *async_token : kw;
  auto* s = make<For>(start.span);
  s->is_async = async_token != nullptr;
  s->target = target_list(TokenKind::kIn);
  check_target(s->target, false);
  if (!check(TokenKind::kIn)) {
    unexpected("expected 'in' after 'for' target, found " + describe(peek()),
               "a loop looks like: for x in range(n):");
  }
  advance();
  s->iter = star_expressions();
  expect_colon("'for' header");
  s->span = Span::cover(start.span, previous().span);
  s->body = block("'for' statement", kw);
  if (check(TokenKind::kElse)) {
    const Token& else_kw = advance();
    expect_colon("'else'");
    s->orelse = block("'else' statement", else_kw);
  }
  return s;
}

Stmt* Parser::try_statement() {
  const Token& kw = advance();
  auto* s = make<Try>(kw.span);
  expect_colon("'try'");
  s->body = block("'try' statement", kw);
  while (check(TokenKind::kExcept)) {
    const Token& except_kw = advance();
    ExceptHandler h;
    h.span = except_kw.span;
    if (!check(TokenKind::kColon)) {
      h.type = expression();
      if (match(TokenKind::kComma)) {
        fail(code::kPython2Syntax, previous().span,
             "multiple exception types must be parenthesized", "write: except (A, B) as e:");
      }
      if (match(TokenKind::kAs)) h.name = expect(TokenKind::kName, "after 'as'").text;
    }
    expect_colon("'except' clause");
    h.span = Span::cover(except_kw.span, previous().span);
    h.body = block("'except' statement", except_kw);
    s->handlers.push_back(std::move(h));
  }
  if (check(TokenKind::kElse)) {
    const Token& else_kw = advance();
    expect_colon("'else'");
    s->orelse = block("'else' statement", else_kw);
  }
  if (check(TokenKind::kFinally)) {
    const Token& fin = advance();
    expect_colon("'finally'");
    s->finalbody = block("'finally' statement", fin);
  }
  if (s->handlers.empty() && s->finalbody.empty()) {
    fail(code::kUnexpectedToken, kw.span, "'try' without 'except' or 'finally'",
         "add an 'except ...:' or 'finally:' block");
  }
  return s;
}

Stmt* Parser::with_statement(const Token* async_token) {
  const Token& kw = advance();
  const Token& start = async_token ? *async_token : kw;
  auto* s = make<With>(start.span);
  s->is_async = async_token != nullptr;
  do {
    WithItem item;
    item.context = expression();
    if (match(TokenKind::kAs)) {
      item.target = target_element();
      check_target(item.target, false);
    }
    s->items.push_back(item);
  } while (match(TokenKind::kComma));
  expect_colon("'with' items");
  s->span = Span::cover(start.span, previous().span);
  s->body = block("'with' statement", kw);
  return s;
}

std::string Parser::dotted_name() {
  std::string name = expect(TokenKind::kName, "in module name").text;
  while (match(TokenKind::kDot)) name += "." + expect(TokenKind::kName, "after '.'").text;
  return name;
}

Stmt* Parser::import_statement() {
  const Token& kw = advance();
  auto* s = make<Import>(kw.span);
  do {
    Alias a;
    uint32_t begin = peek().span.begin;
    a.name = dotted_name();
    if (match(TokenKind::kAs)) a.asname = expect(TokenKind::kName, "after 'as'").text;
    a.span = {begin, previous().span.end};
    s->names.push_back(std::move(a));
  } while (match(TokenKind::kComma));
  s->span = Span::cover(kw.span, previous().span);
  return s;
}

Stmt* Parser::from_import_statement() {
  const Token& kw = advance();
  auto* s = make<ImportFrom>(kw.span);
  while (true) {
    if (match(TokenKind::kDot)) {
      ++s->level;
    } else if (match(TokenKind::kEllipsis)) {
      s->level += 3;
    } else {
      break;
    }
  }
  if (!check(TokenKind::kImport) || s->level == 0) s->module = dotted_name();
  if (!check(TokenKind::kImport)) {
    unexpected("expected 'import' after module name, found " + describe(peek()),
               "write: from module import name");
  }
  advance();
  if (check(TokenKind::kStar)) {
    Alias a;
    a.name = "*";
    a.span = advance().span;
    s->names.push_back(std::move(a));
  } else {
    bool parens = match(TokenKind::kLParen);
    do {
      if (parens && check(TokenKind::kRParen)) break;
      const Token& name = expect(TokenKind::kName, "to import");
      Alias a;
      a.name = name.text;
      if (match(TokenKind::kAs)) a.asname = expect(TokenKind::kName, "after 'as'").text;
      a.span = Span::cover(name.span, previous().span);
      s->names.push_back(std::move(a));
    } while (match(TokenKind::kComma));
    if (parens) expect(TokenKind::kRParen, "to close the import list");
  }
  s->span = Span::cover(kw.span, previous().span);
  return s;
}

}  // namespace detail

namespace {

ParseResult run(const SourceFile& file, bool single_expression) {
  ParseResult result;
  DiagnosticSink sink;
  std::vector<Token> tokens = tokenize(file, sink);
  if (!sink.full()) {
    detail::Parser parser(file, std::move(tokens), sink, result.module);
    if (single_expression) {
      parser.parse_single_expression();
    } else {
      parser.parse_module();
    }
  }
  result.diagnostics = sink.take();
  return result;
}

}  // namespace

ParseResult parse(const SourceFile& file) {
  return run(file, false);
}
ParseResult parse_expression(const SourceFile& file) {
  return run(file, true);
}

}  // namespace oxs::script
