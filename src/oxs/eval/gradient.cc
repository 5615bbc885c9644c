// ai.onnx.preview.training.Gradient: reverse-mode differentiation of the
// part of the enclosing graph that computes `y` from `xs` (with `zs` as the
// other, non-differentiated inputs). The kernel re-runs that slice with the
// node's input values (through the executor, so every op the evaluator runs
// works forward), then walks it backwards applying one vector-Jacobian rule
// per op, summing the contributions that reach each value. Only float and
// double are differentiated; an op without a rule is an Unsupported error
// naming it, never a silent zero.
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "oxs/eval/broadcast.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/ir/graph.h"
#include "oxs/ir/topo_sort.h"

namespace oxs::eval {
namespace {

// `g` (of broadcast shape) summed down to `dims` (the shape of an operand).
template <class T>
Tensor unbroadcast(const Tensor& g, const Dims& dims) {
  if (g.dims() == dims) return g;
  Tensor out(g.dtype(), dims);
  T* po = out.mutable_data<T>();
  const T* pg = g.data<T>();
  for_each_run<1>(g.dims(), {&dims},
                  [&](int64_t o, const int64_t* off, int64_t n, const int64_t* s) {
                    for (int64_t i = 0; i < n; ++i) po[off[0] + i * s[0]] += pg[o + i];
                  });
  return out;
}

template <class T, class F>
Tensor binary(const Tensor& a, const Tensor& b, F&& f) {
  Tensor out(a.dtype(), broadcast_shapes(a.dims(), b.dims()));
  binary_broadcast<T, T, T>(a, b, out, f);
  return out;
}

template <class T, class F>
Tensor unary(const Tensor& a, F&& f) {
  Tensor out(a.dtype(), a.dims());
  const T* pa = a.data<T>();
  T* po = out.mutable_data<T>();
  for (int64_t i = 0; i < a.numel(); ++i) po[i] = f(pa[i]);
  return out;
}

// C[b] = op(A[b]) * op(B[b]) over the shared leading (batch) dims.
template <class T>
Tensor batched_matmul(const Tensor& a, bool ta, const Tensor& b, bool tb) {
  size_t r = a.rank();
  int64_t m = ta ? a.dim(r - 1) : a.dim(r - 2), k = ta ? a.dim(r - 2) : a.dim(r - 1);
  int64_t n = tb ? b.dim(r - 2) : b.dim(r - 1);
  Dims od(a.dims().begin(), a.dims().end() - 2);
  int64_t batch = checked_numel(od, "batch size");
  od.push_back(m);
  od.push_back(n);
  Tensor out(a.dtype(), od);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* pc = out.mutable_data<T>();
  for (int64_t q = 0; q < batch; ++q) {
    const T* A = pa + q * m * k;
    const T* B = pb + q * k * n;
    T* C = pc + q * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t l = 0; l < k; ++l) {
        T av = ta ? A[l * m + i] : A[i * k + l];
        for (int64_t j = 0; j < n; ++j) C[i * n + j] += av * (tb ? B[j * k + l] : B[l * n + j]);
      }
    }
  }
  return out;
}

class Backward {
 public:
  Backward(KernelContext& ctx, std::unordered_map<const ir::Value*, Value>& fwd,
           const std::unordered_set<const ir::Value*>& needs)
      : ctx_(ctx), fwd_(fwd), needs_(needs) {}

  void seed(const ir::Value* y, Tensor ones) { grads_.emplace(y, std::move(ones)); }
  const Tensor* grad(const ir::Value* v) const {
    auto it = grads_.find(v);
    return it == grads_.end() ? nullptr : &it->second;
  }

