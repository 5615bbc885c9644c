// ai.onnx.ml SVMRegressor and SVMClassifier (opset 1). Inputs of any of
// float/double/int64/int32 are read as float and kernels are computed in
// float, as ONNX Runtime does. With support vectors the classifier is
// libsvm's one-vs-one SVC: one decision value per class pair, a vote per
// pair, and, with prob_a/prob_b, Platt probabilities per pair coupled into
// class probabilities (libsvm's multiclass_probability). Without support
// vectors it is a liblinear model (one score per class). Where the spec is
// silent the outputs follow ONNX Runtime: Z of an SVC without probabilities
// holds the pairwise decision values (two columns for two classes), the
// label is the class with the most votes, and the regressor ignores
// post_transform.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "oxs/eval/kernel.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/ml/ml_post_transform.h"

namespace oxs::eval {
namespace {

constexpr const char* kMl = "ai.onnx.ml";

enum class KernelType { Linear, Poly, Rbf, Sigmoid };

struct SvmKernel {
  KernelType type = KernelType::Linear;
  float gamma = 0, coef0 = 0, degree = 0;

  // The kernel of a dot product (LINEAR, POLY, SIGMOID).
  float from_dot(float dot) const {
    switch (type) {
      case KernelType::Poly: {
        float v = gamma * dot + coef0;
        if (degree == 2) return v * v;
        if (degree == 3) return v * v * v;
        return std::pow(v, degree);
      }
      case KernelType::Sigmoid:
        return std::tanh(gamma * dot + coef0);
      default:
        return dot;
    }
  }
};

// K(x, sv_v) for every support vector v at once. The vectors are kept
// transposed ([F, V]) so the inner loop runs over v, independent lanes the
// compiler vectorizes, while each K still sums its features in order (the
// same float result as one vector at a time).
class KernelRows {
 public:
  KernelRows(const SvmKernel& k, const std::vector<float>& sv, int64_t V, int64_t F)
      : k_(k), V_(V), F_(F), svt_(size_t(V * F)), acc_(size_t(V)) {
    for (int64_t v = 0; v < V; ++v) {
      for (int64_t f = 0; f < F; ++f) svt_[size_t(f * V + v)] = sv[size_t(v * F + f)];
    }
  }

  // out[v] = K(x, sv_v) for x of F features.
  void eval(const float* x, float* out) {
    float* acc = acc_.data();
    const float* svt = svt_.data();
    std::fill(acc_.begin(), acc_.end(), 0.f);
    if (k_.type == KernelType::Rbf) {
      for (int64_t f = 0; f < F_; ++f) {
        const float xf = x[f];
        const float* col = svt + f * V_;
        for (int64_t v = 0; v < V_; ++v) {
          float d = xf - col[v];
          acc[v] += d * d;
        }
      }
      for (int64_t v = 0; v < V_; ++v) out[v] = std::exp(-k_.gamma * acc[v]);
      return;
    }
    for (int64_t f = 0; f < F_; ++f) {
      const float xf = x[f];
      const float* col = svt + f * V_;
      for (int64_t v = 0; v < V_; ++v) acc[v] += xf * col[v];
    }
    for (int64_t v = 0; v < V_; ++v) out[v] = k_.from_dot(acc[v]);
  }

 private:
  SvmKernel k_;
  int64_t V_, F_;
  std::vector<float> svt_, acc_;
};

SvmKernel read_kernel(const KernelContext& ctx) {
  SvmKernel k;
  std::string t = ctx.attr_string("kernel_type", "LINEAR");
  if (t == "LINEAR") {
    k.type = KernelType::Linear;
  } else if (t == "POLY") {
    k.type = KernelType::Poly;
  } else if (t == "RBF") {
    k.type = KernelType::Rbf;
  } else if (t == "SIGMOID") {
    k.type = KernelType::Sigmoid;
  } else {
    ctx.fail("unknown kernel_type '" + t + "' (expected LINEAR, POLY, RBF or SIGMOID)");
  }
  std::vector<float> p = ctx.attr_floats("kernel_params");
  if (!p.empty()) {
    if (p.size() != 3) {
      ctx.fail("kernel_params must hold 3 values (gamma, coef0, degree), got " +
               std::to_string(p.size()));
    }
    k.gamma = p[0];
    k.coef0 = p[1];
    k.degree = p[2];
  }
  return k;
}

// X as float [rows, cols] (1-D X is one row).
Tensor float_input(const KernelContext& ctx, int64_t* rows, int64_t* cols) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() != 1 && x.rank() != 2) {
    ctx.fail("X must be 1-D [C] or 2-D [N,C], got shape " + dims_to_string(x.dims()));
  }
  DataType dt = x.dtype();
  if (dt != DataType::Float && dt != DataType::Double && dt != DataType::Int64 &&
      dt != DataType::Int32) {
    ctx.fail("X must be float, double, int64 or int32, got " + std::string(ir::dtype_name(dt)));
  }
  *rows = x.rank() == 2 ? x.dim(0) : 1;
  *cols = x.dims().back();
  return cast_tensor(x, DataType::Float);
}

