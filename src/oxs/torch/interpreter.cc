#include "oxs/torch/interpreter.h"

#include <chrono>
#include <iterator>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "oxs/builder/builder.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
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
    // Between opsets 18 and 23 most versions only add element types (float8,
    // int4, float4) or optional attributes with the old default: the body
    // means the same. These changed what existing inputs compute.
    static const std::unordered_set<std::string> kChanged = {"GroupNormalization", "GridSample",
                                                             "DFT", "Col2Im", "LpPool"};
    if (a && b && *fv >= 18 && model_opset >= 18 && model_opset <= 23 &&
        !kChanged.count(n->op_type())) {
      continue;
    }
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

// Imports no node uses any more (ai.onnx.ml after a folded string
// comparison; the library's own domain once every call is inlined) are
// dropped; ai.onnx stays.
void drop_unused_imports(ir::Model& m) {
  std::unordered_set<std::string> used = {""};
  auto note = [&](ir::Node* n) { used.insert(n->domain() == "ai.onnx" ? "" : n->domain()); };
  m.graph->for_each_node_recursive(note);
  for (const auto& f : m.functions) {
    used.insert(f->domain);
    f->body->for_each_node_recursive(note);
  }
  std::erase_if(m.opset_imports, [&](const ir::OpsetImport& o) {
    return !used.count(o.domain == "ai.onnx" ? "" : o.domain);
  });
}

class Interpreter {
 public:
  Interpreter(const ExportGraph& g, const ExportOptions& o)
      : g_(g),
        o_(o),
        main_(builder::BuilderOptions{.opset = o.opset, .graph_name = "main_graph"}),
        symbols_(g.symbols) {
    b_->use_opset("", o.opset);
    values_.resize(static_cast<size_t>(g.num_values()));
  }

  ir::Model run(const Dispatch& d, ExportTimings& t) {
    auto t0 = std::chrono::steady_clock::now();
    for (const GraphInput& in : g_.inputs) {
      values_[in.id] = b_->input(in.name, ir::Type::tensor(in.dtype, ir::Shape(in.dims)));
    }
    for (const Param& p : g_.params) {
      ir::Tensor t = *p.tensor;
      values_[p.id] = b_->constant(std::move(t), p.name);
    }
    d_ = &d;
    find_last_uses();
    build_range(0, g_.nodes.size(), 0);
    for (const auto& [id, name] : g_.outputs) b_->output(values_[id], name);
    t.build_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    // Module functions stay local functions; the library's functions are
    // inlined everywhere, their bodies included.
    builder::FinishOptions fo{.inline_functions = !o_.keep_functions};
    if (!module_count_.empty()) {
      fo.keep_function = [](const ir::Function& f) { return f.domain == kModuleDomain; };
    }
    ir::Model m = b_->finish(fo);
    drop_noop_castlikes(*m.graph);
    // Inlined bodies leave constant arithmetic on attributes (CastLike of a
    // Constant): fold it so the graph is as small as a hand-written one.
    std::vector<std::unique_ptr<rewrite::Pass>> passes;
    passes.push_back(rewrite::make_noop_pass({}));
    passes.push_back(rewrite::make_fold_pass({}));
    passes.push_back(rewrite::make_dead_code_pass({}));
    rewrite::run_pipeline(m, passes);
    // Constants the fold pass turned into typed initializers may leave more.
    drop_noop_castlikes(*m.graph);
    drop_unused_imports(m);
    t.cleanup_s = seconds_since(t0);
    return m;
  }

 private:
  // Calls `f` for each value id node n reads.
  template <class F>
  static void for_each_read(const FxNode& n, F&& f) {
    for (const Arg& a : n.args) {
      if (a.kind == Arg::Kind::Tensor && a.i >= 0) f(a.i);
      if (a.kind == Arg::Kind::TensorList) {
        for (int64_t id : a.ints) {
          if (id >= 0) f(id);
        }
      }
    }
  }