  template <class T>
  void step(const ir::Node& n) {
    bool any = false;
    for (size_t i = 0; i < n.num_outputs(); ++i) any = any || (n.output(i) && grad(n.output(i)));
    if (!any) return;
    const Tensor* g = grad(n.output(0));
    if (!g || n.num_outputs() != 1) unsupported(n);  // every rule is for a one-output op
    const std::string& op = n.op_type();
    auto value = [&](const ir::Value* v) -> const Tensor& {
      auto it = v ? fwd_.find(v) : fwd_.end();
      if (it == fwd_.end() || !it->second.is_tensor())
        ctx_.fail("Gradient: the forward value of '" + (v ? v->name() : std::string("<absent>")) +
                  "' (at node '" + n.display_name() + "') is not an available tensor");
      return it->second.tensor();
    };
    auto in = [&](size_t i) -> const Tensor& { return value(n.input(i)); };
    auto out = [&]() -> const Tensor& { return value(n.output(0)); };
    auto give = [&](size_t i, const Tensor& t) {
      if (needs_.count(n.input(i))) add<T>(n.input(i), unbroadcast<T>(t, in(i).dims()));
    };
    if (n.domain() != "" && n.domain() != "ai.onnx") unsupported(n);
    if (op == "Add" || op == "Sum" || op == "Identity") {
      for (size_t i = 0; i < n.num_inputs(); ++i) give(i, *g);
    } else if (op == "Sub") {
      give(0, *g);
      give(1, unary<T>(*g, [](T v) { return -v; }));
    } else if (op == "Neg") {
      give(0, unary<T>(*g, [](T v) { return -v; }));
    } else if (op == "Mul") {
      give(0, binary<T>(*g, in(1), [](T u, T b) { return u * b; }));
      give(1, binary<T>(*g, in(0), [](T u, T a) { return u * a; }));
    } else if (op == "Div") {
      give(0, binary<T>(*g, in(1), [](T u, T b) { return u / b; }));
      Tensor q = binary<T>(out(), in(1), [](T y, T b) { return y / b; });  // a / b^2
      give(1, binary<T>(*g, q, [](T u, T v) { return -u * v; }));
    } else if (op == "Pow") {
      Tensor da = binary<T>(in(0), in(1), [](T a, T b) { return b * T(std::pow(a, b - T(1))); });
      give(0, binary<T>(*g, da, [](T u, T v) { return u * v; }));
      if (needs_.count(n.input(1))) {
        Tensor db = binary<T>(out(), in(0), [](T y, T a) { return y * T(std::log(a)); });
        give(1, binary<T>(*g, db, [](T u, T v) { return u * v; }));
      }
    } else if (op == "Relu") {
      give(0, binary<T>(*g, in(0), [](T u, T x) { return x > T(0) ? u : T(0); }));
    } else if (op == "Sigmoid") {
      give(0, binary<T>(*g, out(), [](T u, T y) { return u * y * (T(1) - y); }));
    } else if (op == "Tanh") {
      give(0, binary<T>(*g, out(), [](T u, T y) { return u * (T(1) - y * y); }));
    } else if (op == "Exp") {
      give(0, binary<T>(*g, out(), [](T u, T y) { return u * y; }));
    } else if (op == "Log") {
      give(0, binary<T>(*g, in(0), [](T u, T x) { return u / x; }));
    } else if (op == "Sqrt") {
      give(0, binary<T>(*g, out(), [](T u, T y) { return u / (T(2) * y); }));
    } else if (op == "MatMul") {
      const Tensor &a = in(0), &b = in(1);
      if (a.rank() < 2 || a.rank() != b.rank() ||
          !std::equal(a.dims().begin(), a.dims().end() - 2, b.dims().begin()))
        ctx_.fail("Gradient: MatMul '" + n.display_name() +
                      "' is differentiated only for operands of rank >= 2 with equal batch "
                      "dimensions, got " +
                      dims_to_string(a.dims()) + " and " + dims_to_string(b.dims()),
                  ErrorKind::Unsupported);
      give(0, batched_matmul<T>(*g, false, b, true));
      give(1, batched_matmul<T>(a, true, *g, false));
    } else if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
      add<T>(n.input(0), g->reshaped(in(0).dims()));
    } else if (op == "Transpose") {
      std::vector<int64_t> perm = ctx_attr_perm(n, in(0).rank());
      add<T>(n.input(0), transpose<T>(*g, perm));
    } else {
      unsupported(n);
    }
  }

 private:
  template <class T>
  void add(const ir::Value* v, Tensor t) {
    if (!v || !needs_.count(v)) return;
    auto it = grads_.find(v);
    if (it == grads_.end()) {
      grads_.emplace(v, t.clone());
      return;
    }
    T* p = it->second.mutable_data<T>();
    const T* q = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] += q[i];
  }

  // The inverse of Transpose's perm (default: reversed axes).
  static std::vector<int64_t> ctx_attr_perm(const ir::Node& n, size_t rank) {
    std::vector<int64_t> perm;
    if (const ir::Attr* a = n.attr("perm")) perm = a->ints;
    if (perm.empty()) {
      for (size_t i = rank; i-- > 0;) perm.push_back(int64_t(i));
    }
    std::vector<int64_t> inv(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inv[size_t(perm[i])] = int64_t(i);
    return inv;
  }

  template <class T>
  static Tensor transpose(const Tensor& g, const std::vector<int64_t>& perm) {
    Dims od(g.rank());
    for (size_t i = 0; i < g.rank(); ++i) od[i] = g.dim(size_t(perm[i]));
    Tensor out(g.dtype(), od);
    std::vector<int64_t> in_strides = row_major_strides(g.dims());
    std::vector<int64_t> idx(g.rank(), 0);
    const T* pg = g.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t o = 0; o < out.numel(); ++o) {
      int64_t off = 0;
      for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * in_strides[size_t(perm[d])];
      po[o] = pg[off];
      for (size_t d = idx.size(); d-- > 0;) {
        if (++idx[d] < od[d]) break;
        idx[d] = 0;
      }
    }
    return out;
  }

  [[noreturn]] void unsupported(const ir::Node& n) const {
    ctx_.fail("Gradient: no differentiation rule for " + n.op_type() + " (node '" +
                  n.display_name() +
                  "'); supported: Add, Sub, Mul, Div, Pow, Neg, Identity, Sum, Relu, Sigmoid, "
                  "Tanh, Exp, Log, Sqrt, MatMul, Reshape, Flatten, Squeeze, Unsqueeze, Transpose",
              ErrorKind::Unsupported);
  }

  KernelContext& ctx_;
  std::unordered_map<const ir::Value*, Value>& fwd_;
  const std::unordered_set<const ir::Value*>& needs_;
  std::unordered_map<const ir::Value*, Tensor> grads_;
};

