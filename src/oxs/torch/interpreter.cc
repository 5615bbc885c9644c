#include "oxs/torch/interpreter.h"

#include <chrono>
#include <map>
#include <utility>

#include "oxs/builder/builder.h"
#include "oxs/ir/error.h"
#include "oxs/rewrite/passes/manager.h"
#include "oxs/rewrite/passes/standard.h"
#include "oxs/schema/registry.h"
#include "oxs/torch/context.h"

namespace oxs::torch {

namespace {

using builder::Var;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::unique_ptr<ir::Function> clone_function(const ir::Function& f) {
  auto c = std::make_unique<ir::Function>(f.domain, f.name);
  c->overload = f.overload;
  c->doc_string = f.doc_string;
  c->attributes = f.attributes;
  for (const ir::Attr& a : f.attribute_defaults) c->attribute_defaults.push_back(a.clone());
  c->opset_imports = f.opset_imports;
  c->body = f.body->clone();
  return c;
}

// A function written for another ai.onnx opset than the model's may be
// inlined only if every op it uses means the same at both.
void check_opset_compatible(const ir::Function& f, int64_t model_opset) {
  auto fv = ir::find_opset(f.opset_imports, "");
  if (!fv || *fv == model_opset) return;
  for (const ir::Node* n : f.body->nodes()) {
    if (!n->domain().empty()) continue;
    const schema::OpSignature* a = schema::lookup("", n->op_type(), *fv);
    const schema::OpSignature* b = schema::lookup("", n->op_type(), model_opset);
    if (a && b && a->since_version == b->since_version) continue;
    throw Error(ErrorKind::Unsupported,
                "export: the library function '" + f.name + "' is written for opset " +
                    std::to_string(*fv) + " and uses " + n->op_type() +
                    (a ? "-" + std::to_string(a->since_version) : std::string()) +
                    ", which opset " + std::to_string(model_opset) +
                    (b ? " defines differently (" + b->display_name() + ")" : " lacks") +
                    ": export at opset " + std::to_string(*fv) + " or register a function for it");
  }
}

// CastLike(c, x) where c already has x's element type: what inlined bodies
// leave for every attribute used as a tensor (op.CastLike(alpha, x)).
void drop_noop_castlikes(ir::Graph& g) {
  for (ir::Node* n : g.nodes()) {
    if (n->op_type() != "CastLike" || !n->domain().empty() || n->num_inputs() != 2) continue;
    ir::Value* a = n->input(0);
    ir::Value* like = n->input(1);
    ir::Value* out = n->output(0);
    if (!a || !like || !out || out->is_graph_output()) continue;
    ir::DataType t = a->type().elem_type();
    if (!a->type().is_tensor() || t == ir::DataType::Undefined || t != like->type().elem_type()) {
      continue;
    }
    out->replace_all_uses_with(a);
    g.remove(n);
  }
}

class Interpreter {
 public:
  Interpreter(const ExportGraph& g, const ExportOptions& o)
      : g_(g),
        o_(o),
        b_(builder::BuilderOptions{.opset = o.opset, .graph_name = "main_graph"}),
        symbols_(g.symbols) {
    b_.use_opset("", o.opset);
    values_.resize(static_cast<size_t>(g.num_values()));
  }

  ir::Model run(const Dispatch& d, ExportTimings& t) {
    auto t0 = std::chrono::steady_clock::now();
    for (const GraphInput& in : g_.inputs) {
      values_[in.id] = b_.input(in.name, ir::Type::tensor(in.dtype, ir::Shape(in.dims)));
    }
    for (const Param& p : g_.params) {
      ir::Tensor t = *p.tensor;
      values_[p.id] = b_.constant(std::move(t), p.name);
    }
    for (size_t i = 0; i < g_.nodes.size(); ++i) build_node(g_.nodes[i], *d.decisions[i].winner);
    for (const auto& [id, name] : g_.outputs) b_.output(values_[id], name);
    t.build_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    ir::Model m = b_.finish({.inline_functions = !o_.keep_functions});
    drop_noop_castlikes(*m.graph);
    // Inlined bodies leave constant arithmetic on attributes (CastLike of a
    // Constant): fold it so the graph is as small as a hand-written one.
    std::vector<std::unique_ptr<rewrite::Pass>> passes;
    passes.push_back(rewrite::make_noop_pass({}));
    passes.push_back(rewrite::make_fold_pass({}));
    passes.push_back(rewrite::make_dead_code_pass({}));
    rewrite::run_pipeline(m, passes);
    t.cleanup_s = seconds_since(t0);
    return m;
  }

