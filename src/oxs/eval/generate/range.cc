// Range (11, 27): start, start + delta, ... up to limit (exclusive), with
// max(ceil((limit - start) / delta), 0) elements, each start + i * delta
// (not a running sum, so no error accumulates). Range is a function-op in
// libonnx, whose body exists only up to opset 17. Integers are computed
// exactly (wrapping as the element type does); floating types in double,
// rounded once (float16/bfloat16 thus get stash_type 1's accuracy or better).
#include <cmath>

#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

void range_k(KernelContext& ctx) {
  const Tensor& start = ctx.tensor(0);
  const Tensor& limit = ctx.tensor(1);
  const Tensor& delta = ctx.tensor(2);
  require_same_dtype(ctx, start, limit);
  require_same_dtype(ctx, start, delta);
  for (const Tensor* t : {&start, &limit, &delta}) {
    if (t->numel() != 1)
      ctx.fail("start, limit and delta must be scalars, got " + dims_to_string(t->dims()));
  }
  const DataType dt = start.dtype();
  if (ir::is_integer(dt)) {
    const int64_t s = int64_t(start.get_as_double(0)), l = int64_t(limit.get_as_double(0));
    int64_t d = 0;
    dispatch_int(dt, [&](auto tag) {
      using T = decltype(tag);
      d = int64_t(delta.data<T>()[0]);
    });
    if (d == 0) ctx.fail("delta must not be 0");
    // ceil((l - s) / d) in exact integer arithmetic.
    int64_t diff = 0;
    if (__builtin_sub_overflow(l, s, &diff)) {
      ctx.fail("the range from " + std::to_string(s) + " to " + std::to_string(l) +
               " is too long to hold");
    }
    int64_t q = d == -1 ? -diff : diff / d;  // diff != INT64_MIN here
    if ((diff % d != 0) && ((diff > 0) == (d > 0))) ++q;
    const int64_t n = q > 0 ? q : 0;
    Tensor& out = ctx.alloc_output(0, dt, {n});
    dispatch_int(dt, [&](auto tag) {
      using T = decltype(tag);
      T* p = out.mutable_data<T>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(s + i * d);
    });
    return;
  }
  if (!ir::is_floating(dt)) ctx.fail("start, limit and delta must be numeric");
  const double s = start.get_as_double(0), l = limit.get_as_double(0), d = delta.get_as_double(0);
  if (d == 0) ctx.fail("delta must not be 0");
  const double count = std::ceil((l - s) / d);
  if (!std::isfinite(count) && !(count < 0)) {
    ctx.fail("the range from " + std::to_string(s) + " to " + std::to_string(l) + " by " +
             std::to_string(d) + " has no finite length");
  }
  const int64_t n = count > 0 ? int64_t(count) : 0;
  Tensor& out = ctx.alloc_output(0, dt, {n});
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    T* p = out.mutable_data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = T(C(s + double(i) * d));
  });
}

}  // namespace

void register_range_kernels(KernelRegistry& r) {
  r.add("", "Range", 11, range_k);
}

}  // namespace oxs::eval
