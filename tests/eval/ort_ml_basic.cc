// ONNX Runtime as the oracle for the basic ai.onnx.ml kernels (ml_encoders,
// ml_preprocess, ml_linear): one generated single-node model per operator
// and type combination the schema allows and ORT implements, with explicit
// inputs that hit the edge cases (unknown labels -> defaults, zero rows, NaN
// to impute, binary classifiers, every post_transform). The ONNX test data
// has no ML tests, so ORT is the only oracle. Combinations ORT does not
// implement are checked in ml_basic_test.cc instead.
#include <gtest/gtest.h>

#include "ort_check.h"

namespace oxs::eval {
namespace {

using namespace ort_test;  // NOLINT: the shared oracle helpers

const char* kMl = "ai.onnx.ml";

template <class T>
Tensor tensor_of(DataType dt, Dims dims, std::vector<T> v) {
  return Tensor::of<T>(dt, std::move(dims), std::span<const T>(v));
}
Tensor strings(Dims dims, std::vector<std::string> v) {
  return tensor_of<std::string>(DataType::String, std::move(dims), std::move(v));
}
Tensor ints(Dims dims, std::vector<int64_t> v) {
  return tensor_of<int64_t>(DataType::Int64, std::move(dims), std::move(v));
}
Tensor floats(Dims dims, std::vector<float> v) {
  return tensor_of<float>(DataType::Float, std::move(dims), std::move(v));
}
// `t` (float) converted to `dt` (double, int32, int64: truncated).
Tensor as_type(const Tensor& t, DataType dt) {
  Tensor out(dt, t.dims());
  for (int64_t i = 0; i < t.numel(); ++i) {
    float v = t.data<float>()[i];
    switch (dt) {
      case DataType::Double:
        out.mutable_data<double>()[i] = v;
        break;
      case DataType::Int32:
        out.mutable_data<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      case DataType::Int64:
        out.mutable_data<int64_t>()[i] = static_cast<int64_t>(v);
        break;
      default:
        out.mutable_data<float>()[i] = v;
    }
  }
  return out;
}

using AttrFn = std::function<void(ir::Node*)>;

// One ML node over one input `x`, checked against ORT.
void check_ml(const std::string& op, const Tensor& x, const AttrFn& attrs, const std::string& name,
              int ml_opset = 1, size_t outputs = 1, double rtol = 1e-4, double atol = 1e-5) {
  ir::Model m =
      single_op(op, {tensor_type(x.dtype(), x.dims())}, 17, attrs, outputs, kMl, ml_opset);
  check_against_ort(m, name, {.feeds = {{"in0", x}}, .rtol = rtol, .atol = atol});
}

std::string dt_name(DataType dt) {
  return std::string(ir::dtype_name(dt));
}

TEST(OrtMlBasic, LabelEncoderV1) {
  check_ml(
      "LabelEncoder", strings({2, 3}, {"a", "c", "zz", "b", "", "a"}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_strings("classes_strings", {"a", "b", "c"}));
        n->set_attr(ir::Attr::of_int("default_int64", 42));
      },
      "le1_s2i");
  check_ml(
      "LabelEncoder", ints({5}, {0, 2, 1, 7, -1}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_strings("classes_strings", {"a", "b", "c"}));
        n->set_attr(ir::Attr::of_string("default_string", "?"));
      },
      "le1_i2s");
  // Defaults: -1 and "_Unused".
  check_ml(
      "LabelEncoder", strings({3}, {"a", "q", "b"}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_strings("classes_strings", {"a", "b"}));
      },
      "le1_s2i_default");
  check_ml(
      "LabelEncoder", ints({3}, {5, 1, 0}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_strings("classes_strings", {"a", "b"}));
      },
      "le1_i2s_default");
}

