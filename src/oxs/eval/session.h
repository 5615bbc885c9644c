// eval::Session runs an ir::Model (or one of its functions) node by node: a
// reference evaluator for debugging, not an optimizing runtime. Nodes run in
// topological order over a value table; a value is released right after its
// last use. If/Loop/Scan bodies see outer-scope values; model-local functions
// and function-ops (bodies handed out by a FunctionBodyProvider, normally
// schema::function_body) run their bodies with attribute references bound.
// A TraceHook sees every executed node with its inputs and outputs.
// The Session does not own the model; the model must outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "oxs/eval/kernel.h"
#include "oxs/eval/tensor.h"
#include "oxs/ir/model.h"

namespace oxs::eval {

// One executed node. `inputs` has a null entry for an omitted input;
// `outputs` has a None value for an omitted output. `depth` is 0 for nodes
// of the main graph and grows inside subgraphs and function bodies.
// `fused`: when `node` ran as the head of a fused group
// (SessionOptions::fuse), the nodes it stands for too (their work is in this
// event; `outputs` are the last one's).
struct TraceEvent {
  const ir::Node& node;
  std::span<const Value* const> inputs;
  std::span<const Value> outputs;
  int depth;
  int64_t opset;
  std::span<const ir::Node* const> fused = {};
};
using TraceHook = std::function<void(const TraceEvent&)>;
// Called before a node runs (with no outputs yet), so that a printer can
// show a function call or a Loop before the nodes of its body.
using TraceEnterHook = std::function<void(const ir::Node& node, int depth)>;

// Gives the body of a function-op (an op whose schema defines it as a
// function) for `node` at `opset`, given the node's input types and its
// attributes with references resolved (for context-dependent bodies).
// Returns null when the op has no body.
using FunctionBodyProvider = std::function<std::shared_ptr<const ir::Function>(
    const ir::Node& node, int64_t opset, std::span<const ir::Type> input_types,
    std::span<const ir::Attr> attrs)>;

struct SessionOptions {
  TraceHook trace;
  TraceEnterHook trace_enter;
  // Also trace nodes inside subgraphs and function bodies.
  bool trace_nested = true;
  // Null: schema_function_bodies() (libonnx's bodies, see function_ops.h).
  FunctionBodyProvider function_bodies;
  // Kernels to use; the builtin registry when null.
  const KernelRegistry* registry = nullptr;
  // Check fed inputs against the graph's declared types (dtype, rank, known dims).
  bool check_inputs = true;
  // Wall-time limit of one run() in seconds, checked between nodes and in
  // long kernels' outer loops; <= 0: none. A run also stops (oxs::Error)
  // when eval::request_interrupt() is called (the CLI does on Ctrl-C).
  double max_seconds = 0;
  // Bytes of tensors one run may keep alive at once (outputs, loop and scan
  // results, sequences, intermediates); 0: three quarters of the machine's
  // physical memory; < 0: no limit. (allocation_limit() bounds one tensor.)
  int64_t max_live_bytes = 0;
  // Intra-op threads (the caller included) that GEMM, Conv and large
  // elementwise/reduction kernels split their work over (see
  // parallel/thread_pool.h); 0: the machine's hardware threads; 1: none.
  // Results do not depend on it for the kernels that split work (each output
  // element is computed whole by one thread, in the single-thread order).
  int threads = 0;
  // Run Conv -> Relu, Conv -> Add -> Relu and likewise HardSwish chains as
  // one node (conv/conv_fusion.h; same results). Trace hooks then see the
  // group as its Conv node with the last member's outputs, and never see the
  // Add and Relu/HardSwish nodes: turn it off to trace or capture every node.
  bool fuse = true;
  // Memory plan: an elementwise kernel may write its output into the buffer
  // of an input whose value dies at that node (see session.cc's Plan); off
  // while a `trace` hook is set (it sees the node's inputs after the node
  // ran). Results are the same either way.
  bool reuse_buffers = true;
  // A Transpose that feeds only a MatMul and keeps the last axis among the
  // last two is not run: the MatMul reads the Transpose's input in place, as
  // GEMM operands with strides. Off while a `trace` hook is set (it would
  // see the untransposed tensor) and with a custom `registry`.
  bool fold_transposes = true;
};

// The live-bytes budget a run with options `o` gets.
int64_t live_bytes_limit(const SessionOptions& o);

// The runtime type of a value ("float[2,3]" as an ir::Type with a static shape).
ir::Type type_of(const Value& v);

class ThreadPool;

class Session {
 public:
  explicit Session(const ir::Model& model, SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs the main graph. `feeds` maps graph input names to values; inputs
  // with an initializer may be omitted. Returns the graph outputs in order.
  // Throws oxs::Error naming the input or node on bad input.
  std::vector<Value> run(const std::map<std::string, Value>& feeds);
  // The names of the graph outputs, in the order run() returns them.
  std::vector<std::string> output_names() const;

  // Runs a function with positional inputs and attribute values (eager mode
  // for ONNX Script functions). Opsets come from the function's imports.
  std::vector<Value> run_function(const ir::Function& f, std::span<const Value> inputs,
                                  std::span<const ir::Attr> attrs);

  const ir::Model& model() const { return model_; }
  // Outputs written in place into a dying input's buffer so far (all runs).
  int64_t buffers_reused() const;
  // Transpose nodes skipped by fold_transposes so far (all runs).
  int64_t transposes_folded() const;

 private:
  class Executor;
  const ir::Model& model_;
  SessionOptions options_;
  std::unique_ptr<Executor> exec_;
  ThreadPool* pool_ = nullptr;  // null: one thread
};

}  // namespace oxs::eval