void require_features(const KernelContext& ctx, int64_t cols, int64_t features, const char* what) {
  if (cols != features) {
    ctx.fail("X has " + std::to_string(cols) + " columns but the model has " +
             std::to_string(features) + " features (" + what + ")");
  }
}

// Splits `n` values into rows of `per`; fails unless it divides evenly.
int64_t row_length(const KernelContext& ctx, size_t n, int64_t rows, const char* what,
                   const char* of) {
  if (rows <= 0 || n % size_t(rows) != 0 || n == 0) {
    ctx.fail(std::string(what) + " has " + std::to_string(n) +
             " values, not a positive multiple of " + std::to_string(rows) + " (" + of + ")");
  }
  return int64_t(n / size_t(rows));
}

// ---- SVMRegressor ----

void svm_regressor(KernelContext& ctx) {
  SvmKernel kernel = read_kernel(ctx);
  std::vector<float> coef = ctx.attr_floats("coefficients");
  std::vector<float> sv = ctx.attr_floats("support_vectors");
  std::vector<float> rho = ctx.attr_floats("rho");
  int64_t n_sv = ctx.attr_int("n_supports", 0);
  bool one_class = ctx.attr_int("one_class", 0) != 0;
  if (coef.empty()) ctx.fail("coefficients is empty");
  if (rho.empty()) ctx.fail("rho is empty; it must hold the bias");
  if (n_sv < 0) ctx.fail("n_supports must not be negative, got " + std::to_string(n_sv));
  int64_t rows, cols;
  Tensor xf = float_input(ctx, &rows, &cols);
  const float* x = xf.data<float>();
  Tensor& y = ctx.alloc_output(0, DataType::Float, {rows, 1});
  float* out = y.mutable_data<float>();
  if (n_sv > 0) {
    int64_t features = row_length(ctx, sv.size(), n_sv, "support_vectors", "n_supports vectors");
    if (int64_t(coef.size()) != n_sv) {
      ctx.fail("coefficients has " + std::to_string(coef.size()) + " values but n_supports is " +
               std::to_string(n_sv) + "; give one per vector");
    }
    require_features(ctx, cols, features, "support vector length");
    KernelRows kr(kernel, sv, n_sv, features);
    std::vector<float> k(static_cast<size_t>(n_sv));
    for (int64_t r = 0; r < rows; ++r) {
      kr.eval(x + r * cols, k.data());
      float sum = 0;
      for (int64_t v = 0; v < n_sv; ++v) sum += coef[size_t(v)] * k[size_t(v)];
      out[r] = sum + rho[0];
    }
  } else {
    // Linear model: the coefficients are the weights of the features.
    require_features(ctx, cols, int64_t(coef.size()), "coefficients");
    for (int64_t r = 0; r < rows; ++r) {
      float dot = 0;
      for (int64_t i = 0; i < cols; ++i) dot += x[r * cols + i] * coef[size_t(i)];
      out[r] = dot + rho[0];
    }
  }
  if (one_class) {
    for (int64_t r = 0; r < rows; ++r) out[r] = out[r] > 0 ? 1.f : -1.f;
  }
}

// ---- SVMClassifier ----

