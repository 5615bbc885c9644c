// Which defs of a file are ONNX Script, beyond @script() and @graph():
// registration decorators that wrap script() (--decorator NAME, e.g. a
// library's @register("aten::abs")) count as @script and record the names
// they register; a def whose body is ONNX Script but whose decorator oxs
// does not know, and a @script def nested in a plain def (it closes over
// values only Python has), are reported by name instead of being skipped
// silently.
#include <algorithm>

#include "oxs/script/convert/compiler.h"
#include "oxs/script/convert/convert_codes.h"
#include "oxs/script/convert/liveness.h"

namespace oxs::script {

namespace {

// The decorator's callee as written: "register", "lib.register".
std::string decorator_name(const Expr* d) {
  if (const auto* call = d->dyn<Call>()) d = call->func;
  std::string name;
  while (const auto* a = d->dyn<Attribute>()) {
    name = "." + a->attr + name;
    d = a->value;
  }
  if (const auto* n = d->dyn<Name>()) return n->id + name;
  return "";
}

}  // namespace

void names_in_body(const Body& body, NameSet& out) {
  for (const Stmt* s : body) {
    switch (s->kind) {
      case StmtKind::kAssign:
        used_names(*s->as<Assign>().value, out);
        break;
      case StmtKind::kAugAssign:
        used_names(*s->as<AugAssign>().value, out);
        break;
      case StmtKind::kAnnAssign:
        if (s->as<AnnAssign>().value) used_names(*s->as<AnnAssign>().value, out);
        break;
      case StmtKind::kExpr:
        used_names(*s->as<ExprStmt>().value, out);
        break;
      case StmtKind::kReturn:
        if (s->as<Return>().value) used_names(*s->as<Return>().value, out);
        break;
      case StmtKind::kIf:
        used_names(*s->as<If>().test, out);
        names_in_body(s->as<If>().body, out);
        names_in_body(s->as<If>().orelse, out);
        break;
      case StmtKind::kFor:
        used_names(*s->as<For>().iter, out);
        names_in_body(s->as<For>().body, out);
        break;
      case StmtKind::kWhile:
        used_names(*s->as<While>().test, out);
        names_in_body(s->as<While>().body, out);
        break;
      case StmtKind::kFunctionDef:  // graph attributes (loop bodies) read the enclosing names
        names_in_body(s->as<FunctionDef>().body, out);
        break;
      default:
        break;
    }
  }
}

bool Compiler::is_registration_decorator(const Expr* d) const {
  std::string name = decorator_name(d);
  if (name.empty()) return false;
  std::string last = name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
  for (const std::string& want : options.script_decorators) {
    if (want == name || want == last) return true;
  }
  return false;
}

std::vector<std::string> Compiler::registered_names(const Expr* d) {
  std::vector<std::string> out;
  const auto* call = d->dyn<Call>();
  if (!call) return out;
  FunctionConverter stat(*this, nullptr, nullptr, FunctionConverter::Mode::kStatic);
  auto take = [&](const PyValue& p) {
    if (p.kind == PyValue::Kind::kStr) out.push_back(p.s);
    if (p.is_sequence()) {
      for (const PyValue& x : p.items) {
        if (x.kind == PyValue::Kind::kStr) out.push_back(x.s);
      }
    }
  };
  for (const Expr* a : call->args) {
    // Only literal names: other arguments (flags, overload tables) are the library's.
    if (a->kind != ExprKind::kConstant && a->kind != ExprKind::kList && a->kind != ExprKind::kTuple)
      continue;
    SVal v = stat.eval(*a);
    if (v.kind == SVal::Kind::kPy) take(v.py);
  }
  return out;
}

bool Compiler::body_is_onnx_script(const FunctionDef& def) {
  NameSet names;
  names_in_body(def.body, names);
  for (const auto& n : names) {
    auto it = globals.find(n);
    if (it == globals.end() || it->second.pending) continue;
    if (it->second.value.kind == SVal::Kind::kOpset) return true;
  }
  return false;
}

void Compiler::compile_callees_first(ScriptFn& entry) {
  // Post-order over the static call graph, without recursion: a chain of
  // thousands of functions (f2 calls f1 calls f0) compiles leaves first, so
  // that no conversion waits on a nested one.
  std::unordered_map<const ScriptFn*, std::vector<ScriptFn*>> callees;
  auto callees_of = [&](ScriptFn* fn) -> const std::vector<ScriptFn*>& {
    auto [it, fresh] = callees.try_emplace(fn);
    if (!fresh) return it->second;
    NameSet names;
    names_in_body(fn->def->body, names);
    for (const auto& n : names) {
      auto g = globals.find(n);
      if (g == globals.end() || g->second.pending) continue;
      const SVal& v = g->second.value;
      if (v.kind == SVal::Kind::kFunction && v.fn && v.fn->is_script) it->second.push_back(v.fn);
    }
    std::sort(it->second.begin(), it->second.end(),
              [](const ScriptFn* a, const ScriptFn* b) { return a->def->name < b->def->name; });
    return it->second;
  };
  std::unordered_set<const ScriptFn*> seen{&entry};
  std::vector<std::pair<ScriptFn*, size_t>> stack{{&entry, 0}};
  std::vector<ScriptFn*> order;
  while (!stack.empty()) {
    auto& [fn, next] = stack.back();
    const auto& cs = callees_of(fn);
    if (next < cs.size()) {
      ScriptFn* c = cs[next++];
      if (seen.insert(c).second) stack.push_back({c, 0});
      continue;
    }
    if (fn != &entry) order.push_back(fn);
    stack.pop_back();
  }
  for (ScriptFn* fn : order) {
    if (diags.full()) break;
    function_of(*fn, fn->def->name_span);
  }
}

void Compiler::report_unclaimed_defs() {
  for (auto& fn : fns) {
    const FunctionDef& def = *fn->def;
    if (!fn->is_script && !fn->is_graph && !def.decorators.empty() && body_is_onnx_script(def)) {
      std::string name = decorator_name(def.decorators.front());
      warning(code::kUnsupportedFeature, def.name_span,
              "'" + def.name + "' calls ONNX ops but its decorator @" + name +
                  " is not @script(), so oxs does not compile it",
              "if @" + name + " wraps onnxscript's script(), pass --decorator " + name);
    }
    // @script defs nested in plain defs (factories closing over arguments).
    if (fn->is_script || fn->is_graph) continue;
    std::vector<const Body*> work{&def.body};
    while (!work.empty()) {
      const Body* body = work.back();
      work.pop_back();
      for (const Stmt* s : *body) {
        if (s->kind == StmtKind::kIf) {
          work.push_back(&s->as<If>().body);
          work.push_back(&s->as<If>().orelse);
        }
        if (s->kind != StmtKind::kFunctionDef) continue;
        const auto& inner = s->as<FunctionDef>();
        bool script = false;
        for (const Expr* d : inner.decorators) {
          std::string n = decorator_name(d);
          script =
              script || n == "script" || n.ends_with(".script") || is_registration_decorator(d);
        }
        if (script) {
          warning(code::kUnsupportedFeature, inner.name_span,
                  "'" + inner.name + "' is a @script function nested in '" + def.name +
                      "': it can read values that exist only when '" + def.name +
                      "' runs, so `oxs compile` does not compile it",
                  "move it to the top level, or compile it from Python with the oxs "
                  "package (oxs.script), which sees the values when '" +
                      def.name + "' runs");
        } else {
          work.push_back(&inner.body);
        }
      }
    }
  }
}

}  // namespace oxs::script
