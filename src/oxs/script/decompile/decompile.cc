#include "oxs/script/decompile/decompile.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "oxs/ir/error.h"
#include "oxs/ir/topo_sort.h"
#include "oxs/script/decompile/python_names.h"
#include "oxs/script/decompile/tensor_literal.h"

namespace oxs::script {

namespace {

using ir::Attr;
using ir::AttrType;
using ir::Graph;
using ir::Node;
using ir::Value;

bool default_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx";
}

// Ops that read as Python operators when they are exactly that node.
const char* binary_operator(const Node& n) {
  if (!default_domain(n.domain()) || n.num_inputs() != 2 || n.num_outputs() != 1 ||
      !n.attrs().empty() || !n.input(0) || !n.input(1)) {
    return nullptr;
  }
  static const std::map<std::string, const char*> ops = {
      {"Add", "+"},
      {"Sub", "-"},
      {"Mul", "*"},
      {"Div", "/"},
      {"MatMul", "@"},
      {"Pow", "**"},
      {"Equal", "=="},
      {"Less", "<"},
      {"Greater", ">"},
      {"LessOrEqual", "<="},
      {"GreaterOrEqual", ">="},
  };
  auto it = ops.find(n.op_type());
  return it == ops.end() ? nullptr : it->second;
}

std::string indent_of(int level) {
  return std::string(static_cast<size_t>(level) * 4, ' ');
}

class Decompiler {
 public:
  Decompiler(const ir::Model& m, const DecompileOptions& o) : m_(m), o_(o) {
    for (const auto& imp : m.opset_imports) {
      if (default_domain(imp.domain)) {
        default_version_ = imp.version;
      } else {
        std::string alias = names_.fresh(alias_base(imp.domain));
        aliases_[imp.domain] = alias;
        custom_opsets_.push_back({alias, imp});
      }
    }
    for (const auto& f : m.functions) {
      function_names_[{f->domain, f->name}] = names_.fresh(f->name);
    }
    // How each function is called: which inputs some caller omits, and the
    // attribute values callers pass (types for unused parameters).
    auto visit = [this](Node* n) {
      auto key = std::make_pair(n->domain(), n->op_type());
      if (!function_names_.count(key)) return;
      CallInfo& c = calls_[key];
      size_t first_omitted = n->num_inputs();
      for (size_t i = 0; i < n->num_inputs(); ++i) {
        if (!n->input(i)) {
          first_omitted = i;
          break;
        }
      }
      c.first_omitted = std::min(c.first_omitted, first_omitted);
      for (const Attr& a : n->attrs()) {
        if (!a.is_reference()) c.attrs.emplace(a.name, std::make_pair(&a, n));
      }
    };
    m.graph->for_each_node_recursive(visit);
    for (const auto& f : m.functions) f->body->for_each_node_recursive(visit);
  }

  DecompileResult run() {
    std::string body;
    for (const auto& f : functions_in_call_order()) body += function(*f) + "\n\n";
    body += main_graph(*m_.graph);
    DecompileResult r;
    r.source = header() + "\n\n" + body;
    r.weights = std::move(weights_);
    return r;
  }

 private:
  static std::string alias_base(const std::string& domain) {
    std::string base = domain;
    for (char& c : base) {
      if (c == '.' || c == '-') c = '_';
    }
    return base.empty() ? "custom" : base;
  }

  std::string header() {
    std::string h = "from onnxscript import script";
    for (ir::DataType t : used_types_) h += ", " + std::string(ir::dtype_script_name(t));
    h += "\n";
    if (uses_sequence_ || uses_optional_) {
      h += "from typing import ";
      h += uses_optional_ && uses_sequence_ ? "Optional, Sequence"
           : uses_sequence_                 ? "Sequence"
                                            : "Optional";
      h += "\n";
    }
    h += "from onnxscript import opset" + std::to_string(default_version_) + " as op\n";
    if (!custom_opsets_.empty()) h += "from onnxscript.values import Opset\n";
    if (uses_tensor_literal_)
      h += "from onnx import TensorProto\nfrom onnx.helper import make_tensor\n";
    if (uses_external_) h += "from onnxscript import external_tensor\n";
    for (const auto& [alias, imp] : custom_opsets_) {
      h += "\n" + alias + " = Opset(" + python_string(imp.domain) + ", " +
           std::to_string(imp.version) + ")";
    }
    if (!custom_opsets_.empty()) h += "\n";
    return h;
  }

