// Argument lists, parameter lists and assignment targets of the parser.
#include <set>
#include <string>

#include "oxs/script/front/parser_impl.h"

namespace oxs::script::detail {

// After '(' up to and including ')'.
void Parser::call_arguments(std::vector<Expr*>& args, std::vector<Keyword>& keywords,
                            std::string_view what) {
  DepthScope scope(*this);
  deeper();
  std::set<std::string> seen;
  bool keyword_seen = false;    // name=value
  bool unpacking_seen = false;  // **mapping
  while (!check(TokenKind::kRParen)) {
    const Token& start = peek();
    if (match(TokenKind::kStar)) {
      auto* s = make<Starred>(start.span);
      s->value = expression();
      s->span = Span::cover(start.span, s->value->span);
      if (unpacking_seen) {
        fail(code::kInvalidArguments, s->span,
             "iterable argument unpacking follows keyword argument unpacking");
      }
      args.push_back(s);
    } else if (match(TokenKind::kDoubleStar)) {
      Keyword k;
      k.value = expression();
      k.span = Span::cover(start.span, k.value->span);
      keywords.push_back(std::move(k));
      unpacking_seen = true;
    } else if (check(TokenKind::kName) && peek(1).kind == TokenKind::kEqual) {
      advance();
      advance();
      Keyword k;
      k.arg = start.text;
      k.value = expression();
      k.span = Span::cover(start.span, k.value->span);
      if (!seen.insert(k.arg).second) {
        fail(code::kInvalidArguments, start.span, "keyword argument repeated: '" + k.arg + "'");
      }
      keywords.push_back(std::move(k));
      keyword_seen = true;
    } else {
      Expr* e = named_expression();
      if (check(TokenKind::kFor) || check(TokenKind::kAsync)) {
        bool alone = args.empty() && keywords.empty();
        Comp* c = make_comp(ExprKind::kGeneratorExp, e->span, e, nullptr);
        c->span = Span::cover(e->span, previous().span);
        if (!alone || !check(TokenKind::kRParen)) {
          fail(code::kInvalidArguments, c->span, "generator expression must be parenthesized",
               "write f((x for x in y), z)");
        }
        e = c;
      }
      if (check(TokenKind::kEqual)) {
        fail(code::kAssignInExpression, Span::cover(e->span, peek().span),
             "expression cannot contain assignment, perhaps you meant \"==\"?",
             "a keyword argument is a plain name: f(name=value)");
      }
      if (keyword_seen || unpacking_seen) {
        fail(code::kInvalidArguments, e->span,
             unpacking_seen ? "positional argument follows keyword argument unpacking"
                            : "positional argument follows keyword argument",
             "put positional arguments before keyword arguments");
      }
      args.push_back(e);
    }
    if (match(TokenKind::kComma)) continue;
    if (check(TokenKind::kRParen)) break;
    if (starts_expression(peek().kind)) {
      fail(code::kMissingComma, Span::cover(start.span, peek().span),
           "invalid syntax. Perhaps you forgot a comma?");
    }
    unexpected("expected ',' or ')' in " + std::string(what) + ", found " + describe(peek()));
  }
  advance();
}

// Up to (not including) `end`.
std::vector<Param> Parser::parameters(TokenKind end, bool annotations) {
  std::vector<Param> params;
  std::set<std::string> names;
  bool seen_slash = false, seen_star = false, seen_kwargs = false, seen_default = false;
  Span bare_star;
  bool bare_star_pending = false;
  auto param_name = [&](Param& p, const Token& start) {
    if (!check(TokenKind::kName)) {
      unexpected("expected parameter name, found " + describe(peek()));
    }
    const Token& name = advance();
    p.name = name.text;
    p.span = Span::cover(start.span, name.span);
    if (!names.insert(p.name).second) {
      fail(code::kInvalidParameters, name.span,
           "duplicate parameter '" + p.name + "' in function definition");
    }
    if (annotations && match(TokenKind::kColon)) p.annotation = expression();
  };
  while (!check(end)) {
    const Token& start = peek();
    if (seen_kwargs) {
      fail(code::kInvalidParameters, start.span, "parameters cannot follow '**' parameter",
           "make '**' the last parameter");
    }
    if (match(TokenKind::kSlash)) {
      if (seen_slash || seen_star || params.empty()) {
        fail(code::kInvalidParameters, start.span,
             params.empty() ? "at least one parameter must precede '/'"
                            : "'/' may appear only once, before '*'");
      }
      seen_slash = true;
      for (Param& p : params) p.kind = ParamKind::kPositionalOnly;
    } else if (match(TokenKind::kStar)) {
      if (seen_star) {
        fail(code::kInvalidParameters, start.span, "'*' may appear only once");
      }
      seen_star = true;
      if (check(TokenKind::kComma) || check(end)) {
        bare_star = start.span;
        bare_star_pending = true;
      } else {
        Param p;
        p.kind = ParamKind::kVarArgs;
        param_name(p, start);
        params.push_back(std::move(p));
      }
    } else if (match(TokenKind::kDoubleStar)) {
      Param p;
      p.kind = ParamKind::kVarKeywords;
      param_name(p, start);
      if (check(TokenKind::kEqual)) {
        fail(code::kInvalidParameters, peek().span, "'**' parameter cannot have a default");
      }
      params.push_back(std::move(p));
      seen_kwargs = true;
    } else {
      Param p;
      p.kind = seen_star ? ParamKind::kKeywordOnly : ParamKind::kNormal;
      param_name(p, start);
      if (match(TokenKind::kEqual)) {
        p.default_value = expression();
        seen_default = true;
      } else if (seen_default && !seen_star) {
        fail(code::kInvalidParameters, p.span,
             "parameter without a default follows parameter with a default",
             "give '" + p.name +
                 "' a default value, or move it before the parameters with "
                 "defaults");
      }
      params.push_back(std::move(p));
      bare_star_pending = false;
    }
    if (match(TokenKind::kComma)) continue;
    if (check(TokenKind::kName)) {
      fail(code::kMissingComma, Span::cover(previous().span, peek().span),
           "invalid syntax. Perhaps you forgot a comma?");
    }
    break;
  }
  if (bare_star_pending) {
    fail(code::kInvalidParameters, bare_star, "named parameters must follow bare '*'");
  }
  return params;
}

const char* Parser::describe_expr(const Expr* e) {
  switch (e->kind) {
    case ExprKind::kCall:
      return "function call";
    case ExprKind::kConstant: {
      const auto& c = e->as<Constant>();
      if (c.value_kind == ConstantKind::kNone) return "None";
      if (c.value_kind == ConstantKind::kBool) return c.bool_value ? "True" : "False";
      if (c.value_kind == ConstantKind::kEllipsis) return "ellipsis";
      return "literal";
    }
    case ExprKind::kBinOp:
    case ExprKind::kUnaryOp:
    case ExprKind::kBoolOp:
      return "expression";
    case ExprKind::kCompare:
      return "comparison";
    case ExprKind::kLambda:
      return "lambda";
    case ExprKind::kIfExp:
      return "conditional expression";
    case ExprKind::kDict:
      return "dict literal";
    case ExprKind::kSet:
      return "set display";
    case ExprKind::kListComp:
      return "list comprehension";
    case ExprKind::kSetComp:
      return "set comprehension";
    case ExprKind::kDictComp:
      return "dict comprehension";
    case ExprKind::kGeneratorExp:
      return "generator expression";
    case ExprKind::kAwait:
      return "await expression";
    case ExprKind::kYield:
    case ExprKind::kYieldFrom:
      return "yield expression";
    case ExprKind::kNamedExpr:
      return "named expression";
    case ExprKind::kAttribute:
      return "attribute";
    case ExprKind::kSubscript:
      return "subscript";
    case ExprKind::kStarred:
      return "starred";
    case ExprKind::kName:
      return "name";
    case ExprKind::kList:
      return "list";
    case ExprKind::kTuple:
      return "tuple";
    case ExprKind::kSlice:
      return "slice";
  }
  return "expression";
}

void Parser::check_target(const Expr* target, bool del) {
  switch (target->kind) {
    case ExprKind::kName:
    case ExprKind::kAttribute:
    case ExprKind::kSubscript:
      return;
    case ExprKind::kStarred:
      if (del) break;
      check_target(target->as<Starred>().value, del);
      return;
    case ExprKind::kTuple:
      for (const Expr* e : target->as<Tuple>().elts) check_target(e, del);
      return;
    case ExprKind::kList:
      for (const Expr* e : target->as<List>().elts) check_target(e, del);
      return;
    default:
      break;
  }
  std::string hint;
  if (!del && (target->kind == ExprKind::kCompare || target->kind == ExprKind::kCall ||
               target->kind == ExprKind::kConstant)) {
    hint = "to compare values, use '==' instead of '='";
  }
  fail(code::kInvalidTarget, target->span,
       std::string(del ? "cannot delete " : "cannot assign to ") + describe_expr(target),
       std::move(hint));
}

}  // namespace oxs::script::detail
