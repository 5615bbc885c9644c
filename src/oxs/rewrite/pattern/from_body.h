// A Pattern from a graph body (a function's, or an ONNX Script pattern
// function's): its inputs become variables named like them, its Constant
// nodes constants matched by value, every other node a pattern node whose
// attributes must equal the body's, and its outputs the pattern's outputs.
// Used by rules written in ONNX Script and by un-inlining (outline), which
// matches a function body to find the places that compute it.
#pragma once

#include "oxs/ir/graph.h"
#include "oxs/rewrite/pattern/pattern.h"

namespace oxs::rewrite {

// Throws oxs::Error (Invalid) saying what in `body` a pattern cannot hold:
// a Constant the matcher cannot read, outputs that are not a valid pattern.
Pattern pattern_from_body(const ir::Graph& body);

}  // namespace oxs::rewrite
