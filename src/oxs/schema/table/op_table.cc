#include "oxs/schema/table/op_table.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>

#include "oxs/ir/error.h"

namespace oxs::schema::table {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// Splits "a : b : rest" into at most three fields (the description may
// contain " : " itself).
std::vector<std::string_view> fields(std::string_view s) {
  std::vector<std::string_view> out;
  for (int k = 0; k < 2; ++k) {
    size_t p = s.find(" : ");
    if (p == std::string_view::npos) break;
    out.push_back(trim(s.substr(0, p)));
    s = s.substr(p + 3);
  }
  out.push_back(trim(s));
  return out;
}

std::optional<ir::AttrType> attr_type_of(std::string_view s) {
  using ir::AttrType;
  static const std::pair<std::string_view, AttrType> kTypes[] = {
      {"int", AttrType::Int},
      {"float", AttrType::Float},
      {"string", AttrType::String},
      {"tensor", AttrType::Tensor},
      {"graph", AttrType::Graph},
      {"sparse_tensor", AttrType::SparseTensor},
      {"type_proto", AttrType::TypeProto},
      {"ints", AttrType::Ints},
      {"floats", AttrType::Floats},
      {"strings", AttrType::Strings},
      {"tensors", AttrType::Tensors},
      {"graphs", AttrType::Graphs},
      {"sparse_tensors", AttrType::SparseTensors},
      {"type_protos", AttrType::TypeProtos},
  };
  for (const auto& [name, t] : kTypes) {
    if (name == s) return t;
  }
  return std::nullopt;
}

// A default written as JSON, as an attribute of `type`.
std::optional<ir::Attr> default_of(const std::string& name, ir::AttrType type,
                                   std::string_view json_text) {
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  ir::Attr a(name, type);
  using ir::AttrType;
  switch (type) {
    case AttrType::Int:
      if (!j.is_number_integer()) return std::nullopt;
      a.i = j.get<int64_t>();
      return a;
    case AttrType::Float:
      if (!j.is_number()) return std::nullopt;
      a.f = j.get<float>();
      return a;
    case AttrType::String:
      if (!j.is_string()) return std::nullopt;
      a.s = j.get<std::string>();
      return a;
    case AttrType::Ints:
    case AttrType::Floats:
    case AttrType::Strings:
      if (!j.is_array()) return std::nullopt;
      for (const auto& e : j) {
        if (type == AttrType::Ints && e.is_number_integer()) {
          a.ints.push_back(e.get<int64_t>());
        } else if (type == AttrType::Floats && e.is_number()) {
          a.floats.push_back(e.get<float>());
        } else if (type == AttrType::Strings && e.is_string()) {
          a.strings.push_back(e.get<std::string>());
        } else {
          return std::nullopt;
        }
      }
      return a;
    default:
      return std::nullopt;
  }
}

// Recursive-descent reader of type strings.
struct TypeReader {
  std::string_view s;
  size_t pos = 0;

  bool eat(std::string_view word) {
    while (pos < s.size() && s[pos] == ' ') ++pos;
    if (s.substr(pos, word.size()) != word) return false;
    pos += word.size();
    return true;
  }
  std::optional<ir::DataType> dtype() {
    while (pos < s.size() && s[pos] == ' ') ++pos;
    size_t end = pos;
    while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])))) ++end;
    auto d = ir::parse_dtype(s.substr(pos, end - pos));
    pos = end;
    return d;
  }
  std::optional<ir::Type> type() {
    if (eat("tensor(")) {
      auto d = dtype();
      if (!d || !eat(")")) return std::nullopt;
      return ir::Type::tensor(*d);
    }
    if (eat("sparse_tensor(")) {
      auto d = dtype();
      if (!d || !eat(")")) return std::nullopt;
      return ir::Type::sparse_tensor(*d);
    }
    if (eat("seq(")) {
      auto e = type();
      if (!e || !eat(")")) return std::nullopt;
      return ir::Type::sequence(std::move(*e));
    }
    if (eat("optional(")) {
      auto e = type();
      if (!e || !eat(")")) return std::nullopt;
      return ir::Type::optional(std::move(*e));
    }
    if (eat("map(")) {
      auto k = dtype();
      if (!k || !eat(",")) return std::nullopt;
      auto v = type();
      if (!v || !eat(")")) return std::nullopt;
      return ir::Type::map(*k, std::move(*v));
    }
    return std::nullopt;
  }
};

// The type strings of a constraint line are separated by spaces; "map(a, b)"
// contains one, so split at top-level spaces only.
std::vector<std::string> type_strings(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ' ' && depth == 0) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    if (c == ' ' && cur.ends_with(",")) continue;
    cur += c;
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

// min/max counts as libonnx's OpSchema::Finalize computes them.
void arity(const std::vector<FormalParam>& params, int* min_count, int* max_count) {
  int lo = 0, hi = 0;
  for (const FormalParam& p : params) {
    switch (p.option) {
      case ParamOption::Single:
        ++hi;
        lo = hi;
        break;
      case ParamOption::Optional:
        ++hi;
        break;
      case ParamOption::Variadic:
        lo = hi + p.min_arity;
        hi = INT_MAX;
        break;
    }
  }
  *min_count = lo;
  *max_count = hi;
}

}  // namespace

