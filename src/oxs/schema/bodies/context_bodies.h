// INTERNAL to schema/: context-dependent function bodies (built per call
// site) for op versions of oxs's operator table. Includes protobuf and
// libonnx types: schema/ only.
#pragma once

#include <onnx/defs/schema.h>

#include <string>

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

// Shared by the builders: parses one function written in ONNX's text syntax
// (built from the call site) into `out`; a failure is a bug in the builder
// (oxs::Error Internal naming `sig`).
void parse_into(const std::string& text, const OpSignature& sig, ::onnx::FunctionProto& out);
// The text's header: domain "", importing ai.onnx at sig's since_version.
std::string header(const OpSignature& sig);

}  // namespace oxs::schema::bodies
