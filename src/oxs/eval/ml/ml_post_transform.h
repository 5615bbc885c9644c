// Score post-transforms shared by the ai.onnx.ml classifiers and regressors
// (LinearClassifier/Regressor, TreeEnsemble*, SVM*): the `post_transform`
// attribute (NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT) and the binary
// classifier's one-score-to-two expansion. Numbers follow ONNX Runtime, which
// is what users of these models see (the spec leaves most of this open):
// PROBIT uses the same closed-form erfinv approximation as ORT and the ONNX
// reference implementation; one-column scores get only PROBIT. This file
// parses one attribute and transforms float buffers; it allocates nothing.
#pragma once

#include <cstdint>

namespace oxs::eval {

class KernelContext;

enum class PostTransform { None, Logistic, Softmax, SoftmaxZero, Probit };

// The node's `post_transform` attribute (default NONE); an unknown value fails
// naming the node and listing the valid ones.
PostTransform parse_post_transform(const KernelContext& ctx);
const char* post_transform_name(PostTransform t);

// 1 / (1 + exp(-x)), computed without overflow for large |x|.
float ml_logistic(float x);
// sqrt(2) * erfinv(2p - 1) with ORT's approximation of erfinv.
float ml_probit(float p);
// Softmax of one row in place (max subtracted first).
void ml_softmax(float* row, int64_t n);
// Softmax that leaves zero scores (|x| <= 1e-7) near zero: they count as
// exp(-max) * 0 instead of exp(0 - max) (ORT's SOFTMAX_ZERO).
void ml_softmax_zero(float* row, int64_t n);

// Applies `t` to scores[n_rows, n_classes] in place: LOGISTIC and PROBIT per
// element, SOFTMAX and SOFTMAX_ZERO per row. With n_classes == 1 only PROBIT
// changes the scores (as ORT: a single score is not normalized).
void apply_post_transform(PostTransform t, float* scores, int64_t n_rows, int64_t n_classes);

// How a binary classifier with one score per row makes its two columns.
enum class BinaryScores {
  // [1 - s, s] (ORT's add_second_class 0/1, used when the score is already a
  // probability, e.g. LinearClassifier with two class labels, tree ensembles
  // with all-positive weights); under LOGISTIC [logistic(-s), logistic(s)]
  // as for Negate (ONNX's reference and ORT 1.2x agree).
  OneMinus,
  // [-s, s], or [logistic(-s), logistic(s)] under LOGISTIC (ORT's
  // add_second_class 2/3: mixed-sign weights, the score is a margin).
  Negate,
};

// raw[n_rows] -> out[n_rows, 2] (out may not alias raw). Under PROBIT ORT
// transforms only the single score: the row becomes [probit(s), 0].
void expand_binary_scores(PostTransform t, BinaryScores how, const float* raw, int64_t n_rows,
                          float* out);

}  // namespace oxs::eval
