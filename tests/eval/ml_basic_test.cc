// The basic ai.onnx.ml kernels (ml_encoders, ml_preprocess, ml_linear,
// ml_post_transform) where ONNX Runtime cannot be the oracle: bad
// attributes and inputs give an oxs::Error naming the node and saying what
// to write; input types the schema allows but ORT does not implement
// (Binarizer/Imputer/LinearRegressor on double and integers, OneHotEncoder
// on int32); cases where ORT fails or crashes (NaN into Binarizer, a
// LinearClassifier without intercepts); and the post-transform helpers.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "oxs/eval/ml/ml_post_transform.h"
#include "oxs/eval/session.h"
#include "oxs/ir/error.h"

namespace oxs::eval {
namespace {

using AttrFn = std::function<void(ir::Node*)>;

// Runs a one-node ai.onnx.ml model (node name "the_node") and returns its
// outputs.
std::vector<Value> run_ml(const std::string& op, std::vector<Tensor> inputs, const AttrFn& attrs,
                          int ml_opset = 1, size_t outputs = 1) {
  ir::Model m;
  m.opset_imports = {{"", 17}, {"ai.onnx.ml", ml_opset}};
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> ins;
  std::map<std::string, Value> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    ins.push_back(g.add_input(name, ir::Type::tensor(inputs[i].dtype())));
    feeds[name] = inputs[i];
  }
  ir::Node* n = g.create_node(op, ins, outputs);
  n->set_domain("ai.onnx.ml");
  n->set_name("the_node");
  if (attrs) attrs(n);
  for (size_t i = 0; i < outputs; ++i) g.add_output(n->output(i));
  Session s(m);
  return s.run(feeds);
}

// The error message of running the node; "" if it succeeded.
std::string error_of(const std::string& op, std::vector<Tensor> inputs, const AttrFn& attrs,
                     int ml_opset = 1, size_t outputs = 1) {
  try {
    run_ml(op, std::move(inputs), attrs, ml_opset, outputs);
  } catch (const Error& e) {
    EXPECT_EQ(e.where().node, "the_node") << e.describe();
    return e.message();
  }
  return "";
}

#define EXPECT_ERROR(call, text)                                                  \
  do {                                                                            \
    std::string msg_ = (call);                                                    \
    EXPECT_NE(msg_.find(text), std::string::npos) << "message: '" << msg_ << "'"; \
  } while (0)

template <class T>
Tensor tensor_of(DataType dt, Dims dims, std::vector<T> v) {
  return Tensor::of<T>(dt, std::move(dims), std::span<const T>(v));
}
Tensor floats(Dims d, std::vector<float> v) {
  return tensor_of(DataType::Float, d, v);
}
Tensor ints(Dims d, std::vector<int64_t> v) {
  return tensor_of(DataType::Int64, d, v);
}
Tensor strings(Dims d, std::vector<std::string> v) {
  return tensor_of(DataType::String, d, v);
}

template <class T>
std::vector<T> values(const Value& v) {
  const Tensor& t = v.tensor();
  if constexpr (std::is_same_v<T, std::string>) {
    return t.strings();
  } else {
    return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
  }
}

TEST(MlBasic, LabelEncoderAttributeErrors) {
  auto keys_values = [](ir::Node* n) {
    n->set_attr(ir::Attr::of_strings("keys_strings", {"a", "b"}));
    n->set_attr(ir::Attr::of_ints("values_int64s", {1, 2}));
  };
  // Input type differs from the keys.
  EXPECT_ERROR(error_of("LabelEncoder", {ints({2}, {1, 2})}, keys_values, 2),
               "X is int64 but the keys are keys_strings; give keys_int64s");
  // Two keys attributes, no values, lengths differ.
  EXPECT_ERROR(error_of(
                   "LabelEncoder", {strings({1}, {"a"})},
                   [&](ir::Node* n) {
                     keys_values(n);
                     n->set_attr(ir::Attr::of_ints("keys_int64s", {1, 2}));
                   },
                   2),
               "both keys_strings and keys_int64s are given");
  EXPECT_ERROR(error_of(
                   "LabelEncoder", {strings({1}, {"a"})},
                   [&](ir::Node* n) {
                     n->set_attr(ir::Attr::of_strings("keys_strings", {"a", "b"}));
                   },
                   2),
               "no values_* attribute");
  EXPECT_ERROR(error_of(
                   "LabelEncoder", {strings({1}, {"a"})},
                   [&](ir::Node* n) {
                     n->set_attr(ir::Attr::of_strings("keys_strings", {"a", "b"}));
                     n->set_attr(ir::Attr::of_floats("values_floats", {1}));
                   },
                   2),
               "keys_strings has 2 entries but values_floats has 1");
  // Wrong element type.
  EXPECT_ERROR(error_of("LabelEncoder", {floats({1}, {1})}, keys_values, 1),
               "input 0 ('X') must be a tensor of string, int64 (ai.onnx.ml.LabelEncoder-1), got "
               "float");
}

TEST(MlBasic, EncoderAndMapperErrors) {
  EXPECT_ERROR(error_of("CategoryMapper", {strings({1}, {"a"})},
                        [](ir::Node* n) {
                          n->set_attr(ir::Attr::of_strings("cats_strings", {"a", "b"}));
                          n->set_attr(ir::Attr::of_ints("cats_int64s", {1}));
                        }),
               "cats_strings has 2 entries but cats_int64s has 1");
  EXPECT_ERROR(
      error_of("CategoryMapper", {strings({1}, {"a"})},
               [](ir::Node* n) { n->set_attr(ir::Attr::of_strings("cats_strings", {"a"})); }),
      "both cats_strings and cats_int64s are required");
  auto cats = [](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("cats_int64s", {1, 2}));
    n->set_attr(ir::Attr::of_int("zeros", 0));
  };
  EXPECT_ERROR(error_of("OneHotEncoder", {ints({2}, {1, 5})}, cats),
               "X has the value 5, which is not a category; with zeros=0");
  EXPECT_ERROR(error_of("OneHotEncoder", {strings({1}, {"a"})}, cats),
               "X is string but the categories are cats_int64s");
  EXPECT_ERROR(error_of("OneHotEncoder", {ints({1}, {1})},
                        [](ir::Node* n) {
                          n->set_attr(ir::Attr::of_ints("cats_int64s", {1}));
                          n->set_attr(ir::Attr::of_strings("cats_strings", {"a"}));
                        }),
               "exactly one of cats_int64s and cats_strings");
}

