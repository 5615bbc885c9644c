#include "oxs/eval/session.h"

#include "oxs/eval/conv/conv_fusion.h"
#include "oxs/eval/fast/elementwise_chain.h"
#include "oxs/eval/function_ops.h"
#include "oxs/eval/parallel/thread_pool.h"
#include "oxs/eval/validate/model_check.h"
#include "oxs/eval/validate/run_limits.h"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <unordered_set>

#include "oxs/ir/error.h"
#include "oxs/ir/graph.h"
#include "oxs/ir/topo_sort.h"
#include "oxs/schema/registry.h"

namespace oxs::eval {

ir::Type type_of(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Tensor:
      return ir::Type::tensor(v.tensor().dtype(), ir::Shape::of(v.tensor().dims()));
    case Value::Kind::Sequence:
      if (!v.items().empty()) return ir::Type::sequence(type_of(v.items()[0]));
      return ir::Type::sequence(v.elem_type());
    case Value::Kind::Optional:
      if (v.has_element()) return ir::Type::optional(type_of(v.element()));
      return ir::Type::optional(v.elem_type());
    case Value::Kind::Map:
      return ir::Type::map(v.map_keys().dtype(), ir::Type::tensor(v.map_values().dtype()));
    case Value::Kind::None:
      break;
  }
  return {};
}

