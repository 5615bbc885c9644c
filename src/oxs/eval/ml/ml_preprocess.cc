// ai.onnx.ml feature preprocessing: Binarizer, Scaler, Normalizer, Imputer,
// ArrayFeatureExtractor and FeatureVectorizer. Shapes follow ONNX Runtime
// where the spec is silent: per-feature attributes apply to X of [C] or
// [N, C] (one value broadcasts over any shape),
// Normalizer takes [C] or [N, C], ArrayFeatureExtractor turns a 1-D X into
// [1, len(Y)], FeatureVectorizer pads or truncates each input to its
// inputdimensions entry.
#include <cmath>
#include <string>
#include <vector>

#include "oxs/eval/dispatch.h"
#include "oxs/eval/kernel.h"
#include "oxs/eval/ml/ml_basic.h"

namespace oxs::eval {
namespace {

using ml::kMlDomain;
using ml::type_name;

const std::initializer_list<DataType> kNumeric = {DataType::Float, DataType::Double,
                                                  DataType::Int64, DataType::Int32};

template <class F>
void dispatch_numeric(DataType t, F&& f) {
  switch (t) {
    case DataType::Float:
      return f(float{});
    case DataType::Double:
      return f(double{});
    case DataType::Int64:
      return f(int64_t{});
    default:
      return f(int32_t{});
  }
}

// Length of the last axis; fails for scalars.
int64_t feature_count(const KernelContext& ctx, const Tensor& x) {
  if (x.rank() == 0) ctx.fail("X must have at least one dimension (the features), got a scalar");
  return x.dims().back();
}

// An attribute list of size 1 (broadcast, any rank) or C (one per feature,
// X of [C] or [N, C]: ONNX Runtime takes dimension 1 as the features of a
// higher-rank X, so per-feature values there would silently disagree).
void check_per_feature(const KernelContext& ctx, const char* name, size_t size, const Tensor& x) {
  int64_t c = x.dims().back();
  if (size != 1 && int64_t(size) != c) {
    ctx.fail(std::string(name) + " has " + std::to_string(size) +
             " values; give 1 (for every feature) or " + std::to_string(c) +
             " (one per feature: X's last dimension)");
  }
  if (size != 1 && x.rank() > 2) {
    ctx.fail(std::string(name) +
             " has one value per feature, which needs X as [C] or [N, C], "
             "but X has shape " +
             dims_to_string(x.dims()) + "; reshape X to [N, C] first");
  }
}

// Binarizer: 1 where X > threshold, else 0 (NaN gives 0, as the spec's
// comparison does), in X's type.
void binarizer(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  ml::require_type(ctx, "X", x, kNumeric);
  double threshold = ctx.attr_float("threshold", 0.0f);
  Tensor& y = ctx.alloc_output(0, x.dtype(), x.dims());
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* out = y.mutable_data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      out[i] = static_cast<double>(in[i]) > threshold ? T(1) : T(0);
    }
  });
}

// Scaler: Y = (X - offset) * scale as float; offset and scale have 1 or C
// values (a missing one is the identity).
void scaler(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  ml::require_type(ctx, "X", x, kNumeric);
  int64_t c = feature_count(ctx, x);
  auto offset = ctx.attr_floats("offset", {0.0f});
  auto scale = ctx.attr_floats("scale", {1.0f});
  check_per_feature(ctx, "offset", offset.size(), x);
  check_per_feature(ctx, "scale", scale.size(), x);
  Tensor& y = ctx.alloc_output(0, DataType::Float, x.dims());
  float* out = y.mutable_data<float>();
  bool one_o = offset.size() == 1, one_s = scale.size() == 1;
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      int64_t j = c ? i % c : 0;
      out[i] = (static_cast<float>(in[i]) - offset[one_o ? 0 : size_t(j)]) *
               scale[one_s ? 0 : size_t(j)];
    }
  });
}