  // Functions before their callers, so the source reads top-down.
  std::vector<const ir::Function*> functions_in_call_order() {
    std::vector<const ir::Function*> order;
    std::set<const ir::Function*> done, active;
    std::function<void(const ir::Function*)> visit = [&](const ir::Function* f) {
      if (done.count(f) || active.count(f)) return;
      active.insert(f);
      f->body->for_each_node_recursive([&](Node* n) {
        if (const ir::Function* callee = m_.find_function(n->domain(), n->op_type())) {
          visit(callee);
        }
      });
      active.erase(f);
      done.insert(f);
      order.push_back(f);
    };
    for (const auto& f : m_.functions) visit(f.get());
    return order;
  }

  std::string type_annotation(const ir::Type& t) {
    switch (t.kind()) {
      case ir::Type::Kind::Tensor: {
        used_types_.insert(t.elem_type());
        std::string s(ir::dtype_script_name(t.elem_type()));
        if (!t.shape()) return s + "[...]";
        s += "[";
        const auto& dims = t.shape()->dims();
        if (dims.empty()) return s + "()]";
        for (size_t i = 0; i < dims.size(); ++i) {
          if (i) s += ", ";
          if (dims[i].is_known()) {
            s += std::to_string(dims[i].value());
          } else if (dims[i].is_symbolic()) {
            s += python_string(dims[i].symbol());
          } else {
            s += "None";
          }
        }
        return s + "]";
      }
      case ir::Type::Kind::Sequence:
        uses_sequence_ = true;
        return "Sequence[" + type_annotation(*t.element()) + "]";
      case ir::Type::Kind::Optional:
        uses_optional_ = true;
        return "Optional[" + type_annotation(*t.element()) + "]";
      default:
        return "";
    }
  }

  std::string function(const ir::Function& f) {
    // Attribute parameter types, from their uses in the body.
    std::map<std::string, AttrType> param_types;
    f.body->for_each_node_recursive([&](Node* n) {
      for (const Attr& a : n->attrs()) {
        if (a.is_reference()) param_types.emplace(a.ref_attr_name, a.type);
      }
    });
    std::string out;
    auto it = aliases_.find(f.domain);
    std::string decorator_opset;
    if (!default_domain(f.domain)) {
      if (it == aliases_.end()) {
        std::string alias = names_.fresh(alias_base(f.domain));
        aliases_[f.domain] = alias;
        custom_opsets_.push_back({alias, {f.domain, 1}});
        it = aliases_.find(f.domain);
      }
      decorator_opset = it->second;
    }
    out += "@script(" + decorator_opset + ")\n";
    out += "def " + function_names_.at({f.domain, f.name}) + "(";
    std::vector<std::string> params;
    const CallInfo* calls = nullptr;
    if (auto c = calls_.find({f.domain, f.name}); c != calls_.end()) calls = &c->second;
    // Inputs some caller omits get `= None`; Python then wants defaults on
    // every later parameter too (the attribute values of a caller).
    size_t first_default = calls ? calls->first_omitted : f.body->inputs().size();
    for (size_t i = 0; i < f.body->inputs().size(); ++i) {
      params.push_back(value_name(f.body->inputs()[i]) + (i >= first_default ? "=None" : ""));
    }
    const bool need_defaults = first_default < f.body->inputs().size();
    for (const std::string& a : f.attributes) {
      require_identifier(a, "attribute parameter", "function " + python_string(f.name));
      std::string p = names_.get(&a, a);
      attr_params_[a] = p;
      const std::pair<const Attr*, Node*>* passed = nullptr;
      if (calls) {
        if (auto it = calls->attrs.find(a); it != calls->attrs.end()) passed = &it->second;
      }
      auto t = param_types.find(a);
      AttrType type = t != param_types.end() ? t->second
                      : passed               ? passed->first->type
                                             : AttrType::Float;
      std::string param = p + ": " + attr_annotation(type);
      if (!passed) {
        // No caller passes it: an optional attribute with no value.
        uses_optional_ = true;
        param = p + ": Optional[" + attr_annotation(type) + "] = None";
      } else if (need_defaults) {
        param += " = " + attr_value(*passed->first, *passed->second);
      }
      params.push_back(param);
    }
    out += join(params, ", ") + "):\n";
    if (!f.doc_string.empty()) out += indent_of(1) + python_string(f.doc_string) + "\n";
    out += graph_body(*f.body, 1, /*is_function=*/true);
    out += indent_of(1) + "return " + return_list(*f.body) + "\n";
    attr_params_.clear();
    return out;
  }

