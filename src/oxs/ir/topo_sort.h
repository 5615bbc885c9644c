// Topological order of a graph's nodes (Kahn's algorithm, linear). Values
// read by a subgraph count as inputs of the node that owns the subgraph.
// Among ready nodes the original order is kept, so a sorted graph is left
// as it is.
#pragma once

#include <vector>

#include "oxs/ir/graph.h"

namespace oxs::ir {

// The nodes of `g` in a topological order. Throws oxs::Error (Invalid) naming
// a node on a cycle if there is one.
std::vector<Node*> topological_order(const Graph& g);
// Reorders the node list of `g` (and of every subgraph) topologically.
void topological_sort(Graph& g);

}  // namespace oxs::ir
