#include "oxs/rewrite/pattern/pattern.h"

#include <fmt/format.h>

#include <unordered_set>

#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/rewrite/core/constants.h"

namespace oxs::rewrite {

ValuePredicate is_constant() {
  return {"is a constant", [](const ir::Value& v) -> std::string {
            return constant_of(&v) ? "" : "not a constant (no initializer or Constant node)";
          }};
}

ValuePredicate has_rank(size_t rank) {
  return {fmt::format("has rank {}", rank), [rank](const ir::Value& v) -> std::string {
            const auto& s = v.type().shape();
            if (!v.type().is_tensor() || !s)
              return "rank unknown (type " + v.type().to_string() + ")";
            return s->rank() == rank ? "" : fmt::format("rank {}", s->rank());
          }};
}

ValuePredicate has_dtype(ir::DataType dtype) {
  return {fmt::format("has element type {}", ir::dtype_name(dtype)),
          [dtype](const ir::Value& v) -> std::string {
            if (v.type().is_tensor() && v.type().elem_type() == dtype) return "";
            return "type " + v.type().to_string();
          }};
}

ValuePredicate has_static_shape() {
  return {"has a static shape", [](const ir::Value& v) -> std::string {
            const auto& s = v.type().shape();
            if (v.type().is_tensor() && s && s->is_static()) return "";
            return "type " + v.type().to_string();
          }};
}

namespace {
std::string seen(const ir::Attr* a) {
  return a ? "saw " + ir::attr_value_text(*a) : "attribute absent";
}
}  // namespace

AttrPattern AttrPattern::equals_int(std::string name, int64_t v) {
  return {name, fmt::format("{} == {}", name, v), [v](const ir::Attr* a) {
            return a && a->type == ir::AttrType::Int && a->i == v ? std::string() : seen(a);
          }};
}

AttrPattern AttrPattern::int_or_default(std::string name, int64_t v) {
  return {name, fmt::format("{} == {} (or absent)", name, v), [v](const ir::Attr* a) {
            return !a || (a->type == ir::AttrType::Int && a->i == v) ? std::string() : seen(a);
          }};
}

AttrPattern AttrPattern::equals_ints(std::string name, std::vector<int64_t> v) {
  return {name, fmt::format("{} == [{}]", name, fmt::join(v, ", ")), [v](const ir::Attr* a) {
            return a && a->type == ir::AttrType::Ints && a->ints == v ? std::string() : seen(a);
          }};
}

AttrPattern AttrPattern::equals_float(std::string name, float v) {
  return {name, fmt::format("{} == {}", name, v), [v](const ir::Attr* a) {
            return a && a->type == ir::AttrType::Float && a->f == v ? std::string() : seen(a);
          }};
}

AttrPattern AttrPattern::equals_string(std::string name, std::string v) {
  return {name, fmt::format("{} == \"{}\"", name, v), [v](const ir::Attr* a) {
            return a && a->type == ir::AttrType::String && a->s == v ? std::string() : seen(a);
          }};
}

AttrPattern AttrPattern::present(std::string name) {
  return {name, name + " present", [](const ir::Attr* a) { return a ? std::string() : seen(a); }};
}

AttrPattern AttrPattern::absent(std::string name) {
  return {name, name + " absent", [](const ir::Attr* a) { return a ? seen(a) : std::string(); }};
}

PVal PVal::where(ValuePredicate p) const {
  pattern_->value(id_).predicates.push_back(std::move(p));
  return *this;
}

bool is_commutative_op(const std::string& domain, const std::string& op_type) {
  static const std::unordered_set<std::string> ops = {
      "Add",   "Mul", "Max",  "Min",        "And",       "Or",        "Xor",
      "Equal", "Sum", "Mean", "BitwiseAnd", "BitwiseOr", "BitwiseXor"};
  return (domain.empty() || domain == "ai.onnx") && ops.count(op_type);
}

PVal Pattern::var(std::string name) {
  PatternValue v;
  v.name = std::move(name);
  values_.push_back(std::move(v));
  return {this, int(values_.size()) - 1};
}

PVal Pattern::optional_var(std::string name) {
  PVal p = var(std::move(name));
  values_.back().optional = true;
  return p;
}

PVal Pattern::absent() {
  PatternValue v;
  v.kind = PatternValue::Kind::Absent;
  v.name = "<absent>";
  values_.push_back(std::move(v));
  return {this, int(values_.size()) - 1};
}

PVal Pattern::constant(double c, double atol) {
  PatternValue v;
  v.kind = PatternValue::Kind::Constant;
  v.name = fmt::format("{}", c);
  v.scalar = c;
  v.atol = atol;
  values_.push_back(std::move(v));
  return {this, int(values_.size()) - 1};
}

PVal Pattern::constant(ir::Tensor t, double rtol, double atol) {
  PatternValue v;
  v.kind = PatternValue::Kind::Constant;
  v.name = ir::tensor_summary(t);
  v.tensor = std::make_shared<const ir::Tensor>(std::move(t));
  v.rtol = rtol;
  v.atol = atol;
  values_.push_back(std::move(v));
  return {this, int(values_.size()) - 1};
}

std::vector<PVal> Pattern::node(std::string op_type, std::vector<PVal> inputs,
                                std::vector<AttrPattern> attrs, NodeOptions options) {
  PatternNode n;
  n.commutative = options.commutative.value_or(is_commutative_op(options.domain, op_type));
  n.op_type = std::move(op_type);
  n.domain = options.domain == "ai.onnx" ? "" : options.domain;
  for (const PVal& in : inputs) {
    if (!in.valid()) throw Error(ErrorKind::Usage, "pattern node " + n.op_type + ": null input");
    n.inputs.push_back(in.id());
  }
  n.attrs = std::move(attrs);
  n.allow_extra_inputs = options.allow_extra_inputs;
  int id = int(nodes_.size());
  std::vector<PVal> outs;
  for (size_t i = 0; i < options.num_outputs; ++i) {
    PatternValue v;
    v.kind = PatternValue::Kind::NodeOutput;
    v.node = id;
    v.output_index = int(i);
    v.name = fmt::format("t{}", values_.size());
    values_.push_back(std::move(v));
    n.outputs.push_back(int(values_.size()) - 1);
    outs.emplace_back(this, int(values_.size()) - 1);
  }
  nodes_.push_back(std::move(n));
  return outs;
}

PVal Pattern::op(std::string op_type, std::vector<PVal> inputs, std::vector<AttrPattern> attrs,
                 NodeOptions options) {
  options.num_outputs = std::max<size_t>(options.num_outputs, 1);
  return node(std::move(op_type), std::move(inputs), std::move(attrs), std::move(options))[0];
}

void Pattern::set_outputs(std::vector<PVal> outputs) {
  if (outputs.empty()) throw Error(ErrorKind::Usage, "a pattern needs at least one output");
  outputs_.clear();
  for (const PVal& o : outputs) outputs_.push_back(o.id());
  const PatternValue& first = values_[size_t(outputs_[0])];
  if (first.kind != PatternValue::Kind::NodeOutput) {
    throw Error(
        ErrorKind::Usage,
        "the first output of a pattern must be produced by a node (it is '" + first.name + "')");
  }
  root_ = first.node;
  // Every node must be reachable backwards from the root: matching walks
  // inputs only.
  std::vector<bool> seen(nodes_.size());
  std::vector<int> stack{root_};
  seen[size_t(root_)] = true;
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    for (int in : nodes_[size_t(n)].inputs) {
      const PatternValue& v = values_[size_t(in)];
      if (v.kind == PatternValue::Kind::NodeOutput && !seen[size_t(v.node)]) {
        seen[size_t(v.node)] = true;
        stack.push_back(v.node);
      }
    }
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!seen[i]) {
      throw Error(ErrorKind::Usage, "pattern node " + nodes_[i].op_type +
                                        " does not feed the pattern's first output; matching "
                                        "starts there and walks inputs, so it would never match");
    }
  }
  for (int o : outputs_) {
    const PatternValue& v = values_[size_t(o)];
    if (v.kind != PatternValue::Kind::NodeOutput) {
      throw Error(ErrorKind::Usage, "pattern output '" + v.name + "' is not produced by a node");
    }
  }
}

int Pattern::find_var(const std::string& name) const {
  for (size_t i = 0; i < values_.size(); ++i) {
    if (values_[i].kind == PatternValue::Kind::Var && values_[i].name == name) return int(i);
  }
  return -1;
}

std::string Pattern::describe() const {
  std::string out;
  for (const PatternNode& n : nodes_) {
    std::vector<std::string> outs, ins;
    for (int o : n.outputs) outs.push_back("%" + values_[size_t(o)].name);
    for (int i : n.inputs) {
      const PatternValue& v = values_[size_t(i)];
      ins.push_back(v.kind == PatternValue::Kind::Constant ? v.name : "%" + v.name);
    }
    out += fmt::format("{} = {}{}({})\n", fmt::join(outs, ", "),
                       n.domain.empty() ? "" : n.domain + ".", n.op_type, fmt::join(ins, ", "));
  }
  return out;
}

}  // namespace oxs::rewrite
