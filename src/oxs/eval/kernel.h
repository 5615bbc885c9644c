// Kernels and their registry. A kernel is a plain function over a
// KernelContext (inputs, resolved attributes, outputs, the opset in force and
// a way to run subgraphs). The registry maps (domain, op type) to kernels by
// since_version: the kernel used is the one with the largest since_version
// not above the node's opset. Kernel files register themselves through the
// register_*_kernels functions listed in registry.cc (explicit calls, since
// static initializers in a static library are dropped by the linker).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "oxs/eval/tensor.h"
#include "oxs/ir/error.h"
#include "oxs/ir/graph.h"
#include "oxs/ir/node.h"

namespace oxs::eval {

class KernelContext;
using KernelFn = void (*)(KernelContext&);
struct FusedTail;

// Resolves attribute references (ref_attr_name) of nodes inside function
// bodies against the calling node's attributes.
struct AttrScope {
  const AttrScope* parent = nullptr;
  std::unordered_map<std::string, const ir::Attr*> bound;
  const ir::Attr* find(const std::string& name) const;
};

// What a kernel needs from the executor besides its own inputs.
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  // Runs `g` with its formal inputs bound to `inputs` (moved into its frame,
  // so a body may take a value it alone holds); outer-scope values are read
  // from the frame of the node being executed.
  virtual std::vector<Value> run_subgraph(const ir::Graph& g, std::vector<Value> inputs) = 0;
  // Runs `nodes` of `g` (the graph of the node being executed), in the order
  // given, in a scope where `bound` values override the frame's and `g`'s
  // initializers are visible; returns the values of `wanted` (None for a
  // value that was not computed). Used by ops that re-execute part of their
  // graph (Gradient).
  virtual std::vector<Value> run_nodes(const ir::Graph& g, std::span<const ir::Node* const> nodes,
                                       std::span<const std::pair<const ir::Value*, Value>> bound,
                                       std::span<const ir::Value* const> wanted) = 0;
};

class KernelContext {
 public:
  KernelContext(const ir::Node& node, std::span<const Value* const> inputs,
                std::span<Value> outputs, int64_t opset, const AttrScope* attrs,
                SubgraphRunner* runner)
      : node_(node),
        inputs_(inputs),
        outputs_(outputs),
        opset_(opset),
        attrs_(attrs),
        runner_(runner) {}

  const ir::Node& node() const { return node_; }
  int64_t opset() const { return opset_; }

  // ---- inputs ----
  size_t num_inputs() const { return inputs_.size(); }
  // Present: given and not an omitted optional ("").
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  const Value& input(size_t i) const;
  // The input as a tensor; throws an Invalid error naming the node if absent.
  const Tensor& tensor(size_t i) const;
  // Optional tensor input: null if absent (or an empty tensor-less optional).
  const Tensor* optional_tensor(size_t i) const;

  // ---- outputs ----
  size_t num_outputs() const { return outputs_.size(); }
  bool wants_output(size_t i) const;
  void set_output(size_t i, Value v);
  // Allocates output i; returns it for filling.
  Tensor& alloc_output(size_t i, DataType dtype, Dims dims);
  // The same without zero-filling (Tensor::uninitialized): the kernel must
  // write every element.
  Tensor& alloc_output_uninitialized(size_t i, DataType dtype, Dims dims);
  // Output i for an elementwise kernel, written in place into the buffer of
  // one of the inputs `from` when the session's plan says that input's value
  // dies at this node (set_reusable_inputs) and its tensor is the sole owner
  // of a buffer of `dtype` with as many elements; else a fresh uninitialized
  // tensor. The kernel must write every element and may read element e of an
  // input only before it writes element e of the output.
  Tensor& alloc_output_reusing(size_t i, DataType dtype, Dims dims,
                               std::initializer_list<size_t> from);

  // ---- attributes (references resolved) ----
  const ir::Attr* attr(std::string_view name) const;
  bool has_attr(std::string_view name) const { return attr(name) != nullptr; }
  int64_t attr_int(std::string_view name, int64_t def) const;
  float attr_float(std::string_view name, float def) const;
  std::string attr_string(std::string_view name, const std::string& def = {}) const;
  std::vector<int64_t> attr_ints(std::string_view name, std::vector<int64_t> def = {}) const;
  std::vector<float> attr_floats(std::string_view name, std::vector<float> def = {}) const;
  std::vector<std::string> attr_strings(std::string_view name) const;
  // A required attribute; throws naming the node if missing.
  const ir::Attr& required_attr(std::string_view name) const;
  const ir::Graph& attr_graph(std::string_view name) const;

  std::vector<Value> run_subgraph(const ir::Graph& g, std::span<const Value> inputs) {
    return runner_->run_subgraph(g, std::vector<Value>(inputs.begin(), inputs.end()));
  }
  // The same, handing the values over (a Loop's carried values: a sequence
  // the body appends to is then held by the body alone and grows in place).
  std::vector<Value> run_subgraph_taking(const ir::Graph& g, std::vector<Value>&& inputs) {
    return runner_->run_subgraph(g, std::move(inputs));
  }
  std::vector<Value> run_nodes(const ir::Graph& g, std::span<const ir::Node* const> nodes,
                               std::span<const std::pair<const ir::Value*, Value>> bound,
                               std::span<const ir::Value* const> wanted) {
    return runner_->run_nodes(g, nodes, bound, wanted);
  }

