#include "oxs/eval/kernel.h"

#include <algorithm>

#include "oxs/ir/graph.h"

namespace oxs::eval {

const ir::Attr* AttrScope::find(const std::string& name) const {
  auto it = bound.find(name);
  return it == bound.end() ? nullptr : it->second;
}

const Value& KernelContext::input(size_t i) const {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is required but missing");
  return *inputs_[i];
}

Value KernelContext::take_input(size_t i) {
  const Value& v = input(i);
  if (i >= 64 || !(dying_ >> i & 1)) return v;
  // The frame owns the value and drops it after this node: hand it over.
  Value& owned = const_cast<Value&>(v);
  Value taken = std::move(owned);
  owned = Value();
  return taken;
}

const Tensor& KernelContext::tensor(size_t i) const {
  const Value& v = input(i);
  if (!v.is_tensor()) {
    fail("input " + std::to_string(i) + " must be a tensor but is " + v.describe());
  }
  return v.tensor();
}

const Tensor* KernelContext::optional_tensor(size_t i) const {
  if (!has_input(i)) return nullptr;
  const Value& v = *inputs_[i];
  if (v.is_optional()) return v.has_element() ? &v.element().tensor() : nullptr;
  if (v.is_none()) return nullptr;
  return &v.tensor();
}

bool KernelContext::wants_output(size_t i) const {
  return i < outputs_.size() && node_.output(i) != nullptr;
}

void KernelContext::set_output(size_t i, Value v) {
  if (i >= outputs_.size()) return;  // an output the node does not declare
  outputs_[i] = std::move(v);
}

Tensor& KernelContext::alloc_output_uninitialized(size_t i, DataType dtype, Dims dims) {
  Tensor& t = alloc_output(i, dtype, {});
  t = Tensor::uninitialized(dtype, std::move(dims));
  return t;
}

Tensor& KernelContext::alloc_output_reusing(size_t i, DataType dtype, Dims dims,
                                            std::initializer_list<size_t> from) {
  if (i < outputs_.size() && dtype != DataType::String) {
    for (size_t j : from) {
      if (j >= inputs_.size() || j >= 64 || !(reusable_ >> j & 1) || !inputs_[j] ||
          !inputs_[j]->is_tensor()) {
        continue;
      }
      const Tensor& x = inputs_[j]->tensor();
      if (x.dtype() != dtype || !x.sole_owner() || x.numel() != checked_numel(dims)) continue;
      reusable_ &= ~(uint64_t(1) << j);  // one output per buffer
      reused_ = true;
      outputs_[i] = Value(x.reshaped(std::move(dims)));
      return outputs_[i].tensor();
    }
  }
  return alloc_output_uninitialized(i, dtype, std::move(dims));
}

Tensor& KernelContext::alloc_output(size_t i, DataType dtype, Dims dims) {
  if (i >= outputs_.size()) {
    // The node declares fewer outputs: compute into a scratch slot.
    thread_local Tensor scratch;
    scratch = Tensor(dtype, std::move(dims));
    return scratch;
  }
  outputs_[i] = Value(Tensor(dtype, std::move(dims)));
  return outputs_[i].tensor();
}

const ir::Attr* KernelContext::attr(std::string_view name) const {
  const ir::Attr* a = node_.attr(name);
  if (a && a->is_reference()) {
    const ir::Attr* bound = attrs_ ? attrs_->find(a->ref_attr_name) : nullptr;
    return bound;
  }
  return a;
}

int64_t KernelContext::attr_int(std::string_view name, int64_t def) const {
  const ir::Attr* a = attr(name);
  return a ? a->i : def;
}
float KernelContext::attr_float(std::string_view name, float def) const {
  const ir::Attr* a = attr(name);
  return a ? a->f : def;
}
std::string KernelContext::attr_string(std::string_view name, const std::string& def) const {
  const ir::Attr* a = attr(name);
  return a ? a->s : def;
}
std::vector<int64_t> KernelContext::attr_ints(std::string_view name,
                                              std::vector<int64_t> def) const {
  const ir::Attr* a = attr(name);
  return a ? a->ints : def;
}
std::vector<float> KernelContext::attr_floats(std::string_view name, std::vector<float> def) const {
  const ir::Attr* a = attr(name);
  return a ? a->floats : def;
}
std::vector<std::string> KernelContext::attr_strings(std::string_view name) const {
  const ir::Attr* a = attr(name);
  return a ? a->strings : std::vector<std::string>{};
}
const ir::Attr& KernelContext::required_attr(std::string_view name) const {
  const ir::Attr* a = attr(name);
  if (!a) fail("required attribute '" + std::string(name) + "' is missing");
  return *a;
}
const ir::Graph& KernelContext::attr_graph(std::string_view name) const {
  const ir::Attr& a = required_attr(name);
  if (!a.g) fail("attribute '" + std::string(name) + "' must be a graph");
  return *a.g;
}

void KernelContext::fail(const std::string& message, ErrorKind kind) const {
  throw Error(kind, node_.op_type() + ": " + message, {.node = node_.display_name()});
}

// ---- registry ----

std::string normalize_domain(std::string_view domain) {
  if (domain == "ai.onnx") return "";
  return std::string(domain);
}

static std::string key_of(std::string_view domain, std::string_view op) {
  std::string k = normalize_domain(domain);
  k += '\0';
  k += op;
  return k;
}

void KernelRegistry::add(std::string_view domain, std::string_view op, int since, KernelFn fn) {
  auto& v = ops_[key_of(domain, op)];
  v.push_back({since, fn});
  std::sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) { return a.since < b.since; });
}

void KernelRegistry::add_all(std::string_view domain, std::initializer_list<std::string_view> ops,
                             int since, KernelFn fn) {
  for (auto op : ops) add(domain, op, since, fn);
}

KernelFn KernelRegistry::find(std::string_view domain, std::string_view op, int64_t opset) const {
  auto it = ops_.find(key_of(domain, op));
  if (it == ops_.end()) return nullptr;
  // A null entry ends the previous kernel's range (e.g. an op that became a
  // function-op: its schema body runs from that version on).
  KernelFn best = nullptr;
  for (const Entry& e : it->second) {
    if (e.since <= opset) best = e.fn;
  }
  return best;
}

bool KernelRegistry::has_op(std::string_view domain, std::string_view op) const {
  return ops_.count(key_of(domain, op)) != 0;
}

const KernelRegistry& KernelRegistry::builtin() {
  static const KernelRegistry r = [] {
    KernelRegistry k;
    register_elementwise_kernels(k);
    register_math_kernels(k);
    register_reduce_kernels(k);
    register_shape_kernels(k);
    register_index_kernels(k);
    register_matmul_kernels(k);
    register_conv_kernels(k);
    register_pool_kernels(k);
    register_norm_kernels(k);
    register_control_kernels(k);
    register_sequence_kernels(k);
    register_cast_kernels(k);
    register_misc_kernels(k);
    register_resize_kernels(k);
    register_rnn_kernels(k);
    register_signal_kernels(k);
    register_image_kernels(k);
    register_random_kernels(k);
    register_ml_map_kernels(k);
    register_ml_basic_kernels(k);
    register_ml_tree_kernels(k);
    register_ml_svm_kernels(k);
    register_gradient_kernels(k);
    register_range_kernels(k);
    register_modern_kernels(k);
    return k;
  }();
  return r;
}

}  // namespace oxs::eval