  void find_last_uses() {
    last_use_.assign(values_.size(), 0);
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      for_each_read(g_.nodes[i], [&](int64_t id) { last_use_[id] = i; });
    }
    for (const auto& [id, name] : g_.outputs) last_use_[id] = g_.nodes.size();
    for (const Param& p : g_.params) param_names_.emplace(p.id, p.name);
  }

  // Builds nodes [begin, end); a run of nodes inside the same chosen module
  // call at this nesting depth becomes one call of a module function.
  void build_range(size_t begin, size_t end, size_t depth) {
    for (size_t i = begin; i < end;) {
      const FxNode& n = g_.nodes[i];
      if (n.scopes.size() <= depth) {
        build_node(n, *d_->decisions[i].winner);
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < end && g_.nodes[j].scopes.size() > depth &&
             g_.nodes[j].scopes[depth] == n.scopes[depth]) {
        ++j;
      }
      build_module_call(i, j, depth);
      i = j;
    }
  }

  // Nodes [begin, end) of one call of a chosen module (scope "path (Class)")
  // as a model-local function of kModuleDomain: the values they read from
  // outside (weights included) are its inputs, those read after it its
  // outputs. Calls whose bodies are the same (structure, types, attributes)
  // share one function.
  void build_module_call(size_t begin, size_t end, size_t depth) {
    const std::string& scope = g_.nodes[begin].scopes[depth];
    size_t open = scope.rfind(" (");
    std::string path = scope.substr(0, open);
    std::string cls = open == std::string::npos ? scope : scope.substr(open + 2);
    if (!cls.empty() && cls.back() == ')') cls.pop_back();
    std::vector<int64_t> ins, outs;
    std::unordered_map<int64_t, bool> inside;  // id -> produced inside
    for (size_t i = begin; i < end; ++i) {
      for_each_read(g_.nodes[i], [&](int64_t id) {
        if (inside.emplace(id, false).second) ins.push_back(id);
      });
      for (const OutMeta& m : g_.nodes[i].outputs) {
        if (m.id < 0) continue;
        inside[m.id] = true;
        if (last_use_[m.id] >= end) outs.push_back(m.id);
      }
    }
    int& count = module_count_[cls];
    std::string name = count == 0 ? cls : cls + "_" + std::to_string(count);
    builder::Builder body = b_->function(std::string(kModuleDomain), name);
    std::vector<Var> outer;
    for (size_t k = 0; k < ins.size(); ++k) {
      Var v = values_[ins[k]];
      if (!v) {
        throw Error(ErrorKind::Internal, "export: module " + scope + " reads value " +
                                             std::to_string(ins[k]) + " before it is built");
      }
      outer.push_back(v);
      auto pn = param_names_.find(ins[k]);
      std::string in_name = pn != param_names_.end() && pn->second.rfind(path + ".", 0) == 0
                                ? pn->second.substr(path.size() + 1)
                                : "x" + std::to_string(k);
      values_[ins[k]] = body.input(in_name, v.type());
    }
    builder::Builder* parent = b_;
    std::vector<ir::Type> types;
    try {
      b_ = &body;
      build_range(begin, end, depth + 1);
      for (size_t k = 0; k < outs.size(); ++k) {
        types.push_back(values_[outs[k]].type());
        body.output(values_[outs[k]], "y" + std::to_string(k));
      }
    } catch (...) {
      b_ = parent;
      throw;
    }
    b_ = parent;
    for (size_t k = 0; k < ins.size(); ++k) values_[ins[k]] = outer[k];
    std::string key = body_key(body.graph(), cls);
    auto [it, fresh] = module_functions_.emplace(key, nullptr);
    if (fresh) {
      it->second = &b_->add_function(std::move(body));
      ++count;
    }
    std::vector<Var> results =
        b_->call(*it->second, std::move(outer), {}, {.name = path.empty() ? cls : path});
    for (size_t k = 0; k < outs.size(); ++k) {
      if (!results[k].type().is_tensor() ||
          results[k].type().elem_type() == ir::DataType::Undefined) {
        results[k].value()->set_type(types[k]);
      }
      values_[outs[k]] = results[k];
    }
  }

  // What makes two module bodies the same function: ops, domains,
  // attributes, wiring and input types, names aside. Bodies with subgraphs
  // are never shared (their text would carry names).
  std::string body_key(const ir::Graph& g, const std::string& cls) {
    std::unordered_map<const ir::Value*, size_t> index;
    std::string key = cls + "(";
    for (const ir::Value* v : g.inputs()) {
      index.emplace(v, index.size());
      key += v->type().to_string() + ",";
    }
    key += ")";
    ir::PrintOptions po{.max_elements = size_t(1) << 20};
    for (const ir::Node* n : g.nodes()) {
      if (!n->subgraphs().empty()) key += "#" + std::to_string(module_functions_.size());
      key += ";" + n->domain() + "." + n->op_type() + "(";
      for (const ir::Value* v : n->inputs()) {
        auto it = v ? index.find(v) : index.end();
        key += it == index.end() ? std::string("_") : std::to_string(it->second);
        key += ",";
      }
      key += "){";
      for (const ir::Attr& a : n->attrs()) key += a.name + "=" + ir::attr_value_text(a, po) + ",";
      key += "}";
      for (const ir::Value* v : n->outputs()) {
        if (v) index.emplace(v, index.size());
      }
    }
    key += "->";
    for (const ir::Value* v : g.outputs()) key += std::to_string(index.at(v)) + ",";
    return key;
  }

  [[noreturn]] void fail(const FxNode& n, const Candidate& c, const std::string& why) {
    throw Error(ErrorKind::Unsupported, "export: node '" + n.name + "' (" + n.target + ") in " +
                                            (n.module.empty() ? std::string("<root>") : n.module) +
                                            (n.source.empty() ? std::string() : " at " + n.source) +
                                            ", function '" + c.name + "': " + why);
  }

  void build_node(const FxNode& n, const Candidate& c) {
    std::vector<Var> outs;
    try {
      if (c.kind == Candidate::Kind::Native) {
        Context cx(*b_, o_.opset, n, values_, symbols_, &g_.exprs, &sym_cache_);
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
    if (t.is_tensor() && t.elem_type() != ir::DataType::Undefined && t.elem_type() != m.dtype) {
      fail(n, c,
           "output is " + std::string(ir::dtype_name(t.elem_type())) + ", torch says " +
               describe(m));
    }
    if (t.is_tensor() && t.shape()) {
      const ir::Shape& s = *t.shape();
      bool same = s.rank() == m.dims.size();
      for (size_t i = 0; same && i < s.rank(); ++i) {
        same = !s[i].is_known() || (!m.dim_varies(i) && s[i].value() == m.dims[i]);
      }
      if (!same) {
        std::string torch_says = describe(m);
        for (size_t i = 0; i < s.rank() && i < m.dims.size(); ++i) {
          if (s[i].is_known() && m.dim_varies(i)) {
            torch_says = "dim " + std::to_string(i) + " varies with the dynamic dims (" +
                         g_.exprs[m.syms[i]].text + ")";
          }
        }
        fail(n, c, "output has shape " + s.to_string() + ", torch says " + torch_says);
      }
    }
    // What torch traced is the truth for every dim inference left open or
    // named otherwise: a static size, or the expression of the dynamic dims.
    std::vector<ir::Dim> dims;
    if (t.is_tensor() && t.shape() && t.shape()->rank() == m.dims.size()) dims = t.shape()->dims();
    bool changed = dims.empty();
    if (dims.empty()) dims.resize(m.dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i].is_known()) continue;
      ir::Dim want =
          m.dim_varies(i) ? ir::Dim::symbolic(g_.exprs[m.syms[i]].text) : ir::Dim::known(m.dims[i]);
      if (dims[i].is_symbolic() && want.is_symbolic() && dims[i].symbol() == want.symbol()) {
        continue;
      }
      dims[i] = want;
      changed = true;
    }
    if (changed || !t.is_tensor() || t.elem_type() == ir::DataType::Undefined) {
      v.value()->set_type(ir::Type::tensor(m.dtype, ir::Shape(std::move(dims))));
    }
  }

  // The library function `name` of c's library, added to the model with
  // the functions it calls (only those: the library holds hundreds).
  const ir::Function& ensure_function(const Candidate& c, const std::string& name) {
    auto key = std::make_pair(c.library.get(), name);
    if (auto it = functions_.find(key); it != functions_.end()) return *it->second;
    auto& index = index_[c.library.get()];
    if (index.empty()) {
      for (const auto& f : c.library->functions) index.emplace(f->name, f.get());
    }
    auto found = index.find(name);
    if (found == index.end()) {
      throw Error(ErrorKind::Internal, "export: the library of '" + c.name + "' has no function '" +
                                           name + "': rebuild the target oxs_torch_aten_library");
    }
    std::vector<const ir::Function*> work{found->second};
    std::vector<const ir::Graph*> graphs;
    while (!work.empty()) {
      const ir::Function* f = work.back();
      work.pop_back();
      if (b_->model().functions.find(f->domain, f->name, f->overload)) continue;
      check_opset_compatible(*f, o_.opset);
      b_->model().functions.push_back(clone_function(*f));
      if (b_->opset(f->domain) == 0) b_->use_opset(f->domain, 1);
      graphs.assign(1, f->body.get());
      while (!graphs.empty()) {
        const ir::Graph* g = graphs.back();
        graphs.pop_back();
        for (const ir::Node* n : g->nodes()) {
          for (ir::Graph* sub : n->subgraphs()) graphs.push_back(sub);
          if (n->domain().empty()) continue;
          auto callee = index.find(n->op_type());
          if (callee != index.end() && callee->second->domain == n->domain()) {
            work.push_back(callee->second);
          }
        }
      }
    }
    const ir::Function* entry =
        b_->model().functions.find(found->second->domain, name, found->second->overload);
    functions_[key] = entry;
    return *entry;
  }

  // The element type each typevar's inputs are given: an output's (torch's
  // result type) where one shares it, else the widest of the inputs' types
  // (the dispatcher's type promotion; each function computes in its inputs'
  // element type).
  std::map<std::string, ir::DataType> promoted_types(const FxNode& n, const Candidate& c,
                                                     const Context& cx) {
    std::map<std::string, ir::DataType> types;
    for (size_t i = 0; i < c.output_typevars.size() && i < n.outputs.size(); ++i) {
      const std::string& tv = c.output_typevars[i];
      if (!tv.empty() && n.outputs[i].dtype != ir::DataType::Undefined) {
        types.emplace(tv, n.outputs[i].dtype);
      }
    }
    std::map<std::string, ir::DataType> widest;
    for (const ParamSpec& p : c.params) {
      const Arg* a = n.find(p.name);
      if (!p.is_input || p.typevar.empty() || types.count(p.typevar) || !a) continue;
      std::vector<Var> vs;
      if (a->kind == Arg::Kind::Tensor) vs.push_back(cx.tensor(p.name));
      if (a->kind == Arg::Kind::TensorList) vs = cx.tensors(p.name);
      for (const Var& v : vs) {
        ir::DataType t = v ? v.type().elem_type() : ir::DataType::Undefined;
        auto [it, fresh] = widest.emplace(p.typevar, t);
        if (!fresh && promotion_rank(t) > promotion_rank(it->second)) it->second = t;
      }
    }
    for (const auto& [tv, t] : widest) types.emplace(tv, t);
    return types;
  }

  // torch's promotion order: bool, then integers, then floats, by width.
  static int promotion_rank(ir::DataType t) {
    using D = ir::DataType;
    static constexpr D kOrder[] = {D::Bool,  D::Uint8,   D::Int8,     D::Int16, D::Int32,
                                   D::Int64, D::Float16, D::BFloat16, D::Float, D::Double};
    for (size_t i = 0; i < std::size(kOrder); ++i) {
      if (kOrder[i] == t) return static_cast<int>(i) + 1;
    }
    return 0;
  }

  Var cast_to(Var v, ir::DataType t) {
    if (t == ir::DataType::Undefined || v.type().elem_type() == t) return v;
    return b_->op("Cast", {v}, attr_list(ir::Attr::of_int("to", static_cast<int64_t>(t))));
  }

  std::vector<Var> call_script(const FxNode& n, const Candidate& c) {
    Context cx(*b_, o_.opset, n, values_, symbols_, &g_.exprs, &sym_cache_);
    // Optional inputs the node leaves out or gives as None: the library's
    // variant compiled without them (_registry.py).
    std::string function = c.function;
    if (c.has_variants) {
      std::string omitted;
      for (const ParamSpec& p : c.params) {
        if (p.is_input && p.optional && !cx.has(p.name)) omitted += "_" + p.name;
      }
      if (!omitted.empty()) function += "__without" + omitted;
    }
    const ir::Function& f = ensure_function(c, function);
    std::map<std::string, ir::DataType> types = promoted_types(n, c, cx);
    auto type_of = [&](const ParamSpec& p) {
      auto it = types.find(p.typevar);
      return it == types.end() ? ir::DataType::Undefined : it->second;
    };
    const Arg* dtype = n.find("dtype");
    bool cast_input = c.dtype_role == "cast_input" && dtype && dtype->kind == Arg::Kind::DType;
    bool first_input = true;
    std::vector<Var> inputs;
    std::vector<ir::Attr> attrs;
    for (const ParamSpec& p : c.params) {
      const Arg* a = n.find(p.name);
      if (!p.is_input) {
        if (a && a->kind != Arg::Kind::None) {
          attrs.push_back(attribute(n, c, p, *a));
        } else if (p.name == "dtype" && c.dtype_role == "result" && !n.outputs.empty()) {
          // None: the node's result type.
          attrs.push_back(ir::Attr::of_int("dtype", static_cast<int64_t>(n.outputs[0].dtype)));
        } else if (p.default_value) {
          attrs.push_back(attribute(n, c, p, *p.default_value));
        }
        continue;
      }
      bool first = std::exchange(first_input, false);
      if (!cx.has(p.name)) {
        if (!c.has_variants) inputs.emplace_back();  // an omitted optional input
        continue;
      }
      ir::DataType want = type_of(p);
      if (cast_input && first) want = static_cast<ir::DataType>(dtype->i);
      if (p.sequence) {
        std::vector<Var> items;
        for (Var v : cx.tensors(p.name)) items.push_back(cast_to(v, want));
        inputs.push_back(b_->op("SequenceConstruct", items));
        continue;
      }
      if (a->kind == Arg::Kind::Int && a->symbolic()) {
        // A size that varies with the dynamic dims, used as a number.
        ir::DataType t = want != ir::DataType::Undefined ? want : ir::DataType::Int64;
        Var v = cx.tensor(p.name);
        inputs.push_back(cast_to(v, t));
        continue;
      }
      if (a->kind == Arg::Kind::Int || a->kind == Arg::Kind::Bool || a->kind == Arg::Kind::Float) {
        // A Python number where the schema has a tensor: a constant of the
        // type it is used with.
        ir::DataType t = want != ir::DataType::Undefined ? want
                         : n.outputs.empty()             ? ir::DataType::Float
                                                         : n.outputs[0].dtype;
        inputs.push_back(
            cx.scalar(t, a->kind == Arg::Kind::Float ? a->f : static_cast<double>(a->i)));
        continue;
      }
      inputs.push_back(cast_to(cx.tensor(p.name), want));
    }
    return b_->call(f, std::move(inputs), std::move(attrs), {.name = n.name});
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
  builder::Builder main_;
  builder::Builder* b_ = &main_;  // the graph or function body being built
  const Dispatch* d_ = nullptr;
  // Per value id, the index of the last node reading it (nodes.size() for
  // graph outputs): what a module call must return.
  std::vector<size_t> last_use_;
  std::unordered_map<int64_t, std::string> param_names_;  // by value id
  // Module functions by body key, and how many each class has.
  std::unordered_map<std::string, const ir::Function*> module_functions_;
  std::map<std::string, int> module_count_;
  std::vector<Var> values_;
  // The dynamic dims: dynamic_shapes' and those named after views (Context).
  std::map<std::string, int64_t> symbols_;
  // The values of size expressions, per builder (graph or function body).
  std::map<std::pair<const builder::Builder*, int64_t>, Var> sym_cache_;
  std::map<std::pair<const ir::Model*, std::string>, const ir::Function*> functions_;
  // Each library model's functions by name (built on first use).
  std::map<const ir::Model*, std::unordered_map<std::string, const ir::Function*>> index_;
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
