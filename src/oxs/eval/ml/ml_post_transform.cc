#include "oxs/eval/ml/ml_post_transform.h"

#include <cmath>
#include <limits>
#include <string>

#include "oxs/eval/kernel.h"

namespace oxs::eval {

PostTransform parse_post_transform(const KernelContext& ctx) {
  std::string s = ctx.attr_string("post_transform", "NONE");
  if (s == "NONE") return PostTransform::None;
  if (s == "LOGISTIC") return PostTransform::Logistic;
  if (s == "SOFTMAX") return PostTransform::Softmax;
  if (s == "SOFTMAX_ZERO") return PostTransform::SoftmaxZero;
  if (s == "PROBIT") return PostTransform::Probit;
  ctx.fail("post_transform '" + s +
           "' is not valid; write one of NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT");
}

const char* post_transform_name(PostTransform t) {
  switch (t) {
    case PostTransform::None:
      return "NONE";
    case PostTransform::Logistic:
      return "LOGISTIC";
    case PostTransform::Softmax:
      return "SOFTMAX";
    case PostTransform::SoftmaxZero:
      return "SOFTMAX_ZERO";
    case PostTransform::Probit:
      return "PROBIT";
  }
  return "?";
}

float ml_logistic(float x) {
  float v = 1.0f / (1.0f + std::exp(-std::abs(x)));
  return x < 0 ? 1.0f - v : v;
}

// Winitzki's closed form (a = 0.147), as ORT and onnx's reference use: the
// probit of a reference must agree with what deployed models compute.
static float erfinv_approx(float x) {
  float sgn = x < 0 ? -1.0f : 1.0f;
  x = (1 - x) * (1 + x);
  float lg = std::log(x);
  float v = 2 / (static_cast<float>(M_PI) * 0.147f) + 0.5f * lg;
  float v2 = 1 / 0.147f * lg;
  float v3 = -v + std::sqrt(v * v - v2);
  return sgn * std::sqrt(v3);
}

float ml_probit(float p) {
  return static_cast<float>(M_SQRT2) * erfinv_approx(2 * p - 1);
}

void ml_softmax(float* row, int64_t n) {
  float mx = -std::numeric_limits<float>::max();
  for (int64_t j = 0; j < n; ++j) mx = row[j] > mx ? row[j] : mx;
  float sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - mx);
    sum += row[j];
  }
  for (int64_t j = 0; j < n; ++j) row[j] /= sum;
}

void ml_softmax_zero(float* row, int64_t n) {
  float mx = -std::numeric_limits<float>::max();
  for (int64_t j = 0; j < n; ++j) mx = row[j] > mx ? row[j] : mx;
  float exp_neg_max = std::exp(-mx);
  float sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    if (row[j] > 1e-7f || row[j] < -1e-7f) {
      row[j] = std::exp(row[j] - mx);
      sum += row[j];
    } else {
      row[j] *= exp_neg_max;
    }
  }
  for (int64_t j = 0; j < n; ++j) row[j] /= sum;
}

void apply_post_transform(PostTransform t, float* scores, int64_t n_rows, int64_t n_classes) {
  int64_t n = n_rows * n_classes;
  if (n_classes == 1) {
    if (t == PostTransform::Probit) {
      for (int64_t i = 0; i < n; ++i) scores[i] = ml_probit(scores[i]);
    }
    return;
  }
  switch (t) {
    case PostTransform::None:
      return;
    case PostTransform::Logistic:
      for (int64_t i = 0; i < n; ++i) scores[i] = ml_logistic(scores[i]);
      return;
    case PostTransform::Probit:
      for (int64_t i = 0; i < n; ++i) scores[i] = ml_probit(scores[i]);
      return;
    case PostTransform::Softmax:
      for (int64_t r = 0; r < n_rows; ++r) ml_softmax(scores + r * n_classes, n_classes);
      return;
    case PostTransform::SoftmaxZero:
      for (int64_t r = 0; r < n_rows; ++r) ml_softmax_zero(scores + r * n_classes, n_classes);
      return;
  }
}

void expand_binary_scores(PostTransform t, BinaryScores how, const float* raw, int64_t n_rows,
                          float* out) {
  for (int64_t i = 0; i < n_rows; ++i) {
    float s = raw[i];
    float* o = out + 2 * i;
    if (t == PostTransform::Probit) {
      o[0] = ml_probit(s);
      o[1] = 0;
    } else if (t == PostTransform::Logistic) {
      // [-s, s] through the logistic whatever the weights' signs: ONNX's
      // reference and ONNX Runtime since 1.2x ([1 - s, s] untransformed, as
      // ORT 1.20 wrote for positive weights, is not a probability).
      o[0] = ml_logistic(-s);
      o[1] = ml_logistic(s);
    } else if (how == BinaryScores::OneMinus) {
      o[0] = 1 - s;
      o[1] = s;
    } else {
      o[0] = -s;
      o[1] = s;
    }
  }
}

}  // namespace oxs::eval
