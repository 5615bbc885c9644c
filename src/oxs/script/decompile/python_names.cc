#include "oxs/script/decompile/python_names.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace oxs::script {

namespace {
const char* const kKeywords[] = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",
};
// Names the decompiled source uses itself, or that would shadow builtins it
// relies on.
const char* const kReserved[] = {
    "op",
    "script",
    "graph",
    "Opset",
    "TensorProto",
    "make_tensor",
    "external_tensor",
    "range",
    "float",
    "int",
    "str",
    "len",
    "print",
    "Sequence",
    "Optional",
    "onnxscript",
    "FLOAT",
    "DOUBLE",
    "FLOAT16",
    "BFLOAT16",
    "INT8",
    "INT16",
    "INT32",
    "INT64",
    "UINT8",
    "UINT16",
    "UINT32",
    "UINT64",
    "BOOL",
    "STRING",
    "COMPLEX64",
    "COMPLEX128",
};

bool is_keyword(std::string_view s) {
  for (const char* k : kKeywords) {
    if (s == k) return true;
  }
  return false;
}
}  // namespace

bool is_python_identifier(std::string_view s) {
  if (s.empty() || is_keyword(s)) return false;
  auto head = [](char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!head(s[0])) return false;
  for (char c : s) {
    if (!head(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

PythonNames::PythonNames() {
  for (const char* k : kKeywords) taken_.insert(k);
  for (const char* r : kReserved) taken_.insert(r);
}

std::string PythonNames::fresh(std::string_view base) {
  std::string clean;
  for (char c : base) {
    bool ok =
        c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    clean += ok ? c : '_';
  }
  if (clean.empty() || (clean[0] >= '0' && clean[0] <= '9')) clean = "v_" + clean;
  if (taken_.insert(clean).second) return clean;
  size_t& n = next_[clean];
  for (;;) {
    std::string candidate = clean + "_" + std::to_string(++n);
    if (taken_.insert(candidate).second) return candidate;
  }
}

std::string PythonNames::get(const void* key, std::string_view onnx_name) {
  auto it = assigned_.find(key);
  if (it != assigned_.end()) return it->second;
  std::string name = fresh(onnx_name);
  assigned_.emplace(key, name);
  return name;
}

std::string python_float(double v, bool is_float32) {
  if (std::isnan(v)) return "float('nan')";
  if (std::isinf(v)) return v > 0 ? "float('inf')" : "float('-inf')";
  char buf[64];
  // The shortest precision that reads back exactly.
  for (int precision = is_float32 ? 6 : 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    double back = std::strtod(buf, nullptr);
    if (is_float32 ? static_cast<float>(back) == static_cast<float>(v) : back == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string python_string(std::string_view s) {
  std::string out = "'";
  for (unsigned char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "'";
}

}  // namespace oxs::script