  std::string attr_annotation(AttrType t) {
    switch (t) {
      case AttrType::Float:
        return "float";
      case AttrType::Int:
        return "int";
      case AttrType::String:
        return "str";
      case AttrType::Floats:
        uses_sequence_ = true;
        return "Sequence[float]";
      case AttrType::Ints:
        uses_sequence_ = true;
        return "Sequence[int]";
      case AttrType::Strings:
        uses_sequence_ = true;
        return "Sequence[str]";
      default:
        return "float";
    }
  }

  std::string main_graph(const Graph& g) {
    std::vector<std::string> params;
    for (const Value* in : g.inputs()) {
      // An input that also has an initializer (IR < 4 weights) becomes a
      // constant: ONNX Script has no default values for tensor inputs.
      if (in->is_initializer()) continue;
      std::string ann = type_annotation(in->type());
      params.push_back(ann.empty() ? value_name(in) : value_name(in) + ": " + ann);
    }
    std::vector<std::string> outs;
    for (const Value* out : g.outputs()) outs.push_back(type_annotation(out->type()));
    std::string ret;
    bool all_typed = !outs.empty();
    for (const auto& o : outs) all_typed = all_typed && !o.empty();
    if (all_typed)
      ret = outs.size() == 1 ? " -> " + outs[0] : " -> tuple[" + join(outs, ", ") + "]";
    std::string name = names_.fresh(g.name().empty() ? "main_graph" : g.name());
    std::string body;
    if (!g.doc_string.empty()) body += indent_of(1) + python_string(g.doc_string) + "\n";
    body += graph_body(g, 1, false);
    body += indent_of(1) + "return " + return_list(g) + "\n";
    // Graph inputs and outputs whose ONNX names are not identifiers keep
    // them through io_names= (an oxs keyword; onnxscript keeps script()'s
    // extra keywords as model properties).
    std::vector<std::string> renamed;
    std::unordered_set<const Value*> seen;
    auto note = [&](const Value* v) {
      if (!v || !seen.insert(v).second) return;
      std::string py = value_name(v);
      if (py != v->name()) renamed.push_back(python_string(py) + ": " + python_string(v->name()));
    };
    for (const Value* in : g.inputs()) {
      if (!in->is_initializer()) note(in);
    }
    for (const Value* o : g.outputs()) note(o);
    std::string deco =
        renamed.empty() ? "@script()" : "@script(io_names={" + join(renamed, ", ") + "})";
    return deco + "\ndef " + name + "(" + join(params, ", ") + ")" + ret + ":\n" + body;
  }

  std::string return_list(const Graph& g) {
    std::vector<std::string> outs;
    for (const Value* v : g.outputs()) outs.push_back(value_name(v));
    return join(outs, ", ");
  }

