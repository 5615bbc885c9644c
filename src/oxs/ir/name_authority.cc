#include "oxs/ir/name_authority.h"

namespace oxs::ir {

std::string NameAuthority::unique(Set& set, Counters& next, std::string_view base) {
  std::string stem = base.empty() ? std::string("_v") : std::string(base);
  if (set.emplace(stem).second) return stem;
  // The counter per stem makes repeated requests O(1) amortized: each suffix
  // is tried at most once per stem.
  size_t& n = next[stem];
  for (;;) {
    std::string candidate = stem + "_" + std::to_string(++n);
    if (set.emplace(candidate).second) return candidate;
  }
}

}  // namespace oxs::ir
