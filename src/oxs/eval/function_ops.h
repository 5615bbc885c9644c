// Function-op bodies from the schema room (libonnx): the default
// FunctionBodyProvider of eval::Session. For an op without a kernel whose
// schema defines it as a function (fixed or context-dependent, such as
// LayerNormalization, Softmax-13, Celu), the body is built for the call site
// and attribute references the caller leaves unset are given the schema's
// default (or dropped, so the body op's own default applies).
#pragma once

#include "oxs/eval/session.h"

namespace oxs::eval {

FunctionBodyProvider schema_function_bodies();

}  // namespace oxs::eval
