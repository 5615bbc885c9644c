// Structural checks of the IR: SSA (one definition per name in a scope chain),
// every used value defined (in this graph or an enclosing one) before use,
// use lists consistent with node inputs, graph outputs defined, subgraph
// owners consistent, no recursion among model-local functions (call_graph.h).
// Linear in the size of the model.
#pragma once

#include <string>
#include <vector>

#include "oxs/ir/model.h"

namespace oxs::ir {

struct VerifyIssue {
  std::string where;    // "graph 'main'", "node 'Add_3' (Add)", "function 'f'"
  std::string message;  // what is wrong
};

std::vector<VerifyIssue> verify(const Graph& g);
std::vector<VerifyIssue> verify(const Model& m);
// Throws oxs::Error (Invalid) with the first issues if any.
void verify_or_throw(const Model& m);

}  // namespace oxs::ir