namespace {

// Execution order, release points and reusable inputs of one graph,
// computed once per graph and session.
struct Plan {
  std::vector<const ir::Node*> order;
  // fused[k]: the fused group order[k] (its last member) runs, or null.
  std::vector<const conv_fusion::Group*> fused;
  std::vector<conv_fusion::Group> groups;
  // chain[k]: the elementwise chain order[k] (its last node) runs, or null;
  // chain_reusable[k]: its steps' reusable inputs when they run one by one;
  // chain_lend[k]: the values whose buffer its fused run may write its
  // output into (its input and operands that die in it).
  std::vector<const elementwise_chain::Chain*> chain;
  std::vector<std::vector<uint64_t>> chain_reusable;
  std::vector<std::vector<std::vector<const ir::Value*>>> chain_release;  // per step
  std::vector<std::vector<const ir::Value*>> chain_lend;
  std::vector<elementwise_chain::Chain> chains;
  // release_after[k]: values of this graph to drop after order[k] ran.
  std::vector<std::vector<const ir::Value*>> release_after;
  // reusable[k] bit i: input i of order[k] may lend its buffer to an output
  // (KernelContext::set_reusable_inputs): its value is computed by a node of
  // this graph (not a graph input, initializer or outer-scope value), order[k]
  // is its last reader (no later node, no subgraph reads it), it is not a
  // graph output, and it fills no other input slot of order[k]. Whether the
  // tensor also owns its buffer alone (no Identity/Reshape alias alive) is
  // checked when the kernel asks.
  std::vector<uint64_t> reusable;
  // dying[k] bit i: input i of order[k] (a node run alone, without
  // subgraphs) is a value of this graph's frame (computed here or an input
  // of this graph), read by no later node or subgraph, not a graph output,
  // and in no other input slot of order[k]: the kernel may take the value
  // itself (KernelContext::take_input), e.g. to append to a sequence in
  // place.
  std::vector<uint64_t> dying;
  // fold[k]: order[k] is a Transpose (with this perm, else null) whose
  // output's only reader is one MatMul of this graph, and which keeps the
  // last axis among the last two (so the MatMul reads its input in place as
  // a GEMM operand, KernelContext::input_perm): the run binds its output to
  // its input's tensor and the MatMul gets the perm.
  std::vector<const std::vector<int64_t>*> fold;
};

// The perm of `n` when it is a Transpose with an explicit perm that keeps
// the last axis among the last two, and its output feeds one input slot of a
// MatMul of the same graph and nothing else; else null.
const std::vector<int64_t>* transpose_into_matmul(
    const ir::Node& n, const std::unordered_set<const ir::Value*>& outs,
    const std::unordered_set<const ir::Node*>& heads) {
  if (n.op_type() != "Transpose" || !normalize_domain(n.domain()).empty() || n.num_inputs() != 1 ||
      n.num_outputs() != 1 || !n.input(0) || !n.output(0)) {
    return nullptr;
  }
  const ir::Attr* perm = n.attr("perm");
  if (!perm || perm->is_reference() || perm->ints.size() < 2) return nullptr;
  const std::vector<int64_t>& p = perm->ints;
  const int64_t last = int64_t(p.size()) - 1;
  std::vector<bool> seen(p.size(), false);
  for (int64_t a : p) {
    if (a < 0 || a > last || seen[size_t(a)]) return nullptr;  // the kernel reports it
    seen[size_t(a)] = true;
  }
  if (p[size_t(last)] != last && p[size_t(last - 1)] != last) return nullptr;
  const ir::Value* v = n.output(0);
  if (outs.count(v) || v->uses().size() != 1) return nullptr;
  const ir::Node* user = v->uses()[0].user;
  if (user->op_type() != "MatMul" || !normalize_domain(user->domain()).empty() ||
      !user->subgraphs().empty() || user->graph() != n.graph() || heads.count(user)) {
    return nullptr;  // (a fused group's head runs with no folded Transpose)
  }
  return &p;
}

Plan make_plan(const ir::Graph& g, bool fuse, bool fold_transposes) {
  Plan p;
  std::vector<const ir::Node*> topo;
  for (ir::Node* n : ir::topological_order(g)) topo.push_back(n);
  if (fuse) {
    p.groups = conv_fusion::find_groups(g, topo);
    std::unordered_set<const ir::Node*> taken;
    for (const conv_fusion::Group& grp : p.groups) {
      for (const ir::Node* m : {grp.conv, grp.add, grp.act()}) {
        if (m) taken.insert(m);
      }
    }
    p.chains = elementwise_chain::find_chains(g, topo, taken);
  }
  // A group or chain runs at the place of its last member (its inputs exist
  // by then); its other members are left out of the order.
  std::unordered_set<const ir::Node*> absorbed;
  std::unordered_map<const ir::Node*, const conv_fusion::Group*> group_at;
  std::unordered_map<const ir::Node*, const elementwise_chain::Chain*> chain_at;
  for (const conv_fusion::Group& grp : p.groups) {
    for (const ir::Node* m : {grp.conv, grp.add}) {
      if (m && m != grp.last()) absorbed.insert(m);
    }
    group_at[grp.last()] = &grp;
  }
  for (const elementwise_chain::Chain& c : p.chains) {
    for (const elementwise_chain::Step& s : c.steps) {
      if (s.node != c.last()) absorbed.insert(s.node);
    }
    chain_at[c.last()] = &c;
  }
  for (const ir::Node* n : topo) {
    if (absorbed.count(n)) continue;  // runs with its group or chain
    p.order.push_back(n);
    auto gi = group_at.find(n);
    p.fused.push_back(gi != group_at.end() ? gi->second : nullptr);
    auto ci = chain_at.find(n);
    p.chain.push_back(ci != chain_at.end() ? ci->second : nullptr);
  }
  // Every node that runs, a group's or chain's members in turn, at flat
  // positions; pos_k: the step of the order each runs in.
  std::vector<const ir::Node*> pos_node;
  std::vector<size_t> pos_k, first_pos(p.order.size());
  for (size_t k = 0; k < p.order.size(); ++k) {
    first_pos[k] = pos_node.size();
    const conv_fusion::Group* grp = p.fused[k];
    if (grp) {
      for (const ir::Node* m : {grp->conv, grp->add, grp->act()}) {
        if (m) pos_node.push_back(m), pos_k.push_back(k);
      }
    } else if (p.chain[k]) {
      for (const elementwise_chain::Step& st : p.chain[k]->steps) {
        pos_node.push_back(st.node), pos_k.push_back(k);
      }
    } else {
      pos_node.push_back(p.order[k]), pos_k.push_back(k);
    }
  }
  std::unordered_map<const ir::Value*, size_t> last_pos;  // of the last read
  std::unordered_set<const ir::Value*> computed;
  for (size_t pos = 0; pos < pos_node.size(); ++pos) {
    const ir::Node* n = pos_node[pos];
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      if (const ir::Value* v = n->output(i)) {
        last_pos.emplace(v, pos);  // dead until read
        computed.insert(v);
      }
    }
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      if (const ir::Value* v = n->input(i)) last_pos[v] = pos;
    }
    for (ir::Graph* sub : n->subgraphs()) {
      sub->for_each_node_recursive([&](ir::Node* m) {
        for (size_t i = 0; i < m->num_inputs(); ++i) {
          if (const ir::Value* v = m->input(i)) last_pos[v] = pos;
        }
      });
    }
  }
  std::unordered_set<const ir::Value*> outputs(g.outputs().begin(), g.outputs().end());
  p.release_after.resize(p.order.size());
  p.chain_release.resize(p.order.size());
  for (size_t k = 0; k < p.order.size(); ++k) {
    if (p.chain[k]) p.chain_release[k].resize(p.chain[k]->steps.size());
  }
  for (auto& [v, pos] : last_pos) {
    if (outputs.count(v)) continue;
    const size_t k = pos_k[pos];
    p.release_after[k].push_back(v);
    if (p.chain[k]) p.chain_release[k][pos - first_pos[k]].push_back(v);
  }
  // Whether v may lend its buffer at flat position pos (its last reader).
  auto dies_at = [&](const ir::Value* v, size_t pos) {
    return v && computed.count(v) && !outputs.count(v) && last_pos[v] == pos;
  };
  auto mask_at = [&](size_t pos) {
    const ir::Node* n = pos_node[pos];
    uint64_t mask = 0;
    for (size_t i = 0; i < n->num_inputs() && i < 64; ++i) {
      const ir::Value* v = n->input(i);
      if (!dies_at(v, pos)) continue;
      bool repeated = false;
      for (size_t j = 0; j < n->num_inputs(); ++j) repeated |= j != i && n->input(j) == v;
      if (!repeated) mask |= uint64_t(1) << i;
    }
    return mask;
  };
  std::unordered_set<const ir::Value*> graph_inputs(g.inputs().begin(), g.inputs().end());
  auto dying_mask = [&](const ir::Node* n, size_t pos) {
    uint64_t mask = 0;
    for (size_t i = 0; i < n->num_inputs() && i < 64; ++i) {
      const ir::Value* v = n->input(i);
      if (!v || (!computed.count(v) && !graph_inputs.count(v)) || outputs.count(v) ||
          last_pos[v] != pos) {
        continue;
      }
      bool repeated = false;
      for (size_t j = 0; j < n->num_inputs(); ++j) repeated |= j != i && n->input(j) == v;
      if (!repeated) mask |= uint64_t(1) << i;
    }
    return mask;
  };
  p.reusable.assign(p.order.size(), 0);
  p.dying.assign(p.order.size(), 0);
  p.chain_reusable.resize(p.order.size());
  p.chain_lend.resize(p.order.size());
  for (size_t k = 0; k < p.order.size(); ++k) {
    const ir::Node* n = p.order[k];
    if (const elementwise_chain::Chain* c = p.chain[k]) {
      // Run node by node: each step's own mask. Run fused: the chain's
      // input or an operand of its shape that dies in the chain (each
      // element is read before the last step writes it).
      const size_t steps = c->steps.size();
      for (size_t i = 0; i < steps; ++i) p.chain_reusable[k].push_back(mask_at(first_pos[k] + i));
      const size_t last = first_pos[k] + steps - 1;
      std::vector<const ir::Value*> lend{c->input()};
      for (const elementwise_chain::Step& st : c->steps) {
        if (!st.unary) lend.push_back(st.node->input(1 - st.chain_input));
      }
      for (const ir::Value* v : lend) {
        if (v && computed.count(v) && !outputs.count(v) && last_pos[v] <= last &&
            last_pos[v] >= first_pos[k] &&
            std::find(p.chain_lend[k].begin(), p.chain_lend[k].end(), v) == p.chain_lend[k].end()) {
          p.chain_lend[k].push_back(v);
        }
      }
      continue;
    }
    // A fused group runs its Conv, which writes a fresh output.
    if (!n->subgraphs().empty() || p.fused[k]) continue;
    p.reusable[k] = mask_at(first_pos[k]);
    p.dying[k] = dying_mask(n, first_pos[k]);
  }
  p.fold.assign(p.order.size(), nullptr);
  if (fold_transposes) {
    std::unordered_set<const ir::Node*> heads;
    for (const conv_fusion::Group& grp : p.groups) heads.insert(grp.conv);
    for (size_t k = 0; k < p.order.size(); ++k) {
      if (!p.fused[k] && !p.chain[k]) {
        p.fold[k] = transpose_into_matmul(*p.order[k], outputs, heads);
      }
    }
  }
  return p;
}