TEST(MlBasic, PreprocessErrors) {
  Tensor x = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_ERROR(error_of("Scaler", {x},
                        [](ir::Node* n) {
                          n->set_attr(ir::Attr::of_floats("scale", {1, 2}));
                        }),
               "scale has 2 values; give 1 (for every feature) or 3");
  EXPECT_ERROR(error_of("Scaler", {floats({1, 1, 3}, {1, 2, 3})},
                        [](ir::Node* n) {
                          n->set_attr(ir::Attr::of_floats("scale", {1, 2, 3}));
                        }),
               "which needs X as [C] or [N, C], but X has shape [1,1,3]");
  EXPECT_EQ(values<float>(run_ml("Imputer", {floats({1, 1, 3}, {1, 0, 3})},
                                 [](ir::Node* n) {
                                   n->set_attr(ir::Attr::of_floats("imputed_value_floats", {7}));
                                 })[0]),
            (std::vector<float>{1, 7, 3}));
  EXPECT_ERROR(error_of("Normalizer", {x},
                        [](ir::Node* n) { n->set_attr(ir::Attr::of_string("norm", "L3")); }),
               "norm is 'L3'; write MAX, L1 or L2");
  EXPECT_ERROR(error_of("Normalizer", {floats({1, 1, 2}, {1, 2})}, {}),
               "X must be 1-D [C] or 2-D [N, C], got shape [1,1,2]");
  EXPECT_ERROR(
      error_of("Imputer", {x},
               [](ir::Node* n) { n->set_attr(ir::Attr::of_ints("imputed_value_int64s", {1})); }),
      "X is float, which needs imputed_value_floats (imputed_value_int64s is for "
      "int32/int64 inputs)");
  EXPECT_ERROR(error_of("Imputer", {x},
                        [](ir::Node* n) {
                          n->set_attr(ir::Attr::of_floats("imputed_value_floats", {1, 2}));
                        }),
               "imputed_value_floats has 2 values");
  EXPECT_ERROR(error_of("ArrayFeatureExtractor", {x, ints({2}, {0, 3})}, {}),
               "index Y[1] = 3 is outside [0, 3)");
  EXPECT_ERROR(error_of("ArrayFeatureExtractor", {x, ints({1}, {-1})}, {}),
               "index Y[0] = -1 is outside");
  EXPECT_ERROR(error_of("ArrayFeatureExtractor", {x, floats({1}, {0})}, {}),
               "input 1 ('Y') must be a tensor of int64 (ai.onnx.ml.ArrayFeatureExtractor-1), got "
               "float");
  EXPECT_ERROR(
      error_of("FeatureVectorizer", {x, x},
               [](ir::Node* n) { n->set_attr(ir::Attr::of_ints("inputdimensions", {3})); }),
      "there are 2 inputs but inputdimensions has 1 values");
  EXPECT_ERROR(error_of("FeatureVectorizer", {x, floats({3, 1}, {1, 2, 3})},
                        [](ir::Node* n) {
                          n->set_attr(ir::Attr::of_ints("inputdimensions", {3, 1}));
                        }),
               "input 1 has 3 rows");
  EXPECT_ERROR(error_of("Binarizer", {strings({1}, {"a"})}, {}),
               "input 0 ('X') must be a tensor of float, double, int64, int32 "
               "(ai.onnx.ml.Binarizer-1), got string");
}

