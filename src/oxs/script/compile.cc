// The compiler driver: parse, read the module's names, pick the entry,
// convert it into the model's graph and every script function it calls into
// model-local functions (compiled once, on first call), check every other
// decorated function too so that all errors show in one run, then finish the
// model (unreachable functions dropped, optional inlining).
#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "oxs/ir/error.h"
#include "oxs/ir/verifier.h"
#include "oxs/schema/registry.h"
#include "oxs/schema/suggest.h"
#include "oxs/script/convert/compiler.h"
#include "oxs/script/convert/convert_codes.h"
#include "oxs/script/environment.h"
#include "oxs/script/front/codes.h"
#include "oxs/script/front/parser.h"

namespace oxs::script {

namespace {

std::string domain_label(const std::string& d) {
  return d.empty() ? "ai.onnx" : d;
}

// Whether `e` (a decorator, or its callee) names onnxscript's `which`,
// without reporting anything: other decorators (@torch_op(...)) are Python's.
bool names_decorator(Compiler& c, const Expr* e, const char* which) {
  // A module-level name (not evaluated if pending), or one a host binds (environment.h).
  auto global = [&c](const Name& n) -> std::optional<SVal> {
    if (c.options.environment) {
      if (const ExternalValue* v = c.options.environment->lookup(n.id, n.span)) {
        return external_value(c, *v, n.span);
      }
    }
    auto it = c.globals.find(n.id);
    if (it == c.globals.end() || it->second.pending) return std::nullopt;
    return it->second.value;
  };
  if (const auto* call = e->dyn<Call>()) e = call->func;
  if (const auto* n = e->dyn<Name>()) {
    auto v = global(*n);
    return v && v->kind == SVal::Kind::kBuiltin && v->name == which;
  }
  if (const auto* a = e->dyn<Attribute>()) {
    if (a->attr != which) return false;
    const auto* base = a->value->dyn<Name>();
    if (!base) return false;
    auto v = global(*base);
    return v && v->kind == SVal::Kind::kModule && v->name.rfind("onnxscript", 0) == 0;
  }
  return false;
}

}  // namespace

Compiler::Compiler(const SourceFile& f, const Module& m, const CompileOptions& o, DiagnosticSink& d)
    : file(f), module(m), options(o), diags(d) {
  // Conversion work grows with the text, except where returns inside nested
  // ifs repeat the code after them; proportional to the size, the budget
  // never stops a real file and ends pathological ones in seconds.
  budget = 50'000 + 16 * static_cast<size_t>(f.size());
}

Compiler::~Compiler() = default;

bool Compiler::spend(Span span, size_t amount) {
  if (budget >= amount) {
    budget -= amount;
    return true;
  }
  if (!budget_reported) {
    budget_reported = true;
    error(code::kTooComplex, span,
          "this file is too complex to compile (its conversion would repeat code exponentially)",
          "split large functions; a return inside nested ifs repeats the code after it in each "
          "branch");
  }
  return false;
}

OpsetRef Compiler::retarget(OpsetRef o) const {
  if (o.domain.empty() && options.opset) o.version = *options.opset;
  return o;
}

OpsetRef Compiler::default_opset(const ScriptFn* fn) const {
  if (fn && fn->default_opset) return retarget(*fn->default_opset);
  if (fn && fn->body_opset) return retarget(*fn->body_opset);
  if (module_default_opset) return retarget(*module_default_opset);
  return OpsetRef{"", main_opset};
}

bool Compiler::use_opset(const OpsetRef& o, Span span) {
  if (schema::is_known_domain(o.domain)) {
    auto latest = schema::latest_opset(o.domain);
    auto earliest = schema::earliest_opset(o.domain);
    if (latest && earliest && (o.version > *latest || o.version < *earliest)) {
      std::string key = "range:" + o.domain + ":" + std::to_string(o.version);
      if (reported_mixed.insert(key).second) {
        std::string v = std::to_string(*latest);
        error(code::kUnsupportedOpset, span,
              domain_label(o.domain) + " opset " + std::to_string(o.version) +
                  " is not supported: the newest " + domain_label(o.domain) +
                  " opset oxs knows is " + v,
              o.domain.empty() ? "import opset" + v + " (from onnxscript import opset" + v +
                                     "), or compile with --opset " + v + " to retarget the file"
                               : "use a version from " + std::to_string(*earliest) + " to " + v);
      }
      return false;
    }
  }
  auto it = opsets_used.find(o.domain);
  if (it != opsets_used.end() && it->second.first != o.version && checking_only) {
    // A function the model does not contain: its opset is its own business.
    return true;
  }
  if (it == opsets_used.end()) {
    opsets_used[o.domain] = {o.version, span};
    opset_user[o.domain] = current_fn ? current_fn->def->name : "";
    try {
      root->use_opset(o.domain, o.version);
    } catch (const Error& e) {
      error(code::kMixedOpsetVersions, span, e.message());
      return false;
    }
    return true;
  }
  if (it->second.first != o.version) {
    std::string key = "mixed:" + o.domain + ":" + std::to_string(o.version);
    if (reported_mixed.insert(key).second) {
      Diagnostic& d = error(
          code::kMixedOpsetVersions, span,
          "mixed versions of opset " + domain_label(o.domain) + ": this uses version " +
              std::to_string(o.version) + ", but the model already uses version " +
              std::to_string(it->second.first),
          "a model imports one version per domain: use one opset version throughout the file" +
              std::string(o.domain.empty() ? " (or compile with --opset N to retarget all)" : ""));
      const std::string& first_user = opset_user[o.domain];
      if (current_fn && !first_user.empty() && first_user != current_fn->def->name) {
        d.notes.push_back("'" + current_fn->def->name + "' uses version " +
                          std::to_string(o.version) + ", '" + first_user + "' uses version " +
                          std::to_string(it->second.first) + ", and both are in this model");
      }
      if (it->second.second.end > 0) {
        d.notes.push_back("version " + std::to_string(it->second.first) + " comes from line " +
                          std::to_string(file.line_col(it->second.second.begin).line));
      }
    }
    return false;
  }
  if (opset_user[o.domain].empty() && current_fn) opset_user[o.domain] = current_fn->def->name;
  return true;
}

const ir::Function* Compiler::function_of(ScriptFn& fn, Span call_span,
                                          const std::vector<std::string>& omitted) {
  // A function the model will not contain, with another ai.onnx version
  // than the model's, is checked against its own version in a builder of
  // its own (kept alive: its values are referenced until the end).
  OpsetRef own = default_opset(&fn);
  std::string key;
  for (const auto& o : omitted) key += "_" + o;
  bool isolate = checking_only && own.domain.empty() && own.version != main_opset &&
                 fn.variants[key].state == ScriptFn::State::kNone;
  if (!isolate) return compile_function(fn, call_span, omitted);
  std::unique_ptr<builder::Builder> saved_root = std::move(root);
  auto saved_used = opsets_used;
  auto saved_user = opset_user;
  root = std::make_unique<builder::Builder>(builder::BuilderOptions{.opset = own.version});
  root->model().opset_imports.push_back({"", own.version});
  opsets_used.clear();
  opsets_used[""] = {own.version, Span{}};
  opset_user.clear();
  const ir::Function* f = compile_function(fn, call_span, omitted);
  isolated_roots.push_back(std::move(root));
  root = std::move(saved_root);
  opsets_used = std::move(saved_used);
  opset_user = std::move(saved_user);
  return f;
}

const ir::Function* Compiler::compile_function(ScriptFn& fn, Span call_span,
                                               const std::vector<std::string>& omitted) {
  std::string suffix;
  for (const auto& o : omitted) suffix += "_" + o;
  std::string fname = suffix.empty() ? fn.def->name : fn.def->name + "__without" + suffix;
  ScriptFn::Variant& var = fn.variants[suffix];
  switch (var.state) {
    case ScriptFn::State::kDone:
      return var.compiled;
    case ScriptFn::State::kFailed:
      return nullptr;
    case ScriptFn::State::kCompiling:
      error(code::kRecursiveCall, call_span,
            "'" + fn.def->name + "' calls itself; ONNX functions cannot be recursive",
            "rewrite the recursion as a loop (for i in range(n):)");
      return nullptr;
    case ScriptFn::State::kNone:
      break;
  }
  var.state = ScriptFn::State::kCompiling;
  Signature& sig = signature(fn);
  if (!sig.ok) {
    var.state = ScriptFn::State::kFailed;
    return nullptr;
  }
  if (!use_opset(OpsetRef{fn.domain, fn.domain_version}, fn.def->name_span)) {
    var.state = ScriptFn::State::kFailed;
    return nullptr;
  }
  std::vector<std::string> attr_names;
  for (const ParamInfo& p : sig.params) {
    if (p.is_attr) attr_names.push_back(p.name);
  }
  builder::Builder fb = root->function(fn.domain, fname, attr_names);
  FunctionConverter conv(*this, &fn, &fb, FunctionConverter::Mode::kFunction);
  conv.omitted_inputs = omitted;
  const ScriptFn* saved_fn = current_fn;
  current_fn = &fn;
  bool ok = conv.convert();
  current_fn = saved_fn;
  if (ok) {
    try {
      var.compiled = &root->add_function(std::move(fb));
      if (fn.def->docstring) {
        if (ir::Function* f = root->model().find_function(fn.domain, fname)) {
          f->doc_string = *fn.def->docstring;
        }
      }
      var.state = ScriptFn::State::kDone;
      return var.compiled;
    } catch (const Error& e) {
      error(code::kInvalidNode, fn.def->name_span, e.message());
    }
  }
  // Forget the facts the inferencer keeps about the abandoned body's values.
  auto& inf = root->inferencer();
  for (ir::Value* v : fb.graph().inputs()) inf.forget(v);
  fb.graph().for_each_node_recursive([&](ir::Node* n) {
    for (size_t k = 0; k < n->num_outputs(); ++k) {
      if (n->output(k)) inf.forget(n->output(k));
    }
  });
  var.state = ScriptFn::State::kFailed;
  return nullptr;
}

void Compiler::read_io_names(ScriptFn& fn, const Expr& e) {
  // io_names={"input_1": "input.1"}: graph input/output names that are not
  // identifiers (what `oxs decompile` writes for them).
  const auto* d = e.dyn<Dict>();
  bool ok = d != nullptr;
  for (size_t k = 0; ok && k < d->keys.size(); ++k) {
    const auto* key = d->keys[k] ? d->keys[k]->dyn<Constant>() : nullptr;
    const auto* val = d->values[k]->dyn<Constant>();
    ok = key && val && key->value_kind == ConstantKind::kStr &&
         val->value_kind == ConstantKind::kStr && !val->str_value.empty();
    if (ok) fn.io_names[key->str_value] = val->str_value;
  }
  if (!ok) {
    error(code::kWrongKindOfValue, e.span,
          "io_names= takes a dict of str literals: the Python name to the ONNX name",
          "write io_names={\"input_1\": \"input.1\"}");
  }
}

void Compiler::collect_infos() {
  for (auto& fn : fns) {
    if (!fn->is_script) continue;
    default_entry = fn->def->name;
    Signature& sig = signature(*fn);
    ScriptFunctionInfo info;
    info.name = fn->def->name;
    info.domain = fn->domain;
    info.registered_names = fn->registered_names;
    for (const ParamInfo& p : sig.params) {
      if (!p.is_attr) {
        info.inputs.push_back({p.name, p.type.to_ir()});
        continue;
      }
      ScriptAttribute a;
      a.name = p.name;
      a.type = p.attr_type;
      a.is_bool = p.is_bool;
      if (p.default_value) {
        if (auto d = py_to_attr(p.name, p.attr_type, *p.default_value)) {
          a.default_value = std::make_shared<const ir::Attr>(std::move(*d));
        }
      }
      info.attributes.push_back(std::move(a));
    }
    infos.push_back(std::move(info));
  }
}

std::optional<ir::Model> Compiler::run() {
  scan_module();
  // Decorators: @script(), @script(op), @script(default_opset=op), @graph().
  FunctionConverter stat(*this, nullptr, nullptr, FunctionConverter::Mode::kStatic);
  for (auto& fn : fns) {
    // A host-built unit (environment.h) holds only functions the host
    // decorated, perhaps as `script()(f)` with no decorator in the source.
    if (options.environment) fn->is_script = true;
    for (const Expr* d : fn->def->decorators) {
      if (names_decorator(*this, d, "graph")) {
        fn->is_graph = true;
        continue;
      }
      if (is_registration_decorator(d)) {
        fn->is_script = true;
        for (auto& n : registered_names(d)) fn->registered_names.push_back(std::move(n));
        continue;
      }
      if (!names_decorator(*this, d, "script")) continue;
      fn->is_script = true;
      const auto* call = d->dyn<Call>();
      if (!call) continue;  // bare @script
      auto take_opset = [&](const Expr& e, bool is_default) {
        SVal v = stat.eval(e);
        if (v.is_poison()) return;
        if (v.kind != SVal::Kind::kOpset) {
          error(code::kWrongKindOfValue, e.span,
                "@script() takes an opset here, not " + v.describe(),
                "write @script(), @script(op) or @script(default_opset=op)");
          return;
        }
        if (!is_default && !v.opset.domain.empty() && v.opset.domain != "ai.onnx.ml") {
          fn->domain = v.opset.domain;  // the function belongs to this custom opset
          fn->domain_version = v.opset.version;
        } else {
          fn->default_opset = v.opset;
        }
      };
      for (size_t k = 0; k < call->args.size(); ++k) take_opset(*call->args[k], k == 1);
      for (const Keyword& kw : call->keywords) {
        if (kw.arg == "default_opset") {
          take_opset(*kw.value, true);
        } else if (kw.arg == "opset") {
          take_opset(*kw.value, false);
        } else if (kw.arg == "io_names") {
          read_io_names(*fn, *kw.value);
        }
        // Other keywords (e.g. onnxscript's ir_version) do not change the graph.
      }
    }
  }
  report_unclaimed_defs();
  // As onnxscript: a function without default_opset uses the ai.onnx opset
  // its body names (when it names one version).
  for (auto& fn : fns) {
    if (!fn->is_script || fn->default_opset) continue;
    NameSet names;
    names_in_body(fn->def->body, names);
    std::optional<OpsetRef> found;
    bool several = false;
    for (const auto& n : names) {
      auto g = globals.find(n);
      if (g == globals.end() || g->second.pending) continue;
      const SVal& v = g->second.value;
      if (v.kind != SVal::Kind::kOpset || !v.opset.domain.empty()) continue;
      several = several || (found && found->version != v.opset.version);
      found = v.opset;
    }
    if (found && !several) fn->body_opset = found;
  }
  // The model's ai.onnx version: --opset, else the entry's default opset,
  // else what the file imports (and uses), else the newest.
  auto latest = schema::latest_opset("");
  main_opset = latest ? *latest : 17;
  Span first_import{};
  const ScriptFn* entry_fn = nullptr;
  for (auto& fn : fns) {
    if (!options.entry.empty() ? fn->def->name == options.entry : fn->is_script)
      entry_fn = fn.get();
  }
  if (options.opset) {
    main_opset = *options.opset;
  } else if (entry_fn && (entry_fn->default_opset || entry_fn->body_opset) &&
             (!options.functions_only || !options.entry.empty()) &&
             default_opset(entry_fn).domain.empty() &&
             default_opset(entry_fn).version <= main_opset &&
             default_opset(entry_fn).version >= schema::earliest_opset("").value_or(1)) {
    main_opset = default_opset(entry_fn).version;
  } else if (module_default_opset) {
    auto earliest = schema::earliest_opset("");
    if (module_default_opset->version <= main_opset &&
        (!earliest || module_default_opset->version >= *earliest)) {
      main_opset = module_default_opset->version;
    }
    first_import = module_default_opset_span;
  }
  if (options.opset && (!latest || *options.opset > *latest || *options.opset < 1)) {
    error(code::kUnsupportedOpset, Span{},
          "--opset " + std::to_string(*options.opset) +
              " is not supported: the newest ai.onnx "
              "opset oxs knows is " +
              std::to_string(latest ? *latest : 17),
          "pass --opset " + std::to_string(latest ? *latest : 17) + " or lower");
    return std::nullopt;
  }
  root = std::make_unique<builder::Builder>(builder::BuilderOptions{.opset = main_opset});
  opsets_used[""] = {main_opset, first_import};
  // ai.onnx first among the imports, though callees are compiled before the graph.
  if (!ir::find_opset(root->model().opset_imports, "")) {
    root->model().opset_imports.push_back({"", main_opset});
  }

  ScriptFn* entry = nullptr;
  if (!options.functions_only) {
    if (!options.entry.empty()) {
      for (auto& fn : fns) {
        if (fn->def->name == options.entry) entry = fn.get();
      }
      if (!entry) {
        std::vector<std::string> names;
        for (auto& fn : fns) names.push_back(fn->def->name);
        auto close = schema::closest_names(options.entry, names, 1);
        error(code::kBadEntry, Span{}, "no function '" + options.entry + "' in " + file.name(),
              close.empty() ? "pass the name of a function defined in the file"
                            : "did you mean '" + close[0] + "'?");
        return std::nullopt;
      }
    } else {
      for (auto& fn : fns) {
        if (fn->is_script) entry = fn.get();
      }
      if (!entry) {
        if (options.allow_empty) {
          collect_infos();
          return std::nullopt;
        }
        error(code::kBadEntry, Span{}, "no function decorated with @script() in " + file.name(),
              "decorate the model's function with @script() (from onnxscript import script); "
              "pass --allow-empty if a file without one is expected");
        return std::nullopt;
      }
    }
    if (entry->def->docstring) root->graph().doc_string = *entry->def->docstring;
    root->graph().set_name(entry->def->name);
    compile_callees_first(*entry);
    entry->variants[""].state =
        ScriptFn::State::kCompiling;  // a call of the entry from itself is recursion
    FunctionConverter conv(*this, entry, root.get(), FunctionConverter::Mode::kMain);
    current_fn = entry;
    conv.convert();
    current_fn = nullptr;
    entry->variants[""].state = ScriptFn::State::kNone;
  }
  // A function library for one entry (eager calls): the entry and what it
  // calls are the model's; the rest is only checked.
  const ir::Function* library_entry = nullptr;
  if (options.functions_only && !options.entry.empty()) {
    for (auto& fn : fns) {
      if (fn->def->name == options.entry && fn->is_script) entry = fn.get();
    }
    if (!entry) {
      error(code::kBadEntry, Span{}, "no script function '" + options.entry + "' in " + file.name(),
            "pass the name of a @script() function of the file");
      return std::nullopt;
    }
    compile_callees_first(*entry);
    library_entry = function_of(*entry, entry->def->name_span);
  }
  // Every other script function is checked (and, with --functions-only, kept).
  // Functions the model does not call may use another opset version.
  checking_only = !options.functions_only || library_entry;
  for (auto& fn : fns) {
    if (diags.full()) break;
    if (!fn->is_script || fn.get() == entry) continue;
    compile_callees_first(*fn);
    function_of(*fn, fn->def->name_span);
  }
  checking_only = false;
  collect_infos();
  if (diags.has_errors()) return std::nullopt;
  if (options.functions_only && infos.empty() && options.allow_empty) return std::nullopt;
  if (options.functions_only && infos.empty()) {
    error(code::kBadEntry, Span{}, "no function decorated with @script() in " + file.name(),
          "the file yields no function to write; pass --allow-empty if that is expected");
    return std::nullopt;
  }

  ir::Model& m = root->model();
  if (!options.functions_only || library_entry) {
    // Keep the functions the graph reaches (an index, so that the walk stays
    // linear in the number of nodes).
    std::unordered_map<std::string, const ir::Function*> by_name;
    for (const auto& f : m.functions) {
      by_name.emplace(std::string(schema::canonical_domain(f->domain)) + "\n" + f->name, f.get());
    }
    auto find = [&](const ir::Node* n) -> const ir::Function* {
      auto it =
          by_name.find(std::string(schema::canonical_domain(n->domain())) + "\n" + n->op_type());
      return it == by_name.end() ? nullptr : it->second;
    };
    std::unordered_set<const ir::Function*> reached;
    std::vector<const ir::Graph*> work{m.graph.get()};
    if (library_entry) {
      reached.insert(library_entry);
      work = {library_entry->body.get()};
    }
    while (!work.empty()) {
      const ir::Graph* g = work.back();
      work.pop_back();
      g->for_each_node_recursive([&](ir::Node* n) {
        if (const ir::Function* f = find(n)) {
          if (reached.insert(f).second) work.push_back(f->body.get());
        }
      });
    }
    m.functions.erase_if(
        [&](const std::unique_ptr<ir::Function>& f) { return !reached.count(f.get()); });
  }
  for (const auto& info : infos) {
    if (info.registered_names.empty()) continue;
    std::string joined;
    for (const auto& n : info.registered_names) joined += (joined.empty() ? "" : ",") + n;
    m.metadata_props.push_back({"oxs.registered." + info.name, joined});
  }
  try {
    if (options.functions_only) {
      builder::remove_unused(m);
      ir::Model out = std::move(m);
      ir::verify_or_throw(out);
      return out;
    }
    return root->finish({.remove_unused = options.cleanup,
                         .remove_identity = options.cleanup,
                         .inline_functions = options.inline_functions});
  } catch (const Error& e) {
    error(code::kInvalidNode, Span{}, "the compiled model is invalid: " + e.message(),
          "this is likely a bug in oxs; please report it with the script");
    return std::nullopt;
  }
}

namespace {

uint32_t body_end(const Body& body, uint32_t end);

uint32_t stmt_end(const Stmt& s) {
  uint32_t end = s.span.end;
  switch (s.kind) {
    case StmtKind::kFunctionDef:
      return body_end(s.as<FunctionDef>().body, end);
    case StmtKind::kClassDef:
      return body_end(s.as<ClassDef>().body, end);
    case StmtKind::kIf:
      return body_end(s.as<If>().orelse, body_end(s.as<If>().body, end));
    case StmtKind::kFor:
      return body_end(s.as<For>().orelse, body_end(s.as<For>().body, end));
    case StmtKind::kWhile:
      return body_end(s.as<While>().orelse, body_end(s.as<While>().body, end));
    case StmtKind::kWith:
      return body_end(s.as<With>().body, end);
    default:
      return end;
  }
}

uint32_t body_end(const Body& body, uint32_t end) {
  for (const Stmt* s : body) end = std::max(end, stmt_end(*s));
  return end;
}

}  // namespace

namespace {

// Whether a decorator reads as onnxscript's script()/graph() or one of the
// registration decorators (--decorator): names only, before any binding.
bool script_like(const Expr* d, const std::vector<std::string>& extra) {
  if (const auto* call = d->dyn<Call>()) d = call->func;
  std::string last;
  if (const auto* n = d->dyn<Name>()) last = n->id;
  if (const auto* a = d->dyn<Attribute>()) last = a->attr;
  if (last == "script" || last == "graph") return true;
  return std::find(extra.begin(), extra.end(), last) != extra.end();
}

// The spans of defs decorated as ONNX Script, at any depth.
void decorated_ranges(const Body& body, const std::vector<std::string>& extra,
                      std::vector<std::pair<uint32_t, uint32_t>>& out) {
  for (const Stmt* s : body) {
    switch (s->kind) {
      case StmtKind::kFunctionDef: {
        const auto& f = s->as<FunctionDef>();
        bool script = false;
        for (const Expr* d : f.decorators) script = script || script_like(d, extra);
        if (script) {
          uint32_t begin = s->span.begin;
          for (const Expr* d : f.decorators) begin = std::min(begin, d->span.begin);
          out.push_back({begin, stmt_end(*s)});
        }
        decorated_ranges(f.body, extra, out);
        break;
      }
      case StmtKind::kClassDef:
        decorated_ranges(s->as<ClassDef>().body, extra, out);
        break;
      case StmtKind::kIf:
        decorated_ranges(s->as<If>().body, extra, out);
        decorated_ranges(s->as<If>().orelse, extra, out);
        break;
      case StmtKind::kFor:
        decorated_ranges(s->as<For>().body, extra, out);
        break;
      case StmtKind::kWhile:
        decorated_ranges(s->as<While>().body, extra, out);
        break;
      case StmtKind::kWith:
        decorated_ranges(s->as<With>().body, extra, out);
        break;
      default:
        break;
    }
  }
}

// Valid Python that ONNX Script does not support (f-strings, complex
// numbers, ints beyond int64, \N{...} escapes, unknown string prefixes).
bool valid_python_unsupported(const std::string& code) {
  return code == code::kUnsupportedSyntax || code == code::kIntegerTooLarge ||
         code == code::kInvalidEscape || code == code::kInvalidStringPrefix;
}

}  // namespace

// Script files are Python modules: next to the script functions they often
// hold Python that only Python runs (saving the model, helpers printing with
// f-strings). Python's syntax rules hold everywhere, so a real syntax error
// is an error wherever it is; but valid Python that ONNX Script does not
// support is only a note outside defs decorated as ONNX Script.
void tolerate_module_level_errors(ParseResult& parsed,
                                  const std::vector<std::string>& script_decorators) {
  std::vector<std::pair<uint32_t, uint32_t>> script_ranges;
  decorated_ranges(parsed.module.body, script_decorators, script_ranges);
  for (Diagnostic& d : parsed.diagnostics) {
    if (d.severity != Severity::kError || !valid_python_unsupported(d.code)) continue;
    bool in_script = false;
    for (auto& [b, e] : script_ranges)
      in_script = in_script || (d.span.begin >= b && d.span.begin <= e);
    if (in_script) continue;
    d.severity = Severity::kNote;
    d.notes.push_back("this is Python outside script functions; oxs skips it");
  }
}

CompileResult compile_source(const SourceFile& source, const CompileOptions& options) {
  CompileResult result;
  ParseResult parsed = parse(source);
  tolerate_module_level_errors(parsed, options.script_decorators);
  bool parsed_ok = parsed.ok();
  result.diagnostics = std::move(parsed.diagnostics);
  if (!parsed_ok) return result;
  DiagnosticSink sink(options.max_errors);
  std::optional<ir::Model> model;
  try {
    Compiler c(source, parsed.module, options, sink);
    model = c.run();
    result.functions = std::move(c.infos);
    result.default_entry = std::move(c.default_entry);
  } catch (const std::exception& e) {
    sink.error(std::string(code::kInvalidNode), Span{},
               std::string("internal error while compiling: ") + e.what(),
               "this is a bug in oxs; please report it with the script");
    model.reset();
  }
  bool errors = sink.has_errors();
  for (auto& d : sink.take()) result.diagnostics.push_back(std::move(d));
  if (!errors && model) result.model = std::move(model);
  return result;
}

ir::Model compile(const SourceFile& source, const CompileOptions& options) {
  CompileResult r = compile_source(source, options);
  if (!r.ok()) {
    std::string text = render(source, r.diagnostics);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    throw Error(ErrorKind::Invalid, text, {.file = source.name()});
  }
  return std::move(*r.model);
}

}  // namespace oxs::script
