// gen_opsets: writes the typed operator API (oxs::opset1 .. opset28,
// oxs::ml_opset1 .. ml_opset5) from schema::'s signatures at build time (libonnx's
// registry up to ai.onnx 17 / ai.onnx.ml 3, oxs's own table after that).
// Never edit or commit its output; CMake runs it (src/oxs/builder).
//
//   gen_opsets <out-dir>   ->  <out-dir>/opsets.h
//                              <out-dir>/opsets_ai_onnx_<v>.cc (v = 1..28)
//                              <out-dir>/opsets_ai_onnx_ml_<v>.cc (v = 1..5)
//
// Compile time: class opsetN inherits opsetN-1 and declares only the ops whose
// schema changed at N (a newer declaration hides the older one; deprecated
// ops become deleted), so each op version is declared once. Definitions go to
// one .cc per opset version, compiled once into liboxs_opsets.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "oxs/schema/registry.h"

namespace {

using oxs::ir::AttrType;
using oxs::schema::OpSignature;
using oxs::schema::ParamOption;
using FormalParameter = oxs::schema::FormalParam;

struct DomainSpec {
  std::string domain;     // "" or "ai.onnx.ml"
  std::string cls;        // "opset" or "ml_opset"
  std::string file_stem;  // "ai_onnx" or "ai_onnx_ml"
  int max_version;
};

const std::set<std::string>& keywords() {
  static const std::set<std::string> k = {
      "alignas",       "alignof",     "and",        "and_eq",   "asm",       "auto",
      "bitand",        "bitor",       "bool",       "break",    "case",      "catch",
      "char",          "class",       "compl",      "concept",  "const",     "consteval",
      "constexpr",     "constinit",   "const_cast", "continue", "co_await",  "co_return",
      "co_yield",      "decltype",    "default",    "delete",   "do",        "double",
      "dynamic_cast",  "else",        "enum",       "explicit", "export",    "extern",
      "false",         "float",       "for",        "friend",   "goto",      "if",
      "inline",        "int",         "long",       "mutable",  "namespace", "new",
      "noexcept",      "not",         "not_eq",     "nullptr",  "operator",  "or",
      "or_eq",         "private",     "protected",  "public",   "register",  "reinterpret_cast",
      "requires",      "return",      "short",      "signed",   "sizeof",    "static",
      "static_assert", "static_cast", "struct",     "switch",   "template",  "this",
      "thread_local",  "throw",       "true",       "try",      "typedef",   "typeid",
      "typename",      "union",       "unsigned",   "using",    "virtual",   "void",
      "volatile",      "wchar_t",     "while",      "xor",      "xor_eq",    "attrs",
      "num_outputs"};
  return k;
}

std::string ident(const std::string& name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "_" + s;
  if (keywords().count(s)) s += "_";
  return s;
}

// One line of doc text: no newlines, no comment terminators, bounded.
std::string doc_line(const std::string& text, size_t max_len = 240) {
  std::string s;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !s.empty();
      continue;
    }
    if (space) s += ' ';
    space = false;
    s += c;
  }
  // First sentence is enough on hover; the full text is in the ONNX docs.
  size_t dot = s.find(". ");
  if (dot != std::string::npos && dot + 1 < s.size()) s = s.substr(0, dot + 1);
  if (s.size() > max_len) s = s.substr(0, max_len - 3) + "...";
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '*' && i + 1 < s.size() && s[i + 1] == '/') {
      out += "* /";
      ++i;
    } else if (s[i] == '\\') {
      out += "\\ ";  // a trailing backslash would splice the next line
    } else {
      out += s[i];
    }
  }
  return out;
}

const char* cpp_attr_type(AttrType t) {
  switch (t) {
    case AttrType::Float:
      return "float";
    case AttrType::Int:
      return "int64_t";
    case AttrType::String:
      return "std::string";
    case AttrType::Tensor:
      return "ir::Tensor";
    case AttrType::Graph:
      return "std::unique_ptr<ir::Graph>";
    case AttrType::SparseTensor:
      return "ir::SparseTensor";
    case AttrType::TypeProto:
      return "ir::Type";
    case AttrType::Floats:
      return "std::vector<float>";
    case AttrType::Ints:
      return "std::vector<int64_t>";
    case AttrType::Strings:
      return "std::vector<std::string>";
    case AttrType::Tensors:
      return "std::vector<ir::Tensor>";
    case AttrType::Graphs:
      return "std::vector<std::unique_ptr<ir::Graph>>";
    case AttrType::SparseTensors:
      return "std::vector<ir::SparseTensor>";
    case AttrType::TypeProtos:
      return "std::vector<ir::Type>";
    default:
      return nullptr;
  }
}