TEST(MlBasic, LinearModelErrors) {
  Tensor x = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  auto base = [](ir::Node* n) {
    n->set_attr(ir::Attr::of_floats("coefficients", {1, 2, 3, 4, 5, 6}));
    n->set_attr(ir::Attr::of_floats("intercepts", {0, 1}));
  };
  EXPECT_ERROR(error_of("LinearClassifier", {x}, base, 1, 2),
               "exactly one of classlabels_ints and classlabels_strings");
  EXPECT_ERROR(error_of(
                   "LinearClassifier", {x},
                   [&](ir::Node* n) {
                     base(n);
                     n->set_attr(ir::Attr::of_ints("classlabels_ints", {1, 2, 3}));
                   },
                   1, 2),
               "there are 2 classes (sets of coefficients) but 3 class labels");
  EXPECT_ERROR(error_of(
                   "LinearClassifier", {x},
                   [&](ir::Node* n) {
                     base(n);
                     n->set_attr(ir::Attr::of_ints("classlabels_ints", {1, 2}));
                     n->set_attr(ir::Attr::of_string("post_transform", "SIGMOID"));
                   },
                   1, 2),
               "post_transform 'SIGMOID' is not valid; write one of NONE, SOFTMAX");
  EXPECT_ERROR(error_of("LinearRegressor", {x},
                        [](ir::Node* n) {
                          n->set_attr(ir::Attr::of_floats("coefficients", {1, 2, 3, 4}));
                          n->set_attr(ir::Attr::of_int("targets", 2));
                        }),
               "coefficients has 4 values but 2 target(s) x 3 features");
  EXPECT_ERROR(error_of("LinearRegressor", {x},
                        [](ir::Node* n) {
                          n->set_attr(ir::Attr::of_floats("coefficients", {1, 2, 3}));
                          n->set_attr(ir::Attr::of_floats("intercepts", {1, 2}));
                        }),
               "intercepts has 2 values; give one per target (1) or none");
  EXPECT_ERROR(error_of("LinearRegressor", {floats({1, 1, 3}, {1, 2, 3})},
                        [](ir::Node* n) {
                          n->set_attr(ir::Attr::of_floats("coefficients", {1, 2, 3}));
                        }),
               "X must be 1-D [F] or 2-D [N, F]");
}

