// Validation and compilation of tree-ensemble attributes (ml_tree_ensemble.h).
// Everything is linear in the number of nodes and weights: one hash map from
// (tree id, node id) to the attribute index, one iterative depth-first walk
// per tree that detects cycles and assigns the compact layout, one counting
// pass that groups leaf weights.
#include <limits>
#include <unordered_map>
#include <utility>

#include "oxs/eval/ml/ml_tree_ensemble.h"
#include "oxs/ir/error.h"

namespace oxs::eval::ml {
namespace {

struct PairHash {
  size_t operator()(const std::pair<int64_t, int64_t>& p) const {
    uint64_t h = static_cast<uint64_t>(p.first) * 0x9E3779B97F4A7C15ull;
    h ^= static_cast<uint64_t>(p.second) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

[[noreturn]] void bad(const std::string& op, const std::string& msg) {
  throw Error(ErrorKind::Invalid, op + ": " + msg);
}

std::string where(int64_t tree, int64_t node) {
  return "tree " + std::to_string(tree) + " node " + std::to_string(node);
}

NodeMode parse_mode(const std::string& op, const std::string& m, int64_t tree, int64_t node) {
  if (m == "BRANCH_LEQ") return NodeMode::Leq;
  if (m == "BRANCH_LT") return NodeMode::Lt;
  if (m == "BRANCH_GTE") return NodeMode::Gte;
  if (m == "BRANCH_GT") return NodeMode::Gt;
  if (m == "BRANCH_EQ") return NodeMode::Eq;
  if (m == "BRANCH_NEQ") return NodeMode::Neq;
  if (m == "LEAF") return NodeMode::Leaf;
  bad(op, where(tree, node) + ": unknown nodes_modes value '" + m +
              "' (expected BRANCH_LEQ, BRANCH_LT, BRANCH_GTE, BRANCH_GT, BRANCH_EQ, "
              "BRANCH_NEQ or LEAF)");
}

void check_len(const std::string& op, const char* name, size_t got, size_t want, const char* ref) {
  if (got != want) {
    bad(op, std::string(name) + " has " + std::to_string(got) + " entries but " + ref + " has " +
                std::to_string(want) + "; the node attribute arrays must have equal lengths");
  }
}

}  // namespace

template <class Th>
Forest<Th> compile_forest(const TreeAttrs& a, const std::string& op) {
  const size_t n = a.node_ids.size();
  check_len(op, "nodes_treeids", a.tree_ids.size(), n, "nodes_nodeids");
  check_len(op, "nodes_featureids", a.feature_ids.size(), n, "nodes_nodeids");
  check_len(op, "nodes_modes", a.modes.size(), n, "nodes_nodeids");
  check_len(op, "nodes_truenodeids", a.true_ids.size(), n, "nodes_nodeids");
  check_len(op, "nodes_falsenodeids", a.false_ids.size(), n, "nodes_nodeids");
  check_len(op, "nodes_values", a.values.size(), n, "nodes_nodeids");
  if (!a.missing_tracks_true.empty()) {
    check_len(op, "nodes_missing_value_tracks_true", a.missing_tracks_true.size(), n,
              "nodes_nodeids");
  }
  const std::string& wp = a.weight_prefix;
  const size_t nw = a.w_node_ids.size();
  std::string wn = wp + "_nodeids";
  check_len(op, (wp + "_treeids").c_str(), a.w_tree_ids.size(), nw, wn.c_str());
  check_len(op, (wp + "_ids").c_str(), a.w_targets.size(), nw, wn.c_str());
  check_len(op, (wp + "_weights").c_str(), a.w_values.size(), nw, wn.c_str());
  if (n == 0) bad(op, "the ensemble has no nodes (nodes_nodeids is empty)");
  if (n >= static_cast<size_t>(std::numeric_limits<int32_t>::max()) ||
      nw >= static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    bad(op, "too many nodes or weights (at most 2^31-1)");
  }

  // (tree, node) -> attribute index; trees in order of first appearance.
  std::unordered_map<std::pair<int64_t, int64_t>, int32_t, PairHash> index;
  index.reserve(n);
  std::unordered_map<int64_t, int32_t> tree_root;  // tree id -> attribute index of its root
  std::vector<int32_t> root_order;
  std::vector<NodeMode> mode(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t t = a.tree_ids[i], id = a.node_ids[i];
    mode[i] = parse_mode(op, a.modes[i], t, id);
    if (!index.emplace(std::make_pair(t, id), static_cast<int32_t>(i)).second) {
      bad(op, where(t, id) + " is listed twice (entries " + std::to_string(index[{t, id}]) +
                  " and " + std::to_string(i) + ")");
    }
    if (tree_root.emplace(t, static_cast<int32_t>(i)).second) {
      root_order.push_back(static_cast<int32_t>(i));
    }
  }
  auto child = [&](size_t i, bool true_side) -> int32_t {
    int64_t t = a.tree_ids[i];
    int64_t c = true_side ? a.true_ids[i] : a.false_ids[i];
    auto it = index.find({t, c});
    if (it == index.end()) {
      bad(op, where(t, a.node_ids[i]) + ": " +
                  (true_side ? "nodes_truenodeids" : "nodes_falsenodeids") + " points to node " +
                  std::to_string(c) + ", which tree " + std::to_string(t) + " does not have");
    }
    return it->second;
  };

  // Leaf weights grouped per attribute index (counting sort).
  std::vector<int32_t> wcount(n + 1, 0);
  std::vector<int32_t> wnode(nw);
  for (size_t k = 0; k < nw; ++k) {
    int64_t t = a.w_tree_ids[k], id = a.w_node_ids[k];
    auto it = index.find({t, id});
    if (it == index.end()) {
      bad(op, wp + " weight " + std::to_string(k) + " names " + where(t, id) +
                  ", which does not exist");
    }
    int64_t target = a.w_targets[k];
    if (target < 0 || target >= a.n_targets) {
      bad(op, where(t, id) + ": " + wp + "_ids entry " + std::to_string(k) + " is " +
                  std::to_string(target) + ", outside [0, " + std::to_string(a.n_targets) + ")");
    }
    wnode[k] = it->second;
    // Weights on branch nodes are ignored, as ONNX Runtime does (old
    // converters emitted them).
    if (mode[size_t(it->second)] == NodeMode::Leaf) ++wcount[size_t(it->second) + 1];
  }
  for (size_t i = 0; i < n; ++i) wcount[i + 1] += wcount[i];

  Forest<Th> f;
  f.nodes.reserve(n);
  f.weight_target.resize(size_t(wcount[n]));
  f.weight_value.resize(size_t(wcount[n]));
  {
    std::vector<int32_t> fill(wcount.begin(), wcount.end() - 1);
    std::vector<bool> seen_target(size_t(a.n_targets), false);
    for (size_t k = 0; k < nw; ++k) {
      size_t i = size_t(wnode[k]);
      if (mode[i] != NodeMode::Leaf) continue;
      size_t pos = size_t(fill[i]++);
      f.weight_target[pos] = static_cast<int32_t>(a.w_targets[k]);
      f.weight_value[pos] = static_cast<Th>(a.w_values[k]);
    }
    // Over every weight, as ONNX Runtime decides the binary case.
    for (size_t k = 0; k < nw; ++k) {
      if (a.w_values[k] < 0) f.all_weights_nonnegative = false;
      if (!seen_target[size_t(a.w_targets[k])]) {
        seen_target[size_t(a.w_targets[k])] = true;
        ++f.distinct_targets;
      }
    }
  }

  // Depth-first walk from each root: new index in preorder; a child met
  // again while still on the stack is a cycle. Shared subtrees (a DAG) are
  // laid out once.
  constexpr int32_t kUnseen = -1, kOnStack = -2;
  std::vector<int32_t> placed(n, kUnseen);  // attribute index -> compact index
  struct Frame {
    int32_t attr;
    int32_t compact;
    uint8_t stage;  // 0: visit true child next, 1: false child, 2: done
  };
  std::vector<Frame> stack;
  bool first_mode = true;
  NodeMode branch_mode = NodeMode::Leaf;
  for (int32_t root : root_order) {
    f.roots.push_back(static_cast<int32_t>(f.nodes.size()));
    auto place = [&](int32_t i) {
      size_t u = size_t(i);
      typename Forest<Th>::Node nd{};
      nd.mode = mode[u];
      nd.value = static_cast<Th>(a.values[u]);
      if (nd.mode == NodeMode::Leaf) {
        nd.kid[1] = wcount[u];
        nd.kid[0] = wcount[u + 1] - wcount[u];
        nd.feature = 0;
      } else {
        if (a.feature_ids[u] < 0 || a.feature_ids[u] >= std::numeric_limits<int32_t>::max()) {
          bad(op, where(a.tree_ids[u], a.node_ids[u]) + ": feature id " +
                      std::to_string(a.feature_ids[u]) + " is out of range");
        }
        nd.feature = static_cast<int32_t>(a.feature_ids[u]);
        if (nd.feature > f.max_feature) f.max_feature = nd.feature;
        nd.missing_true = !a.missing_tracks_true.empty() && a.missing_tracks_true[u] != 0;
        f.any_missing = f.any_missing || nd.missing_true;
        if (first_mode) {
          branch_mode = nd.mode;
          first_mode = false;
        } else if (nd.mode != branch_mode) {
          f.same_mode = false;
        }
      }
      int32_t c = static_cast<int32_t>(f.nodes.size());
      f.nodes.push_back(nd);
      placed[u] = kOnStack;
      stack.push_back({i, c, uint8_t(nd.mode == NodeMode::Leaf ? 2 : 0)});
      return c;
    };
    place(root);
    while (!stack.empty()) {
      Frame& fr = stack.back();
      if (fr.stage == 2) {
        placed[size_t(fr.attr)] = fr.compact;
        stack.pop_back();
        continue;
      }
      bool true_side = fr.stage == 0;
      ++fr.stage;
      int32_t attr = fr.attr, compact = fr.compact;
      int32_t c = child(size_t(attr), true_side);
      int32_t target;
      if (placed[size_t(c)] == kOnStack) {
        bad(op, where(a.tree_ids[size_t(attr)], a.node_ids[size_t(attr)]) + ": its " +
                    (true_side ? "true" : "false") + " child, node " +
                    std::to_string(a.node_ids[size_t(c)]) +
                    ", leads back to it (the tree has a cycle)");
      } else if (placed[size_t(c)] >= 0) {
        target = placed[size_t(c)];
      } else {
        target = place(c);  // invalidates fr
      }
      if (true_side) {
        f.nodes[size_t(compact)].kid[1] = target;
      } else {
        f.nodes[size_t(compact)].kid[0] = target;
      }
    }
  }
  if (first_mode) f.same_mode = true;
  return f;
}

template Forest<float> compile_forest<float>(const TreeAttrs&, const std::string&);
template Forest<double> compile_forest<double>(const TreeAttrs&, const std::string&);

}  // namespace oxs::eval::ml
