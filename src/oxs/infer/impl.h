// Internal to infer/: the inferencer's state and libonnx's context adapters.
// Speaks protobuf; never include it outside src/oxs/infer.
#pragma once

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "oxs/infer/infer.h"
#include "oxs/schema/signature.h"

namespace oxs::infer {

// What is in scope while inferring a node: the opset imports, and inside a
// function body the (already resolved) attributes of the call being inferred.
struct Frame {
  const std::vector<ir::OpsetImport>* imports = nullptr;
  const std::vector<ir::Attr>* caller_attrs = nullptr;
  int depth = 0;
};

// "A node 'n' (Op)" for messages.
std::string node_label(const ir::Node& n);
// ONNX type string ("tensor(float)", "seq(tensor(int64))"); nullopt when the
// type is not fully known.
std::optional<std::string> type_string(const ir::Type& t);

struct Inferencer::Impl {
  // Whether `n` reads an attribute reference whose value is not known in
  // frame `f` (a function body inferred on its own, or a reference the
  // caller forwarded from its own unresolved parameter).
  static bool has_unknown_attr(const ir::Node& n, const Frame& f);
  Impl(const ir::Model& m, Options o) : model(m), options(o) {}

  const ir::Model& model;
  Options options;
  // Data propagation: known integer values of rank <= 1 tensors.
  std::unordered_map<const ir::Value*, ::onnx::TensorShapeProto> shape_data;
  // Constants that are not initializers (Constant outputs, set_constant).
  std::unordered_map<const ir::Value*, std::shared_ptr<const ir::Tensor>> constants;
  // Constant tensors converted for getInputData, on first request.
  std::unordered_map<const ir::Value*, std::unique_ptr<::onnx::TensorProto>> tensor_protos;
  // (domain, op, version) -> schema (null when there is none). Looked up
  // without building a key string (one lookup per node).
  struct SchemaKey {
    std::string_view domain, op;
    int64_t version;
    bool operator==(const SchemaKey&) const = default;
  };
  struct SchemaKeyHash {
    size_t operator()(const SchemaKey& k) const noexcept;
  };
  // Keys view strings owned by `schema_key_strings` (stable addresses).
  std::unordered_map<SchemaKey, const ::onnx::OpSchema*, SchemaKeyHash> schema_cache;
  std::vector<std::unique_ptr<std::string>> schema_key_strings;
  void cache_schema(std::string_view domain, std::string_view op, int64_t version,
                    const ::onnx::OpSchema* s);
  // Ops inferred directly on the IR (direct.cc), per schema.
  enum class DirectRule : uint8_t { None, SameAsInput, Broadcast };
  std::unordered_map<const ::onnx::OpSchema*, DirectRule> direct_rules;
  // Infers `n` without libonnx when its op has a direct rule and the inputs
  // are simple enough for it to give libonnx's exact result; false otherwise
  // (nothing changed).
  bool infer_direct(ir::Node& n, const ::onnx::OpSchema& s);
  // Bodies of function ops (schema has a body but no inference function).
  std::unordered_map<const ::onnx::OpSchema*, std::unique_ptr<ir::Function>> op_bodies;

  void infer_node(ir::Node& n, const Frame& f);
  // infer_node without propagate_int_values.
  void infer_node_types(ir::Node& n, const Frame& f);
  // oxs's own data propagation where libonnx 1.12 has none (value_propagation.cc):
  // integer Div, Neg, Concat, ConstantOfShape and Range of small known values.
  void propagate_int_values(const ir::Node& n);
  // libonnx's inference (and data propagation) of `s` for `n`, unchecked.
  void run_schema_inference(ir::Node& n, const ::onnx::OpSchema& s, const Frame& f);
  // The signature from oxs's table (opset 18+) in force for `n`, or null.
  const schema::OpSignature* table_signature(const ir::Node& n, const Frame& f);
  // Checks and infers a node whose op version comes from oxs's table
  // (modern_ops.cc): libonnx's inference of the op's last libonnx version
  // where the newer version only widened its types, our own rules for the
  // rest, and at least the element types its constraints imply otherwise.
  void infer_table_node(ir::Node& n, const schema::OpSignature& sig, const Frame& f);
  // The known integer elements of `v` (a constant or propagated value whose
  // elements are all known), or nullopt.
  std::optional<std::vector<int64_t>> known_ints(const ir::Value* v);
  // Input/output counts, required and unknown attributes and attribute
  // types, and type constraints of a table op version (modern_check.cc).
  void check_table_signature(const ir::Node& n, const schema::OpSignature& sig);
  void infer_graph(ir::Graph& g, const Frame& f);
  void check_node(const ir::Node& n, const Frame& f);
  void check_schema(const ::onnx::OpSchema& s, const ir::Node& n);