struct Frame {
  const Frame* parent = nullptr;
  std::unordered_map<const ir::Value*, Value> values;
  const AttrScope* attrs = nullptr;
  const std::vector<ir::OpsetImport>* opsets = nullptr;
  int depth = 0;

  const Value* find(const ir::Value* v) const {
    for (const Frame* f = this; f; f = f->parent) {
      auto it = f->values.find(v);
      if (it != f->values.end()) return &it->second;
    }
    return nullptr;
  }
};

std::string value_label(const ir::Value* v) {
  return v->name().empty() ? std::string("<unnamed>") : "'" + v->name() + "'";
}

}  // namespace

class Session::Executor {
 public:
  Executor(const ir::Model& model, const SessionOptions& options)
      : model_(model),
        options_(options),
        registry_(options.registry ? *options.registry : KernelRegistry::builtin()),
        reuse_(options.reuse_buffers && !options.trace),
        fold_(options.fold_transposes && !options.trace && !options.registry) {
    for (const auto& f : model.functions) {
      functions_[normalize_domain(f->domain) + '\0' + f->name] = f.get();
    }
    // Fused groups stand for the builtin kernels: not when the model
    // defines its own Conv, MatMul, Add, Relu or HardSwish.
    fuse_ = options.fuse;
    for (const char* op : {"Conv", "MatMul", "Add", "Relu", "HardSwish"}) {
      if (functions_.count(std::string(1, '\0') + op)) fuse_ = false;
    }
  }

  const Plan& plan_for(const ir::Graph& g) {
    auto it = plans_.find(&g);
    if (it != plans_.end()) return it->second;
    // A model-local function named MatMul in the default domain would get
    // the untransposed tensor: no folding then.
    const bool fold = fold_ && !functions_.count(std::string("\0MatMul", 7));
    return plans_.emplace(&g, make_plan(g, fuse_, fold)).first->second;
  }

  // Binds initializers of `g` (not overridden by an input) into `f`.
  void bind_initializers(const ir::Graph& g, Frame& f) {
    for (const ir::Value* v : g.initializers()) {
      if (f.values.count(v)) continue;
      const auto& t = v->const_value();
      if (!t) continue;
      f.values.emplace(v, Value(Tensor::from_ir(std::shared_ptr<const ir::Tensor>(t))));
    }
  }

