// Inlining calls of model-local functions: the body's nodes are copied before
// the call with fresh names ("<call>/<name>"), attribute references resolved
// from the call's attributes (a missing one means the op's default), and the
// call's outputs replaced. Nested calls are inlined as they appear. Graph
// outputs keep their names. Linear in the size of the inlined result.
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "oxs/builder/builder.h"
#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"

namespace oxs::builder {

namespace {

constexpr int kMaxDepth = 64;

using ValueMap = std::unordered_map<const ir::Value*, ir::Value*>;

// What the inlined value `v` is known to be: its own type merged with that
// of the call output `out` it replaces (each may know more). A contradiction
// (a call typed against another body) keeps the call's type, which is what
// the rest of the graph was built against.
ir::Type call_site_type(const ir::Value& v, const ir::Value& out) {
  try {
    return infer::merge_types(out.type(), v.type(), "output '" + out.name() + "'");
  } catch (const Error&) {
    return out.type();
  }
}

struct Inliner {
  ir::Model& model;
  const std::function<bool(const ir::Function&)>& keep;

  // The function a call of which is inlined (null for kept functions).
  const ir::Function* find(const ir::Node& n) const {
    const ir::Function* f = model.find_function(n.domain(), n.op_type());
    return f && keep && keep(*f) ? nullptr : f;
  }

  // Resolves references in `a` (and in subgraphs under it) against the
  // call's attributes and remaps values of the body to the caller's.
  static void fix_subgraph(ir::Graph& g, const ValueMap& vm, const ir::Node& call) {
    g.for_each_node_recursive([&](ir::Node* n) {
      for (size_t i = 0; i < n->num_inputs(); ++i) {
        auto it = vm.find(n->input(i));
        if (it != vm.end()) n->set_input(i, it->second);
      }
      auto& attrs = n->mutable_attrs();
      for (size_t k = 0; k < attrs.size();) {
        if (!attrs[k].is_reference()) {
          ++k;
          continue;
        }
        const ir::Attr* given = call.attr(attrs[k].ref_attr_name);
        if (!given) {
          attrs.erase(attrs.begin() + static_cast<std::ptrdiff_t>(k));
          continue;
        }
        std::string name = attrs[k].name;
        attrs[k] = given->clone();
        attrs[k].name = std::move(name);
        ++k;
      }
    });
  }

  void inline_graph(ir::Graph& g, int depth) {
    for (ir::Node* n : g.nodes()) visit(g, n, depth);
  }

  void visit(ir::Graph& g, ir::Node* n, int depth) {
    if (const ir::Function* fn = find(*n)) {
      inline_call(g, n, *fn, depth);
      return;
    }
    for (ir::Graph* sub : n->subgraphs()) inline_graph(*sub, depth);
  }

