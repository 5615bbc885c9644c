// SVMRegressor / SVMClassifier beyond the ORT oracle: inconsistent attribute
// sizes are errors naming the attribute, and small models checked against
// formulas written out in the test (kernel sums, libsvm's sign convention,
// Platt probabilities, which pairwise coupling must reproduce for two
// classes).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "oxs/eval/session.h"
#include "oxs/ir/error.h"

namespace oxs::eval {
namespace {

// Runs `op` on X[rows, cols]; returns every output.
std::vector<Value> run(const std::string& op, const std::vector<float>& x, int64_t cols,
                       const std::function<void(ir::Node*)>& attrs, size_t outputs) {
  ir::Model m;
  m.opset_imports = {{"", 17}, {"ai.onnx.ml", 1}};
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> ins = {g.add_input("X", ir::Type::tensor(DataType::Float))};
  ir::Node* n = g.create_node(op, ins, outputs);
  n->set_domain("ai.onnx.ml");
  n->set_name("svm");
  attrs(n);
  for (size_t i = 0; i < outputs; ++i) g.add_output(n->output(i));
  Session s(m);
  int64_t rows = int64_t(x.size()) / cols;
  return s.run(
      {{"X", Tensor::of<float>(DataType::Float, {rows, cols}, std::span<const float>(x))}});
}

std::string error_of(const std::string& op, const std::function<void(ir::Node*)>& attrs,
                     int64_t cols = 2) {
  try {
    run(op, std::vector<float>(size_t(cols), 0.f), cols, attrs, op == "SVMClassifier" ? 2 : 1);
  } catch (const Error& e) {
    return e.describe();
  }
  return "";
}

// Two classes, one support vector each, in 2-D.
void binary_svc(ir::Node* n) {
  n->set_attr(ir::Attr::of_string("kernel_type", "LINEAR"));
  n->set_attr(ir::Attr::of_floats("kernel_params", {0, 0, 0}));
  n->set_attr(ir::Attr::of_ints("vectors_per_class", {1, 1}));
  n->set_attr(ir::Attr::of_floats("support_vectors", {1, 0, 0, 1}));
  n->set_attr(ir::Attr::of_floats("coefficients", {2, -1}));
  n->set_attr(ir::Attr::of_floats("rho", {0.5f}));
  n->set_attr(ir::Attr::of_ints("classlabels_ints", {4, 9}));
}

TEST(MlSvm, InconsistentSizesNameTheAttribute) {
  auto with = [](std::function<void(ir::Node*)> edit) {
    return [edit](ir::Node* n) {
      binary_svc(n);
      edit(n);
    };
  };
  std::string msg = error_of("SVMClassifier", with([](ir::Node* n) {
                               n->set_attr(ir::Attr::of_floats("coefficients", {1, 2, 3}));
                             }));
  EXPECT_NE(msg.find("coefficients has 3 values"), std::string::npos) << msg;
  EXPECT_NE(msg.find("svm"), std::string::npos) << msg;
  msg = error_of("SVMClassifier", with([](ir::Node* n) {
                   n->set_attr(ir::Attr::of_floats("support_vectors", {1, 0, 0}));
                 }));
  EXPECT_NE(msg.find("support_vectors has 3 values"), std::string::npos) << msg;
  msg = error_of("SVMClassifier", with([](ir::Node* n) {
                   n->set_attr(ir::Attr::of_floats("rho", {1, 2}));
                 }));
  EXPECT_NE(msg.find("rho has 2 values"), std::string::npos) << msg;
  msg = error_of("SVMClassifier",
                 with([](ir::Node* n) { n->set_attr(ir::Attr::of_floats("prob_a", {1})); }));
  EXPECT_NE(msg.find("prob_a has 1 values but prob_b has 0"), std::string::npos) << msg;
  msg = error_of("SVMClassifier",
                 with([](ir::Node* n) { n->set_attr(ir::Attr::of_floats("kernel_params", {1})); }));
  EXPECT_NE(msg.find("kernel_params must hold 3 values"), std::string::npos) << msg;
  msg = error_of("SVMClassifier", binary_svc, 3);
  EXPECT_NE(msg.find("X has 3 columns but the model has 2 features"), std::string::npos) << msg;
  msg = error_of("SVMRegressor", [](ir::Node* n) {
    n->set_attr(ir::Attr::of_int("n_supports", 2));
    n->set_attr(ir::Attr::of_floats("support_vectors", {1, 0, 0, 1}));
    n->set_attr(ir::Attr::of_floats("coefficients", {1}));
    n->set_attr(ir::Attr::of_floats("rho", {0}));
  });
  EXPECT_NE(msg.find("coefficients has 1 values but n_supports is 2"), std::string::npos) << msg;
}

TEST(MlSvm, BinarySvcFollowsTheDecisionSign) {
  // d(x) = 2 * <x, (1,0)> - 1 * <x, (0,1)> + 0.5; d > 0 votes for the first
  // class (libsvm's convention); the scores are [-d, d].
  std::vector<float> x = {1, 1, -1, 0, 0, 3, 0.25f, 1};
  auto out = run("SVMClassifier", x, 2, binary_svc, 2);
  for (int64_t r = 0; r < 4; ++r) {
    float d = 2 * x[size_t(2 * r)] - x[size_t(2 * r + 1)] + 0.5f;
    EXPECT_EQ(out[0].tensor().data<int64_t>()[r], d > 0 ? 4 : 9) << "row " << r;
    EXPECT_FLOAT_EQ(out[1].tensor().data<float>()[2 * r], -d) << "row " << r;
    EXPECT_FLOAT_EQ(out[1].tensor().data<float>()[2 * r + 1], d) << "row " << r;
  }
}

TEST(MlSvm, TwoClassProbabilitiesArePlattsSigmoid) {
  // With two classes the coupled probabilities are the pairwise one:
  // P(first) = 1 / (1 + exp(A d + B)).
  const float A = -2.f, B = 0.25f;
  auto attrs = [&](ir::Node* n) {
    binary_svc(n);
    n->set_attr(ir::Attr::of_floats("prob_a", {A}));
    n->set_attr(ir::Attr::of_floats("prob_b", {B}));
  };
  std::vector<float> x = {1, 1, -1, 0, 0, 3, 0.25f, 1};
  auto out = run("SVMClassifier", x, 2, attrs, 2);
  ASSERT_EQ(out[1].tensor().dims(), (Dims{4, 2}));
  for (int64_t r = 0; r < 4; ++r) {
    double d = 2.0 * x[size_t(2 * r)] - x[size_t(2 * r + 1)] + 0.5;
    double p = 1 / (1 + std::exp(A * d + B));
    EXPECT_NEAR(out[1].tensor().data<float>()[2 * r], p, 2e-3) << "row " << r;
    EXPECT_NEAR(out[1].tensor().data<float>()[2 * r + 1], 1 - p, 2e-3) << "row " << r;
  }
}

TEST(MlSvm, MulticlassProbabilitiesSumToOne) {
  auto attrs = [](ir::Node* n) {
    n->set_attr(ir::Attr::of_string("kernel_type", "RBF"));
    n->set_attr(ir::Attr::of_floats("kernel_params", {0.5f, 0, 0}));
    n->set_attr(ir::Attr::of_ints("vectors_per_class", {1, 2, 1}));
    n->set_attr(ir::Attr::of_floats("support_vectors", {0, 0, 1, 1, 1, 0, -1, 1}));
    n->set_attr(ir::Attr::of_floats("coefficients", {1, -0.5f, 0.25f, -1, 0.5f, 1, -1, 0.75f}));
    n->set_attr(ir::Attr::of_floats("rho", {0.1f, -0.2f, 0.3f}));
    n->set_attr(ir::Attr::of_floats("prob_a", {-1, -2, -1.5f}));
    n->set_attr(ir::Attr::of_floats("prob_b", {0, 0.1f, -0.1f}));
    n->set_attr(ir::Attr::of_strings("classlabels_strings", {"a", "b", "c"}));
  };
  std::vector<float> x = {0, 0, 1, 1, -1, 2, 3, -3};
  auto out = run("SVMClassifier", x, 2, attrs, 2);
  ASSERT_EQ(out[1].tensor().dims(), (Dims{4, 3}));
  for (int64_t r = 0; r < 4; ++r) {
    const float* p = out[1].tensor().data<float>() + 3 * r;
    EXPECT_NEAR(p[0] + p[1] + p[2], 1.0, 1e-4) << "row " << r;
    for (int k = 0; k < 3; ++k) EXPECT_GE(p[k], 0.f);
  }
}

TEST(MlSvm, RegressorIsTheKernelSum) {
  const float gamma = 0.3f;
  std::vector<float> sv = {0, 1, 2, -1, 1, 1};
  std::vector<float> coef = {0.5f, -1.25f, 2};
  auto attrs = [&](ir::Node* n, bool one_class) {
    n->set_attr(ir::Attr::of_string("kernel_type", "RBF"));
    n->set_attr(ir::Attr::of_floats("kernel_params", {gamma, 0, 0}));
    n->set_attr(ir::Attr::of_int("n_supports", 3));
    n->set_attr(ir::Attr::of_floats("support_vectors", sv));
    n->set_attr(ir::Attr::of_floats("coefficients", coef));
    n->set_attr(ir::Attr::of_floats("rho", {-0.5f}));
    if (one_class) n->set_attr(ir::Attr::of_int("one_class", 1));
  };
  std::vector<float> x = {0, 0, 1, 1, 2, -1, -3, 4};
  auto y = run(
               "SVMRegressor", x, 2, [&](ir::Node* n) { attrs(n, false); }, 1)[0]
               .tensor();
  auto sign = run(
                  "SVMRegressor", x, 2, [&](ir::Node* n) { attrs(n, true); }, 1)[0]
                  .tensor();
  ASSERT_EQ(y.dims(), (Dims{4, 1}));
  for (int64_t r = 0; r < 4; ++r) {
    double want = -0.5;
    for (size_t v = 0; v < 3; ++v) {
      double dx = x[size_t(2 * r)] - sv[2 * v], dy = x[size_t(2 * r + 1)] - sv[2 * v + 1];
      want += coef[v] * std::exp(-gamma * (dx * dx + dy * dy));
    }
    EXPECT_NEAR(y.data<float>()[r], want, 1e-5) << "row " << r;
    EXPECT_EQ(sign.data<float>()[r], want > 0 ? 1.f : -1.f) << "row " << r;
  }
}

}  // namespace
}  // namespace oxs::eval