// Types the schema allows that ORT has no kernel for.
TEST(MlBasic, TypesOrtDoesNotImplement) {
  Tensor d = tensor_of<double>(DataType::Double, {4}, {-1.0, 0.0, 0.5, 2.0});
  auto b = run_ml("Binarizer", {d},
                  [](ir::Node* n) { n->set_attr(ir::Attr::of_float("threshold", 0.25f)); });
  EXPECT_EQ(b[0].tensor().dtype(), DataType::Double);
  EXPECT_EQ(values<double>(b[0]), (std::vector<double>{0, 0, 1, 1}));
  Tensor i32 = tensor_of<int32_t>(DataType::Int32, {4}, {-1, 0, 1, 2});
  EXPECT_EQ(values<int32_t>(run_ml("Binarizer", {i32}, {})[0]), (std::vector<int32_t>{0, 0, 1, 1}));
  auto imp = run_ml("Imputer", {i32}, [](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("imputed_value_int64s", {9}));
    n->set_attr(ir::Attr::of_int("replaced_value_int64", -1));
  });
  EXPECT_EQ(values<int32_t>(imp[0]), (std::vector<int32_t>{9, 0, 1, 2}));
  double nan = std::numeric_limits<double>::quiet_NaN();
  auto impd = run_ml("Imputer", {tensor_of<double>(DataType::Double, {2, 2}, {nan, 1, 2, nan})},
                     [](ir::Node* n) {
                       n->set_attr(ir::Attr::of_floats("imputed_value_floats", {5, 6}));
                       n->set_attr(ir::Attr::of_float("replaced_value_float", NAN));
                     });
  EXPECT_EQ(values<double>(impd[0]), (std::vector<double>{5, 1, 2, 6}));
  auto oh = run_ml("OneHotEncoder", {i32}, [](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("cats_int64s", {2, 0}));
  });
  EXPECT_EQ(oh[0].tensor().dims(), (Dims{4, 2}));
  EXPECT_EQ(values<float>(oh[0]), (std::vector<float>{0, 0, 0, 1, 0, 0, 1, 0}));
  auto reg = run_ml("LinearRegressor", {tensor_of<int64_t>(DataType::Int64, {2, 2}, {1, 2, 3, 4})},
                    [](ir::Node* n) {
                      n->set_attr(ir::Attr::of_floats("coefficients", {0.5f, 1, -1, 2}));
                      n->set_attr(ir::Attr::of_floats("intercepts", {1, 0}));
                      n->set_attr(ir::Attr::of_int("targets", 2));
                    });
  EXPECT_EQ(reg[0].tensor().dims(), (Dims{2, 2}));
  EXPECT_EQ(values<float>(reg[0]), (std::vector<float>{3.5f, 3, 6.5f, 5}));
}

// Where ORT fails: NaN into Binarizer (ORT: an error; the spec's comparison
// gives 0) and a LinearClassifier without intercepts (ORT crashes; the
// classes are the coefficients divided among the features).
TEST(MlBasic, WhereOrtFails) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(values<float>(run_ml("Binarizer", {floats({3}, {nan, -1, 1})}, {})[0]),
            (std::vector<float>{0, 0, 1}));
  auto out = run_ml(
      "LinearClassifier", {floats({2, 2}, {1, 0, 0, 1})},
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_floats("coefficients", {2, 0, 0, 3}));
        n->set_attr(ir::Attr::of_strings("classlabels_strings", {"a", "b"}));
      },
      1, 2);
  EXPECT_EQ(values<std::string>(out[0]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{2, 0, 0, 3}));
}

TEST(MlBasic, LabelEncoderV1AndStringDefaults) {
  auto y = run_ml("LabelEncoder", {ints({3}, {1, 3, -2})}, [](ir::Node* n) {
    n->set_attr(ir::Attr::of_strings("classes_strings", {"a", "b"}));
  });
  EXPECT_EQ(values<std::string>(y[0]), (std::vector<std::string>{"b", "_Unused", "_Unused"}));
  auto f = run_ml(
      "LabelEncoder", {strings({2}, {"k", "other"})},
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_strings("keys_strings", {"k"}));
        n->set_attr(ir::Attr::of_floats("values_floats", {2.5f}));
      },
      2);
  auto fv = values<float>(f[0]);
  EXPECT_EQ(fv[0], 2.5f);
  EXPECT_EQ(fv[1], 0.0f);
  EXPECT_TRUE(std::signbit(fv[1]));  // default_float is -0.0
}