const char* onnx_attr_type(AttrType t) {
  switch (t) {
    case AttrType::Float:
      return "float";
    case AttrType::Int:
      return "int";
    case AttrType::String:
      return "string";
    case AttrType::Tensor:
      return "tensor";
    case AttrType::Graph:
      return "graph";
    case AttrType::SparseTensor:
      return "sparse_tensor";
    case AttrType::TypeProto:
      return "type_proto";
    case AttrType::Floats:
      return "floats";
    case AttrType::Ints:
      return "ints";
    case AttrType::Strings:
      return "strings";
    case AttrType::Tensors:
      return "tensors";
    case AttrType::Graphs:
      return "graphs";
    case AttrType::SparseTensors:
      return "sparse_tensors";
    case AttrType::TypeProtos:
      return "type_protos";
    default:
      return "?";
  }
}

std::string float_lit(float f) {
  if (std::isnan(f)) return "std::numeric_limits<float>::quiet_NaN()";
  if (std::isinf(f)) {
    return f > 0 ? "std::numeric_limits<float>::infinity()"
                 : "-std::numeric_limits<float>::infinity()";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
  return std::string("static_cast<float>(") + buf + ")";
}

std::string int_lit(int64_t v) {
  if (v == INT64_MIN) return "(-9223372036854775807LL - 1)";
  return "static_cast<int64_t>(" + std::to_string(v) + "LL)";
}

std::string string_lit(const std::string& s) {
  std::string out = "std::string(\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\")";
}

// C++ default for an attribute; empty if the schema gives none.
std::string default_of(const oxs::schema::AttrParam& a, std::string* shown) {
  if (!a.default_value) return {};
  const oxs::ir::Attr& d = *a.default_value;
  std::ostringstream os, show;
  switch (a.type) {
    case AttrType::Float:
      show << d.f;
      *shown = show.str();
      return float_lit(d.f);
    case AttrType::Int:
      *shown = std::to_string(d.i);
      return int_lit(d.i);
    case AttrType::String:
      *shown = "\"" + doc_line(d.s, 60) + "\"";
      return string_lit(d.s);
    case AttrType::Floats:
      if (d.floats.empty()) return {};
      os << "std::vector<float>{";
      show << "{";
      for (size_t i = 0; i < d.floats.size(); ++i) {
        os << (i ? ", " : "") << float_lit(d.floats[i]);
        show << (i ? ", " : "") << d.floats[i];
      }
      os << "}";
      show << "}";
      *shown = show.str();
      return os.str();
    case AttrType::Ints:
      if (d.ints.empty()) return {};
      os << "std::vector<int64_t>{";
      show << "{";
      for (size_t i = 0; i < d.ints.size(); ++i) {
        os << (i ? ", " : "") << int_lit(d.ints[i]);
        show << (i ? ", " : "") << d.ints[i];
      }
      os << "}";
      show << "}";
      *shown = show.str();
      return os.str();
    case AttrType::Strings:
      if (d.strings.empty()) return {};
      os << "std::vector<std::string>{";
      for (size_t i = 0; i < d.strings.size(); ++i)
        os << (i ? ", " : "") << string_lit(d.strings[i]);
      os << "}";
      *shown = "{...}";
      return os.str();
    default:
      return {};
  }
}

enum class OutKind { Single, Struct, Vector };

struct OpInfo {
  const OpSignature* s;
  std::string name;  // C++ identifier of the op
  OutKind out_kind;
  bool has_num_outputs;        // attribute struct carries num_outputs
  size_t default_num_outputs;  // 0: decided by the builder (variadic)
};

OpInfo analyse(const OpSignature& s) {
  OpInfo info{&s, ident(s.name), OutKind::Single, false, 1};
  const auto& outs = s.outputs;
  bool variadic = false, optional = false;
  for (const auto& o : outs) {
    variadic |= o.option == ParamOption::Variadic;
    optional |= o.option == ParamOption::Optional;
  }
  if (variadic) {
    info.out_kind = OutKind::Vector;
    info.has_num_outputs = true;
    info.default_num_outputs = 0;
  } else if (outs.size() > 1) {
    info.out_kind = OutKind::Struct;
    size_t leading = 0;
    while (leading < outs.size() && outs[leading].option == ParamOption::Single) ++leading;
    info.default_num_outputs = leading == 0 ? outs.size() : std::max<size_t>(leading, 1);
    info.has_num_outputs = optional;
  }
  return info;
}

std::string opt_label(const FormalParameter& f) {
  switch (f.option) {
    case ParamOption::Optional:
      return ", optional";
    case ParamOption::Variadic:
      return ", variadic";
    default:
      return "";
  }
}

std::string struct_prefix(const OpInfo& op) {
  return op.name;
}

// Parameter list for declaration (with defaults) or definition.
std::string params(const OpInfo& op, bool with_defaults) {
  const auto& ins = op.s->inputs;
  std::vector<std::string> ps;
  // Defaults only on a trailing run of optional inputs.
  size_t first_default = ins.size();
  for (size_t i = ins.size(); i-- > 0;) {
    if (ins[i].option == ParamOption::Single) break;
    if (ins[i].option == ParamOption::Variadic && ins[i].min_arity > 0) break;
    first_default = i;
  }
  for (size_t i = 0; i < ins.size(); ++i) {
    const auto& f = ins[i];
    std::string p = f.option == ParamOption::Variadic ? "std::vector<Var> " : "Var ";
    p += ident(f.name);
    if (with_defaults && i >= first_default) p += " = {}";
    ps.push_back(p);
  }
  ps.push_back(struct_prefix(op) + "Attrs attrs" + std::string(with_defaults ? " = {}" : ""));
  std::string out;
  for (size_t i = 0; i < ps.size(); ++i) out += (i ? ", " : "") + ps[i];
  return out;
}

std::string return_type(const OpInfo& op, const std::string& qual) {
  switch (op.out_kind) {
    case OutKind::Single:
      return "Var";
    case OutKind::Vector:
      return "std::vector<Var>";
    case OutKind::Struct:
      return qual + struct_prefix(op) + "Outputs";
  }
  return "Var";
}

// Namespace-scope name of an op version's attribute/output struct. (Nested
// structs with default member initializers cannot be used as default
// arguments inside their class, so they live outside it.)
std::string scoped(const OpInfo& op, const std::string& prefix, const char* what) {
  return "ops::" + prefix + op.name + "_" + std::to_string(op.s->since_version) + what;
}

void write_structs(std::ostream& h, const OpInfo& op, const std::string& domain_label,
                   const std::string& prefix) {
  const OpSignature& s = *op.s;
  if (s.deprecated) return;
  std::string attrs = scoped(op, prefix, "Attrs").substr(5);
  h << "/// Attributes of " << s.name << " (" << domain_label << ", since opset " << s.since_version
    << "). Unset fields take the op's default.\n";
  h << "struct " << attrs << " {\n";
  for (const auto& a : s.attributes) {
    const std::string& aname = a.name;
    const char* t = cpp_attr_type(a.type);
    if (!t) continue;
    std::string shown;
    std::string def = default_of(a, &shown);
    h << "  /// " << aname << " (" << onnx_attr_type(a.type)
      << (a.required    ? ", required"
          : def.empty() ? ", optional"
                        : ", default " + shown)
      << "): " << doc_line(a.description) << "\n";
    h << "  Attribute<" << t << "> " << ident(aname);
    if (!def.empty()) h << " = Attribute<" << t << ">::defaulted(" << def << ")";
    h << ";\n";
  }
  if (op.has_num_outputs) {
    h << "  /// oxs: how many outputs to create"
      << (op.default_num_outputs == 0 ? " (0: decided from the node)" : "") << ".\n";
    h << "  size_t num_outputs = " << op.default_num_outputs << ";\n";
  }
  h << "};\n";
  if (op.out_kind == OutKind::Struct) {
    h << "/// Outputs of " << s.name << " (optional ones are empty unless requested).\n";
    h << "struct " << scoped(op, prefix, "Outputs").substr(5) << " {\n";
    for (const auto& o : s.outputs) h << "  Var " << ident(o.name) << ";\n";
    h << "};\n";
  }
}

void write_declaration(std::ostream& h, const OpInfo& op, const std::string& domain_label,
                       const std::string& prefix) {
  const OpSignature& s = *op.s;
  std::string n = op.name;
  if (s.deprecated) {
    h << "  /// " << s.name << " is deprecated since " << domain_label << " opset "
      << s.since_version << "; use its replacement.\n";
    h << "  template <class... A>\n  void " << n << "(A&&...) = delete;\n\n";
    return;
  }
  h << "  using " << n << "Attrs = " << scoped(op, prefix, "Attrs") << ";\n";
  if (op.out_kind == OutKind::Struct) {
    h << "  using " << n << "Outputs = " << scoped(op, prefix, "Outputs") << ";\n";
  }
  // Doc comment.
  h << "  /// " << s.name << " (" << domain_label << ", since opset " << s.since_version << ")";
  if (!s.doc.empty()) h << ": " << doc_line(s.doc);
  h << "\n";
  h << "  /// Inputs:";
  if (s.inputs.empty()) h << " none";
  h << "\n";
  for (const auto& f : s.inputs) {
    h << "  ///   " << f.name << " (" << f.type_constraint << opt_label(f)
      << "): " << doc_line(f.description, 160) << "\n";
  }
  h << "  /// Outputs:\n";
  for (const auto& f : s.outputs) {
    h << "  ///   " << f.name << " (" << f.type_constraint << opt_label(f)
      << "): " << doc_line(f.description, 160) << "\n";
  }
  if (!s.attributes.empty()) {
    h << "  /// Attributes:";
    for (const auto& a : s.attributes) {
      h << " " << a.name << " (" << onnx_attr_type(a.type) << (a.required ? ", required" : "")
        << ");";
    }
    h << "\n";
  }
  for (const auto& tc : s.type_constraints) {
    h << "  /// Type constraint " << tc.name << ":";
    for (size_t i = 0; i < tc.allowed_type_strs.size(); ++i) {
      h << (i ? ", " : " ") << tc.allowed_type_strs[i];
    }
    h << "\n";
  }
  h << "  " << return_type(op, "") << " " << n << "(" << params(op, true) << ") const;\n\n";
}

void write_definition(std::ostream& c, const OpInfo& op, const std::string& cls) {
  const OpSignature& s = *op.s;
  if (s.deprecated) return;
  c << return_type(op, cls + "::") << " " << cls << "::" << op.name << "(" << params(op, false)
    << ") const {\n";
  c << "  std::vector<Var> oxs_in;\n";
  for (const auto& f : s.inputs) {
    if (f.option == ParamOption::Variadic) {
      c << "  oxs_in.insert(oxs_in.end(), " << ident(f.name) << ".begin(), " << ident(f.name)
        << ".end());\n";
    } else {
      c << "  oxs_in.push_back(" << ident(f.name) << ");\n";
    }
  }
  c << "  std::vector<ir::Attr> oxs_at;\n";
  for (const auto& a : s.attributes) {
    if (!cpp_attr_type(a.type)) continue;
    c << "  std::move(attrs." << ident(a.name) << ").append_to(oxs_at, \"" << a.name << "\");\n";
  }
  std::string count = op.has_num_outputs
                          ? "attrs.num_outputs"
                          : std::to_string(op.out_kind == OutKind::Struct ? s.outputs.size() : 1);
  c << "  auto oxs_out = make(\"" << s.name << "\", std::move(oxs_in), std::move(oxs_at), " << count
    << ");\n";
  switch (op.out_kind) {
    case OutKind::Single:
      c << "  return oxs_out[0];\n";
      break;
    case OutKind::Vector:
      c << "  return oxs_out;\n";
      break;
    case OutKind::Struct:
      c << "  " << op.name << "Outputs oxs_r;\n";
      for (size_t i = 0; i < s.outputs.size(); ++i) {
        c << "  if (oxs_out.size() > " << i << ") oxs_r." << ident(s.outputs[i].name)
          << " = oxs_out[" << i << "];\n";
      }
      c << "  return oxs_r;\n";
      break;
  }
  c << "}\n\n";
}

void write_if_changed(const std::string& path, const std::string& content) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::ostringstream old;
      old << in.rdbuf();
      if (old.str() == content) return;
    }
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) {
    std::cerr << "gen_opsets: cannot write " << path << "\n";
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: gen_opsets <out-dir>\n";
    return 2;
  }
  std::string dir = argv[1];
  const std::vector<DomainSpec> domains = {
      {"", "opset", "ai_onnx", static_cast<int>(*oxs::schema::latest_opset(""))},
      {"ai.onnx.ml", "ml_opset", "ai_onnx_ml",
       static_cast<int>(*oxs::schema::latest_opset("ai.onnx.ml"))}};
  // domain -> version -> name -> signature
  std::map<std::string, std::map<int, std::map<std::string, const OpSignature*>>> by;
  for (const auto& d : domains) {
    for (const OpSignature* s : oxs::schema::all_signatures(d.domain)) {
      by[d.domain][static_cast<int>(s->since_version)][s->name] = s;
    }
  }

  std::ostringstream h;
  h << "// GENERATED by tools/gen_opsets.cc from schema::all_signatures. Do not edit.\n"
    << "// The typed operator API: one class per opset version; opsetN inherits opsetN-1\n"
    << "// and declares the ops whose schema changed at N. Use: oxs::opset17 op(builder);\n"
    << "// auto y = op.Gemm(a, b, c, {.alpha = 2.0f, .transB = 1});\n"
    << "#pragma once\n\n#include <cstdint>\n#include <limits>\n#include <memory>\n"
    << "#include <string>\n#include <vector>\n\n"
    << "#include \"oxs/builder/attribute.h\"\n#include \"oxs/builder/builder.h\"\n"
    << "#include \"oxs/builder/operators.h\"\n#include \"oxs/builder/opset_base.h\"\n\n"
    << "namespace oxs {\n\nusing builder::Attribute;\n\n";
  size_t total = 0;
  for (const auto& d : domains) {
    std::string label = d.domain.empty() ? "ai.onnx" : d.domain;
    for (int v = 1; v <= d.max_version; ++v) {
      std::string cls = d.cls + std::to_string(v);
      std::string base = v == 1 ? "builder::OpsetBase" : d.cls + std::to_string(v - 1);
      std::ostringstream c;
      c << "// GENERATED by tools/gen_opsets.cc. Do not edit.\n#include \"oxs/opsets.h\"\n\n"
        << "namespace oxs {\n\n";
      const auto& ops = by[d.domain][v];
      std::string prefix = d.domain.empty() ? "" : "ml_";
      h << "namespace ops {\n";
      for (const auto& [name, s] : ops) write_structs(h, analyse(*s), label, prefix);
      h << "}  // namespace ops\n\n";
      h << "/// Operators of " << label << " opset " << v << " (and, inherited, every op "
        << "unchanged since an older opset).\n";
      h << "class " << cls << " : public " << base << " {\n public:\n";
      h << "  explicit " << cls << "(Builder& b) : " << cls << "(b, " << v << ") {}\n\n";
      for (const auto& [name, s] : ops) {
        OpInfo info = analyse(*s);
        write_declaration(h, info, label, prefix);
        write_definition(c, info, cls);
        ++total;
      }
      h << " protected:\n  " << cls << "(Builder& b, int64_t version) : " << base << "(b, ";
      if (v == 1) h << "\"" << d.domain << "\", ";
      h << "version) {}\n};\n\n";
      c << "}  // namespace oxs\n";
      write_if_changed(dir + "/opsets_" + d.file_stem + "_" + std::to_string(v) + ".cc", c.str());
    }
    h << "/// The newest " << label << " opset known to this build.\n";
    h << "using " << (d.domain.empty() ? "latest" : "ml_latest") << " = " << d.cls << d.max_version
      << ";\n\n";
  }
  h << "}  // namespace oxs\n";
  write_if_changed(dir + "/opsets.h", h.str());
  std::cout << "gen_opsets: " << total << " operator versions\n";
  return 0;
}
