// INTERNAL to schema/: context-dependent function bodies (built per call
// site) for op versions of oxs's operator table. Includes protobuf and
// libonnx types: schema/ only.
#pragma once

#include <onnx/defs/schema.h>

#include "oxs/schema/signature.h"

namespace oxs::schema::bodies {

// Builds the body of table op version `sig` for the call site `ctx` into
// `out`. Returns false when oxs has no builder for the op or declines this
// call site (e.g. CastLike's target type is unknown). Throws oxs::Error
// Invalid for an attribute value the spec does not allow.
bool build_table_context_body(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
                              ::onnx::FunctionProto& out);

// Whether build_table_context_body has a builder for `sig` (it may still
// decline particular call sites).
bool has_table_context_builder(const OpSignature& sig);

}  // namespace oxs::schema::bodies