std::optional<ir::Type> parse_type_string(std::string_view text) {
  TypeReader r{text};
  auto t = r.type();
  while (r.pos < text.size() && text[r.pos] == ' ') ++r.pos;
  if (!t || r.pos != text.size()) return std::nullopt;
  return t;
}

std::vector<OpSignature> parse_op_table(std::string_view text, const std::string& source,
                                        size_t first_line) {
  std::vector<OpSignature> out;
  size_t line_no = first_line - 1;
  auto fail = [&](const std::string& what) {
    throw Error(ErrorKind::Internal, source + ":" + std::to_string(line_no) + ": " + what);
  };
  auto finish = [&]() {
    if (out.empty()) return;
    OpSignature& s = out.back();
    std::sort(s.attributes.begin(), s.attributes.end(),
              [](const AttrParam& a, const AttrParam& b) { return a.name < b.name; });
    arity(s.inputs, &s.min_input, &s.max_input);
    arity(s.outputs, &s.min_output, &s.max_output);
    for (const auto* params : {&s.inputs, &s.outputs}) {
      for (const FormalParam& p : *params) {
        if (!s.find_type_constraint(p.type_constraint) && !parse_type_string(p.type_constraint)) {
          fail(s.display_name() + ": parameter '" + p.name + "' has type '" + p.type_constraint +
               "', neither a constraint of the op nor a type");
        }
      }
    }
  };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    std::string_view t = trim(line);
    if (t.empty() || t.front() == '#') continue;
    const size_t sp = t.find(' ');
    const std::string_view key = t.substr(0, sp);
    const std::string_view rest = sp == std::string_view::npos ? "" : trim(t.substr(sp + 1));
    if (key == "op") {
      finish();
      auto w = words(rest);
      int64_t since = 0;
      if (w.size() != 3 ||
          std::from_chars(w[2].data(), w[2].data() + w[2].size(), since).ec != std::errc()) {
        fail("expected 'op <domain> <name> <since_version>'");
      }
      OpSignature s;
      s.domain = w[0] == "ai.onnx" ? "" : std::string(w[0]);
      s.name = std::string(w[1]);
      s.since_version = since;
      out.push_back(std::move(s));
      continue;
    }
    if (out.empty()) fail("'" + std::string(key) + "' before the first 'op'");
    OpSignature& s = out.back();
    if (key == "doc") {
      s.doc = std::string(rest);
    } else if (key == "deprecated") {
      s.deprecated = true;
    } else if (key == "function") {
      s.has_function_body = rest != "context";
      s.has_context_dependent_function = rest == "context";
    } else if (key == "attr") {
      auto f = fields(rest);
      if (f.size() != 3) fail("expected 'attr <name> : <type> [required | = <default>] : <doc>'");
      AttrParam a;
      a.name = std::string(f[0]);
      a.description = std::string(f[2]);
      std::string_view spec = f[1];
      const size_t eq = spec.find(" = ");
      std::string_view type_word = trim(spec.substr(0, std::min(spec.find(' '), spec.size())));
      auto type = attr_type_of(type_word);
      if (!type) fail("unknown attribute type '" + std::string(type_word) + "'");
      a.type = *type;
      if (eq != std::string_view::npos) {
        a.default_value = default_of(a.name, a.type, spec.substr(eq + 3));
        if (!a.default_value) fail("bad default for attribute '" + a.name + "'");
      } else if (trim(spec.substr(type_word.size())) == "required") {
        a.required = true;
      } else if (!trim(spec.substr(type_word.size())).empty()) {
        fail("unexpected '" + std::string(spec) + "' for attribute '" + a.name + "'");
      }
      s.attributes.push_back(std::move(a));
    } else if (key == "input" || key == "output") {
      auto f = fields(rest);
      if (f.size() != 3) fail("expected '" + std::string(key) + " <name> : <type> [...] : <doc>'");
      FormalParam p;
      p.name = std::string(f[0]);
      p.description = std::string(f[2]);
      auto w = words(f[1]);
      if (w.empty()) fail("parameter '" + p.name + "' has no type");
      p.type_constraint = std::string(w[0]);
      for (size_t i = 1; i < w.size(); ++i) {
        if (w[i] == "optional") {
          p.option = ParamOption::Optional;
        } else if (w[i] == "variadic" && i + 1 < w.size()) {
          p.option = ParamOption::Variadic;
          std::from_chars(w[i + 1].data(), w[i + 1].data() + w[i + 1].size(), p.min_arity);
          ++i;
        } else if (w[i] == "heterogeneous") {
          p.is_homogeneous = false;
        } else {
          fail("unknown parameter flag '" + std::string(w[i]) + "'");
        }
      }
      (key == "input" ? s.inputs : s.outputs).push_back(std::move(p));
    } else if (key == "type") {
      auto f = fields(rest);
      if (f.size() != 3) fail("expected 'type <name> : <types> : <doc>'");
      TypeConstraint c;
      c.name = std::string(f[0]);
      c.description = std::string(f[2]);
      c.allowed_type_strs = type_strings(f[1]);
      for (const std::string& ts : c.allowed_type_strs) {
        auto ty = parse_type_string(ts);
        if (!ty) fail("unknown type '" + ts + "' in constraint '" + c.name + "'");
        c.allowed_types.push_back(std::move(*ty));
      }
      s.type_constraints.push_back(std::move(c));
    } else {
      fail("unknown item '" + std::string(key) + "'");
    }
  }
  finish();
  return out;
}

}  // namespace oxs::schema::table
