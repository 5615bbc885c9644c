// ai.onnx.ml benchmark driver (bench/ml.sh): builds tree-ensemble and SVM
// models of the sizes converters produce, with random parameters, and times
// eval::Session on them; ONNX Runtime runs the same files from the script.
//   oxs_ml_bench gen DIR              writes DIR/<model>.onnx, DIR/<model>_in/X.npy (10k rows)
//                                     and DIR/<model>_in1/X.npy (one row)
//   oxs_ml_bench run MODEL IN_DIR OUT_DIR REPEAT
//       prints "oxs_ms_per_run <ms> cpu_ms_per_run <ms>" and writes OUT_DIR/<i>.npy
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "oxs/eval/npy.h"
#include "oxs/eval/session.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"

namespace fs = std::filesystem;
using namespace oxs;
using eval::Tensor;

namespace {

constexpr int64_t kRows = 10000;
constexpr int64_t kFeatures = 20;

std::vector<float> uniform(size_t n, float lo, float hi, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

ir::Model one_node(const std::string& op, size_t outputs, ir::Node** node) {
  ir::Model m;
  m.opset_imports = {{"", 17}, {"ai.onnx.ml", 1}};
  ir::Graph& g = *m.graph;
  g.set_name(op);
  std::vector<ir::Value*> in = {g.add_input(
      "X", ir::Type::tensor(ir::DataType::Float,
                            ir::Shape({ir::Dim::symbolic("N"), ir::Dim::known(kFeatures)})))};
  ir::Node* n = g.create_node(op, in, outputs);
  n->set_domain("ai.onnx.ml");
  *node = n;
  for (size_t i = 0; i < outputs; ++i) {
    n->output(i)->set_name("out" + std::to_string(i));
    g.add_output(n->output(i));
  }
  return m;
}

// `trees` complete trees of `depth` (BRANCH_LEQ), each leaf scoring every
// one of `targets`.
ir::Model forest(bool classifier, int trees, int depth, int targets, std::mt19937_64& rng) {
  ir::Node* n = nullptr;
  ir::Model m = one_node(classifier ? "TreeEnsembleClassifier" : "TreeEnsembleRegressor",
                         classifier ? 2 : 1, &n);
  std::vector<int64_t> tree, node, feat, yes, no, wt, wn, wid;
  std::vector<std::string> modes;
  std::vector<float> vals, w;
  const int64_t internal = (int64_t(1) << depth) - 1, total = 2 * internal + 1;
  std::uniform_real_distribution<float> thr(-1, 1), weight(-1, 1);
  for (int t = 0; t < trees; ++t) {
    for (int64_t i = 0; i < total; ++i) {
      tree.push_back(t);
      node.push_back(i);
      bool leaf = i >= internal;
      modes.push_back(leaf ? "LEAF" : "BRANCH_LEQ");
      feat.push_back(leaf ? 0 : int64_t(rng() % kFeatures));
      vals.push_back(leaf ? 0 : thr(rng));
      yes.push_back(leaf ? 0 : 2 * i + 1);
      no.push_back(leaf ? 0 : 2 * i + 2);
      if (!leaf) continue;
      for (int k = 0; k < targets; ++k) {
        wt.push_back(t);
        wn.push_back(i);
        wid.push_back(k);
        w.push_back(weight(rng));
      }
    }
  }
  n->set_attr(ir::Attr::of_ints("nodes_treeids", tree));
  n->set_attr(ir::Attr::of_ints("nodes_nodeids", node));
  n->set_attr(ir::Attr::of_ints("nodes_featureids", feat));
  n->set_attr(ir::Attr::of_ints("nodes_truenodeids", yes));
  n->set_attr(ir::Attr::of_ints("nodes_falsenodeids", no));
  n->set_attr(ir::Attr::of_strings("nodes_modes", modes));
  n->set_attr(ir::Attr::of_floats("nodes_values", vals));
  std::string p = classifier ? "class" : "target";
  n->set_attr(ir::Attr::of_ints(p + "_treeids", wt));
  n->set_attr(ir::Attr::of_ints(p + "_nodeids", wn));
  n->set_attr(ir::Attr::of_ints(p + "_ids", wid));
  n->set_attr(ir::Attr::of_floats(p + "_weights", w));
  if (classifier) {
    std::vector<int64_t> labels;
    for (int k = 0; k < targets; ++k) labels.push_back(k);
    n->set_attr(ir::Attr::of_ints("classlabels_int64s", labels));
    n->set_attr(ir::Attr::of_string("post_transform", "SOFTMAX"));
  } else {
    n->set_attr(ir::Attr::of_int("n_targets", targets));
    n->set_attr(ir::Attr::of_string("aggregate_function", "AVERAGE"));
  }
  return m;
}

// An RBF SVC with Platt probabilities: `classes` classes, `per_class`
// support vectors each.
ir::Model svc(int classes, int per_class, std::mt19937_64& rng) {
  ir::Node* n = nullptr;
  ir::Model m = one_node("SVMClassifier", 2, &n);
  size_t V = size_t(classes * per_class), pairs = size_t(classes * (classes - 1) / 2);
  n->set_attr(ir::Attr::of_string("kernel_type", "RBF"));
  n->set_attr(ir::Attr::of_floats("kernel_params", {0.05f, 0.f, 3.f}));
  n->set_attr(
      ir::Attr::of_ints("vectors_per_class", std::vector<int64_t>(size_t(classes), per_class)));
  n->set_attr(ir::Attr::of_floats("support_vectors", uniform(V * kFeatures, -1, 1, rng)));
  n->set_attr(ir::Attr::of_floats("coefficients", uniform(V * size_t(classes - 1), -1, 1, rng)));
  n->set_attr(ir::Attr::of_floats("rho", uniform(pairs, -0.5f, 0.5f, rng)));
  n->set_attr(ir::Attr::of_floats("prob_a", uniform(pairs, -3, -1, rng)));
  n->set_attr(ir::Attr::of_floats("prob_b", uniform(pairs, -0.2f, 0.2f, rng)));
  std::vector<int64_t> labels;
  for (int k = 0; k < classes; ++k) labels.push_back(k);
  n->set_attr(ir::Attr::of_ints("classlabels_ints", labels));
  return m;
}

int gen(const fs::path& dir) {
  std::mt19937_64 rng(7);
  std::map<std::string, ir::Model> models;
  models.emplace("forest_cls", forest(true, 100, 8, 3, rng));
  models.emplace("forest_reg", forest(false, 100, 8, 1, rng));
  models.emplace("svm_rbf", svc(3, 100, rng));
  for (auto& [name, m] : models) {
    fs::create_directories(dir / (name + "_in"));
    onnx::save(m, (dir / (name + ".onnx")).string());
    std::vector<float> x = uniform(size_t(kRows * kFeatures), -1.5f, 1.5f, rng);
    eval::write_npy(
        (dir / (name + "_in") / "X.npy").string(),
        Tensor::of<float>(ir::DataType::Float, {kRows, kFeatures}, std::span<const float>(x)));
    // One row: the latency of a single prediction.
    fs::create_directories(dir / (name + "_in1"));
    eval::write_npy((dir / (name + "_in1") / "X.npy").string(),
                    Tensor::of<float>(ir::DataType::Float, {1, kFeatures},
                                      std::span<const float>(x.data(), size_t(kFeatures))));
  }
  return 0;
}

int run(const std::string& model_path, const fs::path& in_dir, const fs::path& out_dir,
        int repeat) {
  ir::Model m = onnx::load(model_path);
  std::map<std::string, eval::Value> feeds = {{"X", eval::read_npy((in_dir / "X.npy").string())}};
  using clock = std::chrono::steady_clock;
  eval::SessionOptions one_thread;
  one_thread.threads = 1;  // as ORT in bench/ml.sh
  eval::Session session(m, one_thread);
  std::vector<eval::Value> outs = session.run(feeds);  // warm-up
  auto t0 = clock::now();
  std::clock_t c0 = std::clock();
  for (int i = 0; i < repeat; ++i) outs = session.run(feeds);
  double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count() / repeat;
  double cpu_ms = 1000.0 * double(std::clock() - c0) / CLOCKS_PER_SEC / repeat;
  fs::create_directories(out_dir);
  for (size_t i = 0; i < outs.size(); ++i)
    eval::write_npy((out_dir / (std::to_string(i) + ".npy")).string(), outs[i].tensor());
  std::printf("oxs_ms_per_run %.3f cpu_ms_per_run %.3f\n", ms, cpu_ms);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "gen" && argc == 3) return gen(argv[2]);
    if (cmd == "run" && argc == 6) return run(argv[2], argv[3], argv[4], std::stoi(argv[5]));
    std::fprintf(stderr, "usage: oxs_ml_bench gen DIR | run MODEL IN_DIR OUT_DIR REPEAT\n");
    return 2;
  } catch (const oxs::Error& e) {
    std::fprintf(stderr, "oxs_ml_bench: %s\n", e.describe().c_str());
    return 1;
  }
}
