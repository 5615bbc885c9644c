// Module-level names of a script file: imports as onnxscript users write
// them (onnxscript, its opsets and types, onnx.TensorProto, onnx.helper,
// typing, math; anything else is accepted and errors only when a script uses
// it), functions, and module-level assignments (constants, type aliases,
// TypeVars, Opset(...)), evaluated lazily on first use.
#include <cmath>

#include "oxs/ir/dtype.h"
#include "oxs/schema/registry.h"
#include "oxs/schema/suggest.h"
#include "oxs/script/convert/compiler.h"
#include "oxs/script/convert/convert_codes.h"
#include "oxs/script/environment.h"
#include "oxs/script/front/lexer.h"

namespace oxs::script {

namespace {

constexpr ir::DataType kTensorTypes[] = {
    ir::DataType::Float, ir::DataType::Uint8, ir::DataType::Int8, ir::DataType::Uint16,
    ir::DataType::Int16, ir::DataType::Int32, ir::DataType::Int64, ir::DataType::String,
    ir::DataType::Bool, ir::DataType::Float16, ir::DataType::Double, ir::DataType::Uint32,
    ir::DataType::Uint64, ir::DataType::Complex64, ir::DataType::Complex128, ir::DataType::BFloat16,
    // onnxscript's names for the IR 9+ element types.
    ir::DataType::Float8E4M3FN, ir::DataType::Float8E4M3FNUZ, ir::DataType::Float8E5M2,
    ir::DataType::Float8E5M2FNUZ, ir::DataType::Uint4, ir::DataType::Int4, ir::DataType::Float4E2M1,
    ir::DataType::Float8E8M0, ir::DataType::Uint2, ir::DataType::Int2};

SVal tensor_type(ir::DataType dt, std::string name) {
  auto t = std::make_shared<TypeInfo>();
  t->kind = TypeInfo::Kind::kTensor;
  t->dtype = dt;
  // As in onnxscript, a bare FLOAT is a scalar; FLOAT[...] has any shape.
  if (dt != ir::DataType::Undefined) t->shape = ir::Shape(std::vector<ir::Dim>{});
  SVal v = SVal::named(SVal::Kind::kType, std::move(name));
  v.type = std::move(t);
  return v;
}

SVal attr_type(ir::AttrType a, std::string name) {
  auto t = std::make_shared<TypeInfo>();
  t->kind = TypeInfo::Kind::kAttr;
  t->attr = a;
  SVal v = SVal::named(SVal::Kind::kType, std::move(name));
  v.type = std::move(t);
  return v;
}

std::optional<ir::DataType> dtype_by_script_name(const std::string& name) {
  for (ir::DataType dt : kTensorTypes) {
    if (ir::dtype_script_name(dt) == name) return dt;
  }
  return std::nullopt;
}

// `opset15`, `opset_ai_onnx_ml3`: the opset a name of onnxscript.onnx_opset denotes.
std::optional<OpsetRef> opset_by_name(const std::string& name) {
  auto number = [](const std::string& s) -> std::optional<int64_t> {
    if (s.empty() || s.size() > 6) return std::nullopt;
    for (char ch : s) {
      if (ch < '0' || ch > '9') return std::nullopt;
    }
    return std::stoll(s);
  };
  if (name.rfind("opset_ai_onnx_ml", 0) == 0) {
    if (auto v = number(name.substr(16))) return OpsetRef{"ai.onnx.ml", *v};
  } else if (name.rfind("opset", 0) == 0) {
    if (auto v = number(name.substr(5))) return OpsetRef{"", *v};
  }
  return std::nullopt;
}

std::optional<ir::DataType> numpy_dtype(const std::string& name) {
  using D = ir::DataType;
  static const std::pair<const char*, D> kNames[] = {
      {"float32", D::Float}, {"float64", D::Double}, {"float16", D::Float16}, {"double", D::Double},
      {"single", D::Float},  {"half", D::Float16},   {"int8", D::Int8},       {"int16", D::Int16},
      {"int32", D::Int32},   {"int64", D::Int64},    {"uint8", D::Uint8},     {"uint16", D::Uint16},
      {"uint32", D::Uint32}, {"uint64", D::Uint64},  {"bool_", D::Bool}};
  for (const auto& [n, d] : kNames) {
    if (name == n) return d;
  }
  return std::nullopt;
}

const char* kTypingGenerics[] = {"Optional",  "Sequence", "List", "Tuple",    "Union",
                                 "Annotated", "Any",      "Dict", "Callable", "Iterable"};

}  // namespace

Diagnostic& Compiler::error(std::string_view code, Span span, std::string message,
                            std::string hint) {
  return diags.error(std::string(code), span, std::move(message), std::move(hint));
}

void Compiler::warning(std::string_view code, Span span, std::string message, std::string hint) {
  Diagnostic d;
  d.severity = Severity::kWarning;
  d.code = std::string(code);
  d.span = span;
  d.message = std::move(message);
  d.hint = std::move(hint);
  diags.report(std::move(d));
}

void Compiler::bind_import(const std::string& local, const std::string& path, Span span) {
  GlobalEntry& g = globals[local];
  g = GlobalEntry{};
  g.span = span;
  g.value = SVal::named(SVal::Kind::kModule, path);
}

size_t Compiler::name_uses(const std::string& name) {
  if (!name_counts_ready) {
    name_counts_ready = true;
    DiagnosticSink ignored(1);
    for (const Token& t : tokenize(file, ignored)) {
      if (t.kind == TokenKind::kName) ++name_counts[t.text];
    }
  }
  auto it = name_counts.find(name);
  return it == name_counts.end() ? 0 : it->second;
}

void Compiler::scan_module() {
  for (const Stmt* s : module.body) {
    switch (s->kind) {
      case StmtKind::kImport:
        for (const Alias& a : s->as<Import>().names) {
          if (!a.asname.empty()) {
            bind_import(a.asname, a.name, a.span);
          } else {
            // `import onnx.helper` binds `onnx`.
            bind_import(a.name.substr(0, a.name.find('.')), a.name.substr(0, a.name.find('.')),
                        a.span);
          }
        }
        break;
      case StmtKind::kImportFrom: {
        const auto& f = s->as<ImportFrom>();
        if (f.level > 0) {
          // Relative imports name files oxs cannot see; names bound by them
          // error only when a script uses them.
          for (const Alias& a : f.names) {
            std::string local = a.asname.empty() ? a.name : a.asname;
            if (local == "*") continue;
            GlobalEntry& g = globals[local];
            g = GlobalEntry{};
            g.span = a.span;
            g.value = SVal::named(SVal::Kind::kForeign, "." + f.module + "." + a.name);
          }
          break;
        }
        SVal mod = SVal::named(SVal::Kind::kModule, f.module);
        for (const Alias& a : f.names) {
          if (a.name == "*") {
            if (f.module == "onnxscript" || f.module == "onnxscript.onnx_types") {
              for (ir::DataType dt : kTensorTypes) {
                std::string n(ir::dtype_script_name(dt));
                globals[n] = GlobalEntry{tensor_type(dt, n), nullptr, a.span, false};
              }
            }
            continue;
          }
          std::string local = a.asname.empty() ? a.name : a.asname;
          SVal v = member(mod, a.name, a.span);
          if (v.kind == SVal::Kind::kOpset && v.opset.domain.empty()) {
            // An import that nothing uses fixes nothing: the first ai.onnx
            // opset the file uses is the default.
            if (!module_default_opset || !default_opset_used) {
              bool used = name_uses(local) > 1;
              if (!module_default_opset || used) {
                module_default_opset = v.opset;
                module_default_opset_span = a.span;
                default_opset_used = used;
              }
            }
            if (!options.opset) {
              // Report an unsupported version where it is imported.
              auto latest = schema::latest_opset("");
              if (latest && (v.opset.version > *latest || v.opset.version < 1)) {
                std::string key = "range::" + std::to_string(v.opset.version);
                if (reported_mixed.insert(key).second) {
                  std::string l = std::to_string(*latest);
                  error(code::kUnsupportedOpset, a.span,
                        "ai.onnx opset " + std::to_string(v.opset.version) +
                            " is not supported: the newest ai.onnx opset oxs knows is " + l,
                        "import opset" + l + " (from onnxscript import opset" + l +
                            "), or compile with --opset " + l + " to retarget the file");
                }
              }
            }
          }
          GlobalEntry& g = globals[local];
          g = GlobalEntry{};
          g.span = a.span;
          g.value = std::move(v);
        }
        break;
      }
      case StmtKind::kFunctionDef: {
        const auto& f = s->as<FunctionDef>();
        auto fn = std::make_unique<ScriptFn>();
        fn->def = &f;
        fn_of_def[&f] = fn.get();
        SVal v = SVal::named(SVal::Kind::kFunction, f.name);
        v.fn = fn.get();
        v.def = &f;
        GlobalEntry& g = globals[f.name];
        g = GlobalEntry{};
        g.span = f.name_span;
        g.value = std::move(v);
        fns.push_back(std::move(fn));
        break;
      }
      case StmtKind::kClassDef: {
        GlobalEntry& g = globals[s->as<ClassDef>().name];
        g = GlobalEntry{};
        g.span = s->as<ClassDef>().name_span;
        g.value = SVal::named(SVal::Kind::kForeign, "class " + s->as<ClassDef>().name);
        break;
      }
      case StmtKind::kAssign: {
        const auto& a = s->as<Assign>();
        for (const Expr* t : a.targets) {
          if (const auto* n = t->dyn<Name>()) {
            GlobalEntry& g = globals[n->id];
            g = GlobalEntry{};
            g.span = n->span;
            g.pending = a.value;
          }
        }
        break;
      }
      case StmtKind::kAnnAssign: {
        const auto& a = s->as<AnnAssign>();
        if (const auto* n = a.target->dyn<Name>(); n && a.value) {
          GlobalEntry& g = globals[n->id];
          g = GlobalEntry{};
          g.span = n->span;
          g.pending = a.value;
        }
        break;
      }
      default:
        break;  // module-level code (prints, saves, try blocks) is Python's business
    }
  }
  // A host-built unit has no imports: the host says which ai.onnx opset is the default.
  if (options.environment && !module_default_opset) {
    module_default_opset = options.environment->default_opset();
  }
}

std::optional<SVal> Compiler::lookup_global(const std::string& name, Span use) {
  // Names a host binds for the function at `use` (environment.h) come first.
  if (options.environment) {
    if (const ExternalValue* v = options.environment->lookup(name, use)) {
      return external_value(*this, *v, use);
    }
  }
  auto it = globals.find(name);
  if (it != globals.end()) {
    GlobalEntry& g = it->second;
    if (g.pending) {
      if (g.resolving) {
        error(code::kBadConstant, use,
              "module-level name '" + name + "' is defined in terms of itself",
              "give it a value that does not refer to '" + name + "'");
        return SVal::poison();
      }
      g.resolving = true;
      const Expr* e = g.pending;
      FunctionConverter fc(*this, nullptr, nullptr, FunctionConverter::Mode::kStatic);
      SVal v = fc.eval(*e);
      g.resolving = false;
      g.pending = nullptr;
      g.value = v;
    }
    return g.value;
  }
  // Python builtins with a meaning in scripts.
  if (name == "int") return attr_type(ir::AttrType::Int, "int");
  if (name == "float") return attr_type(ir::AttrType::Float, "float");
  if (name == "str") return attr_type(ir::AttrType::String, "str");
  if (name == "bool") return attr_type(ir::AttrType::Int, "bool");
  if (name == "list") return SVal::named(SVal::Kind::kType, "typing.List");
  // tuple[A, B] is a fixed tuple (several outputs), tuple[A, ...] a sequence.
  if (name == "tuple") return SVal::named(SVal::Kind::kType, "typing.Tuple");
  if (name == "range" || name == "len" || name == "print" || name == "isinstance" ||
      name == "abs" || name == "min" || name == "max" || name == "type" || name == "super" ||
      name == "round" || name == "sum" || name == "zip" || name == "enumerate" || name == "open") {
    return SVal::named(SVal::Kind::kBuiltin, name);
  }
  return std::nullopt;
}

std::vector<std::string> Compiler::global_names() const {
  std::vector<std::string> out;
  out.reserve(globals.size());
  for (const auto& [k, v] : globals) out.push_back(k);
  return out;
}

SVal Compiler::member(const SVal& base, const std::string& attr, Span span) {
  switch (base.kind) {
    case SVal::Kind::kPoison:
      return SVal::poison();
    case SVal::Kind::kModule: {
      const std::string& m = base.name;
      std::string path = m + "." + attr;
      // A host may bind members of its modules too (`numpy.pi`, environment.h).
      if (options.environment) {
        if (const ExternalValue* v = options.environment->lookup(path, span)) {
          return external_value(*this, *v, span);
        }
      }
      if (m == "onnxscript" || m == "onnxscript.onnx_opset" || m == "onnxscript.onnx_types" ||
          m == "onnxscript.values") {
        if (auto o = opset_by_name(attr)) {
          SVal v;
          v.kind = SVal::Kind::kOpset;
          v.opset = *o;
          v.origin = span;
          v.name = attr;
          return v;
        }
        if (auto dt = dtype_by_script_name(attr)) return tensor_type(*dt, attr);
        if (attr == "TensorType") return tensor_type(ir::DataType::Undefined, attr);
        if (attr == "script" || attr == "graph") return SVal::named(SVal::Kind::kBuiltin, attr);
        if (attr == "Opset") return SVal::named(SVal::Kind::kBuiltin, "Opset");
        if (attr == "external_tensor") return SVal::named(SVal::Kind::kBuiltin, "external_tensor");
        if (attr == "onnx_opset" || attr == "onnx_types" || attr == "values") {
          return SVal::named(SVal::Kind::kModule, "onnxscript." + attr);
        }
        return SVal::named(SVal::Kind::kForeign, path);
      }
      if (m == "onnx") {
        if (attr == "TensorProto") return SVal::named(SVal::Kind::kModule, "onnx.TensorProto");
        if (attr == "helper") return SVal::named(SVal::Kind::kModule, "onnx.helper");
        return SVal::named(SVal::Kind::kForeign, path);
      }
      if (m == "onnx.TensorProto") {
        if (auto dt = dtype_by_script_name(attr)) {
          return SVal::of(PyValue::of_int(static_cast<int64_t>(*dt)));
        }
        if (attr == "UNDEFINED") return SVal::of(PyValue::of_int(0));
        return SVal::named(SVal::Kind::kForeign, path);
      }
      if (m == "onnx.helper") {
        if (attr == "make_tensor") return SVal::named(SVal::Kind::kBuiltin, "make_tensor");
        return SVal::named(SVal::Kind::kForeign, path);
      }
      if (m == "typing" || m == "typing_extensions") {
        for (const char* g : kTypingGenerics) {
          if (attr == g) return SVal::named(SVal::Kind::kType, std::string("typing.") + g);
        }
        if (attr == "TypeVar") return SVal::named(SVal::Kind::kBuiltin, "TypeVar");
        return SVal::named(SVal::Kind::kForeign, path);
      }
      if (m == "math") {
        if (attr == "pi") return SVal::of(PyValue::of_float(M_PI));
        if (attr == "e") return SVal::of(PyValue::of_float(M_E));
        if (attr == "inf") return SVal::of(PyValue::of_float(INFINITY));
        if (attr == "nan") return SVal::of(PyValue::of_float(NAN));
        if (attr == "tau") return SVal::of(PyValue::of_float(2 * M_PI));
        for (const char* f : {"sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "floor", "ceil",
                              "fabs", "pow", "erf", "log2", "log10", "atan"}) {
          if (attr == f) return SVal::named(SVal::Kind::kBuiltin, "math." + attr);
        }
        return SVal::named(SVal::Kind::kForeign, path);
      }
      if (m == "numpy") {
        // Constants and literal arrays evaluate while compiling; numpy's
        // dtypes denote tensor types (dtype=np.float32).
        if (attr == "pi") return SVal::of(PyValue::of_float(M_PI));
        if (attr == "e") return SVal::of(PyValue::of_float(M_E));
        if (attr == "inf" || attr == "Inf" || attr == "infty")
          return SVal::of(PyValue::of_float(INFINITY));
        if (attr == "nan" || attr == "NaN") return SVal::of(PyValue::of_float(NAN));
        if (attr == "euler_gamma") return SVal::of(PyValue::of_float(0.5772156649015329));
        if (attr == "array" || attr == "asarray")
          return SVal::named(SVal::Kind::kBuiltin, "numpy.array");
        if (auto dt = numpy_dtype(attr)) {
          SVal v = tensor_type(*dt, std::string(ir::dtype_script_name(*dt)));
          v.name = "numpy." + attr;
          return v;
        }
        return SVal::named(SVal::Kind::kForeign, path);
      }
      if (m == "onnxscript.typing" || m.rfind("onnxscript.", 0) == 0) {
        // e.g. onnxscript.function_libs.torch_lib.tensor_typing.TFloat: a generic tensor type.
        if (!attr.empty() && std::isupper(static_cast<unsigned char>(attr[0]))) {
          return tensor_type(ir::DataType::Undefined, attr);
        }
        return SVal::named(SVal::Kind::kForeign, path);
      }
      // Any other module: numpy, torch, ... Sub-modules stay modules.
      return SVal::named(SVal::Kind::kForeign, path);
    }
    case SVal::Kind::kForeign:
      return SVal::named(SVal::Kind::kForeign, base.name + "." + attr);
    case SVal::Kind::kType:
      if (base.type && base.type->kind == TypeInfo::Kind::kTensor && attr == "dtype" &&
          base.type->dtype != ir::DataType::Undefined) {
        return SVal::of(PyValue::of_int(static_cast<int64_t>(base.type->dtype)));
      }
      break;
    case SVal::Kind::kOpset: {
      SVal v = SVal::named(SVal::Kind::kBuiltin, "op:" + attr);
      v.opset = base.opset;
      v.origin = base.origin;
      return v;
    }
    default:
      break;
  }
  error(code::kNoOnnxMeaning, span,
        base.describe() + " has no member '" + attr + "' that a script can use",
        base.kind == SVal::Kind::kTensor
            ? "tensors have no Python attributes in ONNX Script; use an op, e.g. op.Shape(x)"
            : "");
  return SVal::poison();
}

}  // namespace oxs::script