  const ir::Function* find_function(const ir::Node& n);
  // The schema for `n` under `f`'s imports; null for an unknown op of a
  // non-standard domain. Throws for unknown ops of standard domains.
  const ::onnx::OpSchema* find_schema(const ir::Node& n, const Frame& f);
  std::shared_ptr<const ir::Tensor> constant_of(const ir::Value* v) const;
  const ::onnx::TensorProto* tensor_proto(const ir::Value* v);
  // Known integer value of `v` as a TensorShapeProto (propagated or constant).
  const ::onnx::TensorShapeProto* shape_data_of(const ir::Value* v);
  // Node attribute `name`, with references resolved through `f`.
  static const ir::Attr* resolve_attr(const ir::Node& n, std::string_view name, const Frame& f);
  void infer_function_call(ir::Node& n, const ir::Function& fn, const Frame& f);
  // Cache key of a function call whose result depends only on input types
  // and plain attributes; empty when it depends on more.
  std::string call_key(const ir::Node& n, const ir::Function& fn,
                       const std::vector<ir::Attr>& attrs,
                       const std::vector<ir::OpsetImport>* imports);
  std::unordered_map<std::string, std::vector<ir::Type>> call_cache;
  // model.functions.removals() when call_cache was last known valid.
  uint64_t call_cache_removals = 0;
  void record_constant_node(ir::Node& n, const Frame& f);
  // Infers a function op (no inference function) through its body; false if
  // there is no body to infer through.
  bool infer_through_op_body(ir::Node& n, const ::onnx::OpSchema& s, const Frame& f);
  void merge_output(ir::Node& n, size_t i, ir::Type inferred);
  void forget_graph(const ir::Graph& g);
};

// libonnx's InferenceContext over one IR node. Inputs' types and attributes
// are converted on first request and cached for this call only.
class NodeContext final : public ::onnx::InferenceContext {
 public:
  NodeContext(Inferencer::Impl& impl, ir::Node& node, const Frame& frame);
  ~NodeContext() override;

  const ::onnx::AttributeProto* getAttribute(const std::string& name) const override;
  size_t getNumInputs() const override { return node_.num_inputs(); }
  const ::onnx::TypeProto* getInputType(size_t index) const override;
  const ::onnx::TensorProto* getInputData(size_t index) const override;
  size_t getNumOutputs() const override { return outputs_.size(); }
  ::onnx::TypeProto* getOutputType(size_t index) override;
  ::onnx::GraphInferencer* getGraphAttributeInferencer(const std::string& name) override;
  const ::onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
  const ::onnx::TensorShapeProto* getSymbolicInput(size_t index) const override;

  const std::vector<::onnx::TypeProto>& outputs() const { return outputs_; }
  // Subgraphs whose inferencer ran.
  const std::vector<const ir::Graph*>& inferred_subgraphs() const { return inferred_; }

 private:
  friend class PropagationContext;
  Inferencer::Impl& impl_;
  ir::Node& node_;
  Frame frame_;
  mutable std::unordered_map<std::string, std::unique_ptr<::onnx::AttributeProto>> attrs_;
  mutable std::vector<std::unique_ptr<::onnx::TypeProto>> inputs_;
  mutable std::vector<bool> input_done_;
  std::vector<::onnx::TypeProto> outputs_;
  std::unordered_map<std::string, std::unique_ptr<::onnx::GraphInferencer>> graph_inferencers_;
  std::vector<const ir::Graph*> inferred_;
};

// libonnx's DataPropagationContext over the same node, after inference.
class PropagationContext final : public ::onnx::DataPropagationContext {
 public:
  explicit PropagationContext(NodeContext& ctx) : ctx_(ctx) {}
  const ::onnx::AttributeProto* getAttribute(const std::string& name) const override {
    return ctx_.getAttribute(name);
  }
  size_t getNumInputs() const override { return ctx_.getNumInputs(); }
  const ::onnx::TypeProto* getInputType(size_t index) const override {
    return ctx_.getInputType(index);
  }
  size_t getNumOutputs() const override { return ctx_.getNumOutputs(); }
  const ::onnx::TypeProto* getOutputType(size_t index) const override {
    return &ctx_.outputs_.at(index);
  }
  const ::onnx::TensorShapeProto* getInputData(size_t index) override;
  void addOutputData(size_t index, ::onnx::TensorShapeProto&& tp) override;

 private:
  NodeContext& ctx_;
};

}  // namespace oxs::infer