// Normalizer: each row of [N, C] (or the one row of [C]) divided by its
// maximum (MAX), sum of absolute values (L1) or Euclidean norm (L2); a row
// whose divisor is 0 is copied unchanged.
void normalizer(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  ml::require_type(ctx, "X", x, kNumeric);
  if (x.rank() != 1 && x.rank() != 2) {
    ctx.fail("X must be 1-D [C] or 2-D [N, C], got shape " + dims_to_string(x.dims()));
  }
  std::string norm = ctx.attr_string("norm", "MAX");
  if (norm != "MAX" && norm != "L1" && norm != "L2") {
    ctx.fail("norm is '" + norm + "'; write MAX, L1 or L2");
  }
  int64_t c = x.dims().back();
  int64_t rows = c ? x.numel() / c : 0;
  Tensor& y = ctx.alloc_output(0, DataType::Float, x.dims());
  Tensor xf = ml::to_float_tensor(x);
  const float* in = xf.data<float>();
  float* out = y.mutable_data<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const float* a = in + r * c;
    float* b = out + r * c;
    float d = 0;
    if (norm == "MAX") {
      d = std::numeric_limits<float>::lowest();
      for (int64_t j = 0; j < c; ++j) d = std::max(d, a[j]);
    } else if (norm == "L1") {
      for (int64_t j = 0; j < c; ++j) d += std::abs(a[j]);
    } else {
      for (int64_t j = 0; j < c; ++j) d += a[j] * a[j];
      d = std::sqrt(d);
    }
    for (int64_t j = 0; j < c; ++j) b[j] = d != 0 ? a[j] / d : a[j];
  }
}

// Imputer: elements equal to the replaced value (NaN matches NaN) become
// the imputed value (1 or C values). Float and double inputs use the
// *_float(s) attributes, int32 and int64 inputs the *_int64(s) ones.
void imputer(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  ml::require_type(ctx, "X", x, kNumeric);
  int64_t c = feature_count(ctx, x);
  bool is_float = x.dtype() == DataType::Float || x.dtype() == DataType::Double;
  const char* values_attr = is_float ? "imputed_value_floats" : "imputed_value_int64s";
  const char* other_attr = is_float ? "imputed_value_int64s" : "imputed_value_floats";
  if (!ctx.has_attr(values_attr)) {
    ctx.fail(std::string("X is ") + type_name(x.dtype()) + ", which needs " + values_attr +
             (ctx.has_attr(other_attr)
                  ? std::string(" (") + other_attr + " is for " +
                        (is_float ? "int32/int64" : "float/double") + " inputs)"
                  : std::string()));
  }
  size_t n_values =
      is_float ? ctx.attr_floats(values_attr).size() : ctx.attr_ints(values_attr).size();
  check_per_feature(ctx, values_attr, n_values, x);
  Tensor& y = ctx.alloc_output(0, x.dtype(), x.dims());
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> values;
    if constexpr (std::is_floating_point_v<T>) {
      for (float v : ctx.attr_floats(values_attr)) values.push_back(static_cast<T>(v));
    } else {
      for (int64_t v : ctx.attr_ints(values_attr)) values.push_back(static_cast<T>(v));
    }
    const T* in = x.data<T>();
    T* out = y.mutable_data<T>();
    bool one = values.size() == 1;
    if constexpr (std::is_floating_point_v<T>) {
      T replaced = static_cast<T>(ctx.attr_float("replaced_value_float", 0.0f));
      bool nan = std::isnan(replaced);
      for (int64_t i = 0; i < x.numel(); ++i) {
        bool hit = nan ? std::isnan(in[i]) : in[i] == replaced;
        out[i] = hit ? values[one ? 0 : size_t(i % c)] : in[i];
      }
    } else {
      int64_t replaced = ctx.attr_int("replaced_value_int64", 0);
      for (int64_t i = 0; i < x.numel(); ++i) {
        out[i] = int64_t(in[i]) == replaced ? values[one ? 0 : size_t(i % c)] : in[i];
      }
    }
  });
}

