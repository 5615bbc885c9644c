// Graph-valued attributes for the single_op harness: If's branches, Loop's
// and Scan's bodies, FlexAttention's score_mod/prob_mod, and a generic body
// for any other graph attribute. A body is usually shaped the way its node
// needs (its inputs and outputs counted from the node's inputs, outputs and
// num_scan_inputs, typed like the values they stand for), sometimes with an
// input or output too many or too few. Its outputs come from its inputs,
// from the node's inputs (outer scope), from constants, from small
// elementwise ops, or from a nested If (at most two levels deep), so the
// evaluator's subgraph paths run: scoping, carried values, scan outputs,
// early exit, and its checks of bodies against their nodes.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "fuzz/byte_reader.h"
#include "oxs/ir/graph.h"
#include "oxs/ir/node.h"

namespace oxs::fuzz {

// A body for attribute `attr` of `node` (already in its graph, with its
// inputs, outputs and non-graph attributes set) at `opset` of its domain.
std::unique_ptr<ir::Graph> random_body(const ir::Node& node, std::string_view attr, int64_t opset,
                                       ByteReader& r);

}  // namespace oxs::fuzz
