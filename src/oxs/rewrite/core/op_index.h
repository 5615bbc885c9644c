// The op-type index of a model (main graph, subgraphs and function bodies),
// kept across a pass pipeline: how many nodes of each (domain, op type) there
// are and which. The pass manager builds it with one walk (the walk that
// counts the model's nodes anyway) and hands it to each pass's Rewriter,
// which keeps it up to date as nodes are created and erased. Then a
// rule-set pass whose rules start from op types the model does not have is
// skipped, and one whose op types are rare visits only those nodes instead
// of walking the graph.
//
// Counts may run high, never low, so a skip is always right. The node lists
// hold every live node of their op type, in the order of the first walk and
// then of creation; erased nodes leave them when the Rewriter frees its
// garbage. Changes the index cannot follow exactly (a node changed in place,
// a subgraph attribute set, a node with subgraphs erased, functions removed)
// make the lists inexact: passes then walk the graph as without an index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "oxs/ir/model.h"

namespace oxs::rewrite {

class OpIndex {
 public:
  // Indexes every node of `model`.
  explicit OpIndex(const ir::Model& model);

  // `n` (and the nodes of its subgraphs) was just created.
  void added(const ir::Node& n);
  // `g`'s nodes appeared (a new function body).
  void added_graph(const ir::Graph& g);
  // `n` is about to be removed from its graph.
  void erased(const ir::Node& n);
  // `n` changed in place (its op type may be another now).
  void changed(const ir::Node& n);
  // Something happened that the lists cannot follow.
  void make_inexact() { exact_ = false; }
  // Drops erased nodes from the lists; call before they are freed.
  void drop_erased();

  // True if the model may have a node of (domain, op); "" and "ai.onnx"
  // are one domain.
  bool may_have(std::string_view domain, std::string_view op) const;
  // The live nodes of these (domain, op) pairs in index order, or nullopt
  // when the lists are not exact (walk the model instead).
  std::optional<std::vector<ir::Node*>> nodes_of(
      const std::vector<std::pair<std::string, std::string>>& ops) const;
  // At least the number of nodes the model has now.
  size_t total() const;
  // The number of nodes when the index was built.
  size_t initial_total() const { return initial_total_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct Bucket {
    int64_t count = 0;
    std::vector<std::pair<uint64_t, ir::Node*>> nodes;  // (order, node)
    bool has_erased = false;
  };
  Bucket& bucket(const ir::Node& n);
  const Bucket* find(std::string_view domain, std::string_view op) const;
  void add_one(const ir::Node& n);
  // Key "domain\x1fop" into key_ (reused: no allocation per node).
  std::string_view key(std::string_view domain, std::string_view op) const;

  // ai.onnx ops by op type (the common case, no key to build), others by key.
  std::unordered_map<std::string, Bucket, Hash, std::equal_to<>> default_;
  std::unordered_map<std::string, Bucket, Hash, std::equal_to<>> other_;
  mutable std::string key_;
  uint64_t next_order_ = 0;
  size_t initial_total_ = 0;
  bool exact_ = true;
  // A count fell below zero: a change bypassed the Rewriter. Then nothing
  // is ruled out any more.
  bool unreliable_ = false;
};

}  // namespace oxs::rewrite
