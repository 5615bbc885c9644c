// ONNX Runtime as the oracle for ai.onnx.ml TreeEnsembleRegressor and
// TreeEnsembleClassifier: random forests (fixed seeds; random features,
// thresholds, modes, weights, node order) over inputs drawn from a small grid
// (so BRANCH_EQ/NEQ and the LEQ/LT boundary are hit) with NaNs, compared on
// every output: scores within 1e-4, labels exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "ort_check.h"

namespace oxs::eval {
namespace {

using namespace ort_test;  // NOLINT: the shared oracle helpers

constexpr const char* kMl = "ai.onnx.ml";

struct ForestSpec {
  int trees = 5;
  int depth = 4;
  int features = 6;
  int targets = 3;  // targets or classes
  std::vector<std::string> modes = {"BRANCH_LEQ"};
  bool missing = false;         // random nodes_missing_value_tracks_true
  bool positive = false;        // weights in [0, 1) instead of [-1, 1)
  std::vector<int> weight_ids;  // targets each leaf scores (empty: all)
  bool as_tensor = false;       // opset 3 *_as_tensor (double) attributes
  uint64_t seed = 1;
};

// Grid values so that equality tests and boundaries are exercised.
double grid(std::mt19937_64& rng) {
  return double(int(rng() % 17) - 8) / 4;
}

struct Built {
  std::vector<int64_t> tree, node, feat, yes, no, miss, wtree, wnode, wid;
  std::vector<std::string> mode;
  std::vector<double> value, weight;
};

// One random tree: nodes numbered in a shuffled order, listed root first
// then shuffled.
void add_tree(const ForestSpec& s, int t, std::mt19937_64& rng, Built& b) {
  struct N {
    int64_t id, yes = 0, no = 0, feat = 0;
    bool leaf;
    std::string mode;
    double value = 0;
    int64_t miss = 0;
  };
  std::vector<N> nodes;
  std::function<size_t(int)> grow = [&](int d) -> size_t {
    size_t me = nodes.size();
    bool leaf = d == s.depth || (d > 1 && rng() % 5 == 0);
    nodes.push_back({0, 0, 0, 0, leaf, "LEAF"});
    if (leaf) return me;
    N n = nodes[me];
    n.mode = s.modes[rng() % s.modes.size()];
    n.feat = int64_t(rng() % uint64_t(s.features));
    n.value = grid(rng) + (rng() % 3 == 0 ? 0.1 : 0.0);
    n.miss = s.missing ? int64_t(rng() % 2) : 0;
    size_t y = grow(d + 1), no = grow(d + 1);
    n.yes = int64_t(y);
    n.no = int64_t(no);
    nodes[me] = n;
    return me;
  };
  grow(0);
  std::vector<int64_t> ids(nodes.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = int64_t(i);
  std::shuffle(ids.begin() + 1, ids.end(), rng);  // root keeps id 0
  std::vector<size_t> order(nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin() + 1, order.end(), rng);  // root listed first
  for (size_t k : order) {
    const N& n = nodes[k];
    b.tree.push_back(t);
    b.node.push_back(ids[k]);
    b.feat.push_back(n.feat);
    b.mode.push_back(n.mode);
    b.value.push_back(n.value);
    b.miss.push_back(n.miss);
    b.yes.push_back(n.leaf ? 0 : ids[size_t(n.yes)]);
    b.no.push_back(n.leaf ? 0 : ids[size_t(n.no)]);
    if (!n.leaf) continue;
    std::vector<int> targets = s.weight_ids;
    if (targets.empty()) {
      for (int j = 0; j < s.targets; ++j) targets.push_back(j);
    }
    for (int j : targets) {
      b.wtree.push_back(t);
      b.wnode.push_back(ids[k]);
      b.wid.push_back(j);
      double u = double(rng() % 1000) / 1000;
      b.weight.push_back(s.positive ? u : 2 * u - 1);
    }
  }
}

Built build(const ForestSpec& s) {
  std::mt19937_64 rng(s.seed);
  Built b;
  for (int t = 0; t < s.trees; ++t) add_tree(s, t, rng, b);
  return b;
}

std::shared_ptr<ir::Tensor> doubles(const std::vector<double>& v) {
  return std::make_shared<ir::Tensor>(
      ir::Tensor::from<double>(DataType::Double, {int64_t(v.size())}, std::span<const double>(v)));
}

void set_reals(ir::Node* n, const std::string& name, const std::vector<double>& v, bool tensor) {
  if (tensor) {
    n->set_attr(ir::Attr::of_tensor(name + "_as_tensor", doubles(v)));
  } else {
    n->set_attr(ir::Attr::of_floats(name, std::vector<float>(v.begin(), v.end())));
  }
}

void set_nodes(ir::Node* n, const ForestSpec& s, const Built& b) {
  n->set_attr(ir::Attr::of_ints("nodes_treeids", b.tree));
  n->set_attr(ir::Attr::of_ints("nodes_nodeids", b.node));
  n->set_attr(ir::Attr::of_ints("nodes_featureids", b.feat));
  n->set_attr(ir::Attr::of_strings("nodes_modes", b.mode));
  n->set_attr(ir::Attr::of_ints("nodes_truenodeids", b.yes));
  n->set_attr(ir::Attr::of_ints("nodes_falsenodeids", b.no));
  if (s.missing) n->set_attr(ir::Attr::of_ints("nodes_missing_value_tracks_true", b.miss));
  set_reals(n, "nodes_values", b.value, s.as_tensor);
}

// X[rows, features] of grid values, a fraction of them NaN (floats only).
Tensor grid_input(DataType dt, int64_t rows, int64_t cols, double nan_rate, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor d(DataType::Double, {rows, cols});
  double* p = d.mutable_data<double>();
  for (int64_t i = 0; i < rows * cols; ++i) {
    p[i] = double(rng() % 1000) / 1000 < nan_rate ? std::nan("") : grid(rng);
    if (!ir::is_floating(dt)) p[i] = std::isnan(p[i]) ? 1 : std::round(p[i] * 2);
  }
  Tensor out(dt, {rows, cols});
  for (int64_t i = 0; i < rows * cols; ++i) {
    switch (dt) {
      case DataType::Float:
        out.mutable_data<float>()[i] = float(p[i]);
        break;
      case DataType::Double:
        out.mutable_data<double>()[i] = p[i];
        break;
      case DataType::Int64:
        out.mutable_data<int64_t>()[i] = int64_t(p[i]);
        break;
      default:
        out.mutable_data<int32_t>()[i] = int32_t(p[i]);
        break;
    }
  }
  return out;
}

// ORT's PROBIT (a closed-form erfinv approximation in float) cancels
// catastrophically near p = 0.5 (an error of about sqrt(float eps) = 1e-3 at
// p = 0.5 exactly), so results there depend on the order of float operations.
constexpr double kProbitAtol = 1.5e-3;

struct RunSpec {
  DataType dt = DataType::Float;
  int64_t rows = 64;
  double nan_rate = 0;
  std::string post = "NONE";
  std::vector<double> base;
  bool one_d = false;  // X as [features] (one row)
};

std::vector<int64_t> x_dims(const ForestSpec& s, const RunSpec& r) {
  return r.one_d ? std::vector<int64_t>{s.features} : std::vector<int64_t>{r.rows, s.features};
}

Tensor x_feed(const ForestSpec& s, const RunSpec& r) {
  return grid_input(r.dt, r.one_d ? 1 : r.rows, s.features, r.nan_rate, s.seed)
      .reshaped(x_dims(s, r));
}

void check_regressor(const std::string& name, const ForestSpec& s, const RunSpec& r,
                     const std::string& agg) {
  Built b = build(s);
  auto attrs = [&](ir::Node* n) {
    set_nodes(n, s, b);
    n->set_attr(ir::Attr::of_int("n_targets", s.targets));
    n->set_attr(ir::Attr::of_ints("target_treeids", b.wtree));
    n->set_attr(ir::Attr::of_ints("target_nodeids", b.wnode));
    n->set_attr(ir::Attr::of_ints("target_ids", b.wid));
    set_reals(n, "target_weights", b.weight, s.as_tensor);
    if (!r.base.empty()) set_reals(n, "base_values", r.base, s.as_tensor);
    n->set_attr(ir::Attr::of_string("aggregate_function", agg));
    n->set_attr(ir::Attr::of_string("post_transform", r.post));
  };
  ir::Model m = single_op("TreeEnsembleRegressor", {tensor_type(r.dt, x_dims(s, r))}, 17, attrs, 1,
                          kMl, s.as_tensor ? 3 : 1);
  check_against_ort(m, name,
                    {.feeds = {{"in0", x_feed(s, r)}},
                     .rtol = 1e-4,
                     .atol = r.post == "PROBIT" ? kProbitAtol : 1e-5});
}

void check_classifier(const std::string& name, const ForestSpec& s, const RunSpec& r, bool strings,
                      std::vector<size_t> ignore = {}) {
  Built b = build(s);
  auto attrs = [&](ir::Node* n) {
    set_nodes(n, s, b);
    if (strings) {
      std::vector<std::string> labels;
      for (int j = 0; j < s.targets; ++j) labels.push_back("class_" + std::to_string(j));
      n->set_attr(ir::Attr::of_strings("classlabels_strings", labels));
    } else {
      std::vector<int64_t> labels;
      for (int j = 0; j < s.targets; ++j) labels.push_back(10 * j + 3);
      n->set_attr(ir::Attr::of_ints("classlabels_int64s", labels));
    }
    n->set_attr(ir::Attr::of_ints("class_treeids", b.wtree));
    n->set_attr(ir::Attr::of_ints("class_nodeids", b.wnode));
    n->set_attr(ir::Attr::of_ints("class_ids", b.wid));
    set_reals(n, "class_weights", b.weight, s.as_tensor);
    if (!r.base.empty()) set_reals(n, "base_values", r.base, s.as_tensor);
    n->set_attr(ir::Attr::of_string("post_transform", r.post));
  };
  ir::Model m = single_op("TreeEnsembleClassifier", {tensor_type(r.dt, x_dims(s, r))}, 17, attrs, 2,
                          kMl, s.as_tensor ? 3 : 1);
  check_against_ort(
      m, name,
      {.feeds = {{"in0", x_feed(s, r)}}, .rtol = 1e-4, .atol = 1e-5, .ignore_outputs = ignore});
}

const std::vector<std::string> kAllModes = {"BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE",
                                            "BRANCH_GT",  "BRANCH_EQ", "BRANCH_NEQ"};
const std::vector<std::string> kPosts = {"NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"};

TEST(OrtMlTree, RegressorAggregatesAndTransforms) {
  uint64_t seed = 10;
  for (const char* agg : {"SUM", "AVERAGE", "MIN", "MAX"}) {
    for (const std::string& post : kPosts) {
      ForestSpec s{.modes = kAllModes, .seed = ++seed};
      RunSpec r{.post = post, .base = {0.5, -0.25, 1}};
      check_regressor(std::string("reg_") + agg + "_" + post, s, r, agg);
    }
  }
}

TEST(OrtMlTree, RegressorSingleTarget) {
  uint64_t seed = 40;
  for (const char* agg : {"SUM", "AVERAGE", "MIN", "MAX"}) {
    for (std::string post : {"NONE", "LOGISTIC"}) {
      ForestSpec s{.targets = 1, .modes = {"BRANCH_LEQ"}, .seed = ++seed};
      check_regressor(std::string("reg1_") + agg + "_" + post, s, {.post = post, .base = {0.3}},
                      agg);
    }
  }
  // PROBIT needs scores in (0, 1): small positive weights averaged.
  ForestSpec s{.targets = 1, .positive = true, .seed = 49};
  check_regressor("reg1_probit", s, {.post = "PROBIT"}, "AVERAGE");
  ForestSpec s3{.targets = 3, .positive = true, .seed = 50};
  check_regressor("reg3_probit", s3, {.post = "PROBIT"}, "AVERAGE");
}

// Leaves that score only targets 0 and 2. Excluded: the same with
// base_values (ORT writes 0 for a target no leaf scored, ignoring its base
// value; oxs adds the base value as the spec says).
TEST(OrtMlTree, RegressorSparseTargets) {
  ForestSpec s{.weight_ids = {0, 2}, .seed = 55};
  for (const char* agg : {"SUM", "AVERAGE", "MIN", "MAX"}) {
    check_regressor(std::string("reg_sparse_") + agg, s, {.post = "SOFTMAX"}, agg);
  }
}

TEST(OrtMlTree, RegressorMissingValues) {
  for (uint64_t seed : {60, 61, 62}) {
    ForestSpec s{.modes = kAllModes, .missing = true, .seed = seed};
    check_regressor("reg_nan_" + std::to_string(seed), s, {.rows = 100, .nan_rate = 0.3}, "SUM");
    ForestSpec one{.modes = {"BRANCH_LT"}, .missing = true, .seed = seed};
    check_regressor("reg_nan_lt_" + std::to_string(seed), one, {.rows = 100, .nan_rate = 0.3},
                    "SUM");
  }
}

TEST(OrtMlTree, RegressorInputTypes) {
  // Excluded: int64/int32 X (ORT 1.20 has TreeEnsembleRegressor kernels for
  // float and double only; ml_tree_test.cc checks integer inputs against
  // the same values as floats).
  for (DataType dt : {DataType::Double}) {
    ForestSpec s{.modes = kAllModes, .missing = true, .seed = 70};
    check_regressor("reg_" + std::string(ir::dtype_name(dt)), s, {.dt = dt, .nan_rate = 0.1},
                    "SUM");
  }
}

// Excluded: float X with *_as_tensor double attributes (ORT rejects the
// model: it wants float tensors for float inputs; oxs compares in double,
// checked in ml_tree_test.cc).
TEST(OrtMlTree, RegressorOpset3DoubleAttributes) {
  ForestSpec s{.modes = kAllModes, .missing = true, .as_tensor = true, .seed = 80};
  check_regressor("reg_v3_double", s, {.dt = DataType::Double, .nan_rate = 0.1, .base = {1, 2, 3}},
                  "SUM");
}

TEST(OrtMlTree, ClassifierMulticlass) {
  uint64_t seed = 100;
  for (bool strings : {false, true}) {
    for (const std::string& post : kPosts) {
      ForestSpec s{.targets = 4, .modes = kAllModes, .seed = ++seed};
      check_classifier("cls_" + post + (strings ? "_s" : "_i"), s,
                       {.post = post, .base = {0.1, 0.2, -0.3, 0}}, strings);
    }
  }
  // Leaves that score only some classes; no base values.
  ForestSpec s{.targets = 5, .weight_ids = {1, 3}, .seed = 120};
  check_classifier("cls_sparse", s, {}, false);
}

TEST(OrtMlTree, ClassifierBinaryOneClassId) {
  uint64_t seed = 200;
  for (bool strings : {false, true}) {
    for (bool positive : {true, false}) {
      for (std::string post : {"NONE", "LOGISTIC"}) {
        for (std::vector<double> base : {std::vector<double>{}, {0.25}}) {
          ForestSpec s{.targets = 2, .positive = positive, .weight_ids = {0}, .seed = ++seed};
          std::string name = "bin_" + post + (positive ? "_pos" : "_mixed") +
                             (strings ? "_s" : "_i") + "_b" + std::to_string(base.size());
          check_classifier(name, s, {.post = post, .base = base}, strings);
        }
      }
    }
  }
  ForestSpec s{.targets = 2, .weight_ids = {1}, .seed = 230};
  check_classifier("bin_class1", s, {.post = "LOGISTIC"}, false);
}

TEST(OrtMlTree, ClassifierTwoClassesBothIds) {
  // Scores only: ORT labels two classes scored separately by the sign of
  // class 1's score (raw 1/0 for integer labels), oxs by the top score as
  // the spec says; ml_tree_test.cc checks those labels.
  ForestSpec s{.targets = 2, .positive = true, .seed = 240};
  check_classifier("two_classes", s, {.post = "SOFTMAX"}, true, {0});
  ForestSpec mixed{.targets = 2, .seed = 241};
  check_classifier("two_classes_int", mixed, {}, false, {0});
}

TEST(OrtMlTree, ClassifierBinaryWithBaseValues) {
  uint64_t seed = 250;
  for (int id : {0, 1}) {
    for (bool positive : {false, true}) {
      for (std::vector<double> base : {std::vector<double>{0.5, -0.25}, {0.25}}) {
        ForestSpec s{.targets = 2, .positive = positive, .weight_ids = {id}, .seed = ++seed};
        check_classifier("bin_base_" + std::to_string(id) + (positive ? "_pos_b" : "_mixed_b") +
                             std::to_string(base.size()),
                         s, {.post = "LOGISTIC", .base = base}, false);
      }
    }
  }
}

TEST(OrtMlTree, ClassifierInputTypes) {
  uint64_t seed = 300;
  for (DataType dt : {DataType::Double, DataType::Int64, DataType::Int32}) {
    ForestSpec s{.targets = 3, .modes = kAllModes, .seed = ++seed};
    check_classifier("cls_" + std::string(ir::dtype_name(dt)), s, {.dt = dt}, false);
  }
}

TEST(OrtMlTree, ClassifierOpset3DoubleAttributes) {
  ForestSpec s{.targets = 3, .modes = kAllModes, .missing = true, .as_tensor = true, .seed = 310};
  check_classifier("cls_v3_double", s,
                   {.dt = DataType::Double, .nan_rate = 0.1, .post = "SOFTMAX", .base = {1, 0, -1}},
                   true);
}

// X as [F], one row. One feature only: ORT reads a 1-D X as one row but
// checks feature ids against 1 column.
TEST(OrtMlTree, OneDimensionalInput) {
  ForestSpec s{.features = 1, .modes = kAllModes, .seed = 500};
  check_regressor("reg_1d", s, {.one_d = true}, "SUM");
  check_classifier("cls_1d", s, {.post = "SOFTMAX", .one_d = true}, true);
}

TEST(OrtMlTree, LargerForest) {
  ForestSpec s{
      .trees = 30, .depth = 7, .features = 20, .targets = 4, .modes = {"BRANCH_LEQ"}, .seed = 400};
  check_classifier("forest_large", s, {.rows = 300, .post = "SOFTMAX"}, false);
  check_regressor("forest_large_reg", s, {.rows = 300}, "AVERAGE");
}

}  // namespace
}  // namespace oxs::eval
