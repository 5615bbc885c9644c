// ai.onnx.ml TreeEnsemble (5): every tree of the ensemble, from its root in
// tree_roots, compares one feature of the row with its node's split
// (nodes_modes: 0 <=, 1 <, 2 >=, 3 >, 4 ==, 5 !=, 6 member of a set) and
// follows the true or false branch, which names either another node or,
// when nodes_trueleafs/nodes_falseleafs say so, a leaf (an index into
// leaf_targetids/leaf_weights). The leaves reached add their weight to
// their target; aggregate_function (0 average, 1 sum, 2 min, 3 max) combines
// the trees' weights per target, then post_transform (0 none, 1 softmax,
// 2 logistic, 3 softmax_zero, 4 probit) applies. A NaN feature takes the
// false branch, or the true one where nodes_missing_value_tracks_true is 1.
// The sets of the member nodes are the runs of membership_values between
// NaNs, one per member node in node order.
//
// Every index is checked once when the node is read; a walk longer than
// the node count (a cycle) is an error, never an endless loop.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/common/modern_kernels.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/ml/ml_post_transform.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

enum Mode : int64_t { Leq, Lt, Gte, Gt, Eq, Neq, Member };

std::vector<double> tensor_attr(const KernelContext& ctx, const char* name, bool required) {
  const ir::Attr* a = ctx.attr(name);
  if (a == nullptr || a->t == nullptr) {
    if (required) ctx.fail(std::string("attribute '") + name + "' (a tensor) is required");
    return {};
  }
  return read_as<double>(Tensor::from_ir(*a->t));
}

struct Ensemble {
  std::vector<int64_t> feature, true_id, false_id, mode, tracks_true;
  std::vector<uint8_t> true_leaf, false_leaf;
  std::vector<double> split;
  std::vector<std::vector<double>> sets;  // per node (member nodes only)
  std::vector<int64_t> roots, leaf_target;
  std::vector<double> leaf_weight;
  int64_t n_targets = 0;
};

Ensemble read_ensemble(const KernelContext& ctx, int64_t n_features) {
  Ensemble e;
  e.feature = ctx.attr_ints("nodes_featureids");
  e.true_id = ctx.attr_ints("nodes_truenodeids");
  e.false_id = ctx.attr_ints("nodes_falsenodeids");
  e.split = tensor_attr(ctx, "nodes_splits", true);
  for (double m : tensor_attr(ctx, "nodes_modes", true)) e.mode.push_back(int64_t(m));
  for (int64_t v : ctx.attr_ints("nodes_trueleafs")) e.true_leaf.push_back(v != 0);
  for (int64_t v : ctx.attr_ints("nodes_falseleafs")) e.false_leaf.push_back(v != 0);
  e.tracks_true = ctx.attr_ints("nodes_missing_value_tracks_true");
  e.roots = ctx.attr_ints("tree_roots");
  e.leaf_target = ctx.attr_ints("leaf_targetids");
  e.leaf_weight = tensor_attr(ctx, "leaf_weights", true);
  e.n_targets = ctx.attr_int("n_targets", 0);
  const size_t nodes = e.feature.size();
  for (size_t len : {e.true_id.size(), e.false_id.size(), e.split.size(), e.mode.size(),
                     e.true_leaf.size(), e.false_leaf.size()}) {
    if (len != nodes) {
      ctx.fail("the nodes_* attributes must all have one entry per node (" + std::to_string(nodes) +
               " nodes_featureids)");
    }
  }
  if (!e.tracks_true.empty() && e.tracks_true.size() != nodes) {
    ctx.fail("nodes_missing_value_tracks_true must have one entry per node");
  }
  const size_t leaves = e.leaf_target.size();
  if (e.leaf_weight.size() != leaves) ctx.fail("leaf_targetids and leaf_weights differ in length");
  if (e.n_targets < 1 || e.n_targets > (int64_t(1) << 24)) ctx.fail("n_targets must be positive");
  for (int64_t t : e.leaf_target) {
    if (t < 0 || t >= e.n_targets) ctx.fail("leaf_targetids must be in [0, n_targets)");
  }
  for (int64_t r : e.roots) {
    if (r < 0 || size_t(r) >= nodes) ctx.fail("tree_roots must index nodes");
  }
  const std::vector<double> members = tensor_attr(ctx, "membership_values", false);
  size_t at = 0;
  e.sets.resize(nodes);
  for (size_t i = 0; i < nodes; ++i) {
    if (e.mode[i] < Leq || e.mode[i] > Member) ctx.fail("nodes_modes must be in [0, 6]");
    if (e.feature[i] < 0 || e.feature[i] >= n_features) {
      ctx.fail("nodes_featureids[" + std::to_string(i) + "] is not a feature of X");
    }
    for (auto [id, leaf] :
         {std::pair{e.true_id[i], e.true_leaf[i]}, {e.false_id[i], e.false_leaf[i]}}) {
      if (id < 0 || size_t(id) >= (leaf ? leaves : nodes)) {
        ctx.fail("node " + std::to_string(i) + " branches to a " + (leaf ? "leaf" : "node") +
                 " that does not exist (" + std::to_string(id) + ")");
      }
    }
    if (e.mode[i] == Member) {
      if (at > members.size()) ctx.fail("membership_values has fewer sets than member nodes");
      while (at < members.size() && !std::isnan(members[at])) e.sets[i].push_back(members[at++]);
      ++at;  // the NaN that ends the set
    }
  }
  return e;
}