TEST(OrtMlBasic, LabelEncoderV2EveryKeyValueType) {
  const DataType types[] = {DataType::String, DataType::Int64, DataType::Float};
  auto input = [](DataType kt) {
    switch (kt) {
      case DataType::String:
        return strings({2, 3}, {"x", "y", "nope", "z", "x", ""});
      case DataType::Int64:
        return ints({2, 3}, {10, 20, 99, 30, 10, -5});
      default:
        return floats({2, 3}, {0.5f, 1.5f, 7.0f, 2.5f, 0.5f, -0.0f});
    }
  };
  auto set = [](ir::Node* n, const std::string& prefix, DataType t) {
    if (t == DataType::String)
      n->set_attr(ir::Attr::of_strings(prefix + "_strings", {"x", "y", "z"}));
    if (t == DataType::Int64) n->set_attr(ir::Attr::of_ints(prefix + "_int64s", {10, 20, 30}));
    if (t == DataType::Float)
      n->set_attr(ir::Attr::of_floats(prefix + "_floats", {0.5f, 1.5f, 2.5f}));
  };
  for (DataType kt : types) {
    for (DataType vt : types) {
      for (bool custom_default : {false, true}) {
        std::string name = "le2_" + dt_name(kt) + "_" + dt_name(vt) + (custom_default ? "_d" : "");
        check_ml(
            "LabelEncoder", input(kt),
            [&](ir::Node* n) {
              set(n, "keys", kt);
              set(n, "values", vt);
              if (!custom_default) return;
              n->set_attr(ir::Attr::of_string("default_string", "unk"));
              n->set_attr(ir::Attr::of_int("default_int64", 7));
              n->set_attr(ir::Attr::of_float("default_float", 3.25f));
            },
            name, 2);
      }
    }
  }
}

TEST(OrtMlBasic, CategoryMapperBothWays) {
  auto cats = [](int64_t def_i, const std::string& def_s) {
    return [=](ir::Node* n) {
      n->set_attr(ir::Attr::of_strings("cats_strings", {"cat", "dog", "cow"}));
      n->set_attr(ir::Attr::of_ints("cats_int64s", {1, 2, 5}));
      if (def_i != -1) n->set_attr(ir::Attr::of_int("default_int64", def_i));
      if (def_s != "_Unused") n->set_attr(ir::Attr::of_string("default_string", def_s));
    };
  };
  check_ml("CategoryMapper", strings({2, 2}, {"cow", "cat", "emu", "dog"}), cats(-1, "_Unused"),
           "catmap_s2i");
  check_ml("CategoryMapper", strings({4}, {"cow", "x", "emu", "dog"}), cats(99, "_Unused"),
           "catmap_s2i_default");
  check_ml("CategoryMapper", ints({5}, {5, 1, 3, 2, 0}), cats(-1, "_Unused"), "catmap_i2s");
  check_ml("CategoryMapper", ints({5}, {5, 1, 3, 2, 0}), cats(-1, "none"), "catmap_i2s_default");
}

TEST(OrtMlBasic, OneHotEncoder) {
  auto int_cats = [](ir::Node* n) { n->set_attr(ir::Attr::of_ints("cats_int64s", {4, 1, 9, 2})); };
  Tensor xi = ints({2, 3}, {1, 2, 7, 9, 4, 1});  // 7 is unknown: all zeros
  check_ml("OneHotEncoder", xi, int_cats, "onehot_int64");
  check_ml("OneHotEncoder", floats({2, 3}, {1.0f, 2.7f, 7.0f, 9.2f, 4.0f, -1.0f}), int_cats,
           "onehot_float");
  check_ml("OneHotEncoder", as_type(floats({4}, {1, 2, 3, 9}), DataType::Double), int_cats,
           "onehot_double");
  check_ml(
      "OneHotEncoder", strings({1, 4}, {"b", "a", "zz", "b"}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_strings("cats_strings", {"a", "b", "c"}));
        n->set_attr(ir::Attr::of_int("zeros", 1));
      },
      "onehot_string");
}

