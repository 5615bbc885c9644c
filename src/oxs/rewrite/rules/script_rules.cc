#include "oxs/rewrite/rules/script_rules.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <variant>

#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/rewrite/core/constants.h"
#include "oxs/rewrite/pattern/from_body.h"
#include "oxs/script/compile.h"
#include "oxs/script/front/ast.h"
#include "oxs/script/front/parser.h"

namespace oxs::rewrite {
namespace {

namespace sc = oxs::script;

[[noreturn]] void fail_at(const sc::SourceFile& f, sc::Span span, const std::string& msg) {
  sc::LineCol lc = f.line_col(span.begin);
  throw Error(ErrorKind::Input, msg,
              {.file = f.name(), .line = int(lc.line), .column = int(lc.column)});
}

bool is_rule_function(const std::string& name) {
  return name == "pattern" || name == "check" || name == "rewrite";
}

bool is_ignored_param(const std::string& name) {
  return name == "self" || name == "op" || name == "_";
}

// Blanks the leading self/op/_ parameters of pattern/check/rewrite with
// spaces, so that the compiler sees plain script functions and every
// line and column stays where it was.
std::string strip_op_params(const sc::SourceFile& file, const sc::Module& module) {
  std::string text = file.text();
  for (const sc::Stmt* s : module.body) {
    const auto* def = s->dyn<sc::FunctionDef>();
    if (!def || !is_rule_function(def->name)) continue;
    size_t k = 0;
    while (k < def->params.size() && is_ignored_param(def->params[k].name)) ++k;
    if (k == 0) continue;
    uint32_t begin = def->params[0].span.begin;
    uint32_t end = k < def->params.size() ? def->params[k].span.begin : def->params[k - 1].span.end;
    for (uint32_t i = begin; i < end; ++i) {
      if (text[i] != '\n') text[i] = ' ';
    }
  }
  return text;
}

const sc::FunctionDef* find_def(const sc::Module& m, const std::string& name) {
  for (const sc::Stmt* s : m.body) {
    const auto* def = s->dyn<sc::FunctionDef>();
    if (def && def->name == name) return def;
  }
  return nullptr;
}

// ---- the pattern function -> Pattern ----

Pattern to_pattern(const ir::Function& f, const sc::SourceFile& file, sc::Span where) {
  for (const ir::Node* n : f.body->nodes()) {
    if (n->domain() == "this") {
      fail_at(file, where,
              "pattern: calls the script function '" + n->op_type() +
                  "'; a pattern may use ONNX operators only");
    }
  }
  try {
    return pattern_from_body(*f.body);
  } catch (const Error& e) {
    fail_at(file, where, "pattern: " + e.message());
  }
}

// ---- check: a small predicate interpreter over the match ----

using CheckValue = std::variant<bool, int64_t, const ir::Value*>;

class CheckEval {
 public:
  CheckEval(const sc::SourceFile& file, const std::map<std::string, int>& params, const Match& m)
      : file_(file), params_(params), m_(m) {}