// libsvm's multiclass_probability (Wu, Lin and Weng 2004, method 2): class
// probabilities p[k] from pairwise probabilities r[i*k + j] = P(i | i or j),
// in float with ONNX Runtime's iteration limit (100) and tolerance.
void couple_probabilities(int64_t k, const std::vector<float>& r, float* p) {
  size_t K = size_t(k);
  std::vector<float> Q(K * K, 0.f), Qp(K, 0.f);
  float eps = 0.005f / float(k);
  for (size_t i = 0; i < K; ++i) {
    p[i] = 1.f / float(k);
    for (size_t j = 0; j < i; ++j) {
      Q[i * K + i] += r[j * K + i] * r[j * K + i];
      Q[i * K + j] = Q[j * K + i];
    }
    for (size_t j = i + 1; j < K; ++j) {
      Q[i * K + i] += r[j * K + i] * r[j * K + i];
      Q[i * K + j] = -r[j * K + i] * r[i * K + j];
    }
  }
  for (int iter = 0; iter < 100; ++iter) {
    float pQp = 0;
    for (size_t i = 0; i < K; ++i) {
      Qp[i] = 0;
      for (size_t j = 0; j < K; ++j) Qp[i] += Q[i * K + j] * p[j];
      pQp += p[i] * Qp[i];
    }
    float max_error = 0;
    for (size_t i = 0; i < K; ++i) max_error = std::max(max_error, std::abs(Qp[i] - pQp));
    if (max_error < eps) break;
    for (size_t i = 0; i < K; ++i) {
      float diff = (-Qp[i] + pQp) / Q[i * K + i];
      p[i] += diff;
      pQp = (pQp + diff * (diff * Q[i * K + i] + 2 * Qp[i])) / (1 + diff) / (1 + diff);
      for (size_t j = 0; j < K; ++j) {
        Qp[j] = (Qp[j] + diff * Q[i * K + j]) / (1 + diff);
        p[j] /= (1 + diff);
      }
    }
  }
}

struct Labels {
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  bool use_strings = false;
  int64_t count() const { return use_strings ? int64_t(strings.size()) : int64_t(ints.size()); }
};

