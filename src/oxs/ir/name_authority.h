// Hands out unique value and node names for a graph and all its subgraphs
// (ONNX forbids a subgraph name shadowing an outer one). O(1) per name: a hash
// set of taken names and a counter per base name, never a scan.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace oxs::ir {

class NameAuthority {
 public:
  // Marks `name` taken. Returns false if it already was.
  bool claim_value(std::string_view name) { return claim(values_, name); }
  bool claim_node(std::string_view name) { return claim(nodes_, name); }
  bool has_value(std::string_view name) const { return values_.count(std::string(name)) > 0; }
  bool has_node(std::string_view name) const { return nodes_.count(std::string(name)) > 0; }
  // `base` if free, else `base_1`, `base_2`, ... (the first free); the result
  // is claimed.
  std::string unique_value(std::string_view base) { return unique(values_, value_next_, base); }
  std::string unique_node(std::string_view base) { return unique(nodes_, node_next_, base); }
  size_t value_count() const { return values_.size(); }

 private:
  using Set = std::unordered_set<std::string>;
  using Counters = std::unordered_map<std::string, size_t>;
  static bool claim(Set& set, std::string_view name) { return set.emplace(name).second; }
  static std::string unique(Set& set, Counters& next, std::string_view base);

  Set values_;
  Set nodes_;
  Counters value_next_;
  Counters node_next_;
};

}  // namespace oxs::ir
