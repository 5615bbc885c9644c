// Matching a Pattern at a root node: binds pattern values to ir::Values and
// pattern nodes to ir::Nodes, walking inputs backwards from the root, with
// backtracking over commutative inputs (Add(x, Mul(a, b)) matches
// Add(Mul(a, b), x) and nested choices are retried, not just the first).
// Conditions are checked in a fixed order, and when matching fails the
// failure that got furthest is kept, with the values it saw: that is what
// `oxs opt --explain` prints. Linear in the pattern size per attempt (times
// 2 per commutative node on backtracking).
#pragma once

#include <string>
#include <vector>

#include "oxs/ir/graph.h"
#include "oxs/rewrite/pattern/pattern.h"

namespace oxs::rewrite {

class Match {
 public:
  // By pattern value id: the bound value (null when unbound or absent).
  std::vector<ir::Value*> values;
  // By pattern node id: the matched node.
  std::vector<ir::Node*> nodes;
  const Pattern* pattern = nullptr;

  ir::Value* operator[](PVal v) const { return values[size_t(v.id())]; }
  // The value bound to the variable `name`; throws oxs::Error if none.
  ir::Value* var(const std::string& name) const;
  ir::Node* root() const { return nodes[size_t(pattern->root())]; }
  // The node that produced pattern value `v`.
  ir::Node* producer(PVal v) const;
};

struct MatchOptions {
  // Values computed inside the match (not pattern outputs) must not be read
  // outside it, so that the matched nodes die after the rewrite.
  bool require_internal_values_private = true;
};

// Tries to match `pattern` with its root at `node`. On success fills
// `match` and returns true; on failure returns false and, if `why` is not
// null, sets it to the furthest failure ("input 1 of Mul 'n3': expected a
// constant equal to 1, saw %w (not a constant)").
bool match_pattern(const Pattern& pattern, ir::Node& node, Match& match, std::string* why,
                   const MatchOptions& options = {});

}  // namespace oxs::rewrite
