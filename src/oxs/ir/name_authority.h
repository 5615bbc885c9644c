// Hands out unique value and node names for a graph and all its subgraphs
// (ONNX forbids a subgraph name shadowing an outer one). O(1) per name: a hash
// set of taken names and a counter per base name, never a scan.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace oxs::ir {

// An insert-only set of strings in one flat open-addressing table: about
// one cache miss per operation and one allocation per rehash, where a
// node-based std::unordered_set<std::string> costs several misses and an
// allocation per name (it dominated loading a 1M-node graph).
class NameSet {
 public:
  // False if `s` was already in the set.
  bool insert(std::string_view s);
  bool contains(std::string_view s) const;
  size_t size() const { return strings_.size(); }
  void reserve(size_t n);

 private:
  struct Slot {
    uint32_t index;  // 1 + index into strings_; 0 = empty
    uint32_t tag;    // high bits of the hash, to skip most string compares
  };
  static uint64_t hash(std::string_view s);
  // The slot holding `s`, or the empty slot where it would go.
  size_t probe(std::string_view s, uint64_t h) const;
  void rehash(size_t slots);

  std::vector<Slot> slots_;
  std::vector<std::string> strings_;
  std::vector<uint64_t> hashes_;  // per string, for rehashing
};

class NameAuthority {
 public:
  // Marks `name` taken. Returns false if it already was.
  bool claim_value(std::string_view name) { return values_.insert(name); }
  bool claim_node(std::string_view name) { return nodes_.insert(name); }
  bool has_value(std::string_view name) const { return values_.contains(name); }
  bool has_node(std::string_view name) const { return nodes_.contains(name); }
  // `base` if free, else `base_1`, `base_2`, ... (the first free); the result
  // is claimed.
  std::string unique_value(std::string_view base) { return unique(values_, value_next_, base); }
  std::string unique_node(std::string_view base) { return unique(nodes_, node_next_, base); }
  size_t value_count() const { return values_.size(); }
  // Room for this many more names without rehashing (a loader knows how
  // many names are coming).
  void reserve(size_t values, size_t nodes) {
    values_.reserve(values_.size() + values);
    nodes_.reserve(nodes_.size() + nodes);
  }

 private:
  using Counters = std::unordered_map<std::string, size_t>;
  static std::string unique(NameSet& set, Counters& next, std::string_view base);

  NameSet values_;
  NameSet nodes_;
  Counters value_next_;
  Counters node_next_;
};

}  // namespace oxs::ir