bool goes_true(const Ensemble& e, size_t i, double v) {
  if (std::isnan(v)) return !e.tracks_true.empty() && e.tracks_true[i] != 0;
  const double s = e.split[i];
  switch (e.mode[i]) {
    case Leq:
      return v <= s;
    case Lt:
      return v < s;
    case Gte:
      return v >= s;
    case Gt:
      return v > s;
    case Eq:
      return v == s;
    case Neq:
      return v != s;
    default:
      for (double m : e.sets[i]) {
        if (m == v) return true;
      }
      return false;
  }
}

void tree_ensemble_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  require_rank(ctx, x, 1, 2, "X");
  const int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
  const int64_t features = x.rank() == 2 ? x.dim(1) : x.dim(0);
  const Ensemble e = read_ensemble(ctx, features);
  const int64_t agg = attr_int_in(ctx, "aggregate_function", 1, 0, 3);
  const int64_t post = attr_int_in(ctx, "post_transform", 0, 0, 4);
  const int64_t nodes = int64_t(e.feature.size());
  check_work(ctx, {rows, int64_t(e.roots.size()), std::max<int64_t>(nodes, 1)}, "TreeEnsemble");
  const std::vector<double> xv = read_as<double>(x);
  const size_t T = size_t(e.n_targets);
  std::vector<double> out(size_t(checked_mul(ctx, rows, e.n_targets, "output size")), 0.0);
  std::vector<double> acc(T);
  std::vector<uint8_t> hit(T);
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = xv.data() + r * features;
    const double init = agg == 2   ? std::numeric_limits<double>::infinity()
                        : agg == 3 ? -std::numeric_limits<double>::infinity()
                                   : 0.0;
    std::fill(acc.begin(), acc.end(), init);
    std::fill(hit.begin(), hit.end(), 0);
    for (int64_t root : e.roots) {
      size_t i = size_t(root);
      int64_t leaf = -1;
      for (int64_t steps = 0; leaf < 0; ++steps) {
        if (steps > nodes) ctx.fail("tree from root " + std::to_string(root) + " has a cycle");
        const bool t = goes_true(e, i, row[e.feature[i]]);
        const int64_t next = t ? e.true_id[i] : e.false_id[i];
        if (t ? e.true_leaf[i] : e.false_leaf[i]) {
          leaf = next;
        } else {
          i = size_t(next);
        }
      }
      const size_t target = size_t(e.leaf_target[size_t(leaf)]);
      const double w = e.leaf_weight[size_t(leaf)];
      hit[target] = 1;
      if (agg == 2) {
        acc[target] = std::min(acc[target], w);
      } else if (agg == 3) {
        acc[target] = std::max(acc[target], w);
      } else {
        acc[target] += w;
      }
    }
    for (size_t t = 0; t < T; ++t) {
      double v = hit[t] ? acc[t] : 0.0;
      if (agg == 0 && !e.roots.empty()) v /= double(e.roots.size());
      out[size_t(r) * T + t] = v;
    }
  }
  if (post != 0) {
    // The shared post-transforms work on float scores.
    static constexpr PostTransform kPost[] = {PostTransform::None, PostTransform::Softmax,
                                              PostTransform::Logistic, PostTransform::SoftmaxZero,
                                              PostTransform::Probit};
    std::vector<float> f(out.begin(), out.end());
    apply_post_transform(kPost[post], f.data(), rows, e.n_targets);
    out.assign(f.begin(), f.end());
  }
  ctx.set_output(0, write_as(x.dtype(), {rows, e.n_targets}, out));
}

}  // namespace

void register_tree_ensemble5_kernels(KernelRegistry& r) {
  r.add("ai.onnx.ml", "TreeEnsemble", 5, tree_ensemble_k);
}

}  // namespace oxs::eval