TEST(OrtMlBasic, BinarizerScalerNormalizer) {
  Tensor x = floats({3, 4}, {-1.5f, 0.0f, 0.25f, 3.0f, 2.0f, -2.0f, 0.0f, 1.0f, 0, 0, 0, 0});
  check_ml(
      "Binarizer", x, [](ir::Node* n) { n->set_attr(ir::Attr::of_float("threshold", 0.2f)); },
      "binarizer_float");
  check_ml("Binarizer", x, {}, "binarizer_default");
  for (DataType dt : {DataType::Float, DataType::Double, DataType::Int64, DataType::Int32}) {
    Tensor xt = as_type(x, dt);
    check_ml(
        "Scaler", xt,
        [](ir::Node* n) {
          n->set_attr(ir::Attr::of_floats("offset", {1.0f, -2.0f, 0.5f, 0.0f}));
          n->set_attr(ir::Attr::of_floats("scale", {2.0f, 0.5f, -1.0f, 3.0f}));
        },
        "scaler_per_feature_" + dt_name(dt));
    check_ml(
        "Scaler", xt,
        [](ir::Node* n) {
          n->set_attr(ir::Attr::of_floats("offset", {0.5f}));
          n->set_attr(ir::Attr::of_floats("scale", {4.0f}));
        },
        "scaler_broadcast_" + dt_name(dt));
    for (const char* norm : {"MAX", "L1", "L2"}) {
      auto attrs = [&](ir::Node* n) { n->set_attr(ir::Attr::of_string("norm", norm)); };
      check_ml("Normalizer", xt, attrs, std::string("normalizer_") + norm + "_" + dt_name(dt));
      check_ml("Normalizer", as_type(floats({3}, {-3, 1, 2}), dt), attrs,
               std::string("normalizer1d_") + norm + "_" + dt_name(dt));
    }
  }
}

TEST(OrtMlBasic, Imputer) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = floats({3, 3}, {1.0f, nan, 3.0f, nan, 0.0f, nan, -1.0f, 2.0f, 0.0f});
  check_ml(
      "Imputer", x,
      [&](ir::Node* n) {
        n->set_attr(ir::Attr::of_floats("imputed_value_floats", {10, 20, 30}));
        n->set_attr(ir::Attr::of_float("replaced_value_float", nan));
      },
      "imputer_nan_per_feature");
  check_ml(
      "Imputer", x,
      [&](ir::Node* n) { n->set_attr(ir::Attr::of_floats("imputed_value_floats", {-7})); },
      "imputer_zero_broadcast");
  Tensor xi = ints({2, 3}, {1, -1, 3, -1, -1, 0});
  check_ml(
      "Imputer", xi,
      [&](ir::Node* n) {
        n->set_attr(ir::Attr::of_ints("imputed_value_int64s", {100, 200, 300}));
        n->set_attr(ir::Attr::of_int("replaced_value_int64", -1));
      },
      "imputer_int64_per_feature");
  check_ml(
      "Imputer", xi,
      [&](ir::Node* n) { n->set_attr(ir::Attr::of_ints("imputed_value_int64s", {5})); },
      "imputer_int64_broadcast");
}

TEST(OrtMlBasic, ArrayFeatureExtractor) {
  Tensor x = floats({2, 3, 4}, {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23});
  for (DataType dt : {DataType::Float, DataType::Double, DataType::Int64, DataType::Int32}) {
    ir::Model m = single_op("ArrayFeatureExtractor",
                            {tensor_type(dt, {2, 3, 4}), tensor_type(DataType::Int64, {3})}, 17, {},
                            1, kMl, 1);
    check_against_ort(m, "afe_" + dt_name(dt),
                      {.feeds = {{"in0", as_type(x, dt)}, {"in1", ints({3}, {3, 0, 3})}}});
  }
  ir::Model s =
      single_op("ArrayFeatureExtractor",
                {tensor_type(DataType::String, {4}), tensor_type(DataType::Int64, {2, 1})}, 17, {},
                1, kMl, 1);
  check_against_ort(
      s, "afe_string_1d",
      {.feeds = {{"in0", strings({4}, {"a", "b", "c", "d"})}, {"in1", ints({2, 1}, {2, 1})}}});
}

