#include "oxs/schema/convert/steps.h"

#include <set>
#include <string>
#include <vector>

#include "oxs/ir/dtype.h"
#include "oxs/ir/error.h"
#include "oxs/schema/convert/adapters.h"
#include "oxs/schema/convert/step_util.h"
#include "oxs/schema/registry.h"

namespace oxs::schema::convert {
namespace {

bool is_default_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx";
}

bool same_value(const ir::Attr& a, const ir::Attr& b) {
  return a.type == b.type && a.i == b.i && a.f == b.f && a.s == b.s && a.ints == b.ints &&
         a.floats == b.floats && a.strings == b.strings && !a.t && !b.t;
}

bool all_ones(const ir::Attr& a) {
  if (a.type != ir::AttrType::Ints || a.is_reference()) return false;
  for (int64_t v : a.ints) {
    if (v != 1) return false;
  }
  return true;
}

// Attributes the older version lacks: dropped when they hold the newer
// version's default (or all ones, for dilations), refused otherwise.
void check_attrs(ir::Node& node, const OpSignature& newer, const OpSignature& older,
                 const Step& step) {
  std::vector<std::string> drop;
  for (const ir::Attr& a : node.attrs()) {
    if (older.find_attr(a.name) != nullptr || older.allows_unchecked_attributes) continue;
    if (a.name.rfind("__", 0) == 0) continue;
    const AttrParam* p = newer.find_attr(a.name);
    if (!a.is_reference() &&
        ((p != nullptr && p->default_value && same_value(a, *p->default_value)) ||
         (a.name == "dilations" && all_ones(a)))) {
      drop.push_back(a.name);
      continue;
    }
    refuse(node, "attribute '" + a.name + "' is new in " + versioned(node, newer.since_version) +
                     "; " + versioned(node, older.since_version) + " (opset " +
                     std::to_string(step.older) + ") has no equivalent");
  }
  for (const std::string& name : drop) node.remove_attr(name);
}

// Inputs and outputs beyond what the older version takes: dropped when
// omitted, refused when given.
void check_arity(ir::Node& node, const OpSignature& newer, const OpSignature& older) {
  const auto max_in = static_cast<size_t>(older.max_input);
  if (node.num_inputs() > max_in) {
    for (size_t i = max_in; i < node.num_inputs(); ++i) {
      if (node.input(i) == nullptr) continue;
      const std::string formal = i < newer.inputs.size() ? newer.inputs[i].name : "";
      refuse(node, "input " + std::to_string(i) + " ('" + formal + "') is new in " +
                       versioned(node, newer.since_version) + "; " +
                       versioned(node, older.since_version) + " takes at most " +
                       std::to_string(max_in) + " inputs");
    }
    node.resize_inputs(max_in);
  }
  const auto max_out = static_cast<size_t>(older.max_output);
  for (size_t i = node.num_outputs(); i-- > max_out;) {
    ir::Value* v = node.output(i);
    if (v != nullptr && (v->has_uses() || v->is_graph_output())) {
      refuse(node, "output " + std::to_string(i) + " is new in " +
                       versioned(node, newer.since_version) + " and is used");
    }
    node.remove_output(i);
  }
}

// Whether `type` (a tensor of known element type) is allowed by `formal`
// of `sig`; true when the answer is not known.
bool type_allowed(const OpSignature& sig, const FormalParam& formal, const ir::Type& type) {
  if (!type.is_tensor() || type.elem_type() == ir::DataType::Undefined) return true;
  const TypeConstraint* c = sig.find_type_constraint(formal.type_constraint);
  if (c == nullptr) {  // a concrete type, "tensor(float)"
    return formal.type_constraint.rfind("tensor(", 0) != 0 ||
           formal.type_constraint ==
               "tensor(" + std::string(ir::dtype_name(type.elem_type())) + ")";
  }
  for (const ir::Type& t : c->allowed_types) {
    if (t.is_tensor() && t.elem_type() == type.elem_type()) return true;
  }
  return false;
}

void check_types(const ir::Node& node, const OpSignature& older, const Step& step) {
  auto check = [&](const std::vector<FormalParam>& formals, const ir::Value* v, size_t i,
                   const char* what) {
    if (v == nullptr || formals.empty()) return;
    const FormalParam& f = formals[std::min(i, formals.size() - 1)];
    if (type_allowed(older, f, v->type())) return;
    refuse(node, std::string(what) + " '" + v->name() + "' is of element type " +
                     std::string(ir::dtype_name(v->type().elem_type())) + ", which " +
                     versioned(node, older.since_version) + " (opset " +
                     std::to_string(step.older) + ") does not take");
  };
  for (size_t i = 0; i < node.num_inputs(); ++i) check(older.inputs, node.input(i), i, "input");
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    check(older.outputs, node.output(i), i, "output");
  }
}

