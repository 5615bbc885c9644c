// INTERNAL: the raw libonnx schema behind a lookup, for the rooms that must
// call libonnx's API with it (schema/ itself and infer/). Includes protobuf
// and libonnx headers; no other room may include this file.
#pragma once

#include <onnx/defs/schema.h>

#include <cstdint>
#include <string_view>

#include "oxs/schema/signature.h"

namespace oxs::schema {

// Same rules as lookup(): null when there is no schema for the op at opset,
// and null when the version in force comes from oxs's own table (opset 18+).
const ::onnx::OpSchema* find_onnx_schema(std::string_view domain, std::string_view op,
                                         int64_t opset);
// The libonnx schema a signature was made from; null for a signature from
// oxs's table.
const ::onnx::OpSchema* onnx_schema_of(const OpSignature& sig);

// libonnx's ISchemaRegistry over the schemas above, for libonnx's checker,
// shape inference and any direct query by libonnx's rules (exact domain
// strings, libonnx's versions only: OpSchemaRegistry::Schema's answers).
// Use it instead of ::onnx::OpSchemaRegistry, whose first use builds every
// schema of every version (~10 ms); this one builds a schema when it is
// first asked for.
const ::onnx::ISchemaRegistry& onnx_schema_registry();

// Builds our signature from a libonnx schema (no caching; lookup() caches).
OpSignature signature_from_onnx(const ::onnx::OpSchema& schema);

}  // namespace oxs::schema