TEST(MlBasic, LabelEncoderV4SmallIntegers) {
  auto y = run_ml(
      "LabelEncoder", {tensor_of<int16_t>(DataType::Int16, {3}, {4, -1, 7})},
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_tensor(
            "keys_tensor", std::make_shared<ir::Tensor>(
                               tensor_of<int16_t>(DataType::Int16, {2}, {7, 4}).to_ir())));
        n->set_attr(ir::Attr::of_tensor(
            "values_tensor", std::make_shared<ir::Tensor>(
                                 tensor_of<int32_t>(DataType::Int32, {2}, {70, 40}).to_ir())));
      },
      4);
  EXPECT_EQ(values<int32_t>(y[0]), (std::vector<int32_t>{40, -1, 70}));
  EXPECT_ERROR(error_of(
                   "LabelEncoder", {ints({1}, {1})},
                   [](ir::Node* n) {
                     n->set_attr(ir::Attr::of_ints("keys_int64s", {1}));
                     n->set_attr(ir::Attr::of_ints("values_int64s", {1}));
                     n->set_attr(ir::Attr::of_tensor(
                         "default_tensor", std::make_shared<ir::Tensor>(floats({1}, {1}).to_ir())));
                   },
                   4),
               "default_tensor is float[1]; it must hold one int64");
}

TEST(MlBasic, PostTransformHelpers) {
  EXPECT_NEAR(ml_logistic(0), 0.5f, 1e-7);
  EXPECT_NEAR(ml_logistic(-100), 0.0f, 1e-7);
  EXPECT_NEAR(ml_logistic(100), 1.0f, 1e-7);
  EXPECT_FALSE(std::isnan(ml_logistic(-1000)));
  // probit(p) ~ the standard normal quantile (within the erfinv
  // approximation's error).
  EXPECT_NEAR(ml_probit(0.5f), 0.0f, 1e-6);
  EXPECT_NEAR(ml_probit(0.975f), 1.959964f, 5e-3);
  EXPECT_NEAR(ml_probit(0.1f), -1.281552f, 5e-3);
  std::vector<float> s = {1, 2, 3, 0, 0, 0};
  apply_post_transform(PostTransform::Softmax, s.data(), 2, 3);
  EXPECT_NEAR(s[0] + s[1] + s[2], 1.0f, 1e-6);
  EXPECT_NEAR(s[2], std::exp(3.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), 1e-6);
  EXPECT_NEAR(s[3], 1.0f / 3, 1e-6);
  // SOFTMAX_ZERO: zero scores stay zero (the all-zero row divides 0 by 0).
  std::vector<float> z = {2, 0, 1};
  apply_post_transform(PostTransform::SoftmaxZero, z.data(), 1, 3);
  EXPECT_EQ(z[1], 0.0f);
  EXPECT_NEAR(z[0], std::exp(2.0) / (std::exp(2.0) + std::exp(1.0)), 1e-6);
  // One column: only PROBIT changes the scores.
  std::vector<float> one = {3};
  apply_post_transform(PostTransform::Softmax, one.data(), 1, 1);
  apply_post_transform(PostTransform::Logistic, one.data(), 1, 1);
  EXPECT_EQ(one[0], 3.0f);
  float raw[] = {0.25f, -2};
  float out[4];
  expand_binary_scores(PostTransform::None, BinaryScores::OneMinus, raw, 2, out);
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{0.75f, 0.25f, 3, -2}));
  expand_binary_scores(PostTransform::Logistic, BinaryScores::Negate, raw, 2, out);
  EXPECT_NEAR(out[0], ml_logistic(-0.25f), 1e-7);
  EXPECT_NEAR(out[3], ml_logistic(-2), 1e-7);
  expand_binary_scores(PostTransform::None, BinaryScores::Negate, raw, 1, out);
  EXPECT_EQ(out[0], -0.25f);
  EXPECT_EQ(out[1], 0.25f);
}

}  // namespace
}  // namespace oxs::eval