// The inputs share one type (T1); each input is padded or truncated to its
// inputdimensions entry.
TEST(OrtMlBasic, FeatureVectorizer) {
  for (DataType dt : {DataType::Float, DataType::Double, DataType::Int64, DataType::Int32}) {
    ir::Model m = single_op(
        "FeatureVectorizer",
        {tensor_type(dt, {2, 3}), tensor_type(dt, {2, 1}), tensor_type(dt, {2, 4})}, 17,
        [](ir::Node* n) {
          // 3 as given, 1 padded to 2, 4 truncated to 2.
          n->set_attr(ir::Attr::of_ints("inputdimensions", {3, 2, 2}));
        },
        1, kMl, 1);
    check_against_ort(
        m, "featvec_" + dt_name(dt),
        {.feeds = {{"in0", as_type(floats({2, 3}, {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f}), dt)},
                   {"in1", as_type(floats({2, 1}, {-3, 9}), dt)},
                   {"in2", as_type(floats({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), dt)}}});
  }
  ir::Model one = single_op(
      "FeatureVectorizer", {tensor_type(DataType::Float, {3})}, 17,
      [](ir::Node* n) { n->set_attr(ir::Attr::of_ints("inputdimensions", {5})); }, 1, kMl, 1);
  check_against_ort(one, "featvec_1d", {.feeds = {{"in0", floats({3}, {1, 2, 3})}}});
}

const char* kTransforms[] = {"NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO", "PROBIT"};

// Probabilities for PROBIT: values in (0, 1).
Tensor classifier_input(bool probit) {
  return probit ? floats({4, 3},
                         {0.1f, 0.2f, 0.05f, 0.3f, 0.0f, 0.1f, 0.2f, 0.1f, 0.1f, 0.0f, 0.05f, 0.2f})
                : floats({4, 3}, {1.0f, -2.0f, 0.5f, 0.0f, 0.0f, 0.0f, 3.0f, 1.0f, -1.0f, -0.5f,
                                  2.0f, 0.25f});
}

TEST(OrtMlBasic, LinearClassifierMultiClass) {
  // 3 classes x 3 features; class 1 has zero weights so SOFTMAX_ZERO
  // sees zero scores on the all-zero row.
  std::vector<float> coef = {0.5f, -0.25f, 0.1f, 0.0f, 0.0f, 0.0f, -0.3f, 0.2f, 0.4f};
  for (const char* pt : kTransforms) {
    bool probit = std::string(pt) == "PROBIT";
    for (bool labels_as_strings : {false, true}) {
      auto attrs = [&](ir::Node* n) {
        n->set_attr(ir::Attr::of_floats("coefficients", coef));
        n->set_attr(ir::Attr::of_floats("intercepts", {probit ? 0.2f : 0.1f, 0.0f, 0.3f}));
        n->set_attr(ir::Attr::of_string("post_transform", pt));
        if (labels_as_strings) {
          n->set_attr(ir::Attr::of_strings("classlabels_strings", {"lo", "mid", "hi"}));
        } else {
          n->set_attr(ir::Attr::of_ints("classlabels_ints", {7, 8, 9}));
        }
      };
      check_ml("LinearClassifier", classifier_input(probit), attrs,
               std::string("linclass_") + pt + (labels_as_strings ? "_s" : "_i"), 1, 2);
    }
  }
  for (DataType dt : {DataType::Double, DataType::Int64, DataType::Int32}) {
    check_ml(
        "LinearClassifier", as_type(classifier_input(false), dt),
        [&](ir::Node* n) {
          n->set_attr(ir::Attr::of_floats("coefficients", coef));
          n->set_attr(ir::Attr::of_floats("intercepts", {0.1f, 0.0f, 0.3f}));
          n->set_attr(ir::Attr::of_ints("classlabels_ints", {0, 1, 2}));
          n->set_attr(ir::Attr::of_string("post_transform", "SOFTMAX"));
        },
        "linclass_" + dt_name(dt), 1, 2);
  }
}

TEST(OrtMlBasic, LinearClassifierBinary) {
  // One set of coefficients: the label is the sign of the raw score.
  for (const char* pt : {"NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"}) {
    // Two labels only. One label (ORT 1.20 ran it) has no oracle now: ONNX
    // Runtime 1.31 refuses the model ("classlabels must have exactly 2
    // elements for binary classification"), and onnx's reference evaluator
    // labels with that class or 0 and fails on string labels.
    for (int labels : {2}) {
      for (bool labels_as_strings : {false, true}) {
        auto attrs = [&](ir::Node* n) {
          n->set_attr(ir::Attr::of_floats("coefficients", {0.5f, -0.25f, 1.0f}));
          n->set_attr(ir::Attr::of_floats("intercepts", {-0.1f}));
          n->set_attr(ir::Attr::of_string("post_transform", pt));
          if (labels_as_strings) {
            n->set_attr(ir::Attr::of_strings("classlabels_strings",
                                             labels == 2 ? std::vector<std::string>{"no", "yes"}
                                                         : std::vector<std::string>{"x"}));
          } else {
            n->set_attr(ir::Attr::of_ints("classlabels_ints", labels == 2
                                                                  ? std::vector<int64_t>{3, 5}
                                                                  : std::vector<int64_t>{4}));
          }
        };
        check_ml(
            "LinearClassifier", classifier_input(false), attrs,
            std::string("linbin_") + pt + std::to_string(labels) + (labels_as_strings ? "s" : "i"),
            1, 2);
      }
    }
  }
  // PROBIT on the single score: one row (ORT fills only the first column).
  check_ml(
      "LinearClassifier", floats({1, 2}, {0.3f, 0.2f}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_floats("coefficients", {0.5f, 1.0f}));
        n->set_attr(ir::Attr::of_floats("intercepts", {0.1f}));
        n->set_attr(ir::Attr::of_string("post_transform", "PROBIT"));
        n->set_attr(ir::Attr::of_ints("classlabels_ints", {0, 1}));
      },
      "linbin_probit", 1, 2);
}

