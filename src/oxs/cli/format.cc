#include "oxs/cli/format.h"

#include <fmt/core.h>

#include <filesystem>

#include "oxs/ir/printable.h"

namespace oxs::cli {

std::string human_bytes(int64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = -1;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{:.1f} {}", v, units[u]);
}

std::string grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string opsets_text(const std::vector<ir::OpsetImport>& imports) {
  std::string out;
  for (const ir::OpsetImport& imp : imports) {
    if (!out.empty()) out += ", ";
    out += (imp.domain.empty() ? std::string("ai.onnx") : ir::printable(imp.domain)) + " " +
           std::to_string(imp.version);
  }
  return out.empty() ? "none" : out;
}

std::string value_text(const ir::Value& v) {
  if (v.type().is_none()) return ir::printable(v.name());
  return ir::printable(v.name() + ": " + v.type().to_string());
}

std::string directory_of(const std::string& path) {
  std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : ".";
}

}  // namespace oxs::cli