 private:
  [[noreturn]] void fail(const FxNode& n, const Candidate& c, const std::string& why) {
    throw Error(ErrorKind::Unsupported, "export: node '" + n.name + "' (" + n.target + ") in " +
                                            (n.module.empty() ? std::string("<root>") : n.module) +
                                            ", function '" + c.name + "': " + why);
  }

  void build_node(const FxNode& n, const Candidate& c) {
    std::vector<Var> outs;
    try {
      if (c.kind == Candidate::Kind::Native) {
        Context cx(b_, o_.opset, n, values_, symbols_);
        outs = c.native(cx);
      } else {
        outs = call_script(n, c);
      }
    } catch (const Error& e) {
      if (std::string(e.what()).rfind("export:", 0) == 0) throw;
      fail(n, c, e.what());
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      const OutMeta& m = n.outputs[i];
      if (m.id < 0) continue;
      if (i >= outs.size() || !outs[i]) fail(n, c, "gives no output " + std::to_string(i));
      settle(n, c, outs[i], m);
      values_[m.id] = outs[i];
    }
  }

  // Checks what the builder inferred against the trace and fills what it
  // could not infer.
  void settle(const FxNode& n, const Candidate& c, Var v, const OutMeta& m) {
    const ir::Type& t = v.type();
    bool dynamic = !symbols_.empty();
    if (t.is_tensor() && t.elem_type() != ir::DataType::Undefined && t.elem_type() != m.dtype) {
      fail(n, c,
           "output is " + std::string(ir::dtype_name(t.elem_type())) + ", torch says " +
               describe(m));
    }
    if (t.is_tensor() && t.shape() && !dynamic) {
      const ir::Shape& s = *t.shape();
      bool same = s.rank() == m.dims.size();
      for (size_t i = 0; same && i < s.rank(); ++i) {
        same = !s[i].is_known() || s[i].value() == m.dims[i];
      }
      if (!same) fail(n, c, "output has shape " + s.to_string() + ", torch says " + describe(m));
    }
    if (t.is_tensor() && t.shape() && dynamic) {
      // A dim torch saw change with the dynamic dims must not be static here.
      const ir::Shape& s = *t.shape();
      for (size_t i = 0; i < s.rank() && i < m.dims.size(); ++i) {
        if (s[i].is_known() && m.dim_varies(i)) {
          fail(n, c,
               "output dim " + std::to_string(i) + " is static (" + s.to_string() +
                   ") but changes with the dynamic dims in torch");
        }
      }
    }
    // Fill what inference left open from the trace: a static dim's size; a
    // dim that varies gets a symbol of its own (<node>_d<i>).
    std::vector<ir::Dim> dims;
    if (t.is_tensor() && t.shape() && t.shape()->rank() == m.dims.size()) dims = t.shape()->dims();
    bool changed = dims.empty();
    if (dims.empty()) dims.resize(m.dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
      if (!dims[i].is_unknown()) continue;
      changed = true;
      if (!m.dim_varies(i)) {
        dims[i] = ir::Dim::known(m.dims[i]);
        continue;
      }
      std::string name = n.name + "_d" + std::to_string(i);
      symbols_[name] = m.dims[i];
      dims[i] = ir::Dim::symbolic(name);
    }
    if (changed || !t.is_tensor() || t.elem_type() == ir::DataType::Undefined) {
      v.value()->set_type(ir::Type::tensor(m.dtype, ir::Shape(std::move(dims))));
    }
  }