void svm_classifier(KernelContext& ctx) {
  Labels labels;
  bool has_ints = ctx.has_attr("classlabels_ints");
  labels.use_strings = ctx.has_attr("classlabels_strings");
  if (has_ints == labels.use_strings) {
    ctx.fail("exactly one of classlabels_ints and classlabels_strings must be given");
  }
  labels.ints = ctx.attr_ints("classlabels_ints");
  labels.strings = ctx.attr_strings("classlabels_strings");
  const int64_t C = labels.count();
  if (C < 1) ctx.fail("the class label list is empty");
  SvmKernel kernel = read_kernel(ctx);
  std::vector<float> coef = ctx.attr_floats("coefficients");
  std::vector<float> sv = ctx.attr_floats("support_vectors");
  std::vector<float> rho = ctx.attr_floats("rho");
  std::vector<float> prob_a = ctx.attr_floats("prob_a");
  std::vector<float> prob_b = ctx.attr_floats("prob_b");
  std::vector<int64_t> per_class = ctx.attr_ints("vectors_per_class");
  PostTransform post = parse_post_transform(ctx);
  if (coef.empty()) ctx.fail("coefficients is empty");
  if (prob_a.size() != prob_b.size()) {
    ctx.fail("prob_a has " + std::to_string(prob_a.size()) + " values but prob_b has " +
             std::to_string(prob_b.size()) + "; they must match");
  }
  int64_t V = 0;
  std::vector<int64_t> start;
  for (int64_t n : per_class) {
    if (n < 0 || size_t(n) > sv.size()) {
      ctx.fail("vectors_per_class has a count of " + std::to_string(n) + " but there are only " +
               std::to_string(sv.size()) + " support vector values");
    }
    start.push_back(V);
    V += n;
  }
  const bool have_proba = !prob_a.empty();
  const bool all_positive = std::all_of(coef.begin(), coef.end(), [](float v) { return v >= 0.f; });
  int64_t rows, cols;
  Tensor xf = float_input(ctx, &rows, &cols);
  const float* x = xf.data<float>();
  Tensor& label =
      ctx.alloc_output(0, labels.use_strings ? DataType::String : DataType::Int64, {rows});
  auto set_label = [&](int64_t r, int64_t k) {
    if (labels.use_strings) {
      label.mutable_strings()[size_t(r)] = labels.strings[size_t(k)];
    } else {
      label.mutable_data<int64_t>()[r] = labels.ints[size_t(k)];
    }
  };

  if (V == 0) {
    // liblinear: score[c] = coefficients[c] . x + rho[0].
    int64_t F = row_length(ctx, coef.size(), C, "coefficients", "one row per class");
    require_features(ctx, cols, F, "coefficients per class");
    if (rho.empty()) ctx.fail("rho is empty; it must hold the bias");
    Tensor& zt = ctx.alloc_output(1, DataType::Float, {rows, C});
    float* z = zt.mutable_data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      float* s = z + r * C;
      for (int64_t c = 0; c < C; ++c) {
        float dot = 0;
        for (int64_t i = 0; i < F; ++i) dot += x[r * cols + i] * coef[size_t(c * F + i)];
        s[c] = dot + rho[0];
      }
      int64_t best = std::max_element(s, s + C) - s;
      float mw = s[best];
      // ONNX Runtime's two-class rule: the score of class 1 decides.
      if (C == 2 && !have_proba && ((all_positive && mw >= 0.5f) || (!all_positive && mw > 0))) {
        best = 1;
      }
      set_label(r, best);
      apply_post_transform(post, s, 1, C);
    }
    return;
  }

  if (int64_t(per_class.size()) != C) {
    ctx.fail("vectors_per_class has " + std::to_string(per_class.size()) +
             " entries but there are " + std::to_string(C) + " classes");
  }
  if (C < 2) ctx.fail("an SVC needs at least two classes");
  int64_t F = row_length(ctx, sv.size(), V, "support_vectors", "vectors_per_class vectors");
  require_features(ctx, cols, F, "support vector length");
  const int64_t pairs = C * (C - 1) / 2;
  if (int64_t(coef.size()) != (C - 1) * V) {
    ctx.fail("coefficients has " + std::to_string(coef.size()) + " values; an SVC with " +
             std::to_string(C) + " classes and " + std::to_string(V) + " support vectors needs " +
             std::to_string((C - 1) * V));
  }
  if (int64_t(rho.size()) != pairs) {
    ctx.fail("rho has " + std::to_string(rho.size()) + " values; " + std::to_string(C) +
             " classes need one per pair (" + std::to_string(pairs) + ")");
  }
  if (have_proba && int64_t(prob_a.size()) != pairs) {
    ctx.fail("prob_a/prob_b have " + std::to_string(prob_a.size()) + " values; " +
             std::to_string(C) + " classes need one per pair (" + std::to_string(pairs) + ")");
  }
  const int64_t zcols = have_proba ? C : (C > 2 ? pairs : 2);
  Tensor& zt = ctx.alloc_output(1, DataType::Float, {rows, zcols});
  float* z = zt.mutable_data<float>();
  std::vector<float> k(static_cast<size_t>(V)), dec(static_cast<size_t>(pairs)),
      r2(static_cast<size_t>(C * C));
  std::vector<int64_t> votes(static_cast<size_t>(C));
  KernelRows kr(kernel, sv, V, F);
  for (int64_t r = 0; r < rows; ++r) {
    kr.eval(x + r * cols, k.data());
    std::fill(votes.begin(), votes.end(), 0);
    // Pair (i, j): class i's vectors weighted by coefficient row j-1, class
    // j's by row i (libsvm's layout), plus rho.
    size_t p = 0;
    for (int64_t i = 0; i < C - 1; ++i) {
      for (int64_t j = i + 1; j < C; ++j, ++p) {
        double sum = 0;
        for (int64_t m = 0; m < per_class[size_t(i)]; ++m) {
          int64_t v = start[size_t(i)] + m;
          sum += coef[size_t((j - 1) * V + v)] * k[size_t(v)];
        }
        for (int64_t m = 0; m < per_class[size_t(j)]; ++m) {
          int64_t v = start[size_t(j)] + m;
          sum += coef[size_t(i * V + v)] * k[size_t(v)];
        }
        sum += rho[p];
        dec[p] = static_cast<float>(sum);
        ++votes[size_t(sum > 0 ? i : j)];
      }
    }
    set_label(r, std::max_element(votes.begin(), votes.end()) - votes.begin());
    float* s = z + r * zcols;
    if (have_proba) {
      p = 0;
      for (int64_t i = 0; i < C - 1; ++i) {
        for (int64_t j = i + 1; j < C; ++j, ++p) {
          // Platt: P(i | i or j) = 1 / (1 + exp(A * dec + B)), kept off 0 and 1.
          float q = 1 - ml_logistic(dec[p] * prob_a[p] + prob_b[p]);
          q = std::min(std::max(q, 1e-7f), 1 - 1e-7f);
          r2[size_t(i * C + j)] = q;
          r2[size_t(j * C + i)] = 1 - q;
        }
      }
      couple_probabilities(C, r2, s);
      apply_post_transform(post, s, 1, C);
    } else if (C > 2) {
      std::copy(dec.begin(), dec.end(), s);
      apply_post_transform(post, s, 1, pairs);
    } else {
      // ONNX Runtime: [-d, d] without a transform, [1 - d, d] with one.
      expand_binary_scores(
          post, post == PostTransform::None ? BinaryScores::Negate : BinaryScores::OneMinus,
          dec.data(), 1, s);
    }
  }
}

}  // namespace

void register_ml_svm_kernels(KernelRegistry& r) {
  r.add(kMl, "SVMRegressor", 1, svm_regressor);
  r.add(kMl, "SVMClassifier", 1, svm_classifier);
}

}  // namespace oxs::eval
