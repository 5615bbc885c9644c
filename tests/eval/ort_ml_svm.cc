// ONNX Runtime as the oracle for ai.onnx.ml SVMRegressor and SVMClassifier:
// random support vectors, coefficients and biases (fixed seeds) for every
// kernel type, SVC with and without Platt probabilities (pairwise coupling),
// liblinear models, two and several classes, both label kinds, post
// transforms and input types; both outputs compared (scores within 1e-4,
// labels exactly).
#include <gtest/gtest.h>

#include <random>

#include "ort_check.h"

namespace oxs::eval {
namespace {

using namespace ort_test;  // NOLINT: the shared oracle helpers

constexpr const char* kMl = "ai.onnx.ml";

std::vector<float> uniform(size_t n, float lo, float hi, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

Tensor input(DataType dt, int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> v = uniform(size_t(rows * cols), -2, 2, rng);
  Tensor t(dt, {rows, cols});
  for (int64_t i = 0; i < rows * cols; ++i) {
    switch (dt) {
      case DataType::Double:
        t.mutable_data<double>()[i] = v[size_t(i)];
        break;
      case DataType::Int64:
        t.mutable_data<int64_t>()[i] = int64_t(std::lround(v[size_t(i)]));
        break;
      case DataType::Int32:
        t.mutable_data<int32_t>()[i] = int32_t(std::lround(v[size_t(i)]));
        break;
      default:
        t.mutable_data<float>()[i] = v[size_t(i)];
    }
  }
  return t;
}

struct Kernel {
  std::string type;
  std::vector<float> params;  // gamma, coef0, degree
};

// ORT requires kernel_params (the spec has them optional), so every model
// gives them; LINEAR ignores them.
const std::vector<Kernel> kKernels = {{"LINEAR", {0.7f, 0.2f, 2.f}},
                                      {"POLY", {0.5f, 1.f, 2.f}},
                                      {"POLY", {0.3f, 0.5f, 3.f}},
                                      {"RBF", {0.4f, 0.f, 0.f}},
                                      {"SIGMOID", {0.2f, -0.1f, 0.f}}};

std::string kname(const Kernel& k) {
  return k.type + (k.type == "POLY" ? std::to_string(int(k.params[2])) : "");
}

void set_kernel(ir::Node* n, const Kernel& k) {
  n->set_attr(ir::Attr::of_string("kernel_type", k.type));
  if (!k.params.empty()) n->set_attr(ir::Attr::of_floats("kernel_params", k.params));
}

void check(const std::string& name, const ir::Model& m, DataType dt, int64_t rows, int64_t cols,
           uint64_t seed) {
  check_against_ort(m, name,
                    {.feeds = {{"in0", input(dt, rows, cols, seed)}}, .rtol = 1e-4, .atol = 1e-4});
}

TEST(OrtMlSvm, RegressorKernels) {
  const int64_t F = 5, V = 7;
  uint64_t seed = 1;
  for (const Kernel& k : kKernels) {
    for (int one_class : {0, 1}) {
      std::mt19937_64 rng(++seed);
      auto attrs = [&](ir::Node* n) {
        set_kernel(n, k);
        n->set_attr(ir::Attr::of_int("n_supports", V));
        n->set_attr(ir::Attr::of_floats("support_vectors", uniform(V * F, -1, 1, rng)));
        n->set_attr(ir::Attr::of_floats("coefficients", uniform(V, -1, 1, rng)));
        n->set_attr(ir::Attr::of_floats("rho", {0.3f}));
        if (one_class) n->set_attr(ir::Attr::of_int("one_class", 1));
      };
      ir::Model m =
          single_op("SVMRegressor", {tensor_type(DataType::Float, {20, F})}, 17, attrs, 1, kMl, 1);
      check("svr_" + kname(k) + (one_class ? "_oneclass" : ""), m, DataType::Float, 20, F, seed);
    }
  }
  // A linear model (no support vectors).
  auto linear = [](ir::Node* n) {
    set_kernel(n, kKernels[0]);
    n->set_attr(ir::Attr::of_floats("coefficients", {0.5f, -1.f, 2.f}));
    n->set_attr(ir::Attr::of_floats("rho", {-0.25f}));
  };
  ir::Model m =
      single_op("SVMRegressor", {tensor_type(DataType::Float, {9, 3})}, 17, linear, 1, kMl, 1);
  check("svr_linear_model", m, DataType::Float, 9, 3, 5);
}

struct Svc {
  int64_t classes = 3;
  bool proba = false;
  bool strings = false;
  std::string post = "NONE";
  DataType dt = DataType::Float;
};

ir::Model svc_model(const Svc& c, const Kernel& k, int64_t F, std::mt19937_64& rng) {
  std::vector<int64_t> per_class;
  int64_t V = 0;
  for (int64_t i = 0; i < c.classes; ++i) {
    per_class.push_back(1 + int64_t(rng() % 3));
    V += per_class.back();
  }
  int64_t pairs = c.classes * (c.classes - 1) / 2;
  auto attrs = [&](ir::Node* n) {
    set_kernel(n, k);
    n->set_attr(ir::Attr::of_ints("vectors_per_class", per_class));
    n->set_attr(ir::Attr::of_floats("support_vectors", uniform(size_t(V * F), -1, 1, rng)));
    n->set_attr(
        ir::Attr::of_floats("coefficients", uniform(size_t((c.classes - 1) * V), -1, 1, rng)));
    n->set_attr(ir::Attr::of_floats("rho", uniform(size_t(pairs), -0.5f, 0.5f, rng)));
    if (c.proba) {
      n->set_attr(ir::Attr::of_floats("prob_a", uniform(size_t(pairs), -3, -0.5f, rng)));
      n->set_attr(ir::Attr::of_floats("prob_b", uniform(size_t(pairs), -0.3f, 0.3f, rng)));
    }
    if (c.strings) {
      std::vector<std::string> l;
      for (int64_t i = 0; i < c.classes; ++i) l.push_back("c" + std::to_string(i));
      n->set_attr(ir::Attr::of_strings("classlabels_strings", l));
    } else {
      std::vector<int64_t> l;
      for (int64_t i = 0; i < c.classes; ++i) l.push_back(7 * i + 2);
      n->set_attr(ir::Attr::of_ints("classlabels_ints", l));
    }
    n->set_attr(ir::Attr::of_string("post_transform", c.post));
  };
  return single_op("SVMClassifier", {tensor_type(c.dt, {30, F})}, 17, attrs, 2, kMl, 1);
}

TEST(OrtMlSvm, ClassifierKernelsWithAndWithoutProbabilities) {
  const int64_t F = 4;
  uint64_t seed = 100;
  for (const Kernel& k : kKernels) {
    for (int64_t classes : {2, 3, 4}) {
      for (bool proba : {false, true}) {
        std::mt19937_64 rng(++seed);
        Svc c{.classes = classes, .proba = proba, .strings = classes == 3};
        std::string name =
            "svc_" + kname(k) + "_" + std::to_string(classes) + (proba ? "_proba" : "_votes");
        check(name, svc_model(c, k, F, rng), c.dt, 30, F, seed);
      }
    }
  }
}

TEST(OrtMlSvm, ClassifierPostTransforms) {
  uint64_t seed = 200;
  for (const std::string post : {"SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"}) {
    for (int64_t classes : {2, 3}) {
      for (bool proba : {false, true}) {
        std::mt19937_64 rng(++seed);
        Svc c{.classes = classes, .proba = proba, .post = post};
        std::string name = "svc_" + post + "_" + std::to_string(classes) + (proba ? "_p" : "_v");
        check(name, svc_model(c, kKernels[3], 3, rng), c.dt, 30, 3, seed);
      }
    }
  }
}

TEST(OrtMlSvm, ClassifierInputTypes) {
  uint64_t seed = 300;
  for (DataType dt : {DataType::Double, DataType::Int64, DataType::Int32}) {
    std::mt19937_64 rng(++seed);
    Svc c{.classes = 3, .proba = true, .dt = dt};
    check("svc_" + std::string(ir::dtype_name(dt)), svc_model(c, kKernels[1], 3, rng), dt, 30, 3,
          seed);
  }
}

TEST(OrtMlSvm, LinearClassifierModel) {
  uint64_t seed = 400;
  for (int64_t classes : {2, 3}) {
    for (bool positive : {false, true}) {
      for (const std::string post : {"NONE", "SOFTMAX"}) {
        std::mt19937_64 rng(++seed);
        const int64_t F = 4;
        auto attrs = [&](ir::Node* n) {
          set_kernel(n, kKernels[0]);
          n->set_attr(ir::Attr::of_floats(
              "coefficients", uniform(size_t(classes * F), positive ? 0.f : -1.f, 1, rng)));
          n->set_attr(ir::Attr::of_floats("rho", {positive ? 0.1f : -0.2f}));
          std::vector<int64_t> l;
          for (int64_t i = 0; i < classes; ++i) l.push_back(i + 10);
          n->set_attr(ir::Attr::of_ints("classlabels_ints", l));
          n->set_attr(ir::Attr::of_string("post_transform", post));
        };
        ir::Model m = single_op("SVMClassifier", {tensor_type(DataType::Float, {25, F})}, 17, attrs,
                                2, kMl, 1);
        check("svm_linear_" + std::to_string(classes) + (positive ? "_pos_" : "_mixed_") + post, m,
              DataType::Float, 25, F, seed);
      }
    }
  }
}

// X as [F]: one row.
TEST(OrtMlSvm, OneDimensionalInput) {
  std::mt19937_64 rng(500);
  auto attrs = [&](ir::Node* n) {
    set_kernel(n, kKernels[3]);
    n->set_attr(ir::Attr::of_int("n_supports", 4));
    n->set_attr(ir::Attr::of_floats("support_vectors", uniform(12, -1, 1, rng)));
    n->set_attr(ir::Attr::of_floats("coefficients", uniform(4, -1, 1, rng)));
    n->set_attr(ir::Attr::of_floats("rho", {0.1f}));
  };
  ir::Model m =
      single_op("SVMRegressor", {tensor_type(DataType::Float, {3})}, 17, attrs, 1, kMl, 1);
  check_against_ort(m, "svr_1d",
                    {.feeds = {{"in0", input(DataType::Float, 1, 3, 7).reshaped({3})}},
                     .rtol = 1e-4,
                     .atol = 1e-4});
  std::mt19937_64 rng2(501);
  Svc c{.classes = 3, .proba = true};
  ir::Model cm = svc_model(c, kKernels[1], 4, rng2);
  cm.graph->inputs()[0]->set_type(tensor_type(DataType::Float, {4}));
  check_against_ort(cm, "svc_1d",
                    {.feeds = {{"in0", input(DataType::Float, 1, 4, 8).reshaped({4})}},
                     .rtol = 1e-4,
                     .atol = 1e-4});
}

}  // namespace
}  // namespace oxs::eval