  void run_graph(const ir::Graph& g, Frame& f) {
    const Plan& p = plan_for(g);
    RunLimits* limits = current_run_limits();
    // Outputs of Transposes folded in this run (bound untransposed), with
    // their perms, until their MatMul runs.
    std::vector<std::pair<const ir::Value*, const std::vector<int64_t>*>> folded;
    std::vector<const std::vector<int64_t>*> perms;
    for (size_t k = 0; k < p.order.size(); ++k) {
      if (limits) limits->check();
      const ir::Node& n = *p.order[k];
      if (p.fused[k]) {
        run_fused(*p.fused[k], f);
      } else if (p.chain[k]) {
        run_chain(*p.chain[k], f, p.chain_reusable[k], p.chain_release[k], p.chain_lend[k]);
      } else if (p.fold[k] && fold_input(n, p.fold[k]->size(), f)) {
        folded.emplace_back(n.output(0), p.fold[k]);
      } else {
        perms.clear();
        for (size_t i = 0; !folded.empty() && i < n.num_inputs(); ++i) {
          auto it = std::find_if(folded.begin(), folded.end(),
                                 [&](const auto& e) { return e.first == n.input(i); });
          if (it == folded.end()) continue;
          perms.resize(n.num_inputs(), nullptr);
          perms[i] = it->second;
          folded.erase(it);
        }
        run_node(n, f, reuse_ ? p.reusable[k] : 0, perms, nullptr, reuse_ ? p.dying[k] : 0);
      }
      for (const ir::Value* v : p.release_after[k]) f.values.erase(v);
    }
  }

  // A folded Transpose of `rank` axes: binds its output to its input's
  // tensor when that is a tensor of this rank (else the node runs, and
  // reports what is wrong).
  bool fold_input(const ir::Node& n, size_t rank, Frame& f) {
    const Value* in = f.find(n.input(0));
    if (!in || !in->is_tensor() || in->tensor().rank() != rank) return false;
    if (options_.trace_enter && (f.depth == 0 || options_.trace_nested)) {
      options_.trace_enter(n, f.depth);
    }
    Value v = *in;
    f.values.insert_or_assign(n.output(0), std::move(v));
    ++transposes_folded_;
    return true;
  }

  std::vector<Value> collect_outputs(const ir::Graph& g, const Frame& f) {
    std::vector<Value> out;
    out.reserve(g.outputs().size());
    for (const ir::Value* v : g.outputs()) {
      const Value* val = f.find(v);
      if (!val) {
        throw Error(ErrorKind::Invalid, "graph output " + value_label(v) + " is never computed");
      }
      out.push_back(*val);
    }
    return out;
  }

  // Subgraph of a node run in `parent`'s scope.
  std::vector<Value> run_subgraph(const ir::Graph& g, std::vector<Value> inputs,
                                  const Frame& parent) {
    if (inputs.size() > g.inputs().size()) {
      throw Error(ErrorKind::Invalid, "subgraph '" + g.name() + "' takes " +
                                          std::to_string(g.inputs().size()) + " inputs, given " +
                                          std::to_string(inputs.size()));
    }
    Frame f;
    f.parent = &parent;
    f.attrs = parent.attrs;
    f.opsets = parent.opsets;
    f.depth = parent.depth + 1;
    for (size_t i = 0; i < inputs.size(); ++i) {
      f.values.emplace(g.inputs()[i], std::move(inputs[i]));
    }
    bind_initializers(g, f);
    run_graph(g, f);
    return collect_outputs(g, f);
  }

  // Runs `fn`'s body for a call with `inputs` and attributes from `scope`.
  std::vector<Value> call_function(const ir::Function& fn, std::span<const Value* const> inputs,
                                   const AttrScope& scope, int depth) {
    const ir::Graph& body = *fn.body;
    Frame f;
    f.attrs = &scope;
    f.opsets = &fn.opset_imports;
    f.depth = depth;
    for (size_t i = 0; i < inputs.size() && i < body.inputs().size(); ++i) {
      if (inputs[i]) f.values.emplace(body.inputs()[i], *inputs[i]);
    }
    bind_initializers(body, f);
    run_graph(body, f);
    std::vector<Value> out;
    for (const ir::Value* v : body.outputs()) {
      const Value* val = f.find(v);
      out.push_back(val ? *val : Value());  // an optional output the body leaves unset
    }
    return out;
  }

  // The attribute scope for a call of `fn` by `node` (whose own attributes
  // may be references into `outer`).
  static AttrScope bind_call_attrs(const ir::Node& node, const AttrScope* outer) {
    AttrScope s;
    for (const ir::Attr& a : node.attrs()) {
      const ir::Attr* r = &a;
      if (a.is_reference()) r = outer ? outer->find(a.ref_attr_name) : nullptr;
      if (r) s.bound[a.name] = r;
    }
    return s;
  }

  int64_t opset_of(const ir::Node& n, const Frame& f) {
    if (f.opsets) {
      if (auto v = ir::find_opset(*f.opsets, n.domain())) return *v;
    }
    // Function bodies may omit imports they share with the model.
    if (auto v = ir::find_opset(model_.opset_imports, n.domain())) return *v;
    throw Error(ErrorKind::Invalid,
                "no opset is imported for domain '" +
                    (n.domain().empty() ? std::string("ai.onnx") : n.domain()) + "'",
                {.node = n.display_name()});
  }

