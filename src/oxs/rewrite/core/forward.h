// Forwarding a node's output to one of its inputs (x * 1 -> x, Identity):
// allowed unless the output is a graph output that the input cannot stand
// for under the output's name (then the rewriter would need an Identity, and
// removing Identities would never end).
#pragma once

#include "oxs/ir/graph.h"

namespace oxs::rewrite {

bool can_forward(const ir::Value& out, const ir::Value& in);

}  // namespace oxs::rewrite
