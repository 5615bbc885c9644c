// A Pattern is a small dataflow graph to find in a model: pattern nodes (an
// op type, a domain, attribute conditions) connected by pattern values
// (variables that bind to any ir::Value, constants matched by value, values
// that must be absent, outputs of other pattern nodes). Patterns are built in
// C++ with Pattern and its OpBuilder (`op.Add(x, y)`), or compiled from an
// ONNX Script rule file (rules/script_rules.h). The first output's producer
// is the root: matching starts there and walks inputs backwards, so every
// pattern node must be an ancestor of the root (checked when the pattern is
// finished). Matching itself lives in matcher.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oxs/ir/attr.h"
#include "oxs/ir/graph.h"
#include "oxs/ir/tensor.h"

namespace oxs::rewrite {

class Pattern;

// A condition on the ir::Value a pattern value binds to. `test` returns ""
// when it holds, else what it saw ("rank 3"), for "why didn't it match".
struct ValuePredicate {
  std::string description;  // "has rank 2"
  std::function<std::string(const ir::Value&)> test;
};

// Common predicates.
ValuePredicate is_constant();
ValuePredicate has_rank(size_t rank);
ValuePredicate has_dtype(ir::DataType dtype);
ValuePredicate has_static_shape();

// A condition on one attribute of a matched node.
struct AttrPattern {
  std::string name;
  std::string description;  // "perm == [1, 0]"
  // `a` is null when the node lacks the attribute. Returns "" when it holds,
  // else what it saw.
  std::function<std::string(const ir::Attr* a)> test;

  static AttrPattern equals_int(std::string name, int64_t v);
  static AttrPattern equals_ints(std::string name, std::vector<int64_t> v);
  static AttrPattern equals_float(std::string name, float v);
  static AttrPattern equals_string(std::string name, std::string v);
  // Absent, or present with this int value (an attribute's default).
  static AttrPattern int_or_default(std::string name, int64_t v);
  static AttrPattern present(std::string name);
  static AttrPattern absent(std::string name);
};

// A handle to one value of a pattern.
class PVal {
 public:
  PVal() = default;
  PVal(Pattern* p, int id) : pattern_(p), id_(id) {}
  int id() const { return id_; }
  bool valid() const { return pattern_ != nullptr; }
  // Adds a condition on the value this binds to.
  PVal where(ValuePredicate p) const;

 private:
  Pattern* pattern_ = nullptr;
  int id_ = -1;
};

struct PatternValue {
  enum class Kind : uint8_t { Var, NodeOutput, Constant, Absent };
  Kind kind = Kind::Var;
  std::string name;       // variables: their name; else for messages
  bool optional = false;  // a Var that may also match an omitted input
  int node = -1;          // NodeOutput: the producing pattern node
  int output_index = 0;
  std::vector<ValuePredicate> predicates;
  // Constant: a tensor whose every element equals `scalar` (any shape), or
  // equals `tensor` element-wise (same dims), within |a-b| <= atol+rtol*|b|.
  std::optional<double> scalar;
  std::shared_ptr<const ir::Tensor> tensor;
  double rtol = 0, atol = 0;
};

struct PatternNode {
  std::string op_type;
  std::string domain;        // "" is ai.onnx
  std::vector<int> inputs;   // pattern value ids
  std::vector<int> outputs;  // pattern value ids
  std::vector<AttrPattern> attrs;
  bool commutative = false;  // the first two inputs may be swapped
  // Matched nodes may have more inputs than the pattern lists.
  bool allow_extra_inputs = false;
};

struct NodeOptions {
  std::string domain;
  size_t num_outputs = 1;
  // Unset: true for the commutative ai.onnx ops (Add, Mul, Max, ...).
  std::optional<bool> commutative;
  bool allow_extra_inputs = false;
};

// True for binary ai.onnx ops whose two inputs may be swapped.
bool is_commutative_op(const std::string& domain, const std::string& op_type);

class Pattern {
 public:
  Pattern() = default;
  Pattern(Pattern&&) = default;
  Pattern& operator=(Pattern&&) = default;

  // A variable: binds to any value (the same variable twice must bind to the
  // same value).
  PVal var(std::string name);
  // A variable that also matches an omitted optional input (bound to null).
  PVal optional_var(std::string name);
  // An input that must be omitted.
  PVal absent();
  // A constant whose every element equals `v` (within atol).
  PVal constant(double v, double atol = 0);
  // A constant equal to `t` element-wise (same dims).
  PVal constant(ir::Tensor t, double rtol = 0, double atol = 0);
  // A node; returns its outputs.
  std::vector<PVal> node(std::string op_type, std::vector<PVal> inputs,
                         std::vector<AttrPattern> attrs = {}, NodeOptions options = {});
  PVal op(std::string op_type, std::vector<PVal> inputs, std::vector<AttrPattern> attrs = {},
          NodeOptions options = {});

  // Declares the pattern's outputs (the first one's producer is the root)
  // and checks the pattern: every node reachable from the root. Throws
  // oxs::Error (Usage) naming the problem.
  void set_outputs(std::vector<PVal> outputs);

  const std::vector<PatternValue>& values() const { return values_; }
  const std::vector<PatternNode>& nodes() const { return nodes_; }
  const std::vector<int>& outputs() const { return outputs_; }
  int root() const { return root_; }  // pattern node id
  const PatternNode& root_node() const { return nodes_[size_t(root_)]; }
  PatternValue& value(int id) { return values_[size_t(id)]; }
  // The variable named `name`, or -1.
  int find_var(const std::string& name) const;
  // One line per node, for messages: "%t0 = Mul(%x, %y)".
  std::string describe() const;

 private:
  std::vector<PatternValue> values_;
  std::vector<PatternNode> nodes_;
  std::vector<int> outputs_;
  int root_ = -1;
};

// `op.Add(x, y)`-style construction on a Pattern. Attributes and options go
// through call().
class OpBuilder {
 public:
  explicit OpBuilder(Pattern& p) : p_(p) {}
  PVal call(std::string op_type, std::vector<PVal> inputs, std::vector<AttrPattern> attrs = {},
            NodeOptions options = {}) {
    return p_.op(std::move(op_type), std::move(inputs), std::move(attrs), std::move(options));
  }
#define OXS_PATTERN_OP(OP)    \
  template <class... A>       \
  PVal OP(A... a) {           \
    return call(#OP, {a...}); \
  }
  OXS_PATTERN_OP(Add)
  OXS_PATTERN_OP(Sub)
  OXS_PATTERN_OP(Mul)
  OXS_PATTERN_OP(Div)
  OXS_PATTERN_OP(Neg)
  OXS_PATTERN_OP(Pow)
  OXS_PATTERN_OP(Sqrt)
  OXS_PATTERN_OP(Erf)
  OXS_PATTERN_OP(Tanh)
  OXS_PATTERN_OP(Relu)
  OXS_PATTERN_OP(Identity)
  OXS_PATTERN_OP(MatMul)
  OXS_PATTERN_OP(Softmax)
  OXS_PATTERN_OP(Transpose)
  OXS_PATTERN_OP(Reshape)
  OXS_PATTERN_OP(Cast)
  OXS_PATTERN_OP(ReduceMean)
#undef OXS_PATTERN_OP

 private:
  Pattern& p_;
};

}  // namespace oxs::rewrite
