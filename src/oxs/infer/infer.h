// Type and shape inference over the IR (room infer/). Each node is inferred by
// libonnx's own schema inference function, called through an InferenceContext
// adapter that reads our IR directly (no ModelProto per node); data
// propagation (Shape -> Gather/Slice -> Concat -> Reshape) keeps known integer
// values; If/Loop/Scan bodies are inferred in their enclosing scope and calls
// of model-local functions through the function bodies.
//
// Inferred types are merged into what the graph already says: nothing known is
// ever lost, and a contradiction is an oxs::Error naming the node. This header
// exposes no protobuf type; only infer/*.cc speak libonnx's API.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oxs/ir/model.h"

namespace oxs::infer {

struct Options {
  // Track known integer values (shapes and shape arithmetic) between nodes.
  bool data_propagation = true;
  // Check each node against its operator schema (input count, attribute
  // names/types, type constraints) before inferring it.
  bool check_signature = true;
  // Throw when a node of a standard domain (ai.onnx, ai.onnx.ml) names no
  // known operator. When false such nodes are left as they are.
  bool unknown_ops_are_errors = true;
  // Infer a few common ops (type-preserving unary ops, Add/Sub/Mul/Div on
  // static shapes) directly on the IR instead of through libonnx's protobuf
  // context; the result is the same (tests compare both). Off only to test.
  bool direct_rules = true;
};

// Incremental inference for one model: infer nodes one at a time as they are
// created (the builder) or a whole graph (run). Keeps per-value state (known
// values from data propagation, converted constants) between calls, so every
// node costs time proportional to its own size.
class Inferencer {
 public:
  // `model` supplies opset imports and model-local functions; it must outlive
  // the inferencer. Its opset imports and functions may grow between calls.
  explicit Inferencer(const ir::Model& model, Options options = {});
  ~Inferencer();
  Inferencer(const Inferencer&) = delete;
  Inferencer& operator=(const Inferencer&) = delete;

  // Checks `node` (unless disabled) and merges the inferred output types into
  // its outputs. `imports` are the opset imports in scope (the model's, or a
  // function's for nodes of a function body); null means the model's. The
  // node may be detached. Throws oxs::Error naming the node.
  void infer_node(ir::Node& node, const std::vector<ir::OpsetImport>* imports = nullptr);
  // Every node of `graph` in order (subgraphs through their owners).
  void infer_graph(ir::Graph& graph, const std::vector<ir::OpsetImport>* imports = nullptr);
  // Checks `node` against its schema without inferring. Throws oxs::Error.
  void check_node(const ir::Node& node, const std::vector<ir::OpsetImport>* imports = nullptr);

  // The known value of an integer tensor of rank <= 1 (from constants or data
  // propagation): one Dim per element, known or symbolic. Nullopt if unknown.
  std::optional<std::vector<ir::Dim>> known_value(const ir::Value* v) const;
  // The constant tensor `v` holds, if known (initializer, Constant output,
  // set_constant).
  std::shared_ptr<const ir::Tensor> constant(const ir::Value* v) const;
  // Records that `v` is a constant (for getInputData) without touching the IR.
  void set_constant(const ir::Value* v, std::shared_ptr<const ir::Tensor> t);
  // Forgets per-value state of `v` (call before a value is destroyed if the
  // inferencer keeps being used).
  void forget(const ir::Value* v);

  const Options& options() const;

  struct Impl;  // defined in infer/impl.h (speaks protobuf)

 private:
  std::unique_ptr<Impl> impl_;
};

// Infers the whole model: the main graph, subgraphs and function bodies (each
// function body once, with the types its formal inputs declare). Linear in the
// size of the model. Throws oxs::Error naming the first failing node.
void run(ir::Model& model, const Options& options = {});

// Merges `inferred` into `existing`: keeps everything `existing` knows, adds
// what only `inferred` knows (a known dim replaces a symbolic or unknown one).
// Throws oxs::Error (Invalid) on a contradiction; `what` names the value in
// the message ("output 'y' of node 'Add_1' (Add)").
ir::Type merge_types(const ir::Type& existing, const ir::Type& inferred, std::string_view what);

// "Did you mean" candidates closest to `name`, best first (schema/'s
// ranking: case-insensitive Damerau-Levenshtein within a length-based bound).
std::vector<std::string> suggest(std::string_view name, const std::vector<std::string>& candidates,
                                 size_t max_results = 3);

}  // namespace oxs::infer
