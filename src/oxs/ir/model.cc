#include "oxs/ir/model.h"

namespace oxs::ir {

static bool same_domain(const std::string& a, const std::string& b) {
  auto norm = [](const std::string& d) -> const std::string& {
    static const std::string empty;
    return d == "ai.onnx" ? empty : d;
  };
  return norm(a) == norm(b);
}

std::optional<int64_t> find_opset(const std::vector<OpsetImport>& imports,
                                  const std::string& domain) {
  for (const auto& o : imports) {
    if (same_domain(o.domain, domain)) return o.version;
  }
  return std::nullopt;
}

}  // namespace oxs::ir
