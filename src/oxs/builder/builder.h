// The Builder (room builder/): the one way nodes are created. The ONNX Script
// compiler, the torch exporter and C++ users all go through it. It names
// values and nodes from the graph's name authority (from what the caller gave,
// else the op), checks each node against its schema and infers its outputs'
// types and shapes as it is created (infer/), tracks values known at build
// time, stores small equal constants once, builds model-local functions and
// subgraphs, and on finish() removes what is unused.
//
// Failures throw oxs::Error naming the op, its inputs' types and shapes, and a
// dump of the builder's state (inputs, constants, the last nodes created).
// This room sees the IR only: no protobuf type appears here.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "oxs/builder/attribute.h"
#include "oxs/builder/var.h"
#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/ir/model.h"

namespace oxs::builder {

struct BuilderOptions {
  // ai.onnx opset of the model unless an opset object picks one first
  // (oxs::opset13 op(builder) imports 13 if nothing is imported yet).
  int64_t opset = 17;
  std::string graph_name = "main";
  // Infer types/shapes of each node as it is created; check its signature.
  bool infer = true;
  bool check = true;
  // Constants of at most this many bytes are stored once (by content).
  size_t dedup_max_bytes = 1 << 16;
  // How many recent nodes an error shows.
  size_t history = 8;
  std::string producer_name = "oxs";
};

struct OpOptions {
  std::string domain;  // "" is ai.onnx
  // Base for the node's name and its outputs' names (default: the op type).
  std::string name;
  // Bases for the outputs' names, by position (default: `name`).
  std::vector<std::string> output_names;
  size_t num_outputs = 1;
};

struct FinishOptions {
  bool remove_unused = true;      // nodes whose outputs nobody reads, unused initializers
  bool remove_identity = true;    // Identity nodes (graph outputs keep their names)
  bool inline_functions = false;  // inline every call of a model-local function
  // With inline_functions: functions whose calls stay (calls in their bodies
  // are inlined); null keeps none.
  std::function<bool(const ir::Function&)> keep_function;
  bool verify = true;  // ir::verify_or_throw on the result
};

// One dimension for shape(): a size or a symbol. shape({"N", 3}).
struct DimSpec {
  DimSpec(int64_t v) : dim(ir::Dim::known(v)) {}                    // NOLINT
  DimSpec(int v) : dim(ir::Dim::known(v)) {}                        // NOLINT
  DimSpec(const char* s) : dim(ir::Dim::symbolic(s)) {}             // NOLINT
  DimSpec(std::string s) : dim(ir::Dim::symbolic(std::move(s))) {}  // NOLINT
  ir::Dim dim;
};
ir::Shape shape(std::initializer_list<DimSpec> dims);
// A tensor type: tensor(ir::DataType::Float, shape({"N", 3})).
ir::Type tensor(ir::DataType dtype, std::optional<ir::Shape> shape = std::nullopt);

class Builder {
 public:
  explicit Builder(BuilderOptions options = {});
  ~Builder();
  // Vars point at their builder, so a builder never moves: function() and
  // subgraph() return theirs by guaranteed copy elision.
  Builder(Builder&&) = delete;
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // ---- graph interface ----
  Var input(std::string name, ir::Type type = {});
  Var input(std::string name, ir::DataType dtype, std::optional<ir::Shape> shape = std::nullopt);
  // Marks `v` as a graph output named `name` (v's own name when empty). An
  // input, initializer or value already output is routed through an Identity.
  // `type`, if given, is merged into what inference found (needed when an
  // op has no inference: a main-graph output must have a type).
  void output(Var v, std::string name = {}, ir::Type type = {});
  // A named initializer (main graph) or Constant node (function bodies and
  // subgraphs). Small tensors equal to an earlier constant return it instead.
  Var constant(ir::Tensor t, std::string name = {});
  Var constant(float v, std::string name = {});
  Var constant(int64_t v, std::string name = {});
  Var constant(std::vector<float> v, std::string name = {});
  Var constant(std::vector<int64_t> v, std::string name = {});
  // A scalar of `like`'s element type when known, else CastLike(v, like).
  Var scalar_like(double v, Var like);
  // Names the next node created (and its outputs) from `base`.
  Builder& name_next(std::string base);

