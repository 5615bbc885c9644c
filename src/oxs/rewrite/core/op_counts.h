// How many nodes of each (domain, op type) a model has, main graph,
// subgraphs and function bodies together. The pass manager counts once (the
// walk that counts the model's nodes anyway) and hands the counts to each
// pass's Rewriter, which keeps them up to date as nodes are created and
// erased; a rule-set pass whose rules all start from op types the model
// does not have is then skipped without walking the graph. The counts may
// run high (a node changed in place is counted again under its op type,
// nodes of a replaced subgraph attribute stay counted), never low, so a
// skip is always right.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "oxs/ir/model.h"

namespace oxs::rewrite {

class OpCounts {
 public:
  // Counts every node of `model`.
  explicit OpCounts(const ir::Model& model);

  // Adds `delta` for `n` and every node of its subgraphs.
  void add(const ir::Node& n, int64_t delta);
  // Adds every node of `g` (a function body or subgraph that appeared).
  void add_graph(const ir::Graph& g);
  // True if the model may have a node of (domain, op); "" and "ai.onnx"
  // are one domain.
  bool may_have(std::string_view domain, std::string_view op) const;
  // The number of nodes counted when the counts were made.
  size_t initial_total() const { return initial_total_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  // Key "domain\x1fop" into key_ (reused: no allocation per node).
  std::string_view key(std::string_view domain, std::string_view op) const;

  void bump(const ir::Node& n, int64_t delta);

  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> counts_;
  mutable std::string key_;
  // A count fell below zero: a change bypassed the Rewriter. Then nothing
  // is ruled out any more.
  bool unreliable_ = false;
  size_t initial_total_ = 0;
};

}  // namespace oxs::rewrite