  // Initializers as constants, then the nodes in topological order.
  std::string graph_body(const Graph& g, int level, bool is_function) {
    std::string out;
    for (const Value* init : g.initializers()) {
      if (!init->const_value()) continue;
      out += indent_of(level) + value_name(init) +
             " = op.Constant(value=" + tensor(*init->const_value(), init->name()) + ")\n";
    }
    for (Node* n : ir::topological_order(g)) out += node(*n, level);
    if (out.empty() && !is_function && g.outputs().empty()) out = indent_of(level) + "pass\n";
    return out;
  }

  std::string value_name(const Value* v) {
    if (!v) return "None";
    return names_.get(v, v->name());
  }

  std::string outputs_of(const Node& n) {
    size_t count = n.num_outputs();
    while (count > 0 && !n.output(count - 1)) --count;
    std::vector<std::string> outs;
    for (size_t i = 0; i < count; ++i) {
      outs.push_back(n.output(i) ? value_name(n.output(i)) : names_.fresh("_unused"));
    }
    return join(outs, ", ");
  }

  std::string node(const Node& n, int level) {
    std::string pad = indent_of(level);
    if (default_domain(n.domain()) && n.op_type() == "If" && n.attrs().size() == 2 &&
        n.attr("then_branch") && n.attr("else_branch") && n.attr("then_branch")->g &&
        n.attr("else_branch")->g && n.input(0)) {
      return if_statement(n, level);
    }
    if (is_for_range_loop(n)) return for_statement(n, level);
    if (is_while_loop(n)) return while_statement(n, level);
    std::string out;
    std::string lhs = outputs_of(n);
    if (lhs.empty()) lhs = names_.fresh("_unused");
    if (const char* sym = binary_operator(n)) {
      return out + pad + lhs + " = " + value_name(n.input(0)) + " " + sym + " " +
             value_name(n.input(1)) + "\n";
    }
    if (default_domain(n.domain()) && n.op_type() == "Neg" && n.num_inputs() == 1 && n.input(0) &&
        n.attrs().empty() && n.num_outputs() == 1) {
      return out + pad + lhs + " = -" + value_name(n.input(0)) + "\n";
    }
    std::vector<std::string> args;
    size_t count = n.num_inputs();
    while (count > 0 && !n.input(count - 1)) --count;
    for (size_t i = 0; i < count; ++i) args.push_back(value_name(n.input(i)));
    for (const Attr& a : n.attrs()) {
      require_identifier(a.name, "attribute name", n.display_name());
      if (a.type == AttrType::Graph && a.g && !a.is_reference()) {
        std::string fn = names_.fresh(a.name + "_" + n.op_type());
        out += nested_def(*a.g, fn, level);
        args.push_back(a.name + "=" + fn);
        continue;
      }
      args.push_back(a.name + "=" + attr_value(a, n));
    }
    return out + pad + lhs + " = " + callee(n) + "(" + join(args, ", ") + ")\n";
  }

  // Names that reach the source as code (op types, keywords) must be
  // identifiers: anything else could inject statements. Such a model cannot
  // be written as ONNX Script at all, so it is refused.
  static void require_identifier(const std::string& name, const char* what,
                                 const std::string& where) {
    if (is_python_identifier(name)) return;
    throw Error(ErrorKind::Unsupported,
                std::string(what) + " " + python_string(name) +
                    " is not a Python identifier, so ONNX Script cannot write it; the model "
                    "cannot be decompiled",
                {.node = where});
  }

  std::string callee(const Node& n) {
    auto f = function_names_.find({n.domain(), n.op_type()});
    if (f != function_names_.end()) return f->second;
    require_identifier(n.op_type(), "op type", n.display_name());
    if (default_domain(n.domain())) return "op." + n.op_type();
    auto it = aliases_.find(n.domain());
    if (it == aliases_.end()) {
      throw Error(ErrorKind::Invalid,
                  "node uses domain '" + n.domain() + "', which the model does not import",
                  {.node = n.display_name()});
    }
    return it->second + "." + n.op_type();
  }