TEST(OrtMlBasic, LinearRegressor) {
  for (const char* pt : kTransforms) {
    bool probit = std::string(pt) == "PROBIT";
    Tensor x = classifier_input(probit);
    check_ml(
        "LinearRegressor", x,
        [&](ir::Node* n) {
          n->set_attr(ir::Attr::of_floats("coefficients",
                                          {0.5f, -0.25f, 0.1f, 0, 0, 0, -0.3f, 0.2f, 0.4f}));
          n->set_attr(ir::Attr::of_floats("intercepts", {0.1f, 0.0f, 0.3f}));
          n->set_attr(ir::Attr::of_int("targets", 3));
          n->set_attr(ir::Attr::of_string("post_transform", pt));
        },
        std::string("linreg3_") + pt);
    check_ml(
        "LinearRegressor", x,
        [&](ir::Node* n) {
          n->set_attr(ir::Attr::of_floats("coefficients", {0.25f, 0.5f, 0.2f}));
          if (!probit) n->set_attr(ir::Attr::of_floats("intercepts", {-0.5f}));
          n->set_attr(ir::Attr::of_string("post_transform", pt));
        },
        std::string("linreg1_") + pt);
  }
  // ORT implements LinearRegressor for float only: ml_basic_test.cc checks
  // the other input types.
}

// Repeated keys (LabelEncoder keeps the first entry, CategoryMapper the
// last, as ORT), a NaN key (matches nothing), a negative row maximum.
TEST(OrtMlBasic, RepeatedKeysNanKeysNegativeMax) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  check_ml(
      "LabelEncoder", ints({4}, {1, 2, 3, 4}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_ints("keys_int64s", {1, 2, 1}));
        n->set_attr(ir::Attr::of_ints("values_int64s", {10, 20, 30}));
      },
      "le_repeated_key", 2);
  check_ml(
      "LabelEncoder", floats({3}, {nan, 1, 2}),
      [&](ir::Node* n) {
        n->set_attr(ir::Attr::of_floats("keys_floats", {nan, 1}));
        n->set_attr(ir::Attr::of_ints("values_int64s", {10, 20}));
      },
      "le_nan_key", 2);
  auto dup = [](ir::Node* n) {
    n->set_attr(ir::Attr::of_strings("cats_strings", {"a", "a", "b"}));
    n->set_attr(ir::Attr::of_ints("cats_int64s", {1, 2, 2}));
  };
  check_ml("CategoryMapper", strings({3}, {"a", "b", "c"}), dup, "catmap_repeated_s2i");
  check_ml("CategoryMapper", ints({3}, {1, 2, 3}), dup, "catmap_repeated_i2s");
  check_ml(
      "Normalizer", floats({2, 2}, {-1, -2, 0, 0}),
      [](ir::Node* n) { n->set_attr(ir::Attr::of_string("norm", "MAX")); }, "normalizer_neg");
  ir::Model m = single_op("ArrayFeatureExtractor",
                          {tensor_type(DataType::Int64, {5}), tensor_type(DataType::Int64, {2})},
                          17, {}, 1, kMl, 1);
  check_against_ort(m, "afe_int64_1d",
                    {.feeds = {{"in0", ints({5}, {9, 8, 7, 6, 5})}, {"in1", ints({2}, {4, 0})}}});
}

