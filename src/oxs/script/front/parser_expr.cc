// Expressions of the recursive-descent parser, in Python's precedence order:
// lambda < if-else < or < and < not < comparisons < | < ^ < & < shifts <
// + - < * / // % @ < unary - + ~ < ** < await < primary < atom.
#include <limits>
#include <set>
#include <utility>

#include "oxs/script/front/parser_impl.h"

namespace oxs::script::detail {

namespace {

struct BinaryLevel {
  TokenKind token;
  BinOpKind op;
};
// Binary levels from loosest (0: '|') to tightest (5: '*' ...).
constexpr int kBinaryLevels = 6;
constexpr BinaryLevel kBinary[kBinaryLevels][5] = {
    {{TokenKind::kVBar, BinOpKind::kBitOr}},
    {{TokenKind::kCircumflex, BinOpKind::kBitXor}},
    {{TokenKind::kAmper, BinOpKind::kBitAnd}},
    {{TokenKind::kLeftShift, BinOpKind::kLShift}, {TokenKind::kRightShift, BinOpKind::kRShift}},
    {{TokenKind::kPlus, BinOpKind::kAdd}, {TokenKind::kMinus, BinOpKind::kSub}},
    {{TokenKind::kStar, BinOpKind::kMult},
     {TokenKind::kSlash, BinOpKind::kDiv},
     {TokenKind::kDoubleSlash, BinOpKind::kFloorDiv},
     {TokenKind::kPercent, BinOpKind::kMod},
     {TokenKind::kAt, BinOpKind::kMatMult}},
};
constexpr int kBinaryLevelSize[kBinaryLevels] = {1, 1, 1, 2, 2, 5};

}  // namespace

Expr* Parser::star_expressions() {
  Expr* first = star_expression();
  if (!check(TokenKind::kComma)) return first;
  auto* t = make<Tuple>(first->span);
  t->elts.push_back(first);
  while (match(TokenKind::kComma)) {
    if (!starts_expression(peek().kind)) break;
    t->elts.push_back(star_expression());
  }
  t->span = Span::cover(first->span, previous().span);
  return t;
}

Expr* Parser::star_expressions_or_yield() {
  if (check(TokenKind::kYield)) return yield_expression();
  return star_expressions();
}

Expr* Parser::star_expression() {
  if (!check(TokenKind::kStar)) return expression();
  const Token& star = advance();
  auto* s = make<Starred>(star.span);
  s->value = binary(0);
  s->span = Span::cover(star.span, s->value->span);
  return s;
}

Expr* Parser::star_named_expression() {
  if (!check(TokenKind::kStar)) return named_expression();
  return star_expression();
}

Expr* Parser::named_expression() {
  if (check(TokenKind::kName) && peek(1).kind == TokenKind::kColonEqual) {
    DepthScope scope(*this);
    deeper();
    const Token& name = advance();
    advance();
    auto* target = make<Name>(name.span);
    target->id = name.text;
    auto* n = make<NamedExpr>(name.span);
    n->target = target;
    n->value = expression();
    n->span = Span::cover(name.span, n->value->span);
    return n;
  }
  Expr* e = expression();
  if (check(TokenKind::kColonEqual)) {
    fail(code::kInvalidTarget, e->span,
         std::string("cannot use assignment expressions with ") + describe_expr(e),
         "':=' assigns to a plain name only");
  }
  return e;
}

Expr* Parser::expression() {
  DepthScope scope(*this);
  deeper();
  if (check(TokenKind::kLambda)) return lambda();
  Expr* body = disjunction();
  if (!check(TokenKind::kIf)) return body;
  advance();
  auto* e = make<IfExp>(body->span);
  e->body = body;
  e->test = disjunction();
  if (!check(TokenKind::kElse)) {
    unexpected("expected 'else' after 'if' expression, found " + describe(peek()),
               "a conditional expression looks like: a if condition else b");
  }
  advance();
  e->orelse = expression();
  e->span = Span::cover(body->span, e->orelse->span);
  return e;
}

Expr* Parser::lambda() {
  const Token& kw = advance();
  auto* l = make<Lambda>(kw.span);
  l->params = parameters(TokenKind::kColon, false);
  expect_colon("lambda parameters");
  l->body = expression();
  l->span = Span::cover(kw.span, l->body->span);
  return l;
}

Expr* Parser::disjunction() {
  Expr* first = conjunction();
  if (!check(TokenKind::kOr)) return first;
  auto* b = make<BoolOp>(first->span);
  b->op = BoolOpKind::kOr;
  b->values.push_back(first);
  while (match(TokenKind::kOr)) b->values.push_back(conjunction());
  b->span = Span::cover(first->span, b->values.back()->span);
  return b;
}

Expr* Parser::conjunction() {
  Expr* first = inversion();
  if (!check(TokenKind::kAnd)) return first;
  auto* b = make<BoolOp>(first->span);
  b->op = BoolOpKind::kAnd;
  b->values.push_back(first);
  while (match(TokenKind::kAnd)) b->values.push_back(inversion());
  b->span = Span::cover(first->span, b->values.back()->span);
  return b;
}

Expr* Parser::inversion() {
  if (!check(TokenKind::kNot)) return comparison();
  DepthScope scope(*this);
  deeper();
  const Token& kw = advance();
  auto* u = make<UnaryOp>(kw.span);
  u->op = UnaryOpKind::kNot;
  u->operand = inversion();
  u->span = Span::cover(kw.span, u->operand->span);
  return u;
}

Expr* Parser::comparison() {
  Expr* left = binary(0);
  Compare* c = nullptr;
  while (true) {
    CmpOpKind op;
    switch (peek().kind) {
      case TokenKind::kEqEqual:
        op = CmpOpKind::kEq;
        break;
      case TokenKind::kNotEqual:
        op = CmpOpKind::kNotEq;
        break;
      case TokenKind::kLess:
        op = CmpOpKind::kLt;
        break;
      case TokenKind::kLessEqual:
        op = CmpOpKind::kLtE;
        break;
      case TokenKind::kGreater:
        op = CmpOpKind::kGt;
        break;
      case TokenKind::kGreaterEqual:
        op = CmpOpKind::kGtE;
        break;
      case TokenKind::kIn:
        op = CmpOpKind::kIn;
        break;
      case TokenKind::kIs:
        op = peek(1).kind == TokenKind::kNot ? CmpOpKind::kIsNot : CmpOpKind::kIs;
        break;
      case TokenKind::kNot:
        if (peek(1).kind != TokenKind::kIn) return c ? c : left;
        op = CmpOpKind::kNotIn;
        break;
      default:
        return c ? c : left;
    }
    advance();
    if (op == CmpOpKind::kIsNot || op == CmpOpKind::kNotIn) advance();
    if (!c) {
      c = make<Compare>(left->span);
      c->left = left;
    }
    c->ops.push_back(op);
    c->comparators.push_back(binary(0));
    c->span = Span::cover(left->span, c->comparators.back()->span);
  }
}

Expr* Parser::binary(int level) {
  if (level == kBinaryLevels) return factor();
  DepthScope scope(*this);
  Expr* left = binary(level + 1);
  while (true) {
    const BinaryLevel* found = nullptr;
    for (int i = 0; i < kBinaryLevelSize[level]; ++i) {
      if (check(kBinary[level][i].token)) found = &kBinary[level][i];
    }
    if (!found) return left;
    // A chain a+b+c+... builds a tree as deep as it is long.
    deeper();
    const Token& op = advance();
    auto* b = make<BinOp>(left->span);
    b->op = found->op;
    b->op_span = op.span;
    b->left = left;
    b->right = binary(level + 1);
    b->span = Span::cover(left->span, b->right->span);
    left = b;
  }
}

Expr* Parser::factor() {
  UnaryOpKind op;
  switch (peek().kind) {
    case TokenKind::kMinus:
      op = UnaryOpKind::kUSub;
      break;
    case TokenKind::kPlus:
      op = UnaryOpKind::kUAdd;
      break;
    case TokenKind::kTilde:
      op = UnaryOpKind::kInvert;
      break;
    default:
      return power();
  }
  DepthScope scope(*this);
  deeper();
  const Token& t = advance();
  Expr* operand = factor();
  if (operand == pending_int64_min_ && op == UnaryOpKind::kUSub) {
    // -9223372036854775808 is the one literal whose magnitude needs the minus.
    pending_int64_min_ = nullptr;
    operand->span = Span::cover(t.span, operand->span);
    return operand;
  }
  auto* u = make<UnaryOp>(t.span);
  u->op = op;
  u->operand = operand;
  u->span = Span::cover(t.span, operand->span);
  return u;
}

Expr* Parser::power() {
  Expr* base = await_primary();
  if (!check(TokenKind::kDoubleStar)) return base;
  DepthScope scope(*this);
  deeper();
  const Token& op = advance();
  auto* b = make<BinOp>(base->span);
  b->op = BinOpKind::kPow;
  b->op_span = op.span;
  b->left = base;
  b->right = factor();  // right-associative, and binds a unary on its right
  b->span = Span::cover(base->span, b->right->span);
  return b;
}

Expr* Parser::await_primary() {
  if (!check(TokenKind::kAwait)) return primary();
  DepthScope scope(*this);
  deeper();
  const Token& kw = advance();
  auto* a = make<Await>(kw.span);
  a->value = primary();
  a->span = Span::cover(kw.span, a->value->span);
  return a;
}

Expr* Parser::primary() {
  DepthScope scope(*this);
  Expr* e = atom();
  while (true) {
    if (check(TokenKind::kDot)) {
      deeper();
      advance();
      const Token& name = expect(TokenKind::kName, "after '.'");
      auto* a = make<Attribute>(Span::cover(e->span, name.span));
      a->value = e;
      a->attr = name.text;
      a->attr_span = name.span;
      e = a;
    } else if (check(TokenKind::kLParen)) {
      deeper();
      advance();
      auto* c = make<Call>(e->span);
      c->func = e;
      call_arguments(c->args, c->keywords, "call arguments");
      c->span = Span::cover(e->span, previous().span);
      e = c;
    } else if (check(TokenKind::kLBracket)) {
      deeper();
      advance();
      auto* s = make<Subscript>(e->span);
      s->value = e;
      s->slice = subscript_index();
      expect(TokenKind::kRBracket, "to close the subscript");
      s->span = Span::cover(e->span, previous().span);
      e = s;
    } else {
      return e;
    }
  }
}

Expr* Parser::atom() {
  const Token& t = peek();
  auto constant = [&](ConstantKind kind) {
    advance();
    auto* c = make<Constant>(t.span);
    c->value_kind = kind;
    return c;
  };
  switch (t.kind) {
    case TokenKind::kName: {
      advance();
      auto* n = make<Name>(t.span);
      n->id = t.text;
      return n;
    }
    case TokenKind::kTrue:
    case TokenKind::kFalse: {
      auto* c = constant(ConstantKind::kBool);
      c->bool_value = t.kind == TokenKind::kTrue;
      return c;
    }
    case TokenKind::kNone:
      return constant(ConstantKind::kNone);
    case TokenKind::kEllipsis:
      return constant(ConstantKind::kEllipsis);
    case TokenKind::kInt:
      return number();
    case TokenKind::kFloat: {
      auto* c = constant(ConstantKind::kFloat);
      c->float_value = t.float_value;
      return c;
    }
    case TokenKind::kImaginary:
      fail(code::kUnsupportedSyntax, t.span, "complex literals are not supported",
           "ONNX Script has no complex constants");
    case TokenKind::kString:
    case TokenKind::kBytes:
    case TokenKind::kFString:
      return strings();
    case TokenKind::kLParen:
      return parenthesized();
    case TokenKind::kLBracket:
      return list_display();
    case TokenKind::kLBrace:
      return brace_display();
    case TokenKind::kYield:
      fail(code::kUnexpectedToken, t.span, "'yield' expression must be parenthesized here",
           "write (yield x)");
    default:
      unexpected("expected an expression, found " + describe(t));
  }
}

Expr* Parser::number() {
  const Token& t = advance();
  auto* c = make<Constant>(t.span);
  c->value_kind = ConstantKind::kInt;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (!t.int_overflow && t.int_value <= kMax) {
    c->int_value = static_cast<int64_t>(t.int_value);
    return c;
  }
  bool after_minus = pos_ >= 2 && tokens_[pos_ - 2].kind == TokenKind::kMinus;
  TokenKind next = peek().kind;
  if (!t.int_overflow && t.int_value == kMax + 1 && after_minus && next != TokenKind::kDoubleStar &&
      next != TokenKind::kDot && next != TokenKind::kLParen && next != TokenKind::kLBracket) {
    c->int_value = std::numeric_limits<int64_t>::min();
    pending_int64_min_ = c;
    return c;
  }
  fail(code::kIntegerTooLarge, t.span, "integer literal " + t.text + " does not fit in int64",
       "ONNX integers are at most 9223372036854775807");
}

Expr* Parser::strings() {
  Span span = peek().span;
  std::string value;
  bool bytes = check(TokenKind::kBytes);
  while (check(TokenKind::kString) || check(TokenKind::kBytes) || check(TokenKind::kFString)) {
    const Token& t = advance();
    if (t.kind == TokenKind::kFString) {
      fail(code::kUnsupportedSyntax, t.span, "f-strings are not supported in ONNX Script",
           "use a plain string literal");
    }
    if ((t.kind == TokenKind::kBytes) != bytes) {
      fail(code::kMixedBytesAndStr, Span::cover(span, t.span), "cannot mix bytes and str literals",
           "use either b'...' or '...' for all parts");
    }
    value += t.text;
    span = Span::cover(span, t.span);
  }
  auto* c = make<Constant>(span);
  c->value_kind = bytes ? ConstantKind::kBytes : ConstantKind::kStr;
  c->str_value = std::move(value);
  return c;
}

Comp* Parser::make_comp(ExprKind kind, Span span, Expr* elt, Expr* value) {
  auto* c = make<Comp>(span, kind);
  c->elt = elt;
  c->value = value;
  comprehension_clauses(c->generators);
  return c;
}

Expr* Parser::parenthesized() {
  DepthScope scope(*this);
  deeper();
  const Token& open = advance();
  if (match(TokenKind::kRParen)) {
    auto* t = make<Tuple>(Span::cover(open.span, previous().span));
    t->parenthesized = true;
    return t;
  }
  if (check(TokenKind::kYield)) {
    Expr* y = yield_expression();
    expect(TokenKind::kRParen, "to close the parenthesis");
    return y;
  }
  Expr* first = star_named_expression();
  if (check(TokenKind::kFor) || check(TokenKind::kAsync)) {
    Comp* c = make_comp(ExprKind::kGeneratorExp, open.span, first, nullptr);
    expect(TokenKind::kRParen, "to close the generator expression");
    c->span = Span::cover(open.span, previous().span);
    return c;
  }
  if (match(TokenKind::kRParen)) {
    if (first->kind == ExprKind::kStarred) {
      fail(code::kUnexpectedToken, first->span, "cannot use starred expression here",
           "a starred expression needs a tuple: write (*x,)");
    }
    return first;
  }
  auto* t = make<Tuple>(open.span);
  t->parenthesized = true;
  t->elts.push_back(first);
  while (match(TokenKind::kComma)) {
    if (check(TokenKind::kRParen)) break;
    t->elts.push_back(star_named_expression());
  }
  if (starts_expression(peek().kind)) {
    fail(code::kMissingComma, Span::cover(t->elts.back()->span, peek().span),
         "invalid syntax. Perhaps you forgot a comma?");
  }
  expect(TokenKind::kRParen, "to close the parenthesis");
  t->span = Span::cover(open.span, previous().span);
  return t;
}

Expr* Parser::list_display() {
  DepthScope scope(*this);
  deeper();
  const Token& open = advance();
  auto* l = make<List>(open.span);
  if (!check(TokenKind::kRBracket)) {
    Expr* first = star_named_expression();
    if (check(TokenKind::kFor) || check(TokenKind::kAsync)) {
      Comp* c = make_comp(ExprKind::kListComp, open.span, first, nullptr);
      expect(TokenKind::kRBracket, "to close the list comprehension");
      c->span = Span::cover(open.span, previous().span);
      return c;
    }
    l->elts.push_back(first);
    while (match(TokenKind::kComma)) {
      if (check(TokenKind::kRBracket)) break;
      l->elts.push_back(star_named_expression());
    }
    if (starts_expression(peek().kind)) {
      fail(code::kMissingComma, Span::cover(l->elts.back()->span, peek().span),
           "invalid syntax. Perhaps you forgot a comma?");
    }
  }
  expect(TokenKind::kRBracket, "to close the list");
  l->span = Span::cover(open.span, previous().span);
  return l;
}

Expr* Parser::brace_display() {
  DepthScope scope(*this);
  deeper();
  const Token& open = advance();
  if (match(TokenKind::kRBrace)) return make<Dict>(Span::cover(open.span, previous().span));
  // Decide dict or set from the first item.
  bool is_dict = check(TokenKind::kDoubleStar);
  Expr* first_key = nullptr;
  Expr* first_value = nullptr;
  if (is_dict) {
    advance();
    first_value = binary(0);
  } else {
    first_key = star_named_expression();
    if (match(TokenKind::kColon)) {
      is_dict = true;
      first_value = expression();
    }
  }
  if (check(TokenKind::kFor) || check(TokenKind::kAsync)) {
    if (is_dict && !first_key) {
      fail(code::kUnexpectedToken, first_value->span,
           "dict unpacking cannot be used in dict comprehension");
    }
    Comp* c = make_comp(is_dict ? ExprKind::kDictComp : ExprKind::kSetComp, open.span, first_key,
                        first_value);
    expect(TokenKind::kRBrace, "to close the comprehension");
    c->span = Span::cover(open.span, previous().span);
    return c;
  }
  if (is_dict) {
    auto* d = make<Dict>(open.span);
    d->keys.push_back(first_key);
    d->values.push_back(first_value);
    while (match(TokenKind::kComma)) {
      if (check(TokenKind::kRBrace)) break;
      if (match(TokenKind::kDoubleStar)) {
        d->keys.push_back(nullptr);
        d->values.push_back(binary(0));
        continue;
      }
      d->keys.push_back(expression());
      expect(TokenKind::kColon, "after dict key");
      d->values.push_back(expression());
    }
    expect(TokenKind::kRBrace, "to close the dict");
    d->span = Span::cover(open.span, previous().span);
    return d;
  }
  auto* s = make<Set>(open.span);
  s->elts.push_back(first_key);
  while (match(TokenKind::kComma)) {
    if (check(TokenKind::kRBrace)) break;
    s->elts.push_back(star_named_expression());
  }
  expect(TokenKind::kRBrace, "to close the set");
  s->span = Span::cover(open.span, previous().span);
  return s;
}

Expr* Parser::yield_expression() {
  const Token& kw = advance();
  if (match(TokenKind::kFrom)) {
    auto* y = make<Yield>(kw.span, ExprKind::kYieldFrom);
    y->value = expression();
    y->span = Span::cover(kw.span, y->value->span);
    return y;
  }
  auto* y = make<Yield>(kw.span, ExprKind::kYield);
  if (starts_expression(peek().kind)) {
    y->value = star_expressions();
    y->span = Span::cover(kw.span, y->value->span);
  }
  return y;
}

void Parser::comprehension_clauses(std::vector<Comprehension>& out) {
  while (check(TokenKind::kFor) || (check(TokenKind::kAsync) && peek(1).kind == TokenKind::kFor)) {
    Comprehension g;
    g.is_async = match(TokenKind::kAsync);
    advance();
    g.target = target_list(TokenKind::kIn);
    check_target(g.target, false);
    if (!check(TokenKind::kIn)) {
      unexpected("expected 'in' after comprehension target, found " + describe(peek()));
    }
    advance();
    g.iter = disjunction();
    while (match(TokenKind::kIf)) g.ifs.push_back(disjunction());
    out.push_back(std::move(g));
  }
}

Expr* Parser::subscript_index() {
  Span begin = peek().span;
  Expr* first = slice_item();
  if (!check(TokenKind::kComma)) return first;
  auto* t = make<Tuple>(begin);
  t->elts.push_back(first);
  while (match(TokenKind::kComma)) {
    if (check(TokenKind::kRBracket)) break;
    t->elts.push_back(slice_item());
  }
  t->span = Span::cover(begin, previous().span);
  return t;
}

Expr* Parser::slice_item() {
  Span begin = peek().span;
  Expr* lower = nullptr;
  if (!check(TokenKind::kColon)) {
    lower = check(TokenKind::kStar) ? star_expression() : named_expression();
    if (!check(TokenKind::kColon)) return lower;
  }
  advance();
  auto* s = make<Slice>(begin);
  s->lower = lower;
  auto ends = [&] {
    return check(TokenKind::kColon) || check(TokenKind::kRBracket) || check(TokenKind::kComma);
  };
  if (!ends()) s->upper = expression();
  if (match(TokenKind::kColon) && !ends()) s->step = expression();
  s->span = Span::cover(begin, previous().span);
  return s;
}

// Targets of `for` and comprehensions stop before `in`, so they are parsed
// at the level of '|' operands rather than as full expressions.
Expr* Parser::target_list(TokenKind stop) {
  Expr* first = target_element();
  if (!check(TokenKind::kComma)) return first;
  auto* t = make<Tuple>(first->span);
  t->elts.push_back(first);
  while (match(TokenKind::kComma)) {
    if (check(stop) || !starts_expression(peek().kind)) break;
    t->elts.push_back(target_element());
  }
  t->span = Span::cover(first->span, previous().span);
  return t;
}

Expr* Parser::target_element() {
  if (!check(TokenKind::kStar)) return binary(0);
  const Token& star = advance();
  auto* s = make<Starred>(star.span);
  s->value = binary(0);
  s->span = Span::cover(star.span, s->value->span);
  return s;
}

}  // namespace oxs::script::detail