  class NodeRunner final : public SubgraphRunner {
   public:
    NodeRunner(Executor& ex, const Frame& f) : ex_(ex), f_(f) {}
    std::vector<Value> run_subgraph(const ir::Graph& g, std::vector<Value> inputs) override {
      return ex_.run_subgraph(g, std::move(inputs), f_);
    }
    std::vector<Value> run_nodes(const ir::Graph& g, std::span<const ir::Node* const> nodes,
                                 std::span<const std::pair<const ir::Value*, Value>> bound,
                                 std::span<const ir::Value* const> wanted) override {
      Frame child;
      child.parent = &f_;
      child.attrs = f_.attrs;
      child.opsets = f_.opsets;
      child.depth = f_.depth + 1;
      for (const auto& [v, val] : bound) child.values.insert_or_assign(v, val);
      ex_.bind_initializers(g, child);
      for (const ir::Node* n : nodes) ex_.run_node(*n, child);
      std::vector<Value> out;
      out.reserve(wanted.size());
      for (const ir::Value* v : wanted) {
        const Value* val = child.find(v);
        out.push_back(val ? *val : Value());
      }
      return out;
    }

   private:
    Executor& ex_;
    const Frame& f_;
  };

  // Runs a function call; an error from inside the body also names the
  // calling node (the body's nodes mean little to the model's author).
  template <class F>
  static std::vector<Value> call_in_context(const ir::Node& n, F&& call) {
    try {
      return call();
    } catch (const Error& e) {
      if (e.message().size() > 4000) throw;  // deep chains: keep the innermost context
      throw Error(e.kind(),
                  e.message() + " (inside " + n.op_type() + " '" + n.display_name() + "')",
                  e.where());
    }
  }

  // The schema of the op a node runs (null for ops without one), cached per
  // node: the runtime input types are checked against it before the kernel.
  const schema::OpSignature* signature_of(const ir::Node& n, std::string_view dom, int64_t opset) {
    auto [it, fresh] = signatures_.try_emplace(&n, nullptr);
    if (fresh) it->second = schema::lookup(dom, n.op_type(), opset);
    return it->second;
  }

  // A fused group (conv_fusion.h): the Conv with its tail; when the kernel
  // did not apply the tail, the Add and Relu/HardSwish nodes run as usual.
  void run_fused(const conv_fusion::Group& grp, Frame& f) {
    FusedTail tail;
    tail.relu = grp.relu != nullptr;
    tail.hard_swish = grp.hard_swish != nullptr;
    for (const ir::Node* m : {grp.add, grp.act()}) {
      if (m) tail.members[tail.num_members++] = m;
    }
    if (grp.add) {
      const ir::Value* r = grp.add->input(grp.residual_input);
      tail.residual = f.find(r);
      if (!tail.residual) {
        throw Error(ErrorKind::Invalid,
                    "input " + value_label(r) + " is not available (not fed, not computed)",
                    {.node = grp.add->display_name()});
      }
    }
    run_node(*grp.conv, f, 0, {}, &tail);
    if (tail.applied) {
      auto it = f.values.find(grp.conv->output(0));
      Value v = std::move(it->second);
      f.values.erase(it);
      f.values.insert_or_assign(grp.last()->output(0), std::move(v));
      return;
    }
    for (const ir::Node* m : {grp.add, grp.act()}) {
      if (m) run_node(*m, f);
    }
  }

  // An elementwise chain (fast/elementwise_chain.h) as one pass, into the
  // buffer of a value in `lend` when one is a float tensor of the result's
  // shape held by this value alone; when the chain does not apply (types,
  // shapes, an op without a kernel at the model's opset), its nodes run one
  // by one with their `reusable` inputs and `release` lists, and report
  // what is wrong.
  void run_chain(const elementwise_chain::Chain& c, Frame& f, std::span<const uint64_t> reusable,
                 std::span<const std::vector<const ir::Value*>> release,
                 std::span<const ir::Value* const> lend) {
    const Value* x = f.find(c.input());
    std::vector<const Tensor*> others;
    bool ok = x && x->is_tensor();
    for (const elementwise_chain::Step& s : c.steps) {
      const ir::Node& n = *s.node;
      ok = ok && registry_.find(normalize_domain(n.domain()), n.op_type(), opset_of(n, f));
      if (!ok) break;
      const Value* o = s.unary ? nullptr : f.find(n.input(1 - s.chain_input));
      ok = s.unary || (o && o->is_tensor());
      others.push_back(ok && o ? &o->tensor() : nullptr);
    }
    if (!ok || !elementwise_chain::applies(c, x->tensor(), others)) {
      for (size_t i = 0; i < c.steps.size(); ++i) {
        run_node(*c.steps[i].node, f, reuse_ && i < reusable.size() ? reusable[i] : 0);
        // (What dies at this step goes now, so that a later step's input
        // held by one value alone can lend its buffer.)
        if (i < release.size()) {
          for (const ir::Value* v : release[i]) f.values.erase(v);
        }
      }
      return;
    }
    const ir::Node& head = *c.steps[0].node;
    if (options_.trace_enter && (f.depth == 0 || options_.trace_nested)) {
      options_.trace_enter(head, f.depth);
    }
    Tensor out;
    bool in_place = false;
    for (const ir::Value* v : reuse_ ? lend : std::span<const ir::Value* const>{}) {
      auto it = f.values.find(v);
      if (it == f.values.end() || !it->second.is_tensor()) continue;
      const Tensor& t = it->second.tensor();
      if (t.dtype() != DataType::Float || t.dims() != x->tensor().dims() || !t.sole_owner()) {
        continue;
      }
      out = t;  // shares the buffer
      in_place = true;
      ++buffers_reused_;
      break;
    }
    elementwise_chain::run(c, x->tensor(), others, out, in_place);
    Value result(std::move(out));
    if (options_.trace && (f.depth == 0 || options_.trace_nested)) {
      std::vector<const Value*> inputs;
      for (size_t i = 0; i < head.num_inputs(); ++i) inputs.push_back(f.find(head.input(i)));
      std::vector<const ir::Node*> rest;
      for (size_t i = 1; i < c.steps.size(); ++i) rest.push_back(c.steps[i].node);
      options_.trace(TraceEvent{head, inputs, std::span<const Value>(&result, 1), f.depth,
                                opset_of(head, f), rest});
    }
    f.values.insert_or_assign(c.last()->output(0), std::move(result));
  }