// ArrayFeatureExtractor: Z[..., k] = X[..., Y[k]] over the last axis.
void array_feature_extractor(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& idx = ctx.tensor(1);
  ml::require_type(
      ctx, "X", x,
      {DataType::Float, DataType::Double, DataType::Int64, DataType::Int32, DataType::String});
  ml::require_type(ctx, "Y (the indices)", idx, {DataType::Int64});
  int64_t c = feature_count(ctx, x);
  int64_t k = idx.numel();
  const int64_t* ind = idx.data<int64_t>();
  for (int64_t i = 0; i < k; ++i) {
    if (ind[i] < 0 || ind[i] >= c) {
      ctx.fail("index Y[" + std::to_string(i) + "] = " + std::to_string(ind[i]) +
               " is outside [0, " + std::to_string(c) + ") (X's last dimension, shape " +
               dims_to_string(x.dims()) + ")");
    }
  }
  Dims od = x.dims();
  if (od.size() == 1) od.insert(od.begin(), 1);
  od.back() = k;
  Tensor& z = ctx.alloc_output(0, x.dtype(), od);
  int64_t rows = c ? x.numel() / c : 0;
  if (x.dtype() == DataType::String) {
    const auto& in = x.strings();
    auto& out = z.mutable_strings();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < k; ++i) out[size_t(r * k + i)] = in[size_t(r * c + ind[i])];
    return;
  }
  dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* out = z.mutable_data<T>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < k; ++i) out[r * k + i] = in[r * c + ind[i]];
  });
}

// FeatureVectorizer: inputs [N, C_i] (or [C_i]) side by side into
// [N, sum(inputdimensions)] floats; input i fills inputdimensions[i]
// columns, truncated or zero-padded.
void feature_vectorizer(KernelContext& ctx) {
  auto dims = ctx.attr_ints("inputdimensions");
  size_t n_in = ctx.num_inputs();
  if (dims.size() != n_in) {
    ctx.fail("there are " + std::to_string(n_in) + " inputs but inputdimensions has " +
             std::to_string(dims.size()) + " values; give one column count per input");
  }
  if (n_in == 0) ctx.fail("needs at least one input");
  int64_t total = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      ctx.fail("inputdimensions[" + std::to_string(i) + "] is " + std::to_string(dims[i]) +
               "; column counts cannot be negative");
    }
    total += dims[i];
  }
  int64_t n = -1;
  for (size_t i = 0; i < n_in; ++i) {
    const Tensor& x = ctx.tensor(i);
    std::string what = "input " + std::to_string(i);
    ml::require_type(ctx, what.c_str(), x, kNumeric);
    if (x.rank() == 0) ctx.fail(what + " must be 1-D [C] or [N, C...], got a scalar");
    int64_t rows = x.rank() == 1 ? 1 : x.dim(0);
    if (n >= 0 && rows != n) {
      ctx.fail(what + " has " + std::to_string(rows) + " rows (shape " + dims_to_string(x.dims()) +
               ") but input 0 has " + std::to_string(n) + "; all inputs need the same N");
    }
    n = rows;
  }
  Tensor& y = ctx.alloc_output(0, DataType::Float, {n, total});
  float* out = y.mutable_data<float>();
  int64_t offset = 0;
  for (size_t i = 0; i < n_in; ++i) {
    const Tensor& x = ctx.tensor(i);
    int64_t width = n ? x.numel() / n : 0;
    int64_t used = std::min(width, dims[i]);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t j = 0; j < used; ++j)
        out[r * total + offset + j] = ml::element_as_float(x, r * width + j);
    offset += dims[i];
  }
}

}  // namespace

namespace ml {
void register_preprocess_kernels(KernelRegistry& r) {
  r.add(kMlDomain, "Binarizer", 1, binarizer);
  r.add(kMlDomain, "Scaler", 1, scaler);
  r.add(kMlDomain, "Normalizer", 1, normalizer);
  r.add(kMlDomain, "Imputer", 1, imputer);
  r.add(kMlDomain, "ArrayFeatureExtractor", 1, array_feature_extractor);
  r.add(kMlDomain, "FeatureVectorizer", 1, feature_vectorizer);
}
}  // namespace ml

}  // namespace oxs::eval
