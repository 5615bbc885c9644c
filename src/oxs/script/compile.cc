// The compiler driver: parse, read the module's names, pick the entry,
// convert it into the model's graph and every script function it calls into
// model-local functions (compiled once, on first call), check every other
// decorated function too so that all errors show in one run, then finish the
// model (unreachable functions dropped, optional inlining).
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "oxs/ir/error.h"
#include "oxs/ir/verifier.h"
#include "oxs/schema/registry.h"
#include "oxs/schema/suggest.h"
#include "oxs/script/compiler.h"
#include "oxs/script/convert_codes.h"
#include "oxs/script/environment.h"
#include "oxs/script/parser.h"

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
  if (it == opsets_used.end()) {
    opsets_used[o.domain] = {o.version, span};
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
      if (it->second.second.end > 0) {
        d.notes.push_back("version " + std::to_string(it->second.first) + " comes from line " +
                          std::to_string(file.line_col(it->second.second.begin).line));
      }
    }
    return false;
  }
  return true;
}

const ir::Function* Compiler::function_of(ScriptFn& fn, Span call_span,
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
  bool ok = conv.convert();
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
        }
        // Other keywords (e.g. onnxscript's ir_version) do not change the graph.
      }
    }
  }
  // The model's ai.onnx version: --opset, else what the file imports, else the newest.
  auto latest = schema::latest_opset("");
  main_opset = latest ? *latest : 17;
  Span first_import{};
  if (options.opset) {
    main_opset = *options.opset;
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
        error(code::kBadEntry, Span{}, "no function decorated with @script() in " + file.name(),
              "decorate the model's function with @script() (from onnxscript import script)");
        return std::nullopt;
      }
    }
    if (entry->def->docstring) root->graph().doc_string = *entry->def->docstring;
    root->graph().set_name(entry->def->name);
    entry->variants[""].state =
        ScriptFn::State::kCompiling;  // a call of the entry from itself is recursion
    FunctionConverter conv(*this, entry, root.get(), FunctionConverter::Mode::kMain);
    conv.convert();
    entry->variants[""].state = ScriptFn::State::kNone;
  }
  // Every other script function is checked (and, with --functions-only, kept).
  for (auto& fn : fns) {
    if (diags.full()) break;
    if (fn->is_script && fn.get() != entry) function_of(*fn, fn->def->name_span);
  }
  if (diags.has_errors()) return std::nullopt;

  ir::Model& m = root->model();
  if (!options.functions_only) {
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
  try {
    if (options.functions_only) {
      builder::remove_unused(m);
      ir::Model out = std::move(m);
      ir::verify_or_throw(out);
      return out;
    }
    return root->finish({.inline_functions = options.inline_functions});
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

// Script files are Python modules: next to the script functions they often
// hold Python that only Python runs (saving the model, printing with
// f-strings). A syntax oxs does not parse there is harmless, so errors on
// module-level lines that are not part of a def become warnings.
void tolerate_module_level_errors(const SourceFile& source, ParseResult& parsed) {
  std::vector<std::pair<uint32_t, uint32_t>> defs;
  for (const Stmt* s : parsed.module.body) {
    if (s->kind == StmtKind::kFunctionDef || s->kind == StmtKind::kClassDef) {
      uint32_t begin = s->span.begin;
      const auto& decos = s->kind == StmtKind::kFunctionDef ? s->as<FunctionDef>().decorators
                                                            : s->as<ClassDef>().decorators;
      for (const Expr* d : decos) begin = std::min(begin, d->span.begin);
      defs.push_back({begin, stmt_end(*s)});
    }
  }
  for (Diagnostic& d : parsed.diagnostics) {
    if (d.severity != Severity::kError) continue;
    bool in_def = false;
    for (auto& [b, e] : defs) in_def = in_def || (d.span.begin >= b && d.span.begin <= e);
    if (in_def) continue;
    uint32_t line = source.line_col(d.span.begin).line;
    std::string_view text = line <= source.line_count() ? source.line_text(line) : "";
    size_t first = text.find_first_not_of(" \t");
    std::string_view head = first == std::string_view::npos ? "" : text.substr(first);
    // A def, decorator or class line that failed may hide a function.
    bool risky = head.rfind("def ", 0) == 0 || head.rfind("@", 0) == 0 ||
                 head.rfind("async ", 0) == 0 || head.rfind("class ", 0) == 0;
    if (risky) continue;
    d.severity = Severity::kWarning;
    d.notes.push_back("this line is module-level Python outside script functions; oxs ignores it");
  }
}

CompileResult compile_source(const SourceFile& source, const CompileOptions& options) {
  CompileResult result;
  ParseResult parsed = parse(source);
  tolerate_module_level_errors(source, parsed);
  bool parsed_ok = parsed.ok();
  result.diagnostics = std::move(parsed.diagnostics);
  if (!parsed_ok) return result;
  DiagnosticSink sink(options.max_errors);
  std::optional<ir::Model> model;
  try {
    Compiler c(source, parsed.module, options, sink);
    model = c.run();
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