void gradient_k(KernelContext& ctx) {
  const ir::Graph* g = ctx.node().graph();
  if (!g) ctx.fail("Gradient: the node is not in a graph");
  std::vector<std::string> xs = ctx.attr_strings("xs");
  std::vector<std::string> zs = ctx.attr_strings("zs");
  std::string y_name = ctx.required_attr("y").s;
  if (ctx.num_inputs() != xs.size() + zs.size())
    ctx.fail("Gradient takes one input per name in 'xs' and 'zs' (" +
             std::to_string(xs.size() + zs.size()) + "), given " +
             std::to_string(ctx.num_inputs()));
  if (ctx.num_outputs() != xs.size())
    ctx.fail("Gradient has one output per name in 'xs' (" + std::to_string(xs.size()) + "), not " +
             std::to_string(ctx.num_outputs()));

  // Names of the enclosing graph's values.
  std::unordered_map<std::string, const ir::Value*> by_name;
  for (const ir::Value* v : g->inputs()) by_name.emplace(v->name(), v);
  for (const ir::Value* v : g->initializers()) by_name.emplace(v->name(), v);
  for (const ir::Node* n : g->nodes()) {
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      if (const ir::Value* v = n->output(i)) by_name.emplace(v->name(), v);
    }
  }
  auto lookup = [&](const std::string& name, const char* attr) {
    auto it = by_name.find(name);
    if (it == by_name.end())
      ctx.fail(std::string("Gradient: '") + name + "' (in attribute '" + attr +
               "') names no value of graph '" + g->name() + "'");
    return it->second;
  };
  const ir::Value* y = lookup(y_name, "y");
  std::vector<std::pair<const ir::Value*, Value>> bound;
  std::unordered_set<const ir::Value*> leaves;
  for (size_t i = 0; i < xs.size() + zs.size(); ++i) {
    const ir::Value* v = i < xs.size() ? lookup(xs[i], "xs") : lookup(zs[i - xs.size()], "zs");
    bound.emplace_back(v, ctx.input(i));
    leaves.insert(v);
  }

  // The slice: producers of y's ancestors, stopping at xs and zs.
  std::unordered_set<const ir::Node*> slice;
  std::vector<const ir::Value*> stack = {y};
  std::unordered_set<const ir::Value*> seen = {y};
  while (!stack.empty()) {
    const ir::Value* v = stack.back();
    stack.pop_back();
    const ir::Node* p = v->producer();
    if (leaves.count(v) || !p || !slice.insert(p).second) continue;
    if (!p->subgraphs().empty())
      ctx.fail("Gradient: cannot differentiate through " + p->op_type() + " '" + p->display_name() +
                   "' (a node with subgraphs)",
               ErrorKind::Unsupported);
    for (size_t i = 0; i < p->num_inputs(); ++i) {
      if (const ir::Value* u = p->input(i); u && seen.insert(u).second) stack.push_back(u);
    }
  }
  if (slice.count(&ctx.node())) {
    ctx.fail("Gradient: y ('" + y_name + "') depends on this node's own outputs");
  }
  std::vector<const ir::Node*> order;
  for (const ir::Node* n : ir::topological_order(*g)) {
    if (slice.count(n)) order.push_back(n);
  }

  // Forward: values of every slice value, and which of them depend on xs.
  std::vector<const ir::Value*> wanted;
  std::unordered_set<const ir::Value*> needs(leaves.begin(), leaves.end());
  for (size_t i = xs.size(); i < bound.size(); ++i) needs.erase(bound[i].first);
  for (const ir::Node* n : order) {
    bool dep = false;
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      if (const ir::Value* u = n->input(i)) {
        wanted.push_back(u);
        dep = dep || needs.count(u);
      }
    }
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      if (const ir::Value* u = n->output(i)) {
        wanted.push_back(u);
        if (dep) needs.insert(u);
      }
    }
  }
  wanted.push_back(y);
  std::vector<Value> got = ctx.run_nodes(*g, order, bound, wanted);
  std::unordered_map<const ir::Value*, Value> fwd;
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (!got[i].is_none()) fwd.insert_or_assign(wanted[i], got[i]);
  }
  for (const auto& [v, val] : bound) fwd.insert_or_assign(v, val);
  if (!fwd.count(y) || !fwd.at(y).is_tensor())
    ctx.fail("Gradient: y '" + y_name + "' is not a tensor computed from xs and zs");
  const Tensor& yt = fwd.at(y).tensor();
  DataType dt = yt.dtype();
  if (dt != DataType::Float && dt != DataType::Double)
    ctx.fail("Gradient: y '" + y_name + "' is " + std::string(ir::dtype_name(dt)) +
                 "; only float and double are differentiated",
             ErrorKind::Unsupported);

  Backward bw(ctx, fwd, needs);
  Tensor ones(dt, yt.dims());
  for (int64_t i = 0; i < ones.numel(); ++i) {
    if (dt == DataType::Float)
      ones.mutable_data<float>()[i] = 1.0f;
    else
      ones.mutable_data<double>()[i] = 1.0;
  }
  bw.seed(y, std::move(ones));
  for (size_t k = order.size(); k-- > 0;) {
    if (dt == DataType::Float)
      bw.step<float>(*order[k]);
    else
      bw.step<double>(*order[k]);
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor* gx = bw.grad(bound[i].first);
    const Tensor& x = ctx.input(i).tensor();
    if (gx)
      ctx.set_output(i, gx->clone());
    else
      ctx.alloc_output(i, x.dtype(), x.dims());  // y does not depend on x: zeros
  }
}

}  // namespace

void register_gradient_kernels(KernelRegistry& r) {
  r.add("ai.onnx.preview.training", "Gradient", 1, gradient_k);
}

}  // namespace oxs::eval