// LabelEncoder-4 (ai.onnx.ml opset 4): keys, values and default as tensor
// attributes over more types; a NaN key matches NaN.
TEST(OrtMlBasic, LabelEncoderV4TensorAttributes) {
  auto tensor_attr = [](const std::string& name, const Tensor& t) {
    return ir::Attr::of_tensor(name, std::make_shared<ir::Tensor>(t.to_ir()));
  };
  float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor keys = floats({4}, {1.5f, nan, -2.0f, 1.5f});
  // ORT has no int32/int16 LabelEncoder-4 nor float -> double (ml_basic_test.cc
  // checks int16/int32).
  const DataType types[] = {DataType::Float, DataType::Double, DataType::Int64, DataType::String};
  auto typed = [&](const Tensor& f, DataType dt) {
    if (dt == DataType::Int16) {
      Tensor out(dt, f.dims());
      for (int64_t i = 0; i < f.numel(); ++i)
        out.mutable_data<int16_t>()[i] = static_cast<int16_t>(f.data<float>()[i]);
      return out;
    }
    if (dt != DataType::String) return as_type(f, dt);
    Tensor out(dt, f.dims());
    for (int64_t i = 0; i < f.numel(); ++i)
      out.mutable_strings()[size_t(i)] = "s" + std::to_string(int(f.data<float>()[i]));
    return out;
  };
  for (DataType kt : types) {
    for (DataType vt : {DataType::Int64, DataType::String, DataType::Double}) {
      if (kt == DataType::Float && vt == DataType::Double) continue;
      Tensor k = ir::is_floating(kt) ? typed(keys, kt) : typed(floats({3}, {1, 5, -2}), kt);
      Tensor v = typed(floats({k.numel()}, {10, 20, 30, 40}), vt).reshaped({k.numel()});
      Tensor x = ir::is_floating(kt) ? typed(floats({2, 3}, {1.5f, nan, 0, -2, 7, nan}), kt)
                                     : typed(floats({2, 3}, {1, 5, 0, -2, 7, 1}), kt);
      check_ml(
          "LabelEncoder", x,
          [&](ir::Node* n) {
            n->set_attr(tensor_attr("keys_tensor", k));
            n->set_attr(tensor_attr("values_tensor", v));
            if (vt == DataType::Int64) n->set_attr(tensor_attr("default_tensor", ints({1}, {-9})));
          },
          "le4_" + dt_name(kt) + "_" + dt_name(vt), 4);
    }
  }
}

// Inputs other than [N, C]: 1-D, scalars, empty, one-value attributes over
// rank 3.
TEST(OrtMlBasic, OtherShapes) {
  Tensor x3 = floats({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  check_ml(
      "Imputer", x3,
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_floats("imputed_value_floats", {-1}));
        n->set_attr(ir::Attr::of_float("replaced_value_float", 5));
      },
      "imputer_rank3");
  check_ml(
      "Scaler", x3,
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_floats("scale", {2}));
        n->set_attr(ir::Attr::of_floats("offset", {1}));
      },
      "scaler_rank3");
  auto per_feature = [](ir::Node* n) {
    n->set_attr(ir::Attr::of_floats("scale", {1, 2, 3}));
    n->set_attr(ir::Attr::of_floats("offset", {0, 1, 2}));
  };
  check_ml("Scaler", floats({3}, {0, 1, 0}), per_feature, "scaler_1d");
  check_ml(
      "Imputer", floats({3}, {0, 1, 0}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_floats("imputed_value_floats", {-1, -2, -3}));
      },
      "imputer_1d");
  check_ml("Binarizer", floats({}, {0.5f}), {}, "binarizer_0d");
  check_ml(
      "LabelEncoder", strings({}, {"a"}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_strings("keys_strings", {"a"}));
        n->set_attr(ir::Attr::of_ints("values_int64s", {3}));
      },
      "le_0d", 2);
  check_ml(
      "OneHotEncoder", ints({}, {2}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_ints("cats_int64s", {1, 2}));
      },
      "onehot_0d");
  check_ml(
      "LinearRegressor", floats({3}, {1, 2, 3}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_floats("coefficients", {1, 2, 3}));
      },
      "linreg_1d");
  check_ml(
      "LinearClassifier", floats({3}, {1, 2, 3}),
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_floats("coefficients", {1, 2, 3, -1, 0, 1}));
        n->set_attr(ir::Attr::of_floats("intercepts", {0, 1}));
        n->set_attr(ir::Attr::of_ints("classlabels_ints", {4, 5}));
      },
      "linclass_1d", 1, 2);
  check_ml("Normalizer", floats({0, 3}, {}), {}, "normalizer_empty");
}

}  // namespace
}  // namespace oxs::eval
