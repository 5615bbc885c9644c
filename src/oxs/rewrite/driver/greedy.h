// The greedy driver: applies a set of rules to a fixed point (MLIR's greedy
// pattern driver with ONNX Runtime's op-type index). Rules are indexed by the
// op type they start from, so a node is only offered to the rules that can
// start at it (never a scan of the graph per rule). A worklist holds the
// nodes to visit, first every node of the model in order (main graph,
// subgraphs after their owner, then function bodies; in a pipeline, the
// nodes of the rules' op types from the op-type index, in its order: that
// of its walk, then of creation), then whatever a rewrite created or
// changed, in the order it happened: the same input gives the same output. Each node is offered to
// its rules in order of benefit, then registration order. A cap on applications stops runaway rule
// sets.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "oxs/ir/model.h"
#include "oxs/rewrite/pattern/rule.h"

namespace oxs::rewrite {

struct DriverOptions {
  // Stop after this many applications (0: 10 per node of the model + 1000).
  size_t max_applications = 0;
  // Also visit nodes of subgraphs and of model-local function bodies.
  bool recurse = true;
};

struct DriverResult {
  size_t applications = 0;
  size_t visits = 0;  // (node, rule) attempts
  bool cap_reached = false;
};

// Applies `rules` to `model` through `rw` until nothing applies (or the cap).
DriverResult apply_rules(ir::Model& model, const std::vector<Rule*>& rules, Rewriter& rw,
                         const DriverOptions& options = {});

// Every node of the model in the driver's visiting order.
std::vector<ir::Node*> all_nodes(const ir::Model& model, bool recurse = true);

}  // namespace oxs::rewrite
