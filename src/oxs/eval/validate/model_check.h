// The evaluator's checks of a model before (and while) it runs, so that a
// hostile model ends in an oxs::Error naming the node instead of a kernel
// indexing past a buffer:
//  - check_model_for_eval (once, when a Session is built): every node's
//    input and output counts against its op's schema (or the model-local
//    function it calls), attribute types, the signatures of If/Loop/Scan
//    bodies and Scan's axes lists, and cycles among model-local functions
//    (a function that calls itself, directly or through others).
//  - check_input_types (before each kernel call): the runtime element types
//    of tensor inputs against the schema's type constraints, and inputs
//    bound to one type variable having one type.
// The walk over graphs is iterative: deep nesting cannot overflow the stack.
#pragma once

#include <span>

#include "oxs/eval/tensor.h"
#include "oxs/ir/model.h"
#include "oxs/schema/signature.h"

namespace oxs::eval {

void check_model_for_eval(const ir::Model& model);

void check_input_types(const ir::Node& node, const schema::OpSignature& sig,
                       std::span<const Value* const> inputs);

}  // namespace oxs::eval