  std::string nested_def(const Graph& g, const std::string& fn, int level) {
    std::vector<std::string> params;
    for (const Value* in : g.inputs()) {
      std::string ann = type_annotation(in->type());
      params.push_back(ann.empty() ? value_name(in) : value_name(in) + ": " + ann);
    }
    std::string out = indent_of(level) + "def " + fn + "(" + join(params, ", ") + "):\n";
    out += graph_body(g, level + 1, true);
    out += indent_of(level + 1) + "return " + return_list(g) + "\n";
    return out;
  }

  // A constant true boolean scalar, possibly through Identity nodes.
  static bool is_const_true(const Value* v) {
    while (v && v->producer() && v->producer()->op_type() == "Identity" &&
           default_domain(v->producer()->domain()) && v->producer()->num_inputs() == 1) {
      v = v->producer()->input(0);
    }
    if (!v) return false;
    std::shared_ptr<ir::Tensor> t = v->const_value();
    if (!t && v->producer() && v->producer()->op_type() == "Constant" &&
        v->producer()->attr("value")) {
      t = v->producer()->attr("value")->t;
    }
    if (!t || t->dtype() != ir::DataType::Bool || t->numel() != 1) return false;
    auto b = t->bytes();
    return b.size() == 1 && b[0] != std::byte{0};
  }

  // Loop(M, "", v...) whose body keeps going (condition output constant
  // true) and has no scan outputs: exactly `for i in range(M):`, which is
  // how the compiler lowers that statement.
  static bool is_for_range_loop(const Node& n) {
    if (!default_domain(n.domain()) || n.op_type() != "Loop" || n.attrs().size() != 1) return false;
    const Attr* body = n.attr("body");
    if (!body || !body->g || body->is_reference() || n.num_inputs() < 2 || !n.input(0) ||
        n.input(1)) {
      return false;
    }
    const Graph& g = *body->g;
    size_t carried = n.num_inputs() - 2;
    if (g.inputs().size() != carried + 2 || g.outputs().size() != carried + 1 ||
        n.num_outputs() != carried) {
      return false;
    }
    for (size_t k = 0; k < carried; ++k) {
      if (!n.input(2 + k) || !n.output(k)) return false;
    }
    return is_const_true(g.outputs()[0]);
  }

  std::string for_statement(const Node& n, int level) {
    const Graph& g = *n.attr("body")->g;
    std::string pad = indent_of(level);
    std::string out;
    size_t carried = n.num_inputs() - 2;
    // Loop-carried variables: the body's inputs, set before the loop.
    for (size_t k = 0; k < carried; ++k) {
      out += pad + value_name(g.inputs()[2 + k]) + " = " + value_name(n.input(2 + k)) + "\n";
    }
    out +=
        pad + "for " + value_name(g.inputs()[0]) + " in range(" + value_name(n.input(0)) + "):\n";
    std::string body;
    for (Node* m : ir::topological_order(g)) {
      // The condition output is constant true: the `for` statement says it.
      if (m->num_outputs() == 1 && m->output(0) == g.outputs()[0]) continue;
      body += node(*m, level + 1);
    }
    for (size_t k = 0; k < carried; ++k) {
      std::string var = value_name(g.inputs()[2 + k]);
      std::string next = value_name(g.outputs()[1 + k]);
      if (var != next) body += indent_of(level + 1) + var + " = " + next + "\n";
    }
    out += body.empty() ? indent_of(level + 1) + "pass\n" : body;
    for (size_t k = 0; k < carried; ++k) {
      out += pad + value_name(n.output(k)) + " = " + value_name(g.inputs()[2 + k]) + "\n";
    }
    return out;
  }

