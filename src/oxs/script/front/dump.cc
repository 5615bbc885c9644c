// The S-expression dumper declared in ast.h.
#include <charconv>
#include <cstdio>
#include <string>

#include "oxs/script/front/ast.h"

namespace oxs::script {
namespace {

std::string quote(const std::string& s, bool bytes) {
  std::string out = bytes ? "b\"" : "\"";
  for (char c : s) {
    unsigned char b = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (b < 0x20 || b == 0x7f || (bytes && b >= 0x80)) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", b);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string float_repr(double d) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

class Dumper {
 public:
  std::string out;

  void expr(const Expr* e) {
    if (!e) {
      out += "_";
      return;
    }
    switch (e->kind) {
      case ExprKind::kBoolOp: {
        const auto& n = e->as<BoolOp>();
        open(boolop_symbol(n.op));
        list(n.values);
        close();
        break;
      }
      case ExprKind::kNamedExpr: {
        const auto& n = e->as<NamedExpr>();
        open(":=");
        items({n.target, n.value});
        close();
        break;
      }
      case ExprKind::kBinOp: {
        const auto& n = e->as<BinOp>();
        open(binop_symbol(n.op));
        items({n.left, n.right});
        close();
        break;
      }
      case ExprKind::kUnaryOp: {
        const auto& n = e->as<UnaryOp>();
        open(unaryop_symbol(n.op));
        items({n.operand});
        close();
        break;
      }
      case ExprKind::kLambda: {
        const auto& n = e->as<Lambda>();
        open("lambda");
        out += " ";
        params(n.params);
        items({n.body});
        close();
        break;
      }
      case ExprKind::kIfExp: {
        const auto& n = e->as<IfExp>();
        open("ifexp");
        items({n.test, n.body, n.orelse});
        close();
        break;
      }
      case ExprKind::kDict: {
        const auto& n = e->as<Dict>();
        open("dict");
        for (size_t i = 0; i < n.keys.size(); ++i) {
          out += " (";
          if (n.keys[i]) {
            expr(n.keys[i]);
          } else {
            out += "**";
          }
          out += " ";
          expr(n.values[i]);
          out += ")";
        }
        close();
        break;
      }
      case ExprKind::kSet: {
        open("set");
        list(e->as<Set>().elts);
        close();
        break;
      }
      case ExprKind::kListComp:
      case ExprKind::kSetComp:
      case ExprKind::kDictComp:
      case ExprKind::kGeneratorExp: {
        const auto& n = e->as<Comp>();
        open(e->kind == ExprKind::kListComp   ? "listcomp"
             : e->kind == ExprKind::kSetComp  ? "setcomp"
             : e->kind == ExprKind::kDictComp ? "dictcomp"
                                              : "genexp");
        items({n.elt});
        if (n.value) items({n.value});
        for (const Comprehension& g : n.generators) {
          out += g.is_async ? " (async-for " : " (for ";
          expr(g.target);
          items({g.iter});
          for (const Expr* cond : g.ifs) {
            out += " (if ";
            expr(cond);
            out += ")";
          }
          out += ")";
        }
        close();
        break;
      }
      case ExprKind::kAwait:
        open("await");
        items({e->as<Await>().value});
        close();
        break;
      case ExprKind::kYield:
      case ExprKind::kYieldFrom: {
        const auto& n = e->as<Yield>();
        open(e->kind == ExprKind::kYield ? "yield" : "yield-from");
        if (n.value) items({n.value});
        close();
        break;
      }
      case ExprKind::kCompare: {
        const auto& n = e->as<Compare>();
        open("compare");
        items({n.left});
        for (size_t i = 0; i < n.ops.size(); ++i) {
          out += " ";
          out += cmpop_symbol(n.ops[i]);
          items({n.comparators[i]});
        }
        close();
        break;
      }
      case ExprKind::kCall: {
        const auto& n = e->as<Call>();
        open("call");
        items({n.func});
        list(n.args);
        keywords(n.keywords);
        close();
        break;
      }
      case ExprKind::kConstant: {
        const auto& n = e->as<Constant>();
        switch (n.value_kind) {
          case ConstantKind::kNone:
            out += "None";
            break;
          case ConstantKind::kBool:
            out += n.bool_value ? "True" : "False";
            break;
          case ConstantKind::kInt:
            out += std::to_string(n.int_value);
            break;
          case ConstantKind::kFloat:
            out += float_repr(n.float_value);
            break;
          case ConstantKind::kStr:
            out += quote(n.str_value, false);
            break;
          case ConstantKind::kBytes:
            out += quote(n.str_value, true);
            break;
          case ConstantKind::kEllipsis:
            out += "...";
            break;
        }
        break;
      }
      case ExprKind::kAttribute: {
        const auto& n = e->as<Attribute>();
        open(".");
        items({n.value});
        out += " " + n.attr;
        close();
        break;
      }
      case ExprKind::kSubscript: {
        const auto& n = e->as<Subscript>();
        open("sub");
        items({n.value, n.slice});
        close();
        break;
      }
      case ExprKind::kStarred:
        open("*");
        items({e->as<Starred>().value});
        close();
        break;
      case ExprKind::kName:
        out += e->as<Name>().id;
        break;
      case ExprKind::kList:
        open("list");
        list(e->as<List>().elts);
        close();
        break;
      case ExprKind::kTuple:
        open("tuple");
        list(e->as<Tuple>().elts);
        close();
        break;
      case ExprKind::kSlice: {
        const auto& n = e->as<Slice>();
        open("slice");
        items({n.lower, n.upper, n.step});
        close();
        break;
      }
    }
  }

  void stmt(const Stmt* s, int indent) {
    out.append(static_cast<size_t>(indent), ' ');
    switch (s->kind) {
      case StmtKind::kFunctionDef: {
        const auto& n = s->as<FunctionDef>();
        out += n.is_async ? "(async-def " : "(def ";
        out += n.name + " ";
        params(n.params);
        if (n.returns) {
          out += " :returns ";
          expr(n.returns);
        }
        decorators(n.decorators);
        doc(n.docstring);
        body(n.body, indent);
        out += ")";
        break;
      }
      case StmtKind::kClassDef: {
        const auto& n = s->as<ClassDef>();
        out += "(class " + n.name + " (bases";
        list(n.bases);
        keywords(n.keywords);
        out += ")";
        decorators(n.decorators);
        doc(n.docstring);
        body(n.body, indent);
        out += ")";
        break;
      }
      case StmtKind::kReturn:
        out += "(return";
        if (const Expr* v = s->as<Return>().value) items({v});
        out += ")";
        break;
      case StmtKind::kDelete:
        out += "(del";
        list(s->as<Delete>().targets);
        out += ")";
        break;
      case StmtKind::kAssign: {
        const auto& n = s->as<Assign>();
        out += "(=";
        list(n.targets);
        items({n.value});
        out += ")";
        break;
      }
      case StmtKind::kAugAssign: {
        const auto& n = s->as<AugAssign>();
        out += std::string("(") + binop_symbol(n.op) + "=";
        items({n.target, n.value});
        out += ")";
        break;
      }
      case StmtKind::kAnnAssign: {
        const auto& n = s->as<AnnAssign>();
        out += "(annassign";
        items({n.target, n.annotation});
        if (n.value) items({n.value});
        out += ")";
        break;
      }
      case StmtKind::kFor: {
        const auto& n = s->as<For>();
        out += n.is_async ? "(async-for" : "(for";
        items({n.target, n.iter});
        body(n.body, indent);
        clause(":else", n.orelse, indent);
        out += ")";
        break;
      }
      case StmtKind::kWhile: {
        const auto& n = s->as<While>();
        out += "(while";
        items({n.test});
        body(n.body, indent);
        clause(":else", n.orelse, indent);
        out += ")";
        break;
      }
      case StmtKind::kIf: {
        const auto& n = s->as<If>();
        out += n.is_elif ? "(elif" : "(if";
        items({n.test});
        body(n.body, indent);
        clause(":else", n.orelse, indent);
        out += ")";
        break;
      }
      case StmtKind::kWith: {
        const auto& n = s->as<With>();
        out += n.is_async ? "(async-with" : "(with";
        for (const WithItem& item : n.items) {
          if (item.target) {
            out += " (as";
            items({item.context, item.target});
            out += ")";
          } else {
            items({item.context});
          }
        }
        body(n.body, indent);
        out += ")";
        break;
      }
      case StmtKind::kRaise: {
        const auto& n = s->as<Raise>();
        out += "(raise";
        if (n.exc) items({n.exc});
        if (n.cause) {
          out += " :from";
          items({n.cause});
        }
        out += ")";
        break;
      }
      case StmtKind::kTry: {
        const auto& n = s->as<Try>();
        out += "(try";
        body(n.body, indent);
        for (const ExceptHandler& h : n.handlers) {
          out += "\n";
          out.append(static_cast<size_t>(indent), ' ');
          out += ":except";
          if (h.type) items({h.type});
          if (!h.name.empty()) out += " :as " + h.name;
          body(h.body, indent);
        }
        clause(":else", n.orelse, indent);
        clause(":finally", n.finalbody, indent);
        out += ")";
        break;
      }
      case StmtKind::kAssert: {
        const auto& n = s->as<Assert>();
        out += "(assert";
        items({n.test});
        if (n.msg) items({n.msg});
        out += ")";
        break;
      }
      case StmtKind::kImport:
        out += "(import";
        aliases(s->as<Import>().names);
        out += ")";
        break;
      case StmtKind::kImportFrom: {
        const auto& n = s->as<ImportFrom>();
        out += "(from " + std::string(static_cast<size_t>(n.level), '.') + n.module;
        aliases(n.names);
        out += ")";
        break;
      }
      case StmtKind::kGlobal:
      case StmtKind::kNonlocal: {
        const auto& names =
            s->kind == StmtKind::kGlobal ? s->as<Global>().names : s->as<Nonlocal>().names;
        out += s->kind == StmtKind::kGlobal ? "(global" : "(nonlocal";
        for (const std::string& name : names) out += " " + name;
        out += ")";
        break;
      }
      case StmtKind::kExpr:
        out += "(expr";
        items({s->as<ExprStmt>().value});
        out += ")";
        break;
      case StmtKind::kPass:
        out += "(pass)";
        break;
      case StmtKind::kBreak:
        out += "(break)";
        break;
      case StmtKind::kContinue:
        out += "(continue)";
        break;
    }
  }

  void body(const Body& stmts, int indent) {
    for (const Stmt* s : stmts) {
      out += "\n";
      stmt(s, indent + 2);
    }
  }

 private:
  void open(const char* head) {
    out += "(";
    out += head;
  }
  void close() { out += ")"; }
  void items(std::initializer_list<const Expr*> es) {
    for (const Expr* e : es) {
      out += " ";
      expr(e);
    }
  }
  void list(const std::vector<Expr*>& es) {
    for (const Expr* e : es) {
      out += " ";
      expr(e);
    }
  }
  void keywords(const std::vector<Keyword>& kws) {
    for (const Keyword& k : kws) {
      out += " (kw " + (k.arg.empty() ? std::string("**") : k.arg);
      items({k.value});
      out += ")";
    }
  }
  void params(const std::vector<Param>& ps) {
    out += "(params";
    for (const Param& p : ps) {
      std::string name = p.kind == ParamKind::kVarArgs       ? "*" + p.name
                         : p.kind == ParamKind::kVarKeywords ? "**" + p.name
                                                             : p.name;
      const char* tag = p.kind == ParamKind::kPositionalOnly ? " :posonly"
                        : p.kind == ParamKind::kKeywordOnly  ? " :kwonly"
                                                             : "";
      if (!*tag && !p.annotation && !p.default_value) {
        out += " " + name;
        continue;
      }
      out += " (" + name + tag;
      if (p.annotation) {
        out += " :ann ";
        expr(p.annotation);
      }
      if (p.default_value) {
        out += " :default ";
        expr(p.default_value);
      }
      out += ")";
    }
    out += ")";
  }
  void decorators(const std::vector<Expr*>& ds) {
    if (ds.empty()) return;
    out += " :decorators (";
    for (size_t i = 0; i < ds.size(); ++i) {
      if (i) out += " ";
      expr(ds[i]);
    }
    out += ")";
  }
  void doc(const std::optional<std::string>& d) {
    if (d) out += " :doc " + quote(*d, false);
  }
  void clause(const char* head, const Body& stmts, int indent) {
    if (stmts.empty()) return;
    out += "\n";
    out.append(static_cast<size_t>(indent), ' ');
    out += head;
    body(stmts, indent);
  }
  void aliases(const std::vector<Alias>& as) {
    for (const Alias& a : as) {
      if (a.asname.empty()) {
        out += " " + a.name;
      } else {
        out += " (as " + a.name + " " + a.asname + ")";
      }
    }
  }
};

}  // namespace

std::string dump(const Module& module) {
  Dumper d;
  d.out = "(module";
  if (module.docstring) d.out += " :doc " + quote(*module.docstring, false);
  d.body(module.body, 0);
  d.out += ")\n";
  return d.out;
}

std::string dump(const Stmt& stmt) {
  Dumper d;
  d.stmt(&stmt, 0);
  return d.out;
}

std::string dump(const Expr& expr) {
  Dumper d;
  d.expr(&expr);
  return d.out;
}

}  // namespace oxs::script