  // `reusable`: the plan's reusable inputs of `n` (Plan::reusable).
  // `perms`: per input, the perm of a folded Transpose that computes it
  // (empty: none). `tail`: the Add/Relu/HardSwish of a fused group when `n` is its Conv.
  // `dying`: the plan's inputs of `n` that the kernel may take
  // (Plan::dying).
  void run_node(const ir::Node& n, Frame& f, uint64_t reusable = 0,
                std::span<const std::vector<int64_t>* const> perms = {}, FusedTail* tail = nullptr,
                uint64_t dying = 0) {
    if (stack_headroom_low()) {
      throw_nested_too_deeply("node '" + n.display_name() + "' (" + n.op_type() + ")");
    }
    std::vector<const Value*> inputs(n.num_inputs(), nullptr);
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      const ir::Value* v = n.input(i);
      if (!v) continue;
      inputs[i] = f.find(v);
      if (!inputs[i]) {
        throw Error(ErrorKind::Invalid,
                    "input " + value_label(v) + " is not available (not fed, not computed)",
                    {.node = n.display_name()});
      }
    }
    std::vector<Value> outputs(n.num_outputs());
    if (options_.trace_enter && (f.depth == 0 || options_.trace_nested)) {
      options_.trace_enter(n, f.depth);
    }

