// Bernoulli (15, 22): 1 with probability x, else 0, in `dtype` (default x's
// type). A function-op whose libonnx body stops at opset 17. With a seed the
// draws are reproducible (MT19937); they do not reproduce numpy's binomial
// sampler, so the backend tests' expected values cannot be matched.
#include <random>

#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

void bernoulli_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor p = cast_tensor(x, DataType::Double);
  std::mt19937_64 gen(
      ctx.has_attr("seed")
          ? uint64_t(checked_to_int64(ctx, ctx.attr_float("seed", 0), "attribute 'seed'"))
          : std::random_device{}());
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Tensor draws(DataType::Double, x.dims());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double pi = p.data<double>()[i];
    if (!(pi >= 0 && pi <= 1)) ctx.fail("probability " + std::to_string(pi) + " is outside [0, 1]");
    draws.mutable_data<double>()[i] = u(gen) < pi ? 1.0 : 0.0;
  }
  const DataType dt = ctx.has_attr("dtype") ? DataType(ctx.attr_int("dtype", 1)) : x.dtype();
  if (!ir::is_valid_dtype(int32_t(dt)) || dt == DataType::String) ctx.fail("bad dtype");
  ctx.set_output(0, cast_tensor(draws, dt));
}

}  // namespace

void register_bernoulli_kernels(KernelRegistry& r) {
  r.add("", "Bernoulli", 15, bernoulli_k);
}

}  // namespace oxs::eval
