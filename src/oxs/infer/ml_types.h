// Output types for the ai.onnx.ml operators whose libonnx 1.12 schemas have
// no inference function (Scaler, Normalizer, Binarizer, Imputer,
// ArrayFeatureExtractor, FeatureVectorizer, OneHotEncoder, LinearRegressor,
// SVMRegressor, TreeEnsembleRegressor-1). Without them a scikit-learn style
// pipeline leaves every later input untyped and fails strict checking. The
// shapes are the ones the evaluator's kernels (and ONNX Runtime) produce;
// what cannot be known from the input types is left unknown. Internal to
// infer/; IR only.
#pragma once

#include <optional>
#include <vector>

#include "oxs/ir/node.h"
#include "oxs/ir/type.h"

namespace oxs::infer {

// One entry per output of `n` (nullopt: nothing to say). Returns an empty
// vector for an operator this file does not cover.
std::vector<std::optional<ir::Type>> ml_fallback_types(const ir::Node& n);

}  // namespace oxs::infer
