// INTERNAL to schema/: the context-dependent function bodies of the attention
// ops of oxs's operator table (Attention-23/24/25, LinearAttention-27,
// ai.onnx.preview FlexAttention-1), built per call site as ONNX text (or, for
// FlexAttention's subgraph attributes, with the subgraphs' nodes spliced in).
// Includes protobuf and libonnx types: schema/ only.
#pragma once

#include <onnx/defs/schema.h>

#include "oxs/schema/signature.h"

namespace oxs::schema::bodies {

// Each returns false when it declines the call site (a static fact the body
// needs, such as an input's rank, is unknown) and throws oxs::Error Invalid
// for an attribute combination the spec does not allow or the body cannot
// express (the message says which).
bool attention_body(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
                    ::onnx::FunctionProto& out);
bool linear_attention_body(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
                           ::onnx::FunctionProto& out);
bool flex_attention_body(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
                         ::onnx::FunctionProto& out);

}  // namespace oxs::schema::bodies
