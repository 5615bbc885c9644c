// Cast from opset 19 on, and CastLike (15 on; CastLike is a function-op
// whose libonnx body stops at opset 17). From opset 19 the reference rounds
// float to bfloat16 to nearest even (Cast-13's test data truncated, which
// cast_tensor keeps for the older versions).
#include "oxs/eval/convert/cast19.h"

#include "oxs/eval/convert/float8.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

// Casts to and from the float8 formats go through float.
Tensor cast_float8(const Tensor& t, DataType to, bool saturate) {
  if (is_float8(t.dtype())) {
    const Float8Format f = float8_format(t.dtype());
    Tensor fl(DataType::Float, t.dims());
    const uint8_t* p = t.data<uint8_t>();
    for (int64_t i = 0; i < t.numel(); ++i) fl.mutable_data<float>()[i] = float8_decode(f, p[i]);
    return is_float8(to) ? cast_float8(fl, to, saturate) : cast_rounding(fl, to);
  }
  const Tensor fl = cast_tensor(t, DataType::Float);
  const Float8Format f = float8_format(to);
  Tensor out(to, t.dims());
  uint8_t* po = out.mutable_data<uint8_t>();
  for (int64_t i = 0; i < t.numel(); ++i) po[i] = float8_encode(f, fl.data<float>()[i], saturate);
  return out;
}

}  // namespace

Tensor cast_rounding(const Tensor& t, DataType to, bool saturate) {
  if ((is_float8(to) || is_float8(t.dtype())) && t.dtype() != to) {
    return cast_float8(t, to, saturate);
  }
  if (to != DataType::BFloat16 || t.dtype() == to || t.dtype() == DataType::String) {
    return cast_tensor(t, to);
  }
  Tensor f = cast_tensor(t, DataType::Float);
  Tensor out(to, t.dims());
  const float* pf = f.data<float>();
  BFloat16* po = out.mutable_data<BFloat16>();
  for (int64_t i = 0; i < t.numel(); ++i) po[i] = BFloat16(pf[i]);
  return out;
}

namespace {

DataType target_type(const KernelContext& ctx) {
  const int64_t to = ctx.required_attr("to").i;
  if (!ir::is_valid_dtype(static_cast<int32_t>(to)) || to == 0) {
    ctx.fail("'to' is " + std::to_string(to) + ", which is not an element type this build knows");
  }
  return static_cast<DataType>(to);
}

void cast_k(KernelContext& ctx) {
  const bool saturate = ctx.attr_int("saturate", 1) != 0;
  ctx.set_output(0, cast_rounding(ctx.tensor(0), target_type(ctx), saturate));
}

void cast_like_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const DataType to = ctx.tensor(1).dtype();
  const bool saturate = ctx.attr_int("saturate", 1) != 0;
  ctx.set_output(0, ctx.opset() >= 19 ? cast_rounding(x, to, saturate) : cast_tensor(x, to));
}

}  // namespace

void register_cast19_kernels(KernelRegistry& r) {
  r.add("", "Cast", 19, cast_k);
  r.add("", "CastLike", 15, cast_like_k);
}

}  // namespace oxs::eval