    std::string dom = normalize_domain(n.domain());
    auto fit = functions_.find(dom + '\0' + n.op_type());
    int64_t opset = 0;
    if (fit != functions_.end()) {
      AttrScope scope = bind_call_attrs(n, f.attrs);
      auto res = call_in_context(
          n, [&] { return call_function(*fit->second, inputs, scope, f.depth + 1); });
      for (size_t i = 0; i < outputs.size() && i < res.size(); ++i) outputs[i] = std::move(res[i]);
    } else {
      opset = opset_of(n, f);
      if (KernelFn k = registry_.find(dom, n.op_type(), opset)) {
        if (const schema::OpSignature* sig = signature_of(n, dom, opset)) {
          check_input_types(n, *sig, inputs);
        }
        NodeRunner runner(*this, f);
        KernelContext ctx(n, inputs, outputs, opset, f.attrs, &runner);
        ctx.set_kernel_states(&kernel_states_);
        ctx.set_fused_tail(tail);
        ctx.set_reusable_inputs(reusable);
        ctx.set_dying_inputs(dying);
        ctx.set_input_perms(perms);
        try {
          k(ctx);
          if (ctx.reused_input()) ++buffers_reused_;
          // The text of strings a kernel made counts against the run's
          // memory (a StringConcat doubling a string every trip).
          for (Value& o : outputs) {
            if (o.is_tensor()) o.tensor().charge_string_bytes();
          }
        } catch (const Error& e) {
          if (!e.where().node.empty()) throw;
          throw Error(e.kind(), n.op_type() + ": " + e.message(), {.node = n.display_name()});
        } catch (const std::bad_alloc&) {
          // A size that passed the kernel's checks but not the machine: the
          // input's problem, named, never an internal error.
          throw Error(ErrorKind::Input,
                      n.op_type() + ": out of memory for the sizes its inputs ask for",
                      {.node = n.display_name()});
        } catch (const std::length_error&) {
          throw Error(ErrorKind::Input, n.op_type() + ": a size its inputs ask for is too large",
                      {.node = n.display_name()});
        }
      } else if (auto body = function_body(n, opset, inputs, f.attrs)) {
        AttrScope scope = bind_call_attrs(n, f.attrs);
        auto res =
            call_in_context(n, [&] { return call_function(*body, inputs, scope, f.depth + 1); });
        for (size_t i = 0; i < outputs.size() && i < res.size(); ++i) {
          outputs[i] = std::move(res[i]);
        }
      } else {
        throw Error(ErrorKind::Unsupported,
                    "no kernel for operator " + (dom.empty() ? std::string() : dom + ".") +
                        n.op_type() + " (opset " + std::to_string(opset) + ")",
                    {.node = n.display_name()});
      }
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (n.output(i) && outputs[i].is_none()) {
        // The node's output counts were checked against the schema when the
        // session was built: this is an output the evaluator cannot compute.
        throw Error(ErrorKind::Unsupported,
                    n.op_type() + ": the evaluator does not compute output " + std::to_string(i) +
                        " ('" + n.output(i)->name() + "') of this node",
                    {.node = n.display_name()});
      }
    }
    if (options_.trace && (f.depth == 0 || options_.trace_nested)) {
      std::span<const ir::Node* const> fused;
      if (tail && tail->applied) fused = {tail->members, tail->num_members};
      options_.trace(TraceEvent{n, inputs, outputs, f.depth, opset, fused});
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (const ir::Value* v = n.output(i)) f.values.insert_or_assign(v, std::move(outputs[i]));
    }
  }

  // A short text of an attribute's value, for cache keys.
  static std::string attr_key(const ir::Attr& a) {
    std::string k = a.name + "=" + std::to_string(int(a.type)) + ":" + std::to_string(a.i) + ":" +
                    std::to_string(a.f) + ":" + a.s;
    for (int64_t v : a.ints) k += "," + std::to_string(v);
    for (float v : a.floats) k += "," + std::to_string(v);
    for (const auto& v : a.strings) k += "," + v;
    return k;
  }

  std::shared_ptr<const ir::Function> function_body(const ir::Node& n, int64_t opset,
                                                    std::span<const Value* const> inputs,
                                                    const AttrScope* scope) {
    if (!options_.function_bodies) return nullptr;
    std::vector<ir::Type> types;
    std::string key = std::to_string(reinterpret_cast<uintptr_t>(&n)) + ":";
    for (const Value* v : inputs) {
      types.push_back(v ? type_of(*v) : ir::Type());
      // Bodies depend on element types, not on sizes.
      ir::Type t = types.back();
      if (t.is_tensor()) t.shape().reset();
      key += t.to_string() + ",";
    }
    // Attributes that refer to the enclosing function's take their values
    // from this call, so they are part of the key.
    std::vector<std::pair<const ir::Attr*, const ir::Attr*>> resolved;  // (node's, value)
    for (const ir::Attr& a : n.attrs()) {
      if (!a.is_reference()) {
        resolved.emplace_back(&a, &a);
        continue;
      }
      const ir::Attr* r = scope ? scope->find(a.ref_attr_name) : nullptr;
      if (!r) continue;
      resolved.emplace_back(&a, r);
      key += attr_key(*r) + ";";
    }
    auto it = bodies_.find(key);
    if (it != bodies_.end()) return it->second;
    std::vector<ir::Attr> attrs;
    for (auto [a, r] : resolved) {
      ir::Attr c = r->clone();
      c.name = a->name;
      attrs.push_back(std::move(c));
    }
    auto body = options_.function_bodies(n, opset, types, attrs);
    bodies_.emplace(key, body);
    return body;
  }

 private:
  const ir::Model& model_;
  const SessionOptions& options_;
  const KernelRegistry& registry_;
  bool fuse_ = true;
  std::unordered_map<std::string, const ir::Function*> functions_;
  std::unordered_map<const ir::Graph*, Plan> plans_;
  // Per-node kernel state (KernelContext::state_slot), kept for the session.
  KernelContext::KernelStates kernel_states_;
  std::unordered_map<std::string, std::shared_ptr<const ir::Function>> bodies_;
  std::unordered_map<const ir::Node*, const schema::OpSignature*> signatures_;
  const bool reuse_;  // the memory plan's in-place outputs are on
  const bool fold_;   // Transposes into MatMul are folded (builtin kernels only)

 public:
  int64_t buffers_reused_ = 0;
  int64_t transposes_folded_ = 0;
};

Session::Session(const ir::Model& model, SessionOptions options)
    : model_(model), options_(std::move(options)) {
  if (!options_.function_bodies) options_.function_bodies = schema_function_bodies();
  check_model_for_eval(model_);
  if (options_.threads < 0) {
    throw Error(ErrorKind::Usage, "the thread count must be >= 0 (0: one per hardware thread)");
  }
  const int threads = options_.threads == 0 ? hardware_threads() : options_.threads;
  if (threads > 1) pool_ = &ThreadPool::shared(threads);
  exec_ = std::make_unique<Executor>(model_, options_);
}

Session::~Session() = default;

int64_t Session::buffers_reused() const {
  return exec_->buffers_reused_;
}

int64_t Session::transposes_folded() const {
  return exec_->transposes_folded_;
}

std::vector<std::string> Session::output_names() const {
  std::vector<std::string> names;
  for (const ir::Value* v : model_.graph->outputs()) names.push_back(v->name());
  return names;
}

