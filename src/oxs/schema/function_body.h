// The bodies of function ops (ops the spec defines as a graph of other ops,
// e.g. MeanVarianceNormalization, Range, or, depending on the call site,
// Celu, LayerNormalization-17, SoftmaxCrossEntropyLoss), handed out as IR.
// The body is a fresh ir::Function: its body graph's inputs and outputs are
// the op's formal parameters, its nodes may reference the op's attributes
// (Attr::ref_attr_name), and opset_imports says which opsets the body uses.
// Nothing here exposes libonnx types.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "oxs/ir/model.h"
#include "oxs/ir/node.h"
#include "oxs/schema/signature.h"

namespace oxs::schema {

// The schema's fixed function body, or null when the op has none (see
// OpSignature::has_function_body). `opset` is the caller's opset of the op's
// domain; it must be >= sig.since_version (throws oxs::Error Usage otherwise).
// There is one body per op version, so the body does not vary further with
// `opset`. Op versions from libonnx (opsets 1-17) get libonnx's bodies;
// those from oxs's own table (ai.onnx 18+) get oxs's bodies
// (schema/data/function_bodies.onnxtxt, and schema/bodies/ for the ones
// built per call site). Callers cannot tell the sources apart.
std::unique_ptr<ir::Function> function_body(const OpSignature& sig, int64_t opset);

// Whether oxs can hand out a body for `sig`: a fixed one (function_body), or
// one built per call site (context_dependent_body, which may still decline a
// particular call site). False for ops the spec does not define as
// functions, and for the table op versions oxs has no body for yet.
bool body_available(const OpSignature& sig);

// What a context-dependent body is built from: the call site.
struct CallSite {
  // One entry per input position; nullopt for an omitted optional input,
  // a Type of kind None for a present input whose type is unknown.
  std::vector<std::optional<ir::Type>> input_types;
  // One entry per output position: whether the caller uses that output.
  std::vector<bool> outputs_present;
  // The node's attributes (defaults need not be filled in).
  std::span<const ir::Attr> attrs;
};

// The call site of `node` (its input types, outputs, attributes). The
// returned CallSite refers to node's attributes: keep the node alive.
CallSite call_site_of(const ir::Node& node);

// Builds the body for a context-dependent function op (see
// OpSignature::has_context_dependent_function) at `call`. Returns null when
// the op has no context-dependent body or libonnx declines to build one for
// this call site (e.g. an input type it needs is unknown); for a table op
// version this is oxs's body (built per call, or its one fixed body). As libonnx builds
// them, the body lists every formal output, but outputs the call site does
// not use (outputs_present false) may be left uncomputed.
std::unique_ptr<ir::Function> context_dependent_body(const OpSignature& sig, int64_t opset,
                                                     const CallSite& call);

}  // namespace oxs::schema