  // ---- nodes ----
  // Creates a node, checks it and infers its outputs. Null Vars are omitted
  // optional inputs; trailing ones are dropped.
  std::vector<Var> make_node(std::string_view op_type, std::vector<Var> inputs,
                             std::vector<ir::Attr> attrs = {}, OpOptions options = {});
  // make_node for a single output.
  Var op(std::string_view op_type, std::vector<Var> inputs, std::vector<ir::Attr> attrs = {},
         OpOptions options = {});

  // ---- opsets ----
  // The version imported for `domain`; 0 if none yet.
  int64_t opset(const std::string& domain = "") const;
  // Imports `domain` at `version`; throws if another version is imported.
  void use_opset(const std::string& domain, int64_t version);

  // ---- functions ----
  // A builder for the body of a model-local function with these attribute
  // parameters. Build the body (inputs, nodes, outputs), then hand it back
  // with add_function. Attribute references: {.alpha = oxs::ref("alpha")}.
  Builder function(std::string domain, std::string name,
                   std::vector<std::string> attribute_params = {});
  // Moves a finished function body into the model; returns the function.
  const ir::Function& add_function(Builder&& body);
  // Calls a model-local function (one node of its domain and name).
  std::vector<Var> call(const ir::Function& f, std::vector<Var> inputs,
                        std::vector<ir::Attr> attrs = {}, OpOptions options = {});

  // ---- subgraphs (If/Loop/Scan bodies) ----
  // A builder for a body graph whose nodes may read this builder's values.
  Builder subgraph(std::string name);
  // Hands the finished body back, for a graph attribute.
  std::unique_ptr<ir::Graph> take_graph();

  // ---- the result ----
  // Cleans up (options) and returns the model; the builder is empty after.
  ir::Model finish(const FinishOptions& options = {});
  // Inputs, constants and the last nodes created, for error messages.
  std::string dump_state() const;

  ir::Model& model();
  ir::Graph& graph();
  infer::Inferencer& inferencer();
  const BuilderOptions& options() const;
  bool is_function_body() const;
  bool is_subgraph() const;
  // 0 for the main graph, +1 per function/subgraph level (operators.h picks
  // the deepest builder of its operands).
  int depth() const { return depth_; }

  // Internal state shared by a builder and its function/subgraph builders.
  struct Shared;

 private:
  Builder(std::shared_ptr<Shared> shared, Builder* parent, std::unique_ptr<ir::Function> function,
          std::unique_ptr<ir::Graph> subgraph);
  bool sees(const ir::Value* v) const;
  Var make_constant(std::shared_ptr<ir::Tensor> t, std::string name);
  [[noreturn]] void fail_node(const std::string& op_type, const std::vector<Var>& inputs,
                              const std::string& why) const;

  std::shared_ptr<Shared> shared_;
  ir::Graph* graph_ = nullptr;
  std::unique_ptr<ir::Function> function_;  // while building a function body
  std::unique_ptr<ir::Graph> subgraph_;     // while building a subgraph
  Builder* parent_ = nullptr;
  int depth_ = 0;  // nesting: 0 for the main graph
  std::deque<ir::Node*> history_;
  std::unordered_map<size_t, std::vector<ir::Value*>> dedup_;
  std::vector<ir::Value*> constants_;  // in creation order, for dumps
  std::string next_name_;
};

// Inlines every call of a model-local function in `model` (recursively),
// except calls of functions `keep` holds for (the calls in their bodies are
// inlined), and drops functions no longer called. Linear in the size of the
// result.
void inline_functions(ir::Model& model,
                      const std::function<bool(const ir::Function&)>& keep = nullptr);
// Removes Identity nodes (graph outputs keep their names), nodes nobody
// reads and unused initializers, in every graph and function body.
void remove_unused(ir::Model& model, bool identity = true);

}  // namespace oxs::builder

namespace oxs {
using builder::Builder;
using builder::ref;
using builder::Var;
}  // namespace oxs