  // An Invalid/Unsupported error naming this node.
  [[noreturn]] void fail(const std::string& message, ErrorKind kind = ErrorKind::Invalid) const;

  // State a kernel keeps for this node across runs of one session (e.g. a
  // tree ensemble compiled from its attributes), or null when the caller
  // keeps none. The session owns it; kernels must only cache what depends on
  // the node alone (not on attribute references, which change per call).
  using KernelStates = std::unordered_map<const ir::Node*, std::shared_ptr<void>>;
  std::shared_ptr<void>* state_slot() const { return states_ ? &(*states_)[&node_] : nullptr; }
  void set_kernel_states(KernelStates* states) { states_ = states; }

  // For a Conv or MatMul run as the head of a fused group (conv_fusion.h): the
  // Add/Relu to apply to its output (the kernel sets `applied` when it
  // did); null otherwise.
  FusedTail* fused_tail() const { return tail_; }
  void set_fused_tail(FusedTail* tail) { tail_ = tail; }

  // Bit i set: input i's value is read by no later node, is neither a graph
  // input, an initializer nor a graph output, and no other input slot of
  // this node holds it (the session's memory plan); alloc_output_reusing
  // may then take its buffer.
  void set_reusable_inputs(uint64_t mask) { reusable_ = mask; }
  // Bit i set: input i's value belongs to the frame of this node's graph,
  // is read by no later node or subgraph, is not a graph output and fills
  // no other input slot (the session's plan); take_input may then take it.
  void set_dying_inputs(uint64_t mask) { dying_ = mask; }
  // Input i as a value the kernel may change: the frame's value itself when
  // it dies at this node (the frame's slot is left empty), else a copy
  // (which shares its buffers and elements with the frame's value).
  Value take_input(size_t i);
  // Whether alloc_output_reusing took an input's buffer for some output.
  bool reused_input() const { return reused_; }

  // Input i's `perm` when the session skipped the Transpose that computes
  // it (its only reader is this node, a MatMul; session.cc's Plan::fold):
  // the tensor given is the Transpose's input, and the kernel reads it
  // permuted by *perm. Null for inputs given as computed.
  void set_input_perms(std::span<const std::vector<int64_t>* const> perms) { perms_ = perms; }
  const std::vector<int64_t>* input_perm(size_t i) const {
    return i < perms_.size() ? perms_[i] : nullptr;
  }

 private:
  const ir::Node& node_;
  std::span<const Value* const> inputs_;
  std::span<Value> outputs_;
  int64_t opset_;
  const AttrScope* attrs_;
  SubgraphRunner* runner_;
  KernelStates* states_ = nullptr;
  FusedTail* tail_ = nullptr;
  uint64_t reusable_ = 0;
  uint64_t dying_ = 0;
  std::span<const std::vector<int64_t>* const> perms_;
  bool reused_ = false;
};

class KernelRegistry {
 public:
  // `since` is the first opset version the kernel implements. A null `fn`
  // means "no kernel from `since` on" (the schema's function body runs).
  void add(std::string_view domain, std::string_view op, int since, KernelFn fn);
  // Same kernel for several ops.
  void add_all(std::string_view domain, std::initializer_list<std::string_view> ops, int since,
               KernelFn fn);
  // Null if no kernel covers (domain, op) at `opset`.
  KernelFn find(std::string_view domain, std::string_view op, int64_t opset) const;
  bool has_op(std::string_view domain, std::string_view op) const;

  // Every kernel oxs has, built once.
  static const KernelRegistry& builtin();

 private:
  struct Entry {
    int since;
    KernelFn fn;
  };
  std::unordered_map<std::string, std::vector<Entry>> ops_;
};

// "" and "ai.onnx" are the same domain.
std::string normalize_domain(std::string_view domain);

// One per kernel family file.
void register_elementwise_kernels(KernelRegistry& r);
void register_math_kernels(KernelRegistry& r);
void register_reduce_kernels(KernelRegistry& r);
void register_shape_kernels(KernelRegistry& r);
void register_index_kernels(KernelRegistry& r);
void register_matmul_kernels(KernelRegistry& r);
void register_conv_kernels(KernelRegistry& r);
void register_pool_kernels(KernelRegistry& r);
void register_norm_kernels(KernelRegistry& r);
void register_control_kernels(KernelRegistry& r);
void register_sequence_kernels(KernelRegistry& r);
void register_cast_kernels(KernelRegistry& r);
void register_misc_kernels(KernelRegistry& r);
void register_resize_kernels(KernelRegistry& r);
void register_rnn_kernels(KernelRegistry& r);
void register_signal_kernels(KernelRegistry& r);
void register_image_kernels(KernelRegistry& r);
void register_random_kernels(KernelRegistry& r);
void register_ml_map_kernels(KernelRegistry& r);
void register_ml_basic_kernels(KernelRegistry& r);
void register_ml_tree_kernels(KernelRegistry& r);
void register_ml_svm_kernels(KernelRegistry& r);
void register_gradient_kernels(KernelRegistry& r);
void register_range_kernels(KernelRegistry& r);
// Kernels of the ops and versions of ai.onnx opsets 18 and later (and of the
// function-ops whose libonnx bodies stop at 17), kept in sub-folders of eval/
// (see common/modern_kernels.h).
void register_modern_kernels(KernelRegistry& r);

}  // namespace oxs::eval
