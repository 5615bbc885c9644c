// Random generators: RandomUniform(Like), RandomNormal(Like), Multinomial.
// With a `seed` attribute the draws are reproducible (MT19937 seeded with
// it, doubles from two 32-bit draws as numpy's legacy generator makes them);
// without one they come from std::random_device, as the spec allows.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

struct Rng {
  std::mt19937 gen;
  explicit Rng(const KernelContext& ctx)
      : gen(ctx.has_attr("seed") ? seed_of(ctx.attr_float("seed", 0)) : std::random_device{}()) {}
  // A float seed as the generator's 32-bit seed (NaN or huge seeds have no
  // int64 value: they give 0 and the wrapped value).
  static uint32_t seed_of(float s) {
    if (!(std::abs(s) < 9.0e18f)) return 0;
    return uint32_t(int64_t(s));
  }
  double uniform() {
    uint32_t a = gen() >> 5, b = gen() >> 6;
    return (double(a) * 67108864.0 + double(b)) / 9007199254740992.0;
  }
  double normal() {  // Box-Muller
    double u1 = uniform(), u2 = uniform();
    if (u1 <= 0) u1 = 1e-300;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
};

Tensor fill(const Dims& dims, DataType dt, const std::function<double()>& draw) {
  Tensor d(DataType::Double, dims);
  for (int64_t i = 0; i < d.numel(); ++i) d.mutable_data<double>()[i] = draw();
  return cast_tensor(d, dt);
}

DataType out_dtype(const KernelContext& ctx, DataType like) {
  return ctx.has_attr("dtype") ? DataType(ctx.attr_int("dtype", 1)) : like;
}

template <bool Normal, bool Like>
void random_k(KernelContext& ctx) {
  Rng rng(ctx);
  Dims dims;
  DataType dt = DataType::Float;
  if constexpr (Like) {
    dims = ctx.tensor(0).dims();
    dt = out_dtype(ctx, ctx.tensor(0).dtype());
  } else {
    dims = ctx.attr_ints("shape");
    dt = out_dtype(ctx, DataType::Float);
  }
  if (!ir::is_floating(dt)) ctx.fail("dtype must be a floating-point type");
  if constexpr (Normal) {
    double mean = ctx.attr_float("mean", 0), scale = ctx.attr_float("scale", 1);
    ctx.set_output(0, fill(dims, dt, [&] { return mean + scale * rng.normal(); }));
  } else {
    double lo = ctx.attr_float("low", 0), hi = ctx.attr_float("high", 1);
    ctx.set_output(0, fill(dims, dt, [&] { return lo + (hi - lo) * rng.uniform(); }));
  }
}

void multinomial_k(KernelContext& ctx) {
  Rng rng(ctx);
  Tensor x = cast_tensor(ctx.tensor(0), DataType::Double);
  if (x.rank() != 2) ctx.fail("input must be [batch, classes]");
  int64_t batch = x.dim(0), classes = x.dim(1), n = ctx.attr_int("sample_size", 1);
  DataType dt = DataType(ctx.attr_int("dtype", int64_t(DataType::Int32)));
  if (dt != DataType::Int32 && dt != DataType::Int64) ctx.fail("dtype must be int32 or int64");
  Tensor y(DataType::Int64, {batch, n});
  // No samples: the batch is no bound on the loop (X of [2^31, 0] with
  // sample_size 0 walked 2^31 rows for nothing).
  if (y.numel() == 0) {
    ctx.set_output(0, cast_tensor(y, dt));
    return;
  }
  if (classes == 0) ctx.fail("input has no classes to sample from (shape [batch, 0])");
  for (int64_t b = 0; b < batch; ++b) {
    const double* logits = x.data<double>() + b * classes;
    double mx = -INFINITY;
    for (int64_t k = 0; k < classes; ++k) mx = std::max(mx, logits[k]);
    std::vector<double> cdf(static_cast<size_t>(classes));
    double sum = 0;
    for (int64_t k = 0; k < classes; ++k) cdf[size_t(k)] = sum += std::exp(logits[k] - mx);
    for (int64_t s = 0; s < n; ++s) {
      double u = rng.uniform() * sum;
      int64_t k = int64_t(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
      y.mutable_data<int64_t>()[b * n + s] = std::min(k, classes - 1);
    }
  }
  ctx.set_output(0, cast_tensor(y, dt));
}

}  // namespace

void register_random_kernels(KernelRegistry& r) {
  r.add("", "RandomUniform", 1, random_k<false, false>);
  r.add("", "RandomNormal", 1, random_k<true, false>);
  r.add("", "RandomUniformLike", 1, random_k<false, true>);
  r.add("", "RandomNormalLike", 1, random_k<true, true>);
  r.add("", "Multinomial", 7, multinomial_k);
}

}  // namespace oxs::eval
