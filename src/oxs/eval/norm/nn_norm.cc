// Normalization and regularization: BatchNormalization (inference and
// training mode), InstanceNormalization, LRN, LpNormalization, Dropout.
// (LayerNormalization and MeanVarianceNormalization are function-ops.)
#include <cmath>
#include <random>

#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

void batch_norm_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  double eps = ctx.attr_float("epsilon", 1e-5f);
  double momentum = ctx.attr_float("momentum", 0.9f);
  bool training = ctx.attr_int("training_mode", 0) != 0;
  if (x.rank() < 2) ctx.fail("input must have rank >= 2");
  int64_t n = x.dim(0), c = x.dim(1);
  int64_t inner = x.numel() / std::max<int64_t>(checked_product(ctx, x.dims(), 0, 2, "N x C"), 1);
  for (size_t i = 1; i <= 4; ++i) {
    if (ctx.tensor(i).numel() != c)
      ctx.fail("scale, B, mean and var must have one value per channel");
  }
  Tensor scale = cast_tensor(ctx.tensor(1), DataType::Double);
  Tensor bias = cast_tensor(ctx.tensor(2), DataType::Double);
  Tensor mean = cast_tensor(ctx.tensor(3), DataType::Double);
  Tensor var = cast_tensor(ctx.tensor(4), DataType::Double);
  Tensor xd = cast_tensor(x, DataType::Double);
  const double* px = xd.data<double>();
  std::vector<double> m(static_cast<size_t>(c)), v(static_cast<size_t>(c));
  for (int64_t j = 0; j < c; ++j) {
    m[size_t(j)] = mean.data<double>()[j];
    v[size_t(j)] = var.data<double>()[j];
  }
  if (training) {
    std::vector<double> bm(size_t(c), 0), bv(size_t(c), 0);
    double cnt = double(n * inner);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t j = 0; j < c; ++j) {
        for (int64_t i = 0; i < inner; ++i) bm[size_t(j)] += px[(b * c + j) * inner + i];
      }
    }
    for (auto& e : bm) e /= cnt;
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t j = 0; j < c; ++j) {
        for (int64_t i = 0; i < inner; ++i) {
          double d = px[(b * c + j) * inner + i] - bm[size_t(j)];
          bv[size_t(j)] += d * d;
        }
      }
    }
    for (auto& e : bv) e /= cnt;
    if (ctx.wants_output(1) || ctx.wants_output(2)) {
      Tensor rm(DataType::Double, {c}), rv(DataType::Double, {c});
      for (int64_t j = 0; j < c; ++j) {
        rm.mutable_data<double>()[j] = m[size_t(j)] * momentum + bm[size_t(j)] * (1 - momentum);
        rv.mutable_data<double>()[j] = v[size_t(j)] * momentum + bv[size_t(j)] * (1 - momentum);
      }
      if (ctx.wants_output(1)) ctx.set_output(1, cast_tensor(rm, ctx.tensor(3).dtype()));
      if (ctx.wants_output(2)) ctx.set_output(2, cast_tensor(rv, ctx.tensor(4).dtype()));
    }
    m = bm;
    v = bv;
  }
  Tensor y(DataType::Double, x.dims());
  double* py = y.mutable_data<double>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t j = 0; j < c; ++j) {
      double s = scale.data<double>()[j] / std::sqrt(v[size_t(j)] + eps);
      double t = bias.data<double>()[j] - m[size_t(j)] * s;
      const double* src = px + (b * c + j) * inner;
      double* dst = py + (b * c + j) * inner;
      for (int64_t i = 0; i < inner; ++i) dst[i] = src[i] * s + t;
    }
  }
  ctx.set_output(0, cast_tensor(y, x.dtype()));
}

void instance_norm_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  double eps = ctx.attr_float("epsilon", 1e-5f);
  if (x.rank() < 2) ctx.fail("input must have rank >= 2");
  int64_t n = x.dim(0), c = x.dim(1);
  int64_t inner = x.numel() / std::max<int64_t>(checked_product(ctx, x.dims(), 0, 2, "N x C"), 1);
  if (ctx.tensor(1).numel() != c || ctx.tensor(2).numel() != c) {
    ctx.fail("scale and B must have one value per channel");
  }
  Tensor scale = cast_tensor(ctx.tensor(1), DataType::Double);
  Tensor bias = cast_tensor(ctx.tensor(2), DataType::Double);
  Tensor xd = cast_tensor(x, DataType::Double);
  Tensor y(DataType::Double, x.dims());
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t j = 0; j < c; ++j) {
      const double* src = xd.data<double>() + (b * c + j) * inner;
      double* dst = y.mutable_data<double>() + (b * c + j) * inner;
      double mean = 0, var = 0;
      for (int64_t i = 0; i < inner; ++i) mean += src[i];
      mean /= double(inner);
      for (int64_t i = 0; i < inner; ++i) var += (src[i] - mean) * (src[i] - mean);
      var /= double(inner);
      double s = scale.data<double>()[j] / std::sqrt(var + eps);
      for (int64_t i = 0; i < inner; ++i) dst[i] = (src[i] - mean) * s + bias.data<double>()[j];
    }
  }
  ctx.set_output(0, cast_tensor(y, x.dtype()));
}

