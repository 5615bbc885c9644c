// TreeEnsembleRegressor / TreeEnsembleClassifier beyond the ORT oracle:
// malformed trees are errors that name the tree node at fault (never a crash
// or a hang), and a small hand-written ensemble evaluated by explicit
// recursion over its definition agrees with the kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>

#include "oxs/eval/session.h"
#include "oxs/ir/error.h"

namespace oxs::eval {
namespace {

// A tree node as a test writes it.
struct TNode {
  int64_t tree, id;
  std::string mode;  // "LEAF" or BRANCH_*
  int64_t feature = 0;
  double value = 0;
  int64_t yes = 0, no = 0;
  int64_t missing_true = 0;
  std::vector<std::pair<int64_t, double>> weights;  // (target, weight) of a leaf
};

struct Ensemble {
  std::vector<TNode> nodes;
  int64_t targets = 1;
  std::string agg = "SUM";
  std::vector<float> base;
  bool doubles = false;  // opset 3 nodes_values_as_tensor (double)
};

void set_attrs(ir::Node* n, const Ensemble& e) {
  std::vector<int64_t> tree, id, feat, yes, no, miss, wt, wn, wid;
  std::vector<std::string> modes;
  std::vector<float> vals, w;
  for (const TNode& t : e.nodes) {
    tree.push_back(t.tree);
    id.push_back(t.id);
    feat.push_back(t.feature);
    yes.push_back(t.yes);
    no.push_back(t.no);
    miss.push_back(t.missing_true);
    modes.push_back(t.mode);
    vals.push_back(float(t.value));
    for (auto [target, weight] : t.weights) {
      wt.push_back(t.tree);
      wn.push_back(t.id);
      wid.push_back(target);
      w.push_back(float(weight));
    }
  }
  n->set_attr(ir::Attr::of_ints("nodes_treeids", tree));
  n->set_attr(ir::Attr::of_ints("nodes_nodeids", id));
  n->set_attr(ir::Attr::of_ints("nodes_featureids", feat));
  n->set_attr(ir::Attr::of_ints("nodes_truenodeids", yes));
  n->set_attr(ir::Attr::of_ints("nodes_falsenodeids", no));
  n->set_attr(ir::Attr::of_ints("nodes_missing_value_tracks_true", miss));
  n->set_attr(ir::Attr::of_strings("nodes_modes", modes));
  if (e.doubles) {
    std::vector<double> dv;
    for (const TNode& t : e.nodes) dv.push_back(t.value);
    n->set_attr(ir::Attr::of_tensor(
        "nodes_values_as_tensor",
        std::make_shared<ir::Tensor>(ir::Tensor::from<double>(
            DataType::Double, {int64_t(dv.size())}, std::span<const double>(dv)))));
  } else {
    n->set_attr(ir::Attr::of_floats("nodes_values", vals));
  }
  n->set_attr(ir::Attr::of_ints("target_treeids", wt));
  n->set_attr(ir::Attr::of_ints("target_nodeids", wn));
  n->set_attr(ir::Attr::of_ints("target_ids", wid));
  n->set_attr(ir::Attr::of_floats("target_weights", w));
  n->set_attr(ir::Attr::of_int("n_targets", e.targets));
  n->set_attr(ir::Attr::of_string("aggregate_function", e.agg));
  if (!e.base.empty()) n->set_attr(ir::Attr::of_floats("base_values", e.base));
}

// Runs TreeEnsembleRegressor on X; `edit` may break attributes.
Tensor run_x(const Ensemble& e, const Tensor& x, const std::function<void(ir::Node*)>& edit = {}) {
  ir::Model m;
  m.opset_imports = {{"", 17}, {"ai.onnx.ml", e.doubles ? 3 : 1}};
  ir::Graph& g = *m.graph;
  ir::Value* in = g.add_input("X", ir::Type::tensor(x.dtype()));
  std::vector<ir::Value*> ins = {in};
  ir::Node* n = g.create_node("TreeEnsembleRegressor", ins);
  n->set_domain("ai.onnx.ml");
  n->set_name("forest");
  set_attrs(n, e);
  if (edit) edit(n);
  g.add_output(n->output(0));
  Session s(m);
  return s.run({{"X", x}})[0].tensor();
}

// X[rows, cols] as float.
Tensor run(const Ensemble& e, const std::vector<float>& x, int64_t cols,
           const std::function<void(ir::Node*)>& edit = {}) {
  int64_t rows = int64_t(x.size()) / cols;
  return run_x(e, Tensor::of<float>(DataType::Float, {rows, cols}, std::span<const float>(x)),
               edit);
}

// The error message of running `e`, or "" if it ran.
std::string error_of(const Ensemble& e, const std::function<void(ir::Node*)>& edit = {}) {
  try {
    run(e, {0, 0, 0}, 3, edit);
  } catch (const Error& err) {
    return err.describe();
  }
  return "";
}

// tree 0: 0 = [x0 <= 1] ? 1 : 2; 1 = leaf; 2 = [x1 < 0] ? 3 : 4; 3, 4 leaves.
Ensemble small_tree() {
  Ensemble e;
  e.nodes = {
      {0, 0, "BRANCH_LEQ", 0, 1.0, 1, 2},       {0, 1, "LEAF", 0, 0, 0, 0, 0, {{0, 10}}},
      {0, 2, "BRANCH_LT", 1, 0.0, 3, 4},        {0, 3, "LEAF", 0, 0, 0, 0, 0, {{0, 20}}},
      {0, 4, "LEAF", 0, 0, 0, 0, 0, {{0, 30}}},
  };
  return e;
}

TEST(MlTree, ChildOutOfRangeNamesTheNode) {
  Ensemble e = small_tree();
  e.nodes[2].no = 9;
  std::string msg = error_of(e);
  EXPECT_NE(msg.find("tree 0 node 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("node 9"), std::string::npos) << msg;
  EXPECT_NE(msg.find("forest"), std::string::npos) << msg;
}

TEST(MlTree, CycleIsAnErrorNotAHang) {
  Ensemble e = small_tree();
  e.nodes[2].yes = 0;  // node 2 -> node 0 -> node 2
  std::string msg = error_of(e);
  EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tree 0 node 2"), std::string::npos) << msg;
  Ensemble self = small_tree();
  self.nodes[0].yes = 0;  // a node that is its own child
  msg = error_of(self);
  EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tree 0 node 0"), std::string::npos) << msg;
}

TEST(MlTree, MismatchedArrayLengthsNameTheAttribute) {
  Ensemble e = small_tree();
  std::string msg = error_of(e, [](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("nodes_featureids", {0, 0, 1}));
  });
  EXPECT_NE(msg.find("nodes_featureids has 3 entries"), std::string::npos) << msg;
  msg = error_of(e, [](ir::Node* n) { n->set_attr(ir::Attr::of_floats("target_weights", {1})); });
  EXPECT_NE(msg.find("target_weights has 1 entries"), std::string::npos) << msg;
}

TEST(MlTree, OtherMalformedAttributes) {
  Ensemble dup = small_tree();
  dup.nodes[4].id = 3;
  EXPECT_NE(error_of(dup).find("tree 0 node 3 is listed twice"), std::string::npos)
      << error_of(dup);
  Ensemble target = small_tree();
  target.nodes[3].weights = {{2, 1.0}};
  EXPECT_NE(error_of(target).find("tree 0 node 3: target_ids entry"), std::string::npos)
      << error_of(target);
  Ensemble mode = small_tree();
  mode.nodes[2].mode = "BRANCH_SOMETIMES";
  EXPECT_NE(error_of(mode).find("tree 0 node 2: unknown nodes_modes value"), std::string::npos)
      << error_of(mode);
  Ensemble feature = small_tree();
  feature.nodes[2].feature = 5;  // X has 3 columns
  EXPECT_NE(error_of(feature).find("reads feature 5"), std::string::npos) << error_of(feature);
  Ensemble base = small_tree();
  base.base = {1, 2};
  EXPECT_NE(error_of(base).find("base_values has 2 values"), std::string::npos) << error_of(base);
}

// ---- the reference: explicit recursion over the definition ----

bool goes_true(const TNode& n, double v) {
  if (std::isnan(v) && n.missing_true) return true;
  if (n.mode == "BRANCH_LEQ") return v <= n.value;
  if (n.mode == "BRANCH_LT") return v < n.value;
  if (n.mode == "BRANCH_GTE") return v >= n.value;
  if (n.mode == "BRANCH_GT") return v > n.value;
  if (n.mode == "BRANCH_EQ") return v == n.value;
  return v != n.value;  // BRANCH_NEQ
}

const TNode& leaf_of(const std::map<std::pair<int64_t, int64_t>, const TNode*>& by_id,
                     const TNode& n, const float* row) {
  if (n.mode == "LEAF") return n;
  int64_t next = goes_true(n, row[n.feature]) ? n.yes : n.no;
  return leaf_of(by_id, *by_id.at({n.tree, next}), row);
}

std::vector<double> reference(const Ensemble& e, const float* row) {
  std::map<std::pair<int64_t, int64_t>, const TNode*> by_id;
  std::map<int64_t, const TNode*> roots;  // node 0 of each tree
  for (const TNode& n : e.nodes) {
    by_id[{n.tree, n.id}] = &n;
    if (n.id == 0) roots[n.tree] = &n;
  }
  std::vector<std::vector<double>> per_target(size_t(e.targets));
  for (auto [tree, root] : roots) {
    for (auto [t, w] : leaf_of(by_id, *root, row).weights) per_target[size_t(t)].push_back(w);
  }
  std::vector<double> out;
  for (size_t t = 0; t < per_target.size(); ++t) {
    const auto& ws = per_target[t];
    double v = 0;
    if (e.agg == "SUM" || e.agg == "AVERAGE") {
      for (double w : ws) v += w;
      if (e.agg == "AVERAGE") v /= double(roots.size());
    } else if (!ws.empty()) {
      v = e.agg == "MIN" ? *std::min_element(ws.begin(), ws.end())
                         : *std::max_element(ws.begin(), ws.end());
    }
    out.push_back(v + (e.base.empty() ? 0 : e.base[t]));
  }
  return out;
}

TEST(MlTree, SmallTreeMatchesRecursiveReference) {
  Ensemble e = small_tree();
  std::vector<float> x = {0.5f, 5, 0, 1, 5, 0, 1.5f, -1, 0, 1.5f, 0, 0, 2, 3, 0};
  Tensor y = run(e, x, 3);
  ASSERT_EQ(y.dims(), (Dims{5, 1}));
  // By hand: rows 0 and 1 have x0 <= 1 (leaf 1: 10); row 2 has x1 < 0
  // (leaf 3: 20); rows 3 and 4 leaf 4 (30).
  std::vector<float> by_hand = {10, 10, 20, 30, 30};
  for (int64_t r = 0; r < 5; ++r) {
    EXPECT_EQ(y.data<float>()[r], float(reference(e, x.data() + r * 3)[0])) << "row " << r;
    EXPECT_EQ(y.data<float>()[r], by_hand[size_t(r)]) << "row " << r;
  }
}

TEST(MlTree, TwoTreesEveryModeAndAggregateMatchReference) {
  Ensemble e;
  e.targets = 2;
  e.nodes = {
      // tree 0: root first (as converters and ONNX Runtime have it), the
      // rest out of order; every branch mode; NaN tracking on some nodes
      {0, 0, "BRANCH_GTE", 0, 0.5, 1, 2, 1},
      {0, 3, "BRANCH_EQ", 2, 1.0, 5, 6},
      {0, 1, "BRANCH_NEQ", 1, 0.0, 3, 4},
      {0, 2, "BRANCH_GT", 2, -1.0, 7, 8, 1},
      {0, 4, "LEAF", 0, 0, 0, 0, 0, {{0, 1.5}, {1, -2}}},
      {0, 5, "LEAF", 0, 0, 0, 0, 0, {{1, 4}}},
      {0, 6, "LEAF", 0, 0, 0, 0, 0, {{0, -3}}},
      {0, 7, "LEAF", 0, 0, 0, 0, 0, {{0, 0.25}, {1, 0.75}}},
      {0, 8, "LEAF", 0, 0, 0, 0, 0, {{0, 8}, {1, 9}}},
      // tree 1
      {1, 0, "BRANCH_LT", 1, 0.0, 1, 2},
      {1, 1, "LEAF", 0, 0, 0, 0, 0, {{0, 100}}},
      {1, 2, "BRANCH_LEQ", 0, 2.0, 3, 4, 1},
      {1, 3, "LEAF", 0, 0, 0, 0, 0, {{1, -50}}},
      {1, 4, "LEAF", 0, 0, 0, 0, 0, {{0, 7}, {1, 7}}},
  };
  float nan = std::nanf("");
  std::vector<float> x = {1, 0, 1, 1, 0, 2,   1,   2,   0, 0,  nan, 5,  nan, 0,  -2,
                          0, 0, 0, 3, 1, nan, nan, nan, 1, -1, -1,  -1, 0.5, -3, 1};
  const int64_t rows = int64_t(x.size()) / 3;
  for (const char* agg : {"SUM", "AVERAGE", "MIN", "MAX"}) {
    e.agg = agg;
    e.base = {0.5f, -1};
    Tensor y = run(e, x, 3);
    ASSERT_EQ(y.dims(), (Dims{rows, 2}));
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<double> want = reference(e, x.data() + r * 3);
      for (int64_t t = 0; t < 2; ++t) {
        EXPECT_FLOAT_EQ(y.data<float>()[r * 2 + t], float(want[size_t(t)]))
            << agg << " row " << r << " target " << t;
      }
    }
  }
}

// Integer X (which ORT does not accept for the regressor) is compared like
// the same values as floats.
TEST(MlTree, IntegerInputsMatchTheSameValuesAsFloats) {
  Ensemble e = small_tree();
  e.nodes[0].value = 1;  // x0 <= 1: the boundary is hit by integer 1
  std::vector<int64_t> xi = {0, 5, 0, 1, -1, 0, 2, -1, 0, 2, 0, 0, 3, 7, 1};
  std::vector<float> xf(xi.begin(), xi.end());
  std::vector<int32_t> x32(xi.begin(), xi.end());
  Tensor want = run(e, xf, 3);
  Tensor a = run_x(e, Tensor::of<int64_t>(DataType::Int64, {5, 3}, std::span<const int64_t>(xi)));
  Tensor b = run_x(e, Tensor::of<int32_t>(DataType::Int32, {5, 3}, std::span<const int32_t>(x32)));
  for (int64_t r = 0; r < 5; ++r) {
    EXPECT_EQ(a.data<float>()[r], want.data<float>()[r]) << "int64 row " << r;
    EXPECT_EQ(b.data<float>()[r], want.data<float>()[r]) << "int32 row " << r;
    EXPECT_EQ(want.data<float>()[r], float(reference(e, xf.data() + r * 3)[0])) << "row " << r;
  }
}

// With double thresholds (opset 3) a float input is compared in double: the
// float nearest 0.1 is above the double 0.1, so it goes to the false child
// (ORT rejects this model; comparing in float would send it to the true one).
TEST(MlTree, DoubleThresholdsCompareFloatInputsInDouble) {
  Ensemble e = small_tree();
  e.doubles = true;
  e.nodes[0].value = 0.1;
  std::vector<float> x = {0.1f, 1, 0, 0.0999f, 1, 0};
  Tensor y = run(e, x, 3);
  EXPECT_EQ(y.data<float>()[0], float(reference(e, x.data())[0]));
  EXPECT_EQ(y.data<float>()[0], 30.f);  // 0.1f > 0.1, then x1 = 1 is not < 0
  EXPECT_EQ(y.data<float>()[1], 10.f);
}

// Random corruptions of a valid forest (child and node ids, tree ids,
// features, modes, targets) either run or fail with oxs::Error: no crash,
// no hang, nothing else thrown.
TEST(MlTree, RandomCorruptionsRunOrFailCleanly) {
  std::mt19937_64 rng(12345);
  int errors = 0, ran = 0;
  for (int round = 0; round < 300; ++round) {
    Ensemble e = small_tree();
    for (TNode n : small_tree().nodes) {  // a second tree
      n.tree = 1;
      e.nodes.push_back(n);
    }
    for (int k = 0; k < 1 + int(rng() % 3); ++k) {
      TNode& n = e.nodes[rng() % e.nodes.size()];
      int64_t v = int64_t(rng() % 7) - 1;
      switch (rng() % 6) {
        case 0:
          n.yes = v;
          break;
        case 1:
          n.no = v;
          break;
        case 2:
          n.id = v;
          break;
        case 3:
          n.tree = v % 3;
          break;
        case 4:
          n.feature = v;
          break;
        default:
          n.mode = rng() % 2 ? "LEAF" : "BRANCH_EQ";
          n.weights = {{v % 2, 1.0}};
      }
    }
    try {
      Tensor y = run(e, {0.5f, -1, 0, 2, 0, 1}, 3);
      EXPECT_EQ(y.dims(), (Dims{2, 1}));
      ++ran;
    } catch (const Error& err) {
      EXPECT_NE(err.describe().find("forest"), std::string::npos) << err.describe();
      ++errors;
    }
  }
  // Both outcomes occur, so the corruptions are neither all harmless nor
  // all rejected.
  EXPECT_GT(errors, 0);
  EXPECT_GT(ran, 0);
}

// Two labels scored separately (class ids 0 and 1): the label is the class
// with the top score (ORT instead takes class 1 whenever its score is
// positive, and writes raw 1/0 for integer labels).
TEST(MlTree, TwoClassesWithBothIdsLabelTheTopScore) {
  ir::Model m;
  m.opset_imports = {{"", 17}, {"ai.onnx.ml", 1}};
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> ins = {g.add_input("X", ir::Type::tensor(DataType::Float))};
  ir::Node* n = g.create_node("TreeEnsembleClassifier", ins, 2);
  n->set_domain("ai.onnx.ml");
  // x0 <= 0 ? leaf 1 (0.2, 0.8) : leaf 2 (0.6, 0.4)
  n->set_attr(ir::Attr::of_ints("nodes_treeids", {0, 0, 0}));
  n->set_attr(ir::Attr::of_ints("nodes_nodeids", {0, 1, 2}));
  n->set_attr(ir::Attr::of_ints("nodes_featureids", {0, 0, 0}));
  n->set_attr(ir::Attr::of_strings("nodes_modes", {"BRANCH_LEQ", "LEAF", "LEAF"}));
  n->set_attr(ir::Attr::of_floats("nodes_values", {0, 0, 0}));
  n->set_attr(ir::Attr::of_ints("nodes_truenodeids", {1, 0, 0}));
  n->set_attr(ir::Attr::of_ints("nodes_falsenodeids", {2, 0, 0}));
  n->set_attr(ir::Attr::of_ints("class_treeids", {0, 0, 0, 0}));
  n->set_attr(ir::Attr::of_ints("class_nodeids", {1, 1, 2, 2}));
  n->set_attr(ir::Attr::of_ints("class_ids", {0, 1, 0, 1}));
  const std::vector<float> w = {0.2f, 0.8f, 0.6f, 0.4f};
  n->set_attr(ir::Attr::of_floats("class_weights", w));
  n->set_attr(ir::Attr::of_ints("classlabels_int64s", {3, 13}));
  g.add_output(n->output(0));
  g.add_output(n->output(1));
  Session s(m);
  std::vector<float> x = {-1, 1};
  auto out = s.run({{"X", Tensor::of<float>(DataType::Float, {2, 1}, std::span<const float>(x))}});
  for (int64_t r = 0; r < 2; ++r) {
    float c0 = w[size_t(2 * r)], c1 = w[size_t(2 * r + 1)];
    EXPECT_EQ(out[0].tensor().data<int64_t>()[r], c1 > c0 ? 13 : 3) << "row " << r;
    EXPECT_EQ(out[1].tensor().data<float>()[2 * r], c0);
    EXPECT_EQ(out[1].tensor().data<float>()[2 * r + 1], c1);
  }
}

}  // namespace
}  // namespace oxs::eval