namespace {

// Checks a fed value (or a part of one, `what` says which) against the
// declared type `t`: kind, element types, ranks and known dims.
void check_value(const std::string& what, const ir::Type& t, const Value& v) {
  auto fail = [&](const std::string& msg) {
    throw Error(ErrorKind::Input,
                what + " " + msg + " (" + t.to_string() + ") but is " + v.describe());
  };
  switch (t.kind()) {
    case ir::Type::Kind::Tensor: {
      if (!v.is_tensor()) fail("must be a tensor");
      const Tensor& x = v.tensor();
      if (t.elem_type() != DataType::Undefined && t.elem_type() != x.dtype()) {
        fail("must be " + std::string(ir::dtype_name(t.elem_type())));
      }
      if (!t.shape()) return;
      const ir::Shape& s = *t.shape();
      if (s.rank() != x.rank()) {
        throw Error(ErrorKind::Input, what + " must have rank " + std::to_string(s.rank()) + " (" +
                                          t.to_string() + ") but has shape " +
                                          dims_to_string(x.dims()));
      }
      for (size_t i = 0; i < s.rank(); ++i) {
        if (s[i].is_known() && s[i].value() != x.dim(i)) {
          throw Error(ErrorKind::Input, what + " dimension " + std::to_string(i) + " must be " +
                                            std::to_string(s[i].value()) + " (" + t.to_string() +
                                            ") but the value has shape " +
                                            dims_to_string(x.dims()));
        }
      }
      return;
    }
    case ir::Type::Kind::Sequence:
      if (!v.is_sequence()) fail("must be a sequence");
      if (!t.element()) return;
      for (size_t i = 0; i < v.items().size(); ++i) {
        check_value(what + " element " + std::to_string(i), *t.element(), v.items()[i]);
      }
      return;
    case ir::Type::Kind::Optional:
      if (!v.is_optional()) fail("must be an optional");
      if (t.element() && v.has_element()) check_value(what, *t.element(), v.element());
      return;
    case ir::Type::Kind::Map: {
      if (!v.is_map()) fail("must be a map");
      if (t.elem_type() != DataType::Undefined && t.elem_type() != v.map_keys().dtype()) {
        fail("must have " + std::string(ir::dtype_name(t.elem_type())) + " keys");
      }
      const ir::Type* vt = t.element();
      if (vt && vt->is_tensor() && vt->elem_type() != DataType::Undefined &&
          vt->elem_type() != v.map_values().dtype()) {
        fail("must have " + std::string(ir::dtype_name(vt->elem_type())) + " values");
      }
      return;
    }
    case ir::Type::Kind::SparseTensor:
      throw Error(ErrorKind::Unsupported,
                  what + " is a sparse tensor (" + t.to_string() +
                      "); the evaluator does not take sparse inputs; convert it to a dense input");
    case ir::Type::Kind::None:
      return;
  }
}

// A fed value as the graph input `in` expects it: a value given for an
// optional input is wrapped, and empty sequences/optionals take the declared
// element type (which kernels need to build empty results).
Value adapt_feed(const ir::Value* in, const Value& v) {
  const ir::Type& t = in->type();
  if (t.kind() == ir::Type::Kind::Optional && !v.is_optional() && !v.is_none()) {
    return Value::optional(v, t.element() ? *t.element() : ir::Type());
  }
  if (t.kind() == ir::Type::Kind::Sequence && v.is_sequence() && v.items().empty() &&
      v.elem_type().is_none() && t.element()) {
    return Value::sequence({}, *t.element());
  }
  if (t.kind() == ir::Type::Kind::Optional && v.is_optional() && !v.has_element() &&
      v.elem_type().is_none() && t.element()) {
    return Value::optional(std::nullopt, *t.element());
  }
  return v;
}

}  // namespace

int64_t live_bytes_limit(const SessionOptions& o) {
  if (o.max_live_bytes != 0) return o.max_live_bytes;  // < 0: none
  return physical_memory_bytes() / 4 * 3;
}

std::vector<Value> Session::run(const std::map<std::string, Value>& feeds) {
  const ir::Graph& g = *model_.graph;
  Frame f;
  f.opsets = &model_.opset_imports;
  std::unordered_set<std::string> known;
  for (const ir::Value* in : g.inputs()) {
    known.insert(in->name());
    auto it = feeds.find(in->name());
    if (it == feeds.end()) {
      if (in->const_value()) continue;  // an initializer supplies the default
      throw Error(ErrorKind::Input, "missing input '" + in->name() + "' (" +
                                        in->type().to_string() + "); give it a value");
    }
    Value v = adapt_feed(in, it->second);
    if (options_.check_inputs) check_value("input '" + in->name() + "'", in->type(), v);
    f.values.emplace(in, std::move(v));
  }
  for (const auto& [name, v] : feeds) {
    if (!known.count(name)) {
      throw Error(ErrorKind::Input, "the model has no input named '" + name + "'");
    }
  }
  RunLimits limits(options_.max_seconds, live_bytes_limit(options_));
  ScopedThreadPool pool(pool_);
  exec_->bind_initializers(g, f);
  exec_->run_graph(g, f);
  return exec_->collect_outputs(g, f);
}

std::vector<Value> Session::run_function(const ir::Function& fn, std::span<const Value> inputs,
                                         std::span<const ir::Attr> attrs) {
  AttrScope scope;
  for (const ir::Attr& a : attrs) scope.bound[a.name] = &a;
  std::vector<const Value*> ptrs;
  for (const Value& v : inputs) ptrs.push_back(v.is_none() ? nullptr : &v);
  RunLimits limits(options_.max_seconds, live_bytes_limit(options_));
  ScopedThreadPool pool(pool_);
  return exec_->call_function(fn, ptrs, scope, 0);
}

}  // namespace oxs::eval
