// Range as a kernel (its schema body, a Loop, cannot tell a NaN or infinite
// bound from an empty range: it casts the element count to int64, so
// Range(0, inf, 1) or a step of 1e-30 gave an empty tensor). The count is
// max(ceil((limit - start) / delta), 0) as the spec says, computed without
// overflow (128-bit for integers, double for floats); a zero, NaN or
// infinite argument and a count over the allocation limit are errors naming
// the node. Elements are start + i * delta, as numpy.arange computes them.
#include <cmath>
#include <cstdio>

#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

// 128-bit integers for exact counts (a GCC/Clang extension).
__extension__ typedef __int128 i128;

std::string num_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

template <class T>
void range_int(KernelContext& ctx, T start, T limit, T delta) {
  if (delta == 0) ctx.fail("delta must not be zero");
  i128 span = i128(limit) - i128(start);
  i128 d = delta;
  // ceil(span / d) for either sign of d.
  i128 q = span / d;
  if (span % d != 0 && ((span > 0) == (d > 0))) ++q;
  if (q < 0) q = 0;
  int64_t bytes_per = int64_t(sizeof(T));
  if (q > i128(allocation_limit() / bytes_per)) {
    ctx.fail("Range(" + std::to_string(int64_t(start)) + ", " + std::to_string(int64_t(limit)) +
             ", " + std::to_string(int64_t(delta)) +
             ") has more elements than the evaluator's allocation limit allows");
  }
  int64_t n = int64_t(q);
  Tensor& out = ctx.alloc_output(0, dtype_of<T>(), {n});
  T* po = out.mutable_data<T>();
  for (int64_t i = 0; i < n; ++i) po[i] = T(i128(start) + i128(i) * d);
}

template <class T>
Tensor& range_float(KernelContext& ctx, T start, T limit, T delta) {
  double s = double(start), l = double(limit), d = double(delta);
  if (!std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) {
    ctx.fail("start, limit and delta must be finite, got Range(" + num_text(s) + ", " +
             num_text(l) + ", " + num_text(d) + ")");
  }
  if (d == 0) ctx.fail("delta must not be zero");
  double count = std::ceil((l - s) / d);
  if (std::isnan(count)) ctx.fail("the element count of Range is not a number");
  if (count < 0) count = 0;
  double max_elems = double(allocation_limit() / int64_t(sizeof(T)));
  if (!(count <= max_elems)) {
    ctx.fail("Range(" + num_text(s) + ", " + num_text(l) + ", " + num_text(d) + ") has " +
             num_text(count) + " elements, more than the evaluator's allocation limit allows");
  }
  int64_t n = int64_t(count);
  Tensor& out = ctx.alloc_output(0, dtype_of<T>(), {n});
  T* po = out.mutable_data<T>();
  for (int64_t i = 0; i < n; ++i) po[i] = T(start + T(i) * delta);
  return out;
}

void range_k(KernelContext& ctx) {
  const Tensor& s = ctx.tensor(0);
  const Tensor& l = ctx.tensor(1);
  const Tensor& d = ctx.tensor(2);
  require_numel(ctx, s, 1, "start");
  require_numel(ctx, l, 1, "limit");
  require_numel(ctx, d, 1, "delta");
  if (s.dtype() != l.dtype() || s.dtype() != d.dtype()) {
    ctx.fail("start, limit and delta must have one element type");
  }
  switch (s.dtype()) {
    case DataType::Float:
      range_float<float>(ctx, s.data<float>()[0], l.data<float>()[0], d.data<float>()[0]);
      return;
    case DataType::Double:
      range_float<double>(ctx, s.data<double>()[0], l.data<double>()[0], d.data<double>()[0]);
      return;
    case DataType::Int16:
      return range_int<int16_t>(ctx, s.data<int16_t>()[0], l.data<int16_t>()[0],
                                d.data<int16_t>()[0]);
    case DataType::Int32:
      return range_int<int32_t>(ctx, s.data<int32_t>()[0], l.data<int32_t>()[0],
                                d.data<int32_t>()[0]);
    case DataType::Int64:
      return range_int<int64_t>(ctx, s.data<int64_t>()[0], l.data<int64_t>()[0],
                                d.data<int64_t>()[0]);
    case DataType::Float16:
    case DataType::BFloat16: {
      // Range-25 takes the 16-bit floats: computed in double (the checks of
      // range_float), each element rounded once to the input's type.
      Tensor wide = cast_tensor(
          range_float<double>(ctx, s.get_as_double(0), l.get_as_double(0), d.get_as_double(0)),
          s.dtype());
      ctx.set_output(0, std::move(wide));
      return;
    }
    default:
      ctx.fail("Range takes float, double, float16, bfloat16, int16, int32 or int64, not " +
               std::string(ir::dtype_name(s.dtype())));
  }
}

}  // namespace

void register_range_kernels(KernelRegistry& r) {
  r.add("", "Range", 11, range_k);
}

}  // namespace oxs::eval
