// Looking up op signatures by (domain, op_type, opset) for every opset of
// ONNX 1.23: ai.onnx 1-28, ai.onnx.ml 1-5, ai.onnx.preview 1,
// ai.onnx.preview.training 1. Op versions up to ai.onnx 17 / ai.onnx.ml 3
// come from the linked libonnx 1.12, the later ones from oxs's own table
// (table/op_table.h, data/onnx_ops.txt); callers cannot tell which answered.
// Results are cached and the returned pointers live for the whole program;
// every function here is thread-safe. "" and "ai.onnx" name the same domain.
// This header speaks IR types only; it must not expose libonnx types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oxs/ir/model.h"
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

// The highest opset of `domain` oxs knows (28 for ai.onnx, 5 for ai.onnx.ml).
std::optional<int64_t> latest_opset(std::string_view domain);
// The lowest one (1 for the standard domains).
std::optional<int64_t> earliest_opset(std::string_view domain);

// Every domain oxs knows, "" first for ai.onnx, the rest sorted.
std::vector<std::string> known_domains();
bool is_known_domain(std::string_view domain);

// Throws oxs::Error (Unsupported) when `imports` name a known domain at an
// opset newer than oxs knows ("model imports ai.onnx opset 29; oxs knows
// opsets up to 28 (ONNX 1.23)"), so no command runs such a model with older
// op semantics. `what` names the model or function in the message.
void require_known_opsets(const std::vector<ir::OpsetImport>& imports, std::string_view what);

// "" for "" and "ai.onnx"; other domains unchanged.
std::string_view canonical_domain(std::string_view domain);

// Names of the ops that exist (and are not deprecated) in `domain` at
// `opset`, sorted.
std::vector<std::string> op_names(std::string_view domain, int64_t opset);

// Every op version of `domain` (deprecated ones included), by name and then
// since_version: what the typed opsets are generated from.
std::vector<const OpSignature*> all_signatures(std::string_view domain);

// Every since_version of `op` in `domain`, ascending (empty if unknown).
std::vector<int64_t> op_versions(std::string_view domain, std::string_view op);

}  // namespace oxs::schema
