// Readable, stable names for parameterized tests: derived from the case's
// content (not its position in the list, and never the bytes of a pointer),
// so a failing case is recognizable in ctest's list and keeps its name when
// cases are added or reordered.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace oxs::testing {

// "x = (1, 2\n" -> "x_1_2_4f1a": letters and digits kept, every other run
// of characters one '_', at most 40 of them, then a hash of the whole text
// (two cases that start alike still differ).
inline std::string readable_test_name(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (out.size() >= 40) break;
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  uint32_t h = 2166136261u;  // FNV-1a
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  char hash[8];
  std::snprintf(hash, sizeof hash, "%04x", h & 0xffffu);
  return (out.empty() ? std::string("case") : out) + "_" + hash;
}

// The name of the first `def NAME(` in a script, or readable_test_name.
inline std::string first_def_name(std::string_view source) {
  size_t at = source.find("def ");
  if (at == std::string_view::npos) return readable_test_name(source);
  size_t end = at + 4;
  while (end < source.size() &&
         (std::isalnum(static_cast<unsigned char>(source[end])) || source[end] == '_')) {
    ++end;
  }
  std::string name(source.substr(at + 4, end - at - 4));
  return name.empty() ? readable_test_name(source) : name;
}

}  // namespace oxs::testing
