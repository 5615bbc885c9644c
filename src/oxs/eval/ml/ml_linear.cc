// ai.onnx.ml linear models: LinearRegressor (Y = X W^T + b, then
// post_transform) and LinearClassifier (scores as the regressor, the label
// of the best score, then post_transform). The binary classifier (one set of
// coefficients) follows ONNX Runtime: the label is the second class label if
// the raw score is > 0, and with two class labels the scores become
// [1 - s, s] (see ml_post_transform.h).
#include <string>
#include <vector>

#include "oxs/eval/kernel.h"
#include "oxs/eval/ml/ml_basic.h"
#include "oxs/eval/ml/ml_post_transform.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {
namespace {

using ml::kMlDomain;

const std::initializer_list<DataType> kNumeric = {DataType::Float, DataType::Double,
                                                  DataType::Int64, DataType::Int32};

// X as rows x features: [F] is one row, [N, F] N rows.
struct Rows {
  int64_t n = 0, f = 0;
};
Rows rows_of(const KernelContext& ctx, const Tensor& x) {
  if (x.rank() == 1) return {1, x.dim(0)};
  if (x.rank() == 2) return {x.dim(0), x.dim(1)};
  ctx.fail("X must be 1-D [F] or 2-D [N, F], got shape " + dims_to_string(x.dims()));
}

// scores[N, T] = X W^T + b with W = coefficients as [T, F].
std::vector<float> linear_scores(const KernelContext& ctx, const Tensor& x, Rows r, int64_t t,
                                 const std::vector<float>& coef,
                                 const std::vector<float>& intercepts) {
  if (int64_t(coef.size()) != t * r.f) {
    ctx.fail("coefficients has " + std::to_string(coef.size()) + " values but " +
             std::to_string(t) + " target(s) x " + std::to_string(r.f) +
             " features (X's last dimension) = " + std::to_string(t * r.f) + " are needed");
  }
  if (!intercepts.empty() && int64_t(intercepts.size()) != t) {
    ctx.fail("intercepts has " + std::to_string(intercepts.size()) +
             " values; give one per target (" + std::to_string(t) + ") or none");
  }
  Tensor xf = ml::to_float_tensor(x);
  const float* in = xf.data<float>();
  std::vector<float> scores(checked_buffer(ctx, {r.n, t}, sizeof(float), "the scores"));
  for (int64_t i = 0; i < r.n; ++i) {
    const float* row = in + i * r.f;
    for (int64_t k = 0; k < t; ++k) {
      const float* w = coef.data() + k * r.f;
      float s = intercepts.empty() ? 0.0f : intercepts[size_t(k)];
      for (int64_t j = 0; j < r.f; ++j) s += row[j] * w[j];
      scores[size_t(i * t + k)] = s;
    }
  }
  return scores;
}

void linear_regressor(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  ml::require_type(ctx, "X", x, kNumeric);
  Rows r = rows_of(ctx, x);
  int64_t t = ctx.attr_int("targets", 1);
  if (t < 1) ctx.fail("targets is " + std::to_string(t) + "; it must be at least 1");
  PostTransform pt = parse_post_transform(ctx);
  auto scores =
      linear_scores(ctx, x, r, t, ctx.attr_floats("coefficients"), ctx.attr_floats("intercepts"));
  apply_post_transform(pt, scores.data(), r.n, t);
  Tensor& y = ctx.alloc_output(0, DataType::Float, {r.n, t});
  std::copy(scores.begin(), scores.end(), y.mutable_data<float>());
}

void linear_classifier(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  ml::require_type(ctx, "X", x, kNumeric);
  Rows r = rows_of(ctx, x);
  PostTransform pt = parse_post_transform(ctx);
  bool has_ints = ctx.has_attr("classlabels_ints");
  bool has_strings = ctx.has_attr("classlabels_strings");
  if (has_ints == has_strings) {
    ctx.fail("exactly one of classlabels_ints and classlabels_strings must be given");
  }
  auto ints = ctx.attr_ints("classlabels_ints");
  auto strings = ctx.attr_strings("classlabels_strings");
  int64_t n_labels = has_ints ? int64_t(ints.size()) : int64_t(strings.size());
  auto coef = ctx.attr_floats("coefficients");
  auto intercepts = ctx.attr_floats("intercepts");
  if (!ctx.has_attr("coefficients")) ctx.fail("required attribute 'coefficients' is missing");
  // One score column per set of coefficients: intercepts tell how many,
  // else the coefficients divided among the features.
  int64_t t = !intercepts.empty() ? int64_t(intercepts.size())
              : r.f > 0           ? int64_t(coef.size()) / r.f
                                  : 0;
  if (t < 1) ctx.fail("there are no coefficients for " + std::to_string(r.f) + " features");
  auto scores = linear_scores(ctx, x, r, t, coef, intercepts);
  if (t > 1 && n_labels != t) {
    ctx.fail("there are " + std::to_string(t) + " classes (sets of coefficients) but " +
             std::to_string(n_labels) + " class labels; give one label per class");
  }
  Tensor& y = ctx.alloc_output(0, has_ints ? DataType::Int64 : DataType::String, {r.n});
  // Which class each row gets: the best score, or for one score column the
  // sign of the raw score (ORT's binary rule; default labels 0 and 1).
  auto set_label = [&](int64_t i, int64_t cls) {
    if (has_ints) {
      y.mutable_data<int64_t>()[i] = t == 1 && n_labels != 2 ? cls : ints[size_t(cls)];
    } else {
      y.mutable_strings()[size_t(i)] =
          t == 1 && n_labels != 2 ? std::to_string(cls) : strings[size_t(cls)];
    }
  };
  for (int64_t i = 0; i < r.n; ++i) {
    const float* s = scores.data() + i * t;
    int64_t best = 0;
    if (t == 1) {
      best = s[0] > 0 ? 1 : 0;
    } else {
      for (int64_t k = 1; k < t; ++k) best = s[k] > s[best] ? k : best;
    }
    set_label(i, best);
  }
  if (t == 1 && n_labels == 2) {
    Tensor& z = ctx.alloc_output(1, DataType::Float, {r.n, 2});
    expand_binary_scores(pt, BinaryScores::OneMinus, scores.data(), r.n, z.mutable_data<float>());
    return;
  }
  apply_post_transform(pt, scores.data(), r.n, t);
  Tensor& z = ctx.alloc_output(1, DataType::Float, {r.n, t});
  std::copy(scores.begin(), scores.end(), z.mutable_data<float>());
}

}  // namespace

namespace ml {
void register_linear_kernels(KernelRegistry& r) {
  r.add(kMlDomain, "LinearRegressor", 1, linear_regressor);
  r.add(kMlDomain, "LinearClassifier", 1, linear_classifier);
}
}  // namespace ml

}  // namespace oxs::eval