  void inline_call(ir::Graph& g, ir::Node* call, const ir::Function& fn, int depth) {
    if (depth >= kMaxDepth) {
      throw Error(ErrorKind::Invalid,
                  "inlining '" + fn.name + "': calls nest deeper than " +
                      std::to_string(kMaxDepth) + " (recursive function?)",
                  {.node = call->name()});
    }
    ValueMap vm;
    const auto& formals = fn.body->inputs();
    for (size_t i = 0; i < formals.size(); ++i) {
      vm[formals[i]] = i < call->num_inputs() ? call->input(i) : nullptr;
    }
    std::string prefix = call->name().empty() ? fn.name : call->name();
    auto& names = g.names();
    std::vector<ir::Node*> inserted;
    for (const ir::Node* b : fn.body->nodes()) {
      std::vector<ir::Value*> ins;
      ins.reserve(b->num_inputs());
      for (size_t i = 0; i < b->num_inputs(); ++i) {
        ir::Value* v = b->input(i);
        auto it = v ? vm.find(v) : vm.end();
        ins.push_back(it == vm.end() ? v : it->second);
      }
      auto c = std::make_unique<ir::Node>(b->op_type(), b->domain(), ins, b->num_outputs());
      c->set_name(names.unique_node(prefix + "/" + (b->name().empty() ? b->op_type() : b->name())));
      c->doc_string = b->doc_string;
      for (size_t j = 0; j < b->num_outputs(); ++j) {
        const ir::Value* o = b->output(j);
        if (!o) continue;
        ir::Value* co = c->output(j);
        co->set_name(names.unique_value(prefix + "/" + o->name()));
        co->set_type(o->type());
        vm[o] = co;
      }
      for (size_t j = b->num_outputs(); j-- > 0;) {
        if (!b->output(j)) c->remove_output(j, /*keep_slot=*/true);
      }
      for (const ir::Attr& a : b->attrs()) {
        if (a.is_reference()) {
          const ir::Attr* given = call->attr(a.ref_attr_name);
          if (!given) continue;  // the op's default applies
          ir::Attr r = given->clone();
          r.name = a.name;
          c->set_attr(std::move(r));
          continue;
        }
        ir::Attr r = a.clone();
        c->set_attr(std::move(r));
      }
      for (ir::Graph* sub : c->subgraphs()) {
        sub->set_name_authority(g.name_authority());
        fix_subgraph(*sub, vm, *call);
      }
      inserted.push_back(g.insert_before(call, std::move(c)));
    }
    for (size_t j = 0; j < call->num_outputs(); ++j) {
      ir::Value* out = call->output(j);
      if (!out) continue;
      if (j >= fn.body->outputs().size()) {
        throw Error(ErrorKind::Invalid,
                    "inlining '" + fn.name +
                        "': the call has more outputs "
                        "than the function",
                    {.node = call->name()});
      }
      const ir::Value* formal_out = fn.body->outputs()[j];
      auto it = vm.find(formal_out);
      ir::Value* nv = it == vm.end() ? fn.body->outputs()[j] : it->second;
      if (!nv) {
        throw Error(ErrorKind::Invalid,
                    "inlining '" + fn.name + "': output " + std::to_string(j) +
                        " is an input the call omitted",
                    {.node = call->name()});
      }
      // A copied body value has the body's generic type (float of any
      // shape); the call's output was inferred for these inputs (float[N]).
      // The caller's own values (an input passed through) keep theirs.
      if (formal_out->producer() && it != vm.end()) nv->set_type(call_site_type(*nv, *out));
      if (out->is_graph_output()) {
        bool renameable = nv->producer() && nv->graph() == &g && !nv->is_graph_output();
        if (renameable && !nv->is_graph_input() && !nv->is_initializer()) {
          std::string name = out->name();
          out->replace_all_uses_with(nv, true);
          out->set_name("");
          nv->set_name(std::move(name));
          continue;
        }
        // Keep the output's name with an Identity.
        std::string name = out->name();
        std::vector<ir::Value*> id_in{nv};
        auto id = std::make_unique<ir::Node>("Identity", "", id_in, 1);
        id->set_name(names.unique_node(prefix + "/Identity"));
        out->replace_all_uses_with(id->output(0), true);
        out->set_name("");
        id->output(0)->set_name(std::move(name));
        id->output(0)->set_type(call_site_type(*nv, *out));
        g.insert_before(call, std::move(id));
        continue;
      }
      out->replace_all_uses_with(nv, true);
    }
    g.remove(call);
    for (ir::Node* m : inserted) visit(g, m, depth + 1);
  }
};

void mark_called(const ir::Model& model, const ir::Graph& g,
                 std::unordered_set<const ir::Function*>& used,
                 std::vector<const ir::Function*>& work) {
  g.for_each_node_recursive([&](ir::Node* n) {
    const ir::Function* f = model.find_function(n->domain(), n->op_type());
    if (f && used.insert(f).second) work.push_back(f);
  });
}

// Domains the inlined bodies brought into graph `g` (ai.onnx.ml's
// LabelEncoder in a body that compares a string attribute) are imported by
// it (`imports`: the model's, or a kept function's) at the version the
// functions import them.
void import_inlined_domains(const ir::Model& model, const ir::Graph& g,
                            std::vector<ir::OpsetImport>& imports,
                            const std::vector<ir::OpsetImport>& function_imports) {
  std::unordered_set<std::string> missing;
  g.for_each_node_recursive([&](ir::Node* n) {
    const std::string& d = n->domain() == "ai.onnx" ? std::string() : n->domain();
    if (!ir::find_opset(imports, d) && !model.find_function(n->domain(), n->op_type())) {
      missing.insert(d);
    }
  });
  for (const ir::OpsetImport& o : function_imports) {
    if (missing.erase(o.domain)) imports.push_back({o.domain, o.version});
  }
}

}  // namespace

void inline_functions(ir::Model& model, const std::function<bool(const ir::Function&)>& keep) {
  if (model.functions.empty()) return;
  std::vector<ir::OpsetImport> function_imports;
  for (const auto& f : model.functions) {
    for (const ir::OpsetImport& o : f->opset_imports) {
      const std::string& d = o.domain == "ai.onnx" ? std::string() : o.domain;
      if (!ir::find_opset(function_imports, d)) function_imports.push_back({d, o.version});
    }
  }
  Inliner in{model, keep};
  in.inline_graph(*model.graph, 0);
  model.graph->collect_garbage();
  import_inlined_domains(model, *model.graph, model.opset_imports, function_imports);
  // Kept functions stay called; the calls in their bodies are inlined.
  if (keep) {
    for (const auto& f : model.functions) {
      if (!keep(*f)) continue;
      in.inline_graph(*f->body, 0);
      f->body->collect_garbage();
      import_inlined_domains(model, *f->body, f->opset_imports, function_imports);
    }
  }
  // Drop functions nothing calls any more.
  std::unordered_set<const ir::Function*> used;
  std::vector<const ir::Function*> work;
  mark_called(model, *model.graph, used, work);
  while (!work.empty()) {
    const ir::Function* f = work.back();
    work.pop_back();
    mark_called(model, *f->body, used, work);
  }
  model.functions.erase_if([&](const auto& f) { return !used.count(f.get()); });
}

}  // namespace oxs::builder
