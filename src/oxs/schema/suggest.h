// "Did you mean ...?" for misspelt op and attribute names. Candidates are
// ranked by Damerau-Levenshtein distance (optimal string alignment) computed
// case-insensitively, so `relu` finds `Relu` at distance 0 and `Reul` finds it
// at distance 1 (one transposition); among equals an exact-case match wins.
// Only candidates within a threshold that grows with the name's length are
// returned, best first, at most `max_results`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "oxs/schema/signature.h"

namespace oxs::schema {

// Optimal-string-alignment distance (insert, delete, substitute, swap two
// adjacent characters). With `ignore_case`, letters compare case-folded.
size_t edit_distance(std::string_view a, std::string_view b, bool ignore_case = true);

// The best matches for `misspelt` among `candidates` (any order).
std::vector<std::string> closest_names(std::string_view misspelt,
                                       const std::vector<std::string>& candidates,
                                       size_t max_results = 3);

// Op names of `domain` at `opset` close to `misspelt`.
std::vector<std::string> suggest_ops(std::string_view domain, std::string_view misspelt,
                                     int64_t opset, size_t max_results = 3);

// Attribute names of `sig` close to `misspelt`.
std::vector<std::string> suggest_attrs(const OpSignature& sig, std::string_view misspelt,
                                       size_t max_results = 3);

// " (did you mean 'A' or 'B'?)" or "" when there is nothing to suggest.
std::string did_you_mean(const std::vector<std::string>& suggestions);

}  // namespace oxs::schema
