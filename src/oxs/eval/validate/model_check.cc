#include "oxs/eval/validate/model_check.h"

#include <climits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "oxs/eval/kernel.h"
#include "oxs/ir/error.h"
#include "oxs/ir/graph.h"
#include "oxs/schema/registry.h"

namespace oxs::eval {

namespace {

using FunctionMap = std::unordered_map<std::string, const ir::Function*>;

std::string function_key(std::string_view domain, std::string_view name) {
  return normalize_domain(domain) + '\0' + std::string(name);
}

[[noreturn]] void node_error(const ir::Node& n, const std::string& what) {
  throw Error(ErrorKind::Invalid, n.op_type() + ": " + what, {.node = n.display_name()});
}

std::string count_text(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// Graph attribute `name` of `n`, or null.
const ir::Graph* graph_attr(const ir::Node& n, const char* name) {
  const ir::Attr* a = n.attr(name);
  return a && !a->is_reference() && a->type == ir::AttrType::Graph ? a->g.get() : nullptr;
}

void check_if(const ir::Node& n) {
  for (const char* branch : {"then_branch", "else_branch"}) {
    const ir::Graph* g = graph_attr(n, branch);
    if (!g) node_error(n, std::string("the graph attribute '") + branch + "' is missing");
    if (g->outputs().size() != n.num_outputs()) {
      node_error(n, std::string(branch) + " has " + count_text(g->outputs().size(), "output") +
                        " but the node has " + count_text(n.num_outputs(), "output") +
                        "; they must be equal");
    }
  }
}

void check_loop(const ir::Node& n) {
  const ir::Graph* body = graph_attr(n, "body");
  if (!body) node_error(n, "the graph attribute 'body' is missing");
  if (n.num_inputs() < 2) node_error(n, "Loop takes M, cond and the loop-carried values");
  size_t carried = n.num_inputs() - 2;
  if (body->inputs().size() != carried + 2) {
    node_error(n, "the body takes " + count_text(body->inputs().size(), "input") + "; with " +
                      count_text(carried, "loop-carried value") + " it must take 2 + " +
                      std::to_string(carried) + " (iteration number, condition, carried values)");
  }
  if (n.num_outputs() < carried) {
    node_error(n, "the node has " + count_text(n.num_outputs(), "output") + " but " +
                      count_text(carried, "loop-carried value") +
                      "; each carried value must be an output");
  }
  if (body->outputs().size() != 1 + n.num_outputs()) {
    node_error(n, "the body returns " + count_text(body->outputs().size(), "output") +
                      "; it must return the condition and one per node output (" +
                      std::to_string(1 + n.num_outputs()) + ")");
  }
}

void check_axes_list(const ir::Node& n, const char* name, size_t want, bool directions) {
  const ir::Attr* a = n.attr(name);
  if (!a || a->is_reference()) return;
  if (a->ints.size() != want) {
    node_error(n, "attribute '" + std::string(name) + "' has " +
                      count_text(a->ints.size(), "value") + "; it needs one per " +
                      (std::string(name).find("input") != std::string::npos ? "scan input"
                                                                            : "scan output") +
                      " (" + std::to_string(want) + ")");
  }
  if (directions) {
    for (int64_t d : a->ints) {
      if (d != 0 && d != 1) {
        node_error(n, "attribute '" + std::string(name) + "' has " + std::to_string(d) +
                          "; directions are 0 (forward) or 1 (reverse)");
      }
    }
  }
}

void check_scan(const ir::Node& n, int64_t opset) {
  const ir::Graph* body = graph_attr(n, "body");
  if (!body) node_error(n, "the graph attribute 'body' is missing");
  const ir::Attr* ma = n.attr("num_scan_inputs");
  if (!ma || ma->is_reference()) return;  // a reference: checked when it runs
  bool v8 = opset < 9;
  size_t first = v8 ? 1 : 0;  // Scan-8 takes sequence_lens first
  size_t total = n.num_inputs() >= first ? n.num_inputs() - first : 0;
  int64_t m = ma->i;
  if (m < 1 || uint64_t(m) > total) {
    node_error(n, "num_scan_inputs is " + std::to_string(m) + "; it must be between 1 and the " +
                      count_text(total, "input") + " the node has");
  }
  size_t state = total - size_t(m);
  if (body->inputs().size() != total) {
    node_error(n, "the body takes " + count_text(body->inputs().size(), "input") +
                      "; it must take one per state variable and scan input (" +
                      std::to_string(total) + ")");
  }
  if (n.num_outputs() < state) {
    node_error(n, "the node has " + count_text(n.num_outputs(), "output") + " but " +
                      count_text(state, "state variable") + "; each state must be an output");
  }
  if (body->outputs().size() != n.num_outputs()) {
    node_error(n, "the body returns " + count_text(body->outputs().size(), "output") +
                      " but the node has " + count_text(n.num_outputs(), "output") +
                      "; they must be equal");
  }
  size_t k = n.num_outputs() - state;
  check_axes_list(n, v8 ? "directions" : "scan_input_directions", size_t(m), true);
  if (!v8) {
    check_axes_list(n, "scan_input_axes", size_t(m), false);
    check_axes_list(n, "scan_output_axes", k, false);
    check_axes_list(n, "scan_output_directions", k, true);
  }
}

// "2", "1 to 3" or "1 to any number" for a count range of a signature.
std::string range_text(int lo, int hi) {
  if (lo == hi) return std::to_string(lo);
  return std::to_string(lo) + " to " + (hi == INT32_MAX ? "any number" : std::to_string(hi));
}

void check_counts(const ir::Node& n, const schema::OpSignature& sig) {
  size_t in = n.num_inputs(), out = n.num_outputs();
  if (in < size_t(sig.min_input) || in > size_t(sig.max_input)) {
    node_error(n, "has " + count_text(in, "input") + "; " + sig.display_name() + " takes " +
                      range_text(sig.min_input, sig.max_input));
  }
  if (out < size_t(sig.min_output) || out > size_t(sig.max_output)) {
    node_error(n, "has " + count_text(out, "output") + "; " + sig.display_name() + " produces " +
                      range_text(sig.min_output, sig.max_output));
  }
  for (const ir::Attr& a : n.attrs()) {
    if (a.is_reference()) continue;
    const schema::AttrParam* p = sig.find_attr(a.name);
    if (!p || p->type == ir::AttrType::Undefined || a.type == p->type) continue;
    node_error(n, "attribute '" + a.name + "' is of type " + ir::attr_type_name(a.type) + "; " +
                      sig.display_name() + " takes " + ir::attr_type_name(p->type));
  }
}

std::optional<int64_t> opset_for(const ir::Node& n, const std::vector<ir::OpsetImport>* local,
                                 const ir::Model& model) {
  if (local) {
    if (auto v = ir::find_opset(*local, n.domain())) return v;
  }
  return ir::find_opset(model.opset_imports, n.domain());
}

struct Walker {
  const ir::Model& model;
  const FunctionMap& functions;
  // Calls from each function (by index in model.functions) to others.
  std::unordered_map<const ir::Function*, std::vector<const ir::Function*>> calls;

  // Checks every node of `root` and its subgraphs; records calls made from
  // `caller` (null for the main graph).
  void walk(const ir::Graph& root, const std::vector<ir::OpsetImport>* local,
            const ir::Function* caller) {
    std::vector<const ir::Graph*> todo{&root};
    while (!todo.empty()) {
      const ir::Graph* g = todo.back();
      todo.pop_back();
      for (const ir::Node* n : g->nodes()) {
        check_node(*n, local, caller);
        for (const ir::Graph* sub : n->subgraphs()) todo.push_back(sub);
      }
    }
  }

  void check_node(const ir::Node& n, const std::vector<ir::OpsetImport>* local,
                  const ir::Function* caller) {
    auto fit = functions.find(function_key(n.domain(), n.op_type()));
    if (fit != functions.end()) {
      const ir::Graph& body = *fit->second->body;
      if (n.num_inputs() > body.inputs().size() || n.num_outputs() > body.outputs().size()) {
        node_error(n, "calls function '" + fit->second->name + "' with " +
                          count_text(n.num_inputs(), "input") + " and " +
                          count_text(n.num_outputs(), "output") + "; it takes " +
                          count_text(body.inputs().size(), "input") + " and returns " +
                          count_text(body.outputs().size(), "output"));
      }
      if (caller) calls[caller].push_back(fit->second);
      return;
    }
    auto opset = opset_for(n, local, model);
    if (!opset) return;  // reported when the node runs
    const schema::OpSignature* sig = schema::lookup(n.domain(), n.op_type(), *opset);
    if (!sig) return;
    check_counts(n, *sig);
    if (!schema::canonical_domain(n.domain()).empty()) return;
    if (n.op_type() == "If") check_if(n);
    if (n.op_type() == "Loop") check_loop(n);
    if (n.op_type() == "Scan") check_scan(n, *opset);
  }

  // A cycle among model-local functions, found by an iterative depth-first
  // search; throws naming the functions on it.
  void check_cycles() {
    enum Color : uint8_t { White, Grey, Black };
    std::unordered_map<const ir::Function*, Color> color;
    for (const auto& start : model.functions) {
      if (color[start.get()] != White) continue;
      // (function, index of the next callee to visit)
      std::vector<std::pair<const ir::Function*, size_t>> stack{{start.get(), 0}};
      color[start.get()] = Grey;
      while (!stack.empty()) {
        auto& [f, next] = stack.back();
        const auto& callees = calls[f];
        if (next == callees.size()) {
          color[f] = Black;
          stack.pop_back();
          continue;
        }
        const ir::Function* callee = callees[next++];
        Color c = color[callee];
        if (c == Grey) {
          std::string path;
          bool on = false;
          for (const auto& [g, i] : stack) {
            if (g == callee) on = true;
            if (on) path += "'" + g->name + "' -> ";
          }
          path += "'" + callee->name + "'";
          throw Error(ErrorKind::Invalid,
                      "model-local function '" + callee->name + "' calls itself (cycle: " + path +
                          "); ONNX functions cannot be recursive, so this model cannot run");
        }
        if (c == White) {
          color[callee] = Grey;
          stack.emplace_back(callee, 0);
        }
      }
    }
  }
};

// Whether `constraint` (a type variable of `sig` or a concrete type)
// allows a tensor of `dt`; `*allowed` lists the tensor element types it
// allows (empty when it allows no tensors).
bool type_allows(const schema::OpSignature& sig, const std::string& constraint, DataType dt,
                 std::string* allowed) {
  allowed->clear();
  bool ok = false;
  if (const schema::TypeConstraint* tc = sig.find_type_constraint(constraint)) {
    for (const ir::Type& t : tc->allowed_types) {
      if (!t.is_tensor()) continue;
      *allowed += (allowed->empty() ? "" : ", ") + std::string(ir::dtype_name(t.elem_type()));
      ok = ok || t.elem_type() == dt;
    }
    return ok;
  }
  // A concrete type such as "tensor(int64)".
  const std::string prefix = "tensor(";
  if (constraint.compare(0, prefix.size(), prefix) != 0 || constraint.back() != ')') return true;
  auto want = ir::parse_dtype(constraint.substr(prefix.size(), constraint.size() - 8));
  if (!want) return true;
  *allowed = std::string(ir::dtype_name(*want));
  return *want == dt;
}

}  // namespace

void check_model_for_eval(const ir::Model& model) {
  FunctionMap functions;
  for (const auto& f : model.functions) functions[function_key(f->domain, f->name)] = f.get();
  Walker w{model, functions, {}};
  if (model.graph) w.walk(*model.graph, nullptr, nullptr);
  for (const auto& f : model.functions) w.walk(*f->body, &f->opset_imports, f.get());
  w.check_cycles();
}

void check_input_types(const ir::Node& node, const schema::OpSignature& sig,
                       std::span<const Value* const> inputs) {
  if (sig.inputs.empty()) return;
  std::unordered_map<std::string, std::pair<DataType, size_t>> bound;  // type var -> first use
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* v = inputs[i];
    if (!v || !v->is_tensor()) continue;
    size_t formal = std::min(i, sig.inputs.size() - 1);
    if (i >= sig.inputs.size() && sig.inputs.back().option != schema::ParamOption::Variadic) {
      break;
    }
    const schema::FormalParam& p = sig.inputs[formal];
    DataType dt = v->tensor().dtype();
    std::string allowed;
    if (!type_allows(sig, p.type_constraint, dt, &allowed) && !allowed.empty()) {
      node_error(node, "input " + std::to_string(i) + " ('" + p.name + "') must be a tensor of " +
                           allowed + " (" + sig.display_name() + "), got " +
                           std::string(ir::dtype_name(dt)));
    }
    if (!sig.find_type_constraint(p.type_constraint)) continue;
    if (p.option == schema::ParamOption::Variadic && !p.is_homogeneous) continue;
    auto [it, fresh] = bound.emplace(p.type_constraint, std::make_pair(dt, i));
    if (!fresh && it->second.first != dt) {
      node_error(node, "inputs " + std::to_string(it->second.second) + " and " + std::to_string(i) +
                           " must have the same element type (" + p.type_constraint +
                           "), but are " + std::string(ir::dtype_name(it->second.first)) + " and " +
                           std::string(ir::dtype_name(dt)));
    }
  }
}

}  // namespace oxs::eval
