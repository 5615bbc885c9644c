// Cast from opset 19 on, and CastLike (15 on; CastLike is a function-op
// whose libonnx body stops at opset 17). From opset 19 the reference rounds
// float to bfloat16 to nearest even (Cast-13's test data truncated, which
// cast_tensor keeps for the older versions); `saturate` (19) governs the
// float8 targets and `round_mode` (24) the float8e8m0 target.
#include "oxs/eval/convert/cast19.h"

#include "oxs/eval/convert/narrow.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

Tensor cast_rounding(const Tensor& t, DataType to, bool saturate, E8M0Rounding e8m0_rounding) {
  if (t.dtype() == to) return t;
  if (is_narrow_type(to) || is_narrow_type(t.dtype())) {
    return cast_narrow(t, to, {.saturate = saturate, .e8m0_rounding = e8m0_rounding});
  }
  if (to != DataType::BFloat16 || t.dtype() == DataType::String) return cast_tensor(t, to);
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

E8M0Rounding round_mode(const KernelContext& ctx) {
  const std::string mode = ctx.attr_string("round_mode", "up");
  if (mode == "up") return E8M0Rounding::Up;
  if (mode == "down") return E8M0Rounding::Down;
  if (mode == "nearest") return E8M0Rounding::Nearest;
  ctx.fail("round_mode is '" + mode + "'; it must be 'up', 'down' or 'nearest'");
}

void cast_k(KernelContext& ctx) {
  const bool saturate = ctx.attr_int("saturate", 1) != 0;
  ctx.set_output(0, cast_rounding(ctx.tensor(0), target_type(ctx), saturate, round_mode(ctx)));
}

void cast_like_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const DataType to = ctx.tensor(1).dtype();
  const bool saturate = ctx.attr_int("saturate", 1) != 0;
  ctx.set_output(
      0, ctx.opset() >= 19 ? cast_rounding(x, to, saturate, round_mode(ctx)) : cast_tensor(x, to));
}

}  // namespace

void register_cast19_kernels(KernelRegistry& r) {
  r.add("", "Cast", 19, cast_k);
  r.add("", "CastLike", 15, cast_like_k);
}

}  // namespace oxs::eval