void convert_node(ir::Node& node, Step step) {
  if (!is_default_domain(node.domain())) return;
  const OpSignature* newer = lookup("", node.op_type(), step.newer);
  const int64_t at = step.up ? step.older : step.newer;
  if (newer == nullptr) {
    if (lookup("", node.op_type(), at) == nullptr) {
      refuse(node, "no such op in ai.onnx opset " + std::to_string(at));
    }
    refuse(node, "the op does not exist in ai.onnx opset " + std::to_string(step.newer));
  }
  if (newer->since_version != step.newer) return;  // unchanged at this step
  if (newer->deprecated) {
    refuse(node, "the op is removed as of ai.onnx opset " + std::to_string(step.newer));
  }
  const Adapter* adapter = find_adapter(node.op_type(), step.newer);
  const OpSignature* older = lookup("", node.op_type(), step.older);
  step.older_since = older != nullptr ? older->since_version : 0;
  if (step.up) {
    if (adapter != nullptr && adapter->up != nullptr) adapter->up(node, step);
    return;
  }
  if (older != nullptr && older->deprecated) {
    refuse(node, versioned(node, older->since_version) + ", the version before opset " +
                     std::to_string(step.newer) + ", is deprecated by ONNX; opset " +
                     std::to_string(step.older) + " has no usable " + node.op_type());
  }
  if (older == nullptr) {
    refuse(node, node.op_type() + " is new in ai.onnx opset " + std::to_string(step.newer) +
                     "; opset " + std::to_string(step.older) + " has no such op");
  }
  if (adapter != nullptr && adapter->down != nullptr) adapter->down(node, step);
  check_attrs(node, *newer, *older, step);
  check_arity(node, *newer, *older);
  check_types(node, *older, step);
}

void set_import(std::vector<ir::OpsetImport>& imports, int64_t version) {
  for (ir::OpsetImport& imp : imports) {
    if (is_default_domain(imp.domain)) imp.version = version;
  }
}

// The ai.onnx version `imports` name, or 0.
int64_t default_import(const std::vector<ir::OpsetImport>& imports) {
  for (const ir::OpsetImport& imp : imports) {
    if (is_default_domain(imp.domain)) return imp.version;
  }
  return 0;
}

}  // namespace

void refuse_ops_newer_than(const ir::Model& model, int64_t target) {
  const ir::Node* first = nullptr;
  std::vector<std::string> ops;  // "Gelu-20", each op once
  std::set<std::string> seen;
  auto visit = [&](ir::Node* n) {
    if (!is_default_domain(n->domain()) || seen.count(n->op_type())) return;
    seen.insert(n->op_type());
    const std::vector<int64_t> versions = op_versions("", n->op_type());
    if (versions.empty() || versions.front() <= target) return;
    if (first == nullptr) first = n;
    ops.push_back(versioned(*n, versions.front()));
  };
  model.graph->for_each_node_recursive(visit);
  for (const auto& f : model.functions) f->body->for_each_node_recursive(visit);
  if (first == nullptr) return;
  std::string why = first->op_type() + " is new in ai.onnx opset " +
                    ops.front().substr(first->op_type().size() + 1) + "; opset " +
                    std::to_string(target) + " has no such op";
  if (ops.size() > 1) {
    why += " (nor ";
    for (size_t i = 1; i < ops.size(); ++i) why += (i > 1 ? ", " : "") + ops[i];
    why += ")";
  }
  refuse(*first, why);
}

void convert_steps(ir::Model& model, int64_t from, int64_t to) {
  std::vector<ir::Graph*> graphs{model.graph.get()};
  for (const auto& f : model.functions) {
    const int64_t v = default_import(f->opset_imports);
    if (v == 0) continue;
    if (v != from) {
      throw Error(ErrorKind::Unsupported,
                  "function '" + f->name + "' imports ai.onnx opset " + std::to_string(v) +
                      " but the model imports " + std::to_string(from) +
                      "; convert models whose functions share the model's opset");
    }
    graphs.push_back(f->body.get());
  }
  const bool up = to > from;
  for (int64_t at = from; at != to; at += up ? 1 : -1) {
    const Step step{up ? at : at - 1, up ? at + 1 : at, up};
    for (ir::Graph* g : graphs) {
      g->for_each_node_recursive([&](ir::Node* n) { convert_node(*n, step); });
    }
  }
  for (const auto& g : graphs) g->collect_garbage();
  set_import(model.opset_imports, to);
  for (const auto& f : model.functions) {
    if (default_import(f->opset_imports) != 0) set_import(f->opset_imports, to);
  }
}

}  // namespace oxs::schema::convert
