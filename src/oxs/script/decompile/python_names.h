// Turning ONNX names into valid, unique Python identifiers for decompiled
// source, and Python literals for values.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace oxs::script {

// True for a Python identifier that is not a keyword.
bool is_python_identifier(std::string_view s);

// Hands out identifiers: the ONNX name when it is a valid identifier and
// not taken or reserved, else a cleaned-up, uniquified form. O(1) each.
class PythonNames {
 public:
  PythonNames();
  // Marks a name as unavailable (imports, `op`, function names).
  void reserve(std::string name) { taken_.insert(std::move(name)); }
  // The identifier for `key` (same key, same identifier), derived from
  // `onnx_name`.
  std::string get(const void* key, std::string_view onnx_name);
  // Makes `key` use an identifier already handed out (a branch output that
  // becomes the If output of that name). Only before get(key) was called.
  void alias(const void* key, std::string name) { assigned_.emplace(key, std::move(name)); }
  // A fresh identifier from `base`.
  std::string fresh(std::string_view base);

 private:
  std::unordered_set<std::string> taken_;
  std::unordered_map<const void*, std::string> assigned_;
  std::unordered_map<std::string, size_t> next_;
};

// A Python float literal that reads back to the same float32/float64:
// "1.0", "0.1", "1e-07", "float('inf')", "float('nan')".
std::string python_float(double v, bool is_float32);
// A Python string literal with escapes: "'a\\'b'".
std::string python_string(std::string_view s);

}  // namespace oxs::script
