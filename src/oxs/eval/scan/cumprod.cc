// CumProd (26): the running product along `axis` (a scalar int32/int64
// input), optionally exclusive (starting from 1) and/or reversed; integer
// products wrap as the element type does.
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

void cumprod_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& axis_t = ctx.tensor(1);
  if (axis_t.numel() != 1 || axis_t.rank() > 1) ctx.fail("axis must be a scalar");
  const int64_t r = int64_t(x.rank());
  const int64_t axis = normalize_axis(ctx, axis_t.scalar_int(), std::max<int64_t>(r, 1));
  const bool exclusive = ctx.attr_int("exclusive", 0) != 0;
  const bool reverse = ctx.attr_int("reverse", 0) != 0;
  Tensor& out = ctx.alloc_output(0, x.dtype(), x.dims());
  // An empty X: nothing to do; its other dims are no bound on the loops
  // below, and their product may overflow.
  if (out.numel() == 0) return;
  int64_t outer = 1, len = r == 0 ? 1 : x.dim(size_t(axis)), inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.dim(size_t(i));
  for (int64_t i = axis + 1; i < r; ++i) inner *= x.dim(size_t(i));
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        C acc = C(1);
        for (int64_t j = 0; j < len; ++j) {
          const int64_t k = reverse ? len - 1 - j : j;
          const int64_t idx = (o * len + k) * inner + in;
          const C v = C(px[idx]);
          if (exclusive) {
            po[idx] = T(acc);
            acc = wrap_mul(acc, v);
          } else {
            acc = wrap_mul(acc, v);
            po[idx] = T(acc);
          }
        }
      }
    }
  });
}

}  // namespace

void register_cumprod_kernels(KernelRegistry& r) {
  r.add("", "CumProd", 26, cumprod_k);
}

}  // namespace oxs::eval