  // Loop("", cond, v...) with no scan outputs whose body does not read the
  // iteration number: exactly `while c:` with c reassigned at the end of
  // the body, the compiler's lowering of that statement.
  static bool is_while_loop(const Node& n) {
    if (!default_domain(n.domain()) || n.op_type() != "Loop" || n.attrs().size() != 1) return false;
    const Attr* body = n.attr("body");
    if (!body || !body->g || body->is_reference() || n.num_inputs() < 2 || n.input(0) ||
        !n.input(1)) {
      return false;
    }
    const Graph& g = *body->g;
    size_t carried = n.num_inputs() - 2;
    if (g.inputs().size() != carried + 2 || g.outputs().size() != carried + 1 ||
        n.num_outputs() != carried || g.inputs()[0]->has_uses()) {
      return false;
    }
    for (size_t k = 0; k < carried; ++k) {
      if (!n.input(2 + k) || !n.output(k)) return false;
    }
    // The body must compute the next condition itself (not pass cond_in on).
    const Value* next = g.outputs()[0];
    return next && next->producer() && next->producer()->graph() == &g;
  }

  std::string while_statement(const Node& n, int level) {
    const Graph& g = *n.attr("body")->g;
    std::string pad = indent_of(level);
    std::string out;
    size_t carried = n.num_inputs() - 2;
    std::string cond = value_name(g.inputs()[1]);
    for (size_t k = 0; k < carried; ++k) {
      out += pad + value_name(g.inputs()[2 + k]) + " = " + value_name(n.input(2 + k)) + "\n";
    }
    out += pad + cond + " = " + value_name(n.input(1)) + "\n";
    out += pad + "while " + cond + ":\n";
    std::string body;
    for (Node* m : ir::topological_order(g)) body += node(*m, level + 1);
    for (size_t k = 0; k < carried; ++k) {
      std::string var = value_name(g.inputs()[2 + k]);
      std::string next = value_name(g.outputs()[1 + k]);
      if (var != next) body += indent_of(level + 1) + var + " = " + next + "\n";
    }
    body += indent_of(level + 1) + cond + " = " + value_name(g.outputs()[0]) + "\n";
    out += body;
    for (size_t k = 0; k < carried; ++k) {
      out += pad + value_name(n.output(k)) + " = " + value_name(g.inputs()[2 + k]) + "\n";
    }
    return out;
  }

  std::string if_statement(const Node& n, int level) {
    std::string pad = indent_of(level);
    std::string out = pad + "if " + value_name(n.input(0)) + ":\n";
    for (const char* branch : {"then_branch", "else_branch"}) {
      const Graph& g = *n.attr(branch)->g;
      if (std::strcmp(branch, "else_branch") == 0) out += pad + "else:\n";
      // Name each branch output after the If output it becomes, when the
      // branch computes it itself.
      for (size_t i = 0; i < g.outputs().size() && i < n.num_outputs(); ++i) {
        const Value* bo = g.outputs()[i];
        if (bo && n.output(i) && bo->producer() && bo->producer()->graph() == &g &&
            !renamed_.count(bo)) {
          names_.alias(bo, value_name(n.output(i)));
          renamed_.insert(bo);
        }
      }
      std::string body = graph_body(g, level + 1, true);
      for (size_t i = 0; i < g.outputs().size() && i < n.num_outputs(); ++i) {
        if (!n.output(i)) continue;
        std::string target = value_name(n.output(i));
        std::string source = value_name(g.outputs()[i]);
        if (target != source) body += indent_of(level + 1) + target + " = " + source + "\n";
      }
      out += body.empty() ? indent_of(level + 1) + "pass\n" : body;
    }
    return out;
  }

