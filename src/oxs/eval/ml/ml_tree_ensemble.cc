// ai.onnx.ml TreeEnsembleRegressor and TreeEnsembleClassifier (opset 1 and
// 3). The attributes are compiled once per session into a Forest
// (ml_tree_compile.cc, kept in the node's kernel state); rows are then
// evaluated in batches, tree by tree, eight rows in lockstep, so a batch's
// inputs and the current tree stay in cache.
//
// Where the spec is silent the results follow ONNX Runtime 1.20 (checked in
// tests/eval/ort_ml_tree.cc): thresholds and sums in float unless X is double
// (or the attributes are double tensors); a tree's root is its first listed
// node; weights on branch nodes are ignored; a single target gets only
// PROBIT; two labels with one class id complete the second score as ORT does.
// Where ORT contradicts the spec, the spec wins: base_values are added to
// every target (ORT drops them for a target no leaf scored), two labels
// scored separately are labelled by the top score (ORT: by the sign of
// class 1's score, with raw 1/0 for integer labels), integer X works for the
// regressor too, and double thresholds compare float X in double (ORT
// rejects that model).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "oxs/eval/kernel.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/ml/ml_post_transform.h"
#include "oxs/eval/ml/ml_tree_ensemble.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {
namespace {

using ml::Forest;
using ml::NodeMode;
using ml::TreeAttrs;

constexpr const char* kMl = "ai.onnx.ml";

enum class Agg { Sum, Average, Min, Max };
// ---- attributes ----

const std::vector<int64_t>& ints_or_empty(const KernelContext& ctx, const char* name) {
  static const std::vector<int64_t> kEmpty;
  const ir::Attr* a = ctx.attr(name);
  return a ? a->ints : kEmpty;
}

// `name` (floats) or `name_as_tensor` (opset 3, usually double), as doubles.
std::vector<double> floats_or_tensor(const KernelContext& ctx, const std::string& name,
                                     bool* as_tensor) {
  const ir::Attr* f = ctx.attr(name);
  const ir::Attr* t = ctx.attr(name + "_as_tensor");
  if (f && t) ctx.fail("give either " + name + " or " + name + "_as_tensor, not both");
  std::vector<double> out;
  if (t) {
    if (!t->t) ctx.fail(name + "_as_tensor must be a tensor attribute");
    Tensor v = Tensor::from_ir(*t->t);
    if (!ir::is_floating(v.dtype())) {
      ctx.fail(name + "_as_tensor must hold floating-point values, got " +
               std::string(ir::dtype_name(v.dtype())));
    }
    Tensor d = cast_tensor(v, DataType::Double);
    out.assign(d.data<double>(), d.data<double>() + d.numel());
    *as_tensor = true;
  } else if (f) {
    out.assign(f->floats.begin(), f->floats.end());
  }
  return out;
}

struct Ensemble {
  TreeAttrs attrs;
  std::vector<double> base;
  bool doubles = false;  // some *_as_tensor attribute was given
};

Ensemble read_attrs(const KernelContext& ctx, bool classifier, int64_t n_targets) {
  Ensemble e;
  TreeAttrs& a = e.attrs;
  a.tree_ids = ints_or_empty(ctx, "nodes_treeids");
  a.node_ids = ints_or_empty(ctx, "nodes_nodeids");
  a.feature_ids = ints_or_empty(ctx, "nodes_featureids");
  a.true_ids = ints_or_empty(ctx, "nodes_truenodeids");
  a.false_ids = ints_or_empty(ctx, "nodes_falsenodeids");
  a.missing_tracks_true = ints_or_empty(ctx, "nodes_missing_value_tracks_true");
  a.modes = ctx.attr_strings("nodes_modes");
  a.values = floats_or_tensor(ctx, "nodes_values", &e.doubles);
  const char* p = classifier ? "class" : "target";
  a.weight_prefix = p;
  a.w_tree_ids = ints_or_empty(ctx, (std::string(p) + "_treeids").c_str());
  a.w_node_ids = ints_or_empty(ctx, (std::string(p) + "_nodeids").c_str());
  a.w_targets = ints_or_empty(ctx, (std::string(p) + "_ids").c_str());
  a.w_values = floats_or_tensor(ctx, std::string(p) + "_weights", &e.doubles);
  a.n_targets = n_targets;
  e.base = floats_or_tensor(ctx, "base_values", &e.doubles);
  return e;
}

// ---- evaluation ----

template <class Th>
inline bool compare(NodeMode m, Th v, Th t) {
  switch (m) {
    case NodeMode::Leq:
      return v <= t;
    case NodeMode::Lt:
      return v < t;
    case NodeMode::Gte:
      return v >= t;
    case NodeMode::Gt:
      return v > t;
    case NodeMode::Eq:
      return v == t;
    case NodeMode::Neq:
      return v != t;
    case NodeMode::Leaf:
      break;
  }
  return false;
}

// The leaf row `x` reaches from `root`. kMode is the mode of every branch
// when the forest has one (Leaf: look at each node's mode); kMissing says
// whether any node sends NaN to its true child.
template <NodeMode kMode, bool kMissing, class Th, class In>
inline const typename Forest<Th>::Node* find_leaf(const typename Forest<Th>::Node* nodes,
                                                  int32_t root, const In* x) {
  const typename Forest<Th>::Node* nd = nodes + root;
  while (nd->mode != NodeMode::Leaf) {
    Th v = static_cast<Th>(x[nd->feature]);
    bool go_true = compare<Th>(kMode == NodeMode::Leaf ? nd->mode : kMode, v, nd->value);
    if constexpr (kMissing) go_true = go_true || (nd->missing_true && std::isnan(v));
    nd = nodes + nd->kid[go_true];
  }
  return nd;
}

// Raw per-target aggregates of rows [0, n): scores[r*T + t] and has[r*T + t].
template <NodeMode kMode, bool kMissing, class Th, class In>
void accumulate(const Forest<Th>& f, Agg agg, const In* x, int64_t stride, int64_t rows, int64_t T,
                Th* scores, uint8_t* has) {
  const auto* nodes = f.nodes.data();
  const int32_t* wt = f.weight_target.data();
  const Th* wv = f.weight_value.data();
  using Node = typename Forest<Th>::Node;
  // Eight rows walk a tree in lockstep: their steps are independent, so the
  // loads and compares overlap instead of waiting on each other.
  constexpr int64_t kLanes = 8;
  std::vector<const Node*> leaves(static_cast<size_t>(rows));
  for (int32_t root : f.roots) {
    int64_t r0 = 0;
    for (; r0 + kLanes <= rows; r0 += kLanes) {
      const Node* cur[kLanes];
      for (int64_t k = 0; k < kLanes; ++k) cur[k] = nodes + root;
      for (bool active = cur[0]->mode != NodeMode::Leaf; active;) {
        active = false;
        for (int64_t k = 0; k < kLanes; ++k) {
          const Node* nd = cur[k];
          if (nd->mode == NodeMode::Leaf) continue;
          Th v = static_cast<Th>(x[(r0 + k) * stride + nd->feature]);
          bool go_true = compare<Th>(kMode == NodeMode::Leaf ? nd->mode : kMode, v, nd->value);
          if constexpr (kMissing) go_true = go_true || (nd->missing_true && std::isnan(v));
          // An indexed load, not a branch: the direction is data-dependent
          // and a branch would be mispredicted half the time.
          cur[k] = nodes + nd->kid[go_true];
          active = true;
        }
      }
      for (int64_t k = 0; k < kLanes; ++k) leaves[size_t(r0 + k)] = cur[k];
    }
    for (int64_t r = r0; r < rows; ++r) {
      leaves[size_t(r)] = find_leaf<kMode, kMissing, Th, In>(nodes, root, x + r * stride);
    }
    for (int64_t r = 0; r < rows; ++r) {
      const Node* leaf = leaves[size_t(r)];
      Th* s = scores + r * T;
      uint8_t* h = has + r * T;
      for (int32_t k = leaf->kid[1], e = leaf->kid[1] + leaf->kid[0]; k < e; ++k) {
        int32_t t = wt[k];
        Th w = wv[k];
        switch (agg) {
          case Agg::Sum:
          case Agg::Average:
            s[t] += w;
            break;
          case Agg::Min:
            s[t] = (!h[t] || w < s[t]) ? w : s[t];
            break;
          case Agg::Max:
            s[t] = (!h[t] || w > s[t]) ? w : s[t];
            break;
        }
        h[t] = 1;
      }
    }
  }
}

template <class Th, class In>
void accumulate_any(const Forest<Th>& f, Agg agg, const In* x, int64_t stride, int64_t rows,
                    int64_t T, Th* scores, uint8_t* has) {
  NodeMode m = f.nodes[size_t(f.roots[0])].mode;
  if (f.same_mode && m == NodeMode::Leq && !f.any_missing) {
    accumulate<NodeMode::Leq, false>(f, agg, x, stride, rows, T, scores, has);
  } else if (f.same_mode && m == NodeMode::Lt && !f.any_missing) {
    accumulate<NodeMode::Lt, false>(f, agg, x, stride, rows, T, scores, has);
  } else if (f.any_missing) {
    accumulate<NodeMode::Leaf, true>(f, agg, x, stride, rows, T, scores, has);
  } else {
    accumulate<NodeMode::Leaf, false>(f, agg, x, stride, rows, T, scores, has);
  }
}

// Calls fin(row, scores, has) for each row of X after aggregating every tree.
template <class Th, class Fin>
void run_forest(KernelContext& ctx, const Forest<Th>& f, Agg agg, int64_t T, const Tensor& x,
                Fin&& fin) {
  if (x.rank() != 1 && x.rank() != 2) {
    ctx.fail("X must be 1-D [C] or 2-D [N,C], got shape " + dims_to_string(x.dims()));
  }
  int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
  int64_t cols = x.dims().back();
  if (f.max_feature >= cols) {
    ctx.fail("a tree node reads feature " + std::to_string(f.max_feature) + " but X has only " +
             std::to_string(cols) + " columns (shape " + dims_to_string(x.dims()) + ")");
  }
  constexpr int64_t kBatch = 128;  // rows per pass over the forest
  std::vector<Th> scores(checked_buffer(ctx, {kBatch, T}, sizeof(Th), "the scores"));
  std::vector<uint8_t> has(size_t(kBatch * T));
  for (int64_t r0 = 0; r0 < rows; r0 += kBatch) {
    int64_t n = std::min(kBatch, rows - r0);
    std::fill(scores.begin(), scores.end(), Th(0));
    std::fill(has.begin(), has.end(), uint8_t(0));
    auto go = [&](auto tag) {
      using In = decltype(tag);
      accumulate_any<Th, In>(f, agg, x.data<In>() + r0 * cols, cols, n, T, scores.data(),
                             has.data());
    };
    switch (x.dtype()) {
      case DataType::Float:
        go(float{});
        break;
      case DataType::Double:
        go(double{});
        break;
      case DataType::Int64:
        go(int64_t{});
        break;
      case DataType::Int32:
        go(int32_t{});
        break;
      default:
        ctx.fail("X must be float, double, int64 or int32, got " +
                 std::string(ir::dtype_name(x.dtype())));
    }
    for (int64_t r = 0; r < n; ++r) fin(r0 + r, scores.data() + r * T, has.data() + r * T);
  }
}

template <class Th>
Forest<Th> compile(KernelContext& ctx, const TreeAttrs& a) {
  try {
    return ml::compile_forest<Th>(a, ctx.node().op_type());
  } catch (const Error& e) {
    ctx.fail(e.message());
  }
}

// A node's compiled ensemble, kept in the session's per-node state so a
// session compiles each ensemble once (per threshold type). The fingerprint
// (identity and sizes of the attribute arrays) guards against the state
// outliving the attributes it was built from.
using Fingerprint = std::vector<std::pair<const void*, size_t>>;
struct Prepared {
  Fingerprint fingerprint;
  bool doubles = false;  // some *_as_tensor attribute: compare in double
  std::vector<double> base;
  std::shared_ptr<const Forest<float>> f32;
  std::shared_ptr<const Forest<double>> f64;
};

Fingerprint fingerprint_of(const ir::Node& n, bool* has_references) {
  Fingerprint fp;
  for (const ir::Attr& a : n.attrs()) {
    if (a.is_reference()) *has_references = true;
    fp.emplace_back(&a, a.ints.size());
    fp.emplace_back(a.ints.data(), a.floats.size());
    fp.emplace_back(a.floats.data(), a.strings.size());
    fp.emplace_back(a.strings.data(), static_cast<size_t>(a.i));
    fp.emplace_back(a.t.get(), a.s.size());
  }
  return fp;
}

// The prepared ensemble with the forest for `want_double` compiled.
std::shared_ptr<Prepared> prepare(KernelContext& ctx, bool classifier, int64_t T,
                                  bool want_double) {
  bool refs = false;
  Fingerprint fp = fingerprint_of(ctx.node(), &refs);
  // Attributes bound per call (function bodies) are not cached.
  std::shared_ptr<void>* slot = refs ? nullptr : ctx.state_slot();
  std::shared_ptr<Prepared> p;
  if (slot && *slot) {
    p = std::static_pointer_cast<Prepared>(*slot);
    if (p->fingerprint != fp) p.reset();
  }
  if (p && (want_double || p->doubles ? p->f64 != nullptr : p->f32 != nullptr)) return p;
  Ensemble e = read_attrs(ctx, classifier, T);
  auto q = std::make_shared<Prepared>(p ? *p : Prepared{});
  q->fingerprint = std::move(fp);
  q->doubles = e.doubles;
  q->base = std::move(e.base);
  if (want_double || q->doubles) {
    q->f64 = std::make_shared<const Forest<double>>(compile<double>(ctx, e.attrs));
  } else {
    q->f32 = std::make_shared<const Forest<float>>(compile<float>(ctx, e.attrs));
  }
  if (slot) *slot = q;
  return q;
}

Agg parse_agg(const KernelContext& ctx) {
  std::string s = ctx.attr_string("aggregate_function", "SUM");
  if (s == "SUM") return Agg::Sum;
  if (s == "AVERAGE") return Agg::Average;
  if (s == "MIN") return Agg::Min;
  if (s == "MAX") return Agg::Max;
  ctx.fail("unknown aggregate_function '" + s + "' (expected SUM, AVERAGE, MIN or MAX)");
}

// ---- TreeEnsembleRegressor ----

template <class Th>
void regress(KernelContext& ctx, const Forest<Th>& f, const Prepared& e, int64_t T) {
  Agg agg = parse_agg(ctx);
  PostTransform post = parse_post_transform(ctx);
  if (!e.base.empty() && int64_t(e.base.size()) != T) {
    ctx.fail("base_values has " + std::to_string(e.base.size()) + " values but n_targets is " +
             std::to_string(T) + "; give one per target or none");
  }
  const Tensor& x = ctx.tensor(0);
  int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
  Tensor& y = ctx.alloc_output(0, DataType::Float, {rows, T});
  float* out = y.mutable_data<float>();
  const Th ntrees = static_cast<Th>(f.roots.size());
  run_forest<Th>(ctx, f, agg, T, x, [&](int64_t r, Th* s, const uint8_t* h) {
    float* z = out + r * T;
    for (int64_t t = 0; t < T; ++t) {
      Th v = s[t];
      if (agg == Agg::Average) v /= ntrees;
      if ((agg == Agg::Min || agg == Agg::Max) && !h[t]) v = 0;
      if (!e.base.empty()) v += static_cast<Th>(e.base[size_t(t)]);
      z[t] = static_cast<float>(v);
    }
    // A single target gets only PROBIT (as ONNX Runtime).
    apply_post_transform(post, z, 1, T);
  });
}

void tree_ensemble_regressor(KernelContext& ctx) {
  const ir::Attr* nt = ctx.attr("n_targets");
  int64_t T = nt ? nt->i : 1;
  if (T < 1) ctx.fail("n_targets must be at least 1, got " + std::to_string(T));
  // Per-row score buffers are allocated from it before any weight is read.
  if (T > (int64_t(1) << 24)) {
    ctx.fail("n_targets " + std::to_string(T) + " is more than oxs supports (2^24)");
  }
  auto p = prepare(ctx, false, T, ctx.tensor(0).dtype() == DataType::Double);
  if (p->f64 && (p->doubles || ctx.tensor(0).dtype() == DataType::Double)) {
    regress<double>(ctx, *p->f64, *p, T);
  } else {
    regress<float>(ctx, *p->f32, *p, T);
  }
}

// ---- TreeEnsembleClassifier ----

template <class Th>
void classify(KernelContext& ctx, const Forest<Th>& f, const Prepared& e, int64_t C,
              bool string_labels) {
  PostTransform post = parse_post_transform(ctx);
  const size_t nb = e.base.size();
  if (nb != 0 && int64_t(nb) != C && !(C == 2 && nb == 1)) {
    ctx.fail("base_values has " + std::to_string(nb) + " values but there are " +
             std::to_string(C) + " classes; give one per class or none");
  }
  const Tensor& x = ctx.tensor(0);
  int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
  std::vector<int64_t> int_labels = ctx.attr_ints("classlabels_int64s");
  std::vector<std::string> str_labels = ctx.attr_strings("classlabels_strings");
  Tensor& label = ctx.alloc_output(0, string_labels ? DataType::String : DataType::Int64, {rows});
  std::vector<int64_t> label_index(static_cast<size_t>(rows));
  Tensor& zt = ctx.alloc_output(1, DataType::Float, {rows, C});
  float* zout = zt.mutable_data<float>();
  // One class id over two labels: the trees score only that class and the
  // other column is derived from it (ONNX Runtime's binary case).
  const bool binary = C == 2 && f.distinct_targets == 1;
  const bool all_pos = f.all_weights_nonnegative;
  const std::vector<double>& base = e.base;
  run_forest<Th>(ctx, f, Agg::Sum, C, x, [&](int64_t r, Th* s, const uint8_t* h0) {
    float* z = zout + r * C;
    if (!binary) {
      // Several class ids: each class has its score, the label is the top
      // one. (ONNX Runtime, for two labels, labels by the sign of class 1's
      // score and writes raw 1/0 for integer labels; the spec asks for the
      // top class.)
      std::vector<uint8_t> hv(h0, h0 + C);
      for (size_t k = 0; k < nb; ++k) {
        s[k] += static_cast<Th>(base[k]);
        hv[k] = 1;
      }
      int64_t best = -1;
      for (int64_t k = 0; k < C; ++k) {
        if (hv[size_t(k)] && (best == -1 || s[k] > s[best])) best = k;
      }
      label_index[size_t(r)] = best < 0 ? 0 : best;
      for (int64_t k = 0; k < C; ++k) z[k] = static_cast<float>(s[k]);
      apply_post_transform(post, z, 1, C);
      return;
    }
    // Two labels, one class id: ONNX Runtime's binary case. A class that no
    // leaf scored reads as 0 even after a base value was added to it (ORT's
    // has_score), and the label comes from class 1's score (or class 0's
    // when class 1 has none) against 0.5 (all weights positive) or 0.
    uint8_t h[2] = {h0[0], h0[1]};
    Th s0 = s[0], s1 = s[1];
    size_t size = 2;
    if (nb == 2) {
      if (h[1]) {
        // ORT adds base_values[1] to the class-0 score here and ignores
        // base_values[0]; the spec does not say.
        s1 = static_cast<Th>(base[1]) + s0;
        s0 = -s1;
      } else {
        s1 += static_cast<Th>(base[1]);
        s0 += static_cast<Th>(base[0]);
      }
    } else {
      if (nb == 1) s0 += static_cast<Th>(base[0]);
      if (!h[1]) size = 1;
    }
    Th pos = (size == 2 && h[1]) ? s1 : (h[0] ? s0 : Th(0));
    bool positive = all_pos ? pos > Th(0.5) : pos > Th(0);
    label_index[size_t(r)] = positive ? 1 : 0;
    float v0 = h[0] ? static_cast<float>(s0) : 0.f;
    if (size == 2) {
      z[0] = v0;
      z[1] = h[1] ? static_cast<float>(s1) : 0.f;
      apply_post_transform(post, z, 1, 2);
      return;
    }
    // One score: all-positive weights make it a probability ([1 - s, s]),
    // mixed signs a margin ([-s, s]).
    expand_binary_scores(post, all_pos ? BinaryScores::OneMinus : BinaryScores::Negate, &v0, 1, z);
  });
  for (int64_t r = 0; r < rows; ++r) {
    size_t k = size_t(label_index[size_t(r)]);
    if (string_labels) {
      label.mutable_strings()[size_t(r)] = str_labels[k];
    } else {
      label.mutable_data<int64_t>()[r] = int_labels[k];
    }
  }
}

void tree_ensemble_classifier(KernelContext& ctx) {
  bool has_ints = ctx.has_attr("classlabels_int64s");
  bool has_strings = ctx.has_attr("classlabels_strings");
  if (has_ints == has_strings) {
    ctx.fail("exactly one of classlabels_int64s and classlabels_strings must be given");
  }
  int64_t C = has_ints ? int64_t(ctx.attr("classlabels_int64s")->ints.size())
                       : int64_t(ctx.attr("classlabels_strings")->strings.size());
  if (C < 1) ctx.fail("the class label list is empty");
  auto p = prepare(ctx, true, C, ctx.tensor(0).dtype() == DataType::Double);
  if (p->f64 && (p->doubles || ctx.tensor(0).dtype() == DataType::Double)) {
    classify<double>(ctx, *p->f64, *p, C, has_strings);
  } else {
    classify<float>(ctx, *p->f32, *p, C, has_strings);
  }
}

}  // namespace

void register_ml_tree_kernels(KernelRegistry& r) {
  r.add(kMl, "TreeEnsembleRegressor", 1, tree_ensemble_regressor);
  r.add(kMl, "TreeEnsembleClassifier", 1, tree_ensemble_classifier);
}

}  // namespace oxs::eval
