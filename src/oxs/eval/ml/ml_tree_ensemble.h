// Tree ensembles of ai.onnx.ml (TreeEnsembleRegressor, TreeEnsembleClassifier)
// compiled once per call into a compact forest: the parallel attribute arrays
// (nodes_*, target_* / class_*) are validated (equal lengths, children that
// exist in the same tree, no cycles, targets in range) and laid out per tree
// in depth-first order, each node one small struct, so evaluating a row is a
// tight loop of compares. Building is linear in the number of tree nodes and
// leaf weights. Errors name the tree and node at fault. This file knows only
// attribute values, not kernels or sessions (ml_tree_ensemble.cc has those).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace oxs::eval::ml {

enum class NodeMode : uint8_t { Leq, Lt, Gte, Gt, Eq, Neq, Leaf };

// The attributes of one tree-ensemble node, as given (values already merged
// from the float and *_as_tensor double forms).
struct TreeAttrs {
  std::vector<int64_t> tree_ids, node_ids, feature_ids, true_ids, false_ids;
  std::vector<std::string> modes;
  std::vector<double> values;
  std::vector<int64_t> missing_tracks_true;  // empty or one per node
  // Leaf weights: target_* for the regressor, class_* for the classifier.
  std::vector<int64_t> w_tree_ids, w_node_ids, w_targets;
  std::vector<double> w_values;
  int64_t n_targets = 1;
  // Attribute names for messages ("target" or "class").
  std::string weight_prefix = "target";
};

// A compiled forest. Th is the threshold and accumulation type: double for
// double inputs, float otherwise (as ONNX Runtime does).
template <class Th>
struct Forest {
  struct Node {
    Th value;         // threshold
    int32_t feature;  // input column (branches)
    // Branch: kid[1] the true child, kid[0] the false child (global
    // indices), so a step is one indexed load, no branch. Leaf: kid[1] the
    // first weight index, kid[0] the weight count.
    int32_t kid[2];
    NodeMode mode;
    bool missing_true;  // NaN goes to the true child
  };
  std::vector<Node> nodes;
  std::vector<int32_t> roots;  // one per tree, in order of first appearance
  std::vector<int32_t> weight_target;
  std::vector<Th> weight_value;
  int64_t max_feature = -1;  // largest feature id a reachable branch reads
  bool same_mode = true;     // every reachable branch has nodes[roots[0]].mode
  bool any_missing = false;  // some reachable branch has missing_true
  bool all_weights_nonnegative = true;
  // How many distinct targets the weights name (the classifier's binary case).
  int64_t distinct_targets = 0;
};

// Validates `a` and compiles it. Throws oxs::Error (kind Invalid) naming the
// tree/node at fault; `op` names the operator in messages.
template <class Th>
Forest<Th> compile_forest(const TreeAttrs& a, const std::string& op);

}  // namespace oxs::eval::ml
