// Looking up op signatures by (domain, op_type, opset) in the registry of the
// linked libonnx (1.12: ai.onnx 1-17, ai.onnx.ml 1-3, ai.onnx.preview.training
// 1). Results are cached and the returned pointers live for the whole program;
// every function here is thread-safe. "" and "ai.onnx" name the same domain.
// This header speaks IR types only; it must not expose libonnx types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oxs/schema/signature.h"

namespace oxs::schema {

// The signature in force for `op` at `opset` of `domain` (the one with the
// greatest since_version <= opset), or null when the domain is unknown, the
// opset is outside the domain's range, or the op does not exist at that
// opset. Deprecated ops are returned with `deprecated` set.
const OpSignature* lookup(std::string_view domain, std::string_view op, int64_t opset);

// Like lookup, but throws oxs::Error (Invalid) saying why there is no usable
// signature: unknown domain (lists the known ones), opset out of range, op
// unknown (with suggestions), op introduced later, or op deprecated.
const OpSignature& require(std::string_view domain, std::string_view op, int64_t opset);

// The highest opset of `domain` known to libonnx (17 for ai.onnx in 1.12).
std::optional<int64_t> latest_opset(std::string_view domain);
// The lowest one (1 for the standard domains).
std::optional<int64_t> earliest_opset(std::string_view domain);

// Every domain libonnx knows, "" first for ai.onnx, the rest sorted.
std::vector<std::string> known_domains();
bool is_known_domain(std::string_view domain);

// "" for "" and "ai.onnx"; other domains unchanged.
std::string_view canonical_domain(std::string_view domain);

// Names of the ops that exist (and are not deprecated) in `domain` at
// `opset`, sorted.
std::vector<std::string> op_names(std::string_view domain, int64_t opset);

// Every since_version of `op` in `domain`, ascending (empty if unknown).
std::vector<int64_t> op_versions(std::string_view domain, std::string_view op);

}  // namespace oxs::schema