  const ir::Function& ensure_function(const Candidate& c) {
    auto key = std::make_pair(c.library.get(), c.function);
    if (auto it = functions_.find(key); it != functions_.end()) return *it->second;
    const ir::Function* entry = nullptr;
    for (const auto& f : c.library->functions) {
      ir::Function* have = b_.model().functions.find(f->domain, f->name, f->overload);
      if (!have) {
        check_opset_compatible(*f, o_.opset);
        have = &b_.model().functions.push_back(clone_function(*f));
        if (b_.opset(f->domain) == 0) b_.use_opset(f->domain, 1);
      }
      if (f->name == c.function) entry = have;
    }
    if (!entry) {
      throw Error(ErrorKind::Internal,
                  "export: the library of '" + c.name + "' has no function '" + c.function + "'");
    }
    functions_[key] = entry;
    return *entry;
  }

  std::vector<Var> call_script(const FxNode& n, const Candidate& c) {
    const ir::Function& f = ensure_function(c);
    Context cx(b_, o_.opset, n, values_, symbols_);
    std::vector<Var> inputs;
    std::vector<ir::Attr> attrs;
    for (const ParamSpec& p : c.params) {
      const Arg* a = n.find(p.name);
      if (p.is_input) {
        inputs.push_back(a ? cx.optional_tensor(p.name) : Var());
        continue;
      }
      if (!a || a->kind == Arg::Kind::None) continue;  // the function's default
      attrs.push_back(attribute(n, c, p, *a));
    }
    return b_.call(f, std::move(inputs), std::move(attrs), {.name = n.name});
  }

  ir::Attr attribute(const FxNode& n, const Candidate& c, const ParamSpec& p, const Arg& a) {
    const std::string& k = p.attr_kind;
    switch (a.kind) {
      case Arg::Kind::Int:
      case Arg::Kind::Bool:
      case Arg::Kind::DType:
        if (k == "float") return ir::Attr::of_float(p.name, static_cast<float>(a.i));
        if (k == "ints") return ir::Attr::of_ints(p.name, {a.i});
        return ir::Attr::of_int(p.name, a.i);
      case Arg::Kind::Float:
        return ir::Attr::of_float(p.name, static_cast<float>(a.f));
      case Arg::Kind::Ints:
        if (k == "floats") return ir::Attr::of_floats(p.name, {a.ints.begin(), a.ints.end()});
        return ir::Attr::of_ints(p.name, a.ints);
      case Arg::Kind::Floats:
        return ir::Attr::of_floats(p.name, {a.floats.begin(), a.floats.end()});
      case Arg::Kind::String:
        return ir::Attr::of_string(p.name, a.s);
      default:
        fail(n, c, "argument '" + p.name + "' cannot be an attribute");
    }
  }

  const ExportGraph& g_;
  const ExportOptions& o_;
  builder::Builder b_;
  std::vector<Var> values_;
  // The dynamic dims: dynamic_shapes' and those named after views (Context).
  std::map<std::string, int64_t> symbols_;
  std::map<std::pair<const ir::Model*, std::string>, const ir::Function*> functions_;
};

}  // namespace

ExportResult export_graph(const ExportGraph& g, const Library& lib, const ExportOptions& options) {
  ExportResult r;
  auto t0 = std::chrono::steady_clock::now();
  r.dispatch = dispatch(g, lib);
  r.timings.dispatch_s = seconds_since(t0);
  if (!r.dispatch.missing.empty()) {
    std::string msg = "export: " + std::to_string(r.dispatch.missing.size()) +
                      " node(s) have no ATen function that takes them:";
    for (const std::string& m : r.dispatch.missing) msg += "\n  " + m;
    msg +=
        "\nadd functions to the ATen library (src/oxs/torch/aten/) or register your own with "
        "oxs.torch.register(\"<overload>\", fn)";
    throw Error(ErrorKind::Unsupported, msg);
  }
  Interpreter in(g, options);
  r.model = in.run(r.dispatch, r.timings);
  return r;
}

}  // namespace oxs::torch