  std::string attr_value(const Attr& a, const Node& n) {
    if (a.is_reference()) {
      auto it = attr_params_.find(a.ref_attr_name);
      if (it == attr_params_.end()) {
        throw Error(ErrorKind::Invalid,
                    "attribute '" + a.name + "' refers to '" + a.ref_attr_name +
                        "', which is not a parameter of the enclosing function",
                    {.node = n.display_name()});
      }
      return it->second;
    }
    switch (a.type) {
      case AttrType::Float:
        return python_float(a.f, true);
      case AttrType::Int:
        return std::to_string(a.i);
      case AttrType::String:
        return python_string(a.s);
      case AttrType::Floats: {
        std::vector<std::string> v;
        for (float f : a.floats) v.push_back(python_float(f, true));
        return "[" + join(v, ", ") + "]";
      }
      case AttrType::Ints: {
        std::vector<std::string> v;
        for (int64_t i : a.ints) v.push_back(std::to_string(i));
        return "[" + join(v, ", ") + "]";
      }
      case AttrType::Strings: {
        std::vector<std::string> v;
        for (const auto& s : a.strings) v.push_back(python_string(s));
        return "[" + join(v, ", ") + "]";
      }
      case AttrType::Tensor:
        if (!a.t) {
          throw Error(ErrorKind::Invalid,
                      "attribute '" + a.name + "' is a tensor attribute without a tensor",
                      {.node = n.display_name()});
        }
        return tensor(*a.t, a.t->name.empty() ? a.name : a.t->name);
      case AttrType::TypeProto: {
        // A type attribute (Optional's `type`) is written as the annotation
        // of that type: `type=FLOAT[5]`.
        std::string ann = type_annotation(a.tp);
        if (!ann.empty()) return ann;
        break;
      }
      default:
        break;
    }
    throw Error(ErrorKind::Unsupported,
                std::string("ONNX Script has no form for a '") + ir::attr_type_name(a.type) +
                    "' attribute ('" + a.name + "')",
                {.node = n.display_name()});
  }

  std::string tensor(const ir::Tensor& t, const std::string& name) {
    std::string type = "TensorProto." + upper(ir::dtype_name(t.dtype()));
    if (!o_.weights_file.empty() && t.numel() > o_.max_inline_elements &&
        t.dtype() != ir::DataType::String) {
      uses_external_ = true;
      uses_tensor_literal_ = true;
      // 64-byte aligned offsets, so the side file can be mapped.
      while (weights_.size() % 64) weights_.push_back('\0');
      size_t offset = weights_.size();
      auto b = t.bytes();
      weights_.append(reinterpret_cast<const char*>(b.data()), b.size());
      return "external_tensor(" + python_string(name) + ", " + type + ", " + dims(t) + ", " +
             python_string(o_.weights_file) + ", offset=" + std::to_string(offset) +
             ", length=" + std::to_string(b.size()) + ")";
    }
    uses_tensor_literal_ = true;
    return "make_tensor(" + python_string(name) + ", " + type + ", " + dims(t) + ", " +
           tensor_values(t) + ")";
  }

  static std::string upper(std::string_view s) {
    std::string u(s);
    for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
  }

  static std::string dims(const ir::Tensor& t) {
    std::vector<std::string> d;
    for (int64_t x : t.dims()) d.push_back(std::to_string(x));
    return "[" + join(d, ", ") + "]";
  }

  static std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string s;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) s += sep;
      s += parts[i];
    }
    return s;
  }

  const ir::Model& m_;
  const DecompileOptions& o_;
  PythonNames names_;
  int64_t default_version_ = 17;
  std::map<std::string, std::string> aliases_;
  std::vector<std::pair<std::string, ir::OpsetImport>> custom_opsets_;
  std::map<std::pair<std::string, std::string>, std::string> function_names_;
  struct CallInfo {
    size_t first_omitted = SIZE_MAX;
    std::map<std::string, std::pair<const Attr*, Node*>> attrs;
  };
  std::map<std::pair<std::string, std::string>, CallInfo> calls_;
  std::map<std::string, std::string> attr_params_;
  std::set<ir::DataType> used_types_;
  std::set<const Value*> renamed_;
  bool uses_sequence_ = false;
  bool uses_optional_ = false;
  bool uses_tensor_literal_ = false;
  bool uses_external_ = false;
  std::string weights_;
};

}  // namespace

DecompileResult decompile(const ir::Model& model, const DecompileOptions& options) {
  return Decompiler(model, options).run();
}

}  // namespace oxs::script