  CheckValue eval(const sc::Expr* e) {
    using K = sc::ExprKind;
    switch (e->kind) {
      case K::kName: {
        const auto* n = &e->as<sc::Name>();
        if (n->id == "True" || n->id == "False") return n->id == "True";
        auto it = params_.find(n->id);
        if (it == params_.end())
          fail_at(file_, e->span, "check: '" + n->id + "' is not a pattern variable");
        return static_cast<const ir::Value*>(m_.values[size_t(it->second)]);
      }
      case K::kConstant: {
        const auto* c = &e->as<sc::Constant>();
        if (c->value_kind == sc::ConstantKind::kBool) return c->bool_value;
        if (c->value_kind == sc::ConstantKind::kInt) return c->int_value;
        if (c->value_kind == sc::ConstantKind::kNone) return static_cast<const ir::Value*>(nullptr);
        break;
      }
      case K::kBoolOp: {
        const auto* b = &e->as<sc::BoolOp>();
        bool is_and = b->op == sc::BoolOpKind::kAnd;
        for (const sc::Expr* v : b->values) {
          if (truth(v) != is_and) return !is_and;
        }
        return is_and;
      }
      case K::kUnaryOp: {
        const auto* u = &e->as<sc::UnaryOp>();
        if (u->op == sc::UnaryOpKind::kNot) return !truth(u->operand);
        if (u->op == sc::UnaryOpKind::kUSub) return -integer(u->operand);
        break;
      }
      case K::kCompare: {
        const auto* c = &e->as<sc::Compare>();
        CheckValue left = eval(c->left);
        for (size_t i = 0; i < c->ops.size(); ++i) {
          CheckValue right = eval(c->comparators[i]);
          if (!compare(c->ops[i], left, right, c->comparators[i])) return false;
          left = right;
        }
        return true;
      }
      case K::kCall: {
        const auto* c = &e->as<sc::Call>();
        const auto* fn = c->func->dyn<sc::Name>();
        if (!fn || c->args.size() != 1 || !c->keywords.empty()) break;
        const ir::Value* v = value(c->args[0]);
        if (fn->id == "is_constant") return v && constant_of(v) != nullptr;
        if (fn->id == "num_uses") return int64_t(v ? v->uses().size() : 0);
        if (fn->id == "rank") {
          if (!v || !v->type().is_tensor() || !v->type().shape()) return int64_t(-1);
          return int64_t(v->type().shape()->rank());
        }
        break;
      }
      default:
        break;
    }
    fail_at(file_, e->span,
            "check: unsupported expression; use comparisons of pattern variables (x != y, x is "
            "None), is_constant(x), rank(x), num_uses(x), integers, and/or/not");
  }

  bool truth(const sc::Expr* e) {
    CheckValue v = eval(e);
    if (const bool* b = std::get_if<bool>(&v)) return *b;
    if (const int64_t* i = std::get_if<int64_t>(&v)) return *i != 0;
    return std::get<const ir::Value*>(v) != nullptr;
  }

 private:
  int64_t integer(const sc::Expr* e) {
    CheckValue v = eval(e);
    if (const int64_t* i = std::get_if<int64_t>(&v)) return *i;
    fail_at(file_, e->span, "check: expected an integer here");
  }
  const ir::Value* value(const sc::Expr* e) {
    CheckValue v = eval(e);
    if (auto* p = std::get_if<const ir::Value*>(&v)) return *p;
    fail_at(file_, e->span, "check: expected a pattern variable here");
  }
  bool compare(sc::CmpOpKind op, const CheckValue& a, const CheckValue& b, const sc::Expr* at) {
    using O = sc::CmpOpKind;
    if (a.index() != b.index())
      fail_at(file_, at->span, "check: compares values of different kinds");
    if (op == O::kEq || op == O::kIs) return a == b;
    if (op == O::kNotEq || op == O::kIsNot) return a != b;
    const int64_t* x = std::get_if<int64_t>(&a);
    const int64_t* y = std::get_if<int64_t>(&b);
    if (!x || !y) fail_at(file_, at->span, "check: only integers can be ordered");
    switch (op) {
      case O::kLt:
        return *x < *y;
      case O::kLtE:
        return *x <= *y;
      case O::kGt:
        return *x > *y;
      case O::kGtE:
        return *x >= *y;
      default:
        fail_at(file_, at->span, "check: 'in' is not supported");
    }
  }