void lrn_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  double alpha = ctx.attr_float("alpha", 1e-4f), beta = ctx.attr_float("beta", 0.75f);
  double bias = ctx.attr_float("bias", 1.0f);
  require_rank(ctx, x, 2, SIZE_MAX, "X");
  int64_t size = ctx.attr_int("size", 1);
  if (size < 1) ctx.fail("size must be positive, not " + std::to_string(size));
  int64_t n = x.dim(0), c = x.dim(1);
  int64_t inner = x.numel() / std::max<int64_t>(checked_product(ctx, x.dims(), 0, 2, "N x C"), 1);
  Tensor xd = cast_tensor(x, DataType::Double);
  Tensor y(DataType::Double, x.dims());
  const double* px = xd.data<double>();
  int64_t lo = (size - 1) / 2, hi = (size - 1) - lo;  // floor below, ceil above
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t j = 0; j < c; ++j) {
      for (int64_t i = 0; i < inner; ++i) {
        double sq = 0;
        for (int64_t k = std::max<int64_t>(0, j - lo); k <= std::min(c - 1, j + hi); ++k) {
          double v = px[(b * c + k) * inner + i];
          sq += v * v;
        }
        double v = px[(b * c + j) * inner + i];
        y.mutable_data<double>()[(b * c + j) * inner + i] =
            v / std::pow(bias + alpha / double(size) * sq, beta);
      }
    }
  }
  ctx.set_output(0, cast_tensor(y, x.dtype()));
}

void lp_norm_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", -1), int64_t(x.rank()));
  int64_t p = ctx.attr_int("p", 2);
  if (p != 1 && p != 2) ctx.fail("p must be 1 or 2, not " + std::to_string(p));
  if (x.numel() == 0) {  // outer x inner is no bound when the axis is empty
    ctx.set_output(0, Tensor(x.dtype(), x.dims()));
    return;
  }
  int64_t len = x.dim(size_t(axis));
  int64_t outer = checked_product(ctx, x.dims(), 0, size_t(axis), "outer size");
  int64_t inner = checked_product(ctx, x.dims(), size_t(axis) + 1, x.rank(), "inner size");
  Tensor xd = cast_tensor(x, DataType::Double);
  Tensor y(DataType::Double, x.dims());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      double acc = 0;
      for (int64_t k = 0; k < len; ++k) {
        double v = xd.data<double>()[(o * len + k) * inner + in];
        acc += p == 1 ? std::abs(v) : v * v;
      }
      double norm = p == 1 ? acc : std::sqrt(acc);
      for (int64_t k = 0; k < len; ++k) {
        int64_t i = (o * len + k) * inner + in;
        y.mutable_data<double>()[i] = norm == 0 ? 0 : xd.data<double>()[i] / norm;
      }
    }
  }
  ctx.set_output(0, cast_tensor(y, x.dtype()));
}

// Dropout in inference mode (or ratio 0) is the identity with an all-true
// mask.
void dropout_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  bool training = false;
  double ratio = ctx.attr_float("ratio", 0.5f);
  if (ctx.opset() >= 12) {
    if (const Tensor* r = ctx.optional_tensor(1)) ratio = scalar_double(ctx, *r, "ratio");
    if (const Tensor* t = ctx.optional_tensor(2)) training = scalar_bool(ctx, *t, "training_mode");
  } else if (ctx.opset() < 7) {
    training = ctx.attr_int("is_test", 0) == 0;
  }
  if (training && !(ratio >= 0 && ratio < 1)) {
    ctx.fail("ratio must be in [0, 1) in training mode, not " + std::to_string(ratio));
  }
  if (training && ratio != 0) {
    // Random, seeded like numpy's legacy generator (MT19937 seeded with the
    // seed attribute, default 0; doubles from two 32-bit draws), so a given
    // seed gives the mask numpy's np.random.uniform would.
    std::mt19937 gen(static_cast<uint32_t>(ctx.attr_int("seed", 0)));
    Tensor& mask = ctx.alloc_output(1, DataType::Bool, x.dims());
    Tensor y(DataType::Double, x.dims());
    Tensor xd = cast_tensor(x, DataType::Double);
    double scale = 1.0 / (1.0 - ratio);
    for (int64_t i = 0; i < x.numel(); ++i) {
      uint32_t a = gen() >> 5, b = gen() >> 6;
      double u = (double(a) * 67108864.0 + double(b)) / 9007199254740992.0;
      bool keep = u >= ratio;
      mask.mutable_data<bool>()[i] = keep;
      y.mutable_data<double>()[i] = keep ? xd.data<double>()[i] * scale : 0.0;
    }
    ctx.set_output(0, cast_tensor(y, x.dtype()));
    return;
  }
  ctx.set_output(0, x);
  if (ctx.wants_output(1)) {
    Tensor& mask = ctx.alloc_output(1, DataType::Bool, x.dims());
    std::fill(mask.mutable_data<bool>(), mask.mutable_data<bool>() + mask.numel(), true);
  }
}

}  // namespace

void register_norm_kernels(KernelRegistry& r) {
  r.add("", "BatchNormalization", 1, batch_norm_k);
  r.add("", "InstanceNormalization", 1, instance_norm_k);
  r.add("", "LRN", 1, lrn_k);
  r.add("", "LpNormalization", 1, lp_norm_k);
  r.add("", "Dropout", 1, dropout_k);
}

}  // namespace oxs::eval
