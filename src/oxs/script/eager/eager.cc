// Eager calls: compile the file as a function library, pick the function,
// and bind its attributes from text and from the script's defaults.
#include "oxs/script/eager/eager.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "oxs/ir/error.h"

namespace oxs::script {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::optional<int64_t> parse_int(const std::string& text) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (errno == ERANGE || end != t.c_str() + t.size()) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<double> parse_float(const std::string& text) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

// "[1, 2]" or "1, 2" -> {"1", "2"}; "[]" -> {}.
std::vector<std::string> split_list(const std::string& text) {
  std::string t = trim(text);
  if (t.size() >= 2 && (t.front() == '[' || t.front() == '(') &&
      (t.back() == ']' || t.back() == ')')) {
    t = t.substr(1, t.size() - 2);
  }
  std::vector<std::string> items;
  if (trim(t).empty()) return items;
  size_t start = 0;
  while (true) {
    size_t comma = t.find(',', start);
    std::string item =
        trim(t.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!item.empty() || comma != std::string::npos) items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::string unquote(const std::string& s) {
  std::string t = trim(s);
  if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front()) {
    return t.substr(1, t.size() - 2);
  }
  return t;
}

}  // namespace

ir::Attr parse_attribute_arg(const ScriptAttribute& a, const std::string& text) {
  auto bad = [&](const std::string& what) -> Error {
    return Error(ErrorKind::Usage,
                 "--arg " + a.name + "=" + text + ": attribute '" + a.name + "' is " + what);
  };
  using K = ir::AttrType;
  switch (a.type) {
    case K::Int: {
      if (a.is_bool) {
        std::string t = trim(text);
        if (t == "True" || t == "true" || t == "1") return ir::Attr::of_int(a.name, 1);
        if (t == "False" || t == "false" || t == "0") return ir::Attr::of_int(a.name, 0);
        throw bad("a bool: give True or False");
      }
      if (auto v = parse_int(text)) return ir::Attr::of_int(a.name, *v);
      throw bad(parse_float(text) ? "an int, and " + trim(text) +
                                        " is not an int (Python does "
                                        "not convert a float to an int "
                                        "implicitly)"
                                  : "an int");
    }
    case K::Float:
      if (auto v = parse_float(text)) return ir::Attr::of_float(a.name, static_cast<float>(*v));
      throw bad("a float");
    case K::String:
      return ir::Attr::of_string(a.name, unquote(text));
    case K::Ints: {
      std::vector<int64_t> xs;
      for (const std::string& s : split_list(text)) {
        auto v = parse_int(s);
        if (!v) throw bad("a list of ints, and '" + s + "' is not an int");
        xs.push_back(*v);
      }
      return ir::Attr::of_ints(a.name, std::move(xs));
    }
    case K::Floats: {
      std::vector<float> xs;
      for (const std::string& s : split_list(text)) {
        auto v = parse_float(s);
        if (!v) throw bad("a list of floats, and '" + s + "' is not a number");
        xs.push_back(static_cast<float>(*v));
      }
      return ir::Attr::of_floats(a.name, std::move(xs));
    }
    case K::Strings: {
      std::vector<std::string> xs;
      for (const std::string& s : split_list(text)) xs.push_back(unquote(s));
      return ir::Attr::of_strings(a.name, std::move(xs));
    }
    default:
      throw bad(std::string("of type ") + ir::attr_type_name(a.type) +
                ", which cannot be given on the command line");
  }
}

EagerCall prepare_eager(const SourceFile& source, const EagerOptions& options) {
  CompileOptions copts = options.compile;
  copts.functions_only = true;
  copts.entry = options.entry;  // empty: every script function, the default entry runs
  CompileResult r = compile_source(source, copts);
  if (!r.ok() && copts.entry.empty() && !r.default_entry.empty()) {
    // Functions the default entry does not call may disagree (opsets):
    // compile the entry's library alone, as `oxs compile` would.
    copts.entry = r.default_entry;
    r = compile_source(source, copts);
  }
  if (!r.ok()) {
    std::string text = render(source, r.diagnostics);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    throw Error(ErrorKind::Invalid, text, {.file = source.name()});
  }
  std::string entry = options.entry.empty() ? r.default_entry : options.entry;
  if (entry.empty()) {
    throw Error(ErrorKind::Invalid, "no function decorated with @script() in " + source.name(),
                {.file = source.name()});
  }
  EagerCall call{std::move(*r.model), nullptr, {}, {}};
  for (const auto& f : call.model.functions) {
    if (f->name == entry) call.function = f.get();
  }
  const ScriptFunctionInfo* info = nullptr;
  for (const auto& i : r.functions) {
    if (i.name == entry) info = &i;
  }
  if (!call.function || !info) {
    std::string names;
    for (const auto& i : r.functions) names += (names.empty() ? "" : ", ") + i.name;
    throw Error(ErrorKind::Usage, "'" + source.name() + "' has no script function '" + entry + "'" +
                                      (names.empty() ? "" : " (it has: " + names + ")"));
  }
  call.info = *info;
  for (const auto& [name, text] : options.attribute_args) {
    bool known = false;
    for (const ScriptAttribute& a : info->attributes) known = known || a.name == name;
    if (!known) {
      throw Error(ErrorKind::Usage, entry + " has no attribute named '" + name + "'");
    }
  }
  for (const ScriptAttribute& a : info->attributes) {
    auto given = options.attribute_args.find(a.name);
    if (given != options.attribute_args.end()) {
      call.attributes.push_back(parse_attribute_arg(a, given->second));
    } else if (a.default_value) {
      call.attributes.push_back(a.default_value->clone());
    }
  }
  return call;
}

}  // namespace oxs::script
