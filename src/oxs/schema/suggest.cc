#include "oxs/schema/suggest.h"

#include <algorithm>
#include <cctype>
#include <tuple>

#include "oxs/schema/registry.h"

namespace oxs::schema {
namespace {

char fold(char c, bool ignore_case) {
  return ignore_case ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : c;
}

// Names up to 3 characters tolerate one edit, longer ones about one per three
// characters: enough for typos, few enough to avoid unrelated suggestions.
size_t threshold_for(size_t length) {
  return std::max<size_t>(1, (length + 1) / 3);
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b, bool ignore_case) {
  const size_t n = a.size(), m = b.size();
  // Three rolling rows: the transposition looks two rows back.
  std::vector<size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    const char ai = fold(a[i - 1], ignore_case);
    for (size_t j = 1; j <= m; ++j) {
      const char bj = fold(b[j - 1], ignore_case);
      size_t best = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ai == bj ? 0 : 1)});
      if (i > 1 && j > 1 && ai == fold(b[j - 2], ignore_case) &&
          fold(a[i - 2], ignore_case) == bj) {
        best = std::min(best, prev2[j - 2] + 1);
      }
      cur[j] = best;
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

std::vector<std::string> closest_names(std::string_view misspelt,
                                       const std::vector<std::string>& candidates,
                                       size_t max_results) {
  const size_t limit = threshold_for(misspelt.size());
  // (case-insensitive distance, case-sensitive distance, name): a candidate
  // differing only in case ranks first, then fewer exact-case edits.
  std::vector<std::tuple<size_t, size_t, std::string>> ranked;
  for (const std::string& c : candidates) {
    if (c == misspelt) continue;
    // Length difference is a lower bound of the distance: skip early.
    const size_t diff =
        c.size() > misspelt.size() ? c.size() - misspelt.size() : misspelt.size() - c.size();
    if (diff > limit) continue;
    const size_t d = edit_distance(misspelt, c, true);
    if (d > limit) continue;
    ranked.emplace_back(d, edit_distance(misspelt, c, false), c);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (auto& r : ranked) {
    if (out.size() >= max_results) break;
    out.push_back(std::move(std::get<2>(r)));
  }
  return out;
}

std::vector<std::string> suggest_ops(std::string_view domain, std::string_view misspelt,
                                     int64_t opset, size_t max_results) {
  return closest_names(misspelt, op_names(domain, opset), max_results);
}

std::vector<std::string> suggest_attrs(const OpSignature& sig, std::string_view misspelt,
                                       size_t max_results) {
  std::vector<std::string> names;
  names.reserve(sig.attributes.size());
  for (const AttrParam& a : sig.attributes) names.push_back(a.name);
  return closest_names(misspelt, names, max_results);
}

std::string did_you_mean(const std::vector<std::string>& suggestions) {
  if (suggestions.empty()) return {};
  std::string out = " (did you mean ";
  for (size_t i = 0; i < suggestions.size(); ++i) {
    if (i) out += i + 1 == suggestions.size() ? " or " : ", ";
    out += "'" + suggestions[i] + "'";
  }
  return out + "?)";
}

}  // namespace oxs::schema