  const sc::SourceFile& file_;
  const std::map<std::string, int>& params_;
  const Match& m_;
};

// Rejects, when the file is loaded, any expression check() cannot evaluate.
void validate_check(const sc::SourceFile& file, const std::map<std::string, int>& params,
                    const sc::Expr* e) {
  using K = sc::ExprKind;
  auto bad = [&](const sc::Expr* at) {
    fail_at(file, at->span,
            "check: unsupported expression; use comparisons of pattern variables (x != y, x is "
            "None), is_constant(x), rank(x), num_uses(x), integers, and/or/not");
  };
  switch (e->kind) {
    case K::kName: {
      const std::string& id = e->as<sc::Name>().id;
      if (id != "True" && id != "False" && !params.count(id)) {
        fail_at(file, e->span, "check: '" + id + "' is not a parameter of check");
      }
      return;
    }
    case K::kConstant: {
      auto k = e->as<sc::Constant>().value_kind;
      if (k != sc::ConstantKind::kBool && k != sc::ConstantKind::kInt &&
          k != sc::ConstantKind::kNone)
        bad(e);
      return;
    }
    case K::kBoolOp:
      for (const sc::Expr* v : e->as<sc::BoolOp>().values) validate_check(file, params, v);
      return;
    case K::kUnaryOp: {
      const auto& u = e->as<sc::UnaryOp>();
      if (u.op != sc::UnaryOpKind::kNot && u.op != sc::UnaryOpKind::kUSub) bad(e);
      validate_check(file, params, u.operand);
      return;
    }
    case K::kCompare: {
      const auto& c = e->as<sc::Compare>();
      for (auto op : c.ops) {
        if (op == sc::CmpOpKind::kIn || op == sc::CmpOpKind::kNotIn) bad(e);
      }
      validate_check(file, params, c.left);
      for (const sc::Expr* v : c.comparators) validate_check(file, params, v);
      return;
    }
    case K::kCall: {
      const auto& c = e->as<sc::Call>();
      const auto* fn = c.func->dyn<sc::Name>();
      if (!fn || c.args.size() != 1 || !c.keywords.empty() ||
          (fn->id != "is_constant" && fn->id != "rank" && fn->id != "num_uses")) {
        bad(e);
      }
      validate_check(file, params, c.args[0]);
      return;
    }
    default:
      bad(e);
  }
}

// What a loaded rule keeps alive.
struct ScriptRuleData {
  std::shared_ptr<sc::SourceFile> file;
  std::shared_ptr<sc::ParseResult> parsed;  // check's AST lives here
  ir::Model compiled;
  const ir::Function* rewrite = nullptr;
  const sc::FunctionDef* check = nullptr;
  std::map<std::string, int> check_params;  // name -> pattern value id
};

}  // namespace

std::unique_ptr<Rule> load_script_rule(const std::string& path, const std::string& text) {
  auto data = std::make_shared<ScriptRuleData>();
  auto original = std::make_shared<sc::SourceFile>(path, text);
  sc::ParseResult first = sc::parse(*original);
  if (!first.ok()) throw Error(ErrorKind::Input, sc::render(*original, first.diagnostics));
  data->file = std::make_shared<sc::SourceFile>(path, strip_op_params(*original, first.module));
  data->parsed = std::make_shared<sc::ParseResult>(sc::parse(*data->file));
  const sc::Module& module = data->parsed->module;
  const sc::FunctionDef* pattern_def = find_def(module, "pattern");
  const sc::FunctionDef* rewrite_def = find_def(module, "rewrite");
  if (!pattern_def || !rewrite_def) {
    throw Error(ErrorKind::Input,
                "a rule file needs @script() functions 'pattern' and 'rewrite' (and may have "
                "'check')",
                {.file = path, .line = 1, .column = 1});
  }
  sc::CompileOptions o;
  o.functions_only = true;
  sc::CompileResult r = sc::compile_source(*data->file, o);
  if (!r.ok()) throw Error(ErrorKind::Input, sc::render(*data->file, r.diagnostics));
  data->compiled = std::move(*r.model);
  const ir::Function* pf = data->compiled.find_function("this", "pattern");
  data->rewrite = data->compiled.find_function("this", "rewrite");
  if (!pf)
    fail_at(*data->file, pattern_def->name_span, "'pattern' must be decorated with @script()");
  if (!data->rewrite) {
    fail_at(*data->file, rewrite_def->name_span, "'rewrite' must be decorated with @script()");
  }
  Pattern pattern = to_pattern(*pf, *data->file, pattern_def->name_span);
  for (const ir::Value* in : data->rewrite->body->inputs()) {
    if (pattern.find_var(in->name()) < 0) {
      fail_at(*data->file, rewrite_def->name_span,
              "rewrite's parameter '" + in->name() + "' is not a parameter of pattern");
    }
  }
  if (data->rewrite->body->outputs().size() != pattern.outputs().size()) {
    fail_at(*data->file, rewrite_def->name_span,
            fmt::format("rewrite returns {} value(s) but pattern returns {}",
                        data->rewrite->body->outputs().size(), pattern.outputs().size()));
  }
  for (const ir::Node* n : data->rewrite->body->nodes()) {
    if (n->domain() == "this") {
      fail_at(*data->file, rewrite_def->name_span,
              "rewrite calls the script function '" + n->op_type() +
                  "'; a rewrite may use ONNX operators only");
    }
  }
  data->check = find_def(module, "check");
  if (data->check) {
    const sc::Stmt* body = data->check->body.size() == 1 ? data->check->body[0] : nullptr;
    const auto* ret = body ? body->dyn<sc::Return>() : nullptr;
    if (!ret || !ret->value) {
      fail_at(*data->file, data->check->name_span, "check must be a single 'return EXPRESSION'");
    }
    for (const sc::Param& prm : data->check->params) {
      int id = pattern.find_var(prm.name);
      if (id < 0) {
        fail_at(*data->file, prm.span,
                "check's parameter '" + prm.name + "' is not a parameter of pattern");
      }
      data->check_params[prm.name] = id;
    }
    validate_check(*data->file, data->check_params, ret->value);
  }
  std::string name = std::filesystem::path(path).stem().string();
  CheckFn check;
  if (data->check) {
    check = [data](const Match& m, Rewriter&) {
      const auto* ret = &data->check->body[0]->as<sc::Return>();
      CheckEval ev(*data->file, data->check_params, m);
      if (ev.truth(ret->value)) return Verdict::yes();
      sc::LineCol lc = data->file->line_col(ret->value->span.begin);
      return Verdict::no(fmt::format("{}:{}: `{}` is false", data->file->name(), lc.line,
                                     data->file->slice(ret->value->span)));
    };
  }
  RewriteFn rewrite = [data](RewriteContext& ctx) {
    const ir::Graph& body = *data->rewrite->body;
    std::map<const ir::Value*, ir::Value*> vals;
    for (const ir::Value* in : body.inputs()) vals[in] = ctx.match().var(in->name());
    for (const ir::Node* n : body.nodes()) {
      if (n->op_type() == "Constant" && n->domain().empty()) {
        vals[n->output(0)] = ctx.constant(ir::Tensor(*constant_node_tensor(*n)), "const");
        continue;
      }
      std::vector<ir::Value*> ins;
      for (size_t i = 0; i < n->num_inputs(); ++i) {
        ins.push_back(n->input(i) ? vals.at(n->input(i)) : nullptr);
      }
      std::vector<ir::Attr> attrs;
      for (const ir::Attr& a : n->attrs()) attrs.push_back(a.clone());
      auto outs = ctx.ops(n->op_type(), ins, std::move(attrs), n->num_outputs(), n->domain());
      for (size_t i = 0; i < outs.size(); ++i) vals[n->output(i)] = outs[i];
    }
    std::vector<ir::Value*> result;
    for (const ir::Value* o : body.outputs()) result.push_back(vals.at(o));
    return result;
  };
  return std::make_unique<PatternRule>(name, std::move(pattern), std::move(check),
                                       std::move(rewrite));
}

std::unique_ptr<Pass> make_script_rule_pass(const std::string& path, const std::string& text) {
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(load_script_rule(path, text));
  std::string name = rules[0]->name();
  return std::make_unique<RuleSetPass>(name, "rule from " + path, std::move(rules));
}

}  // namespace oxs::rewrite
