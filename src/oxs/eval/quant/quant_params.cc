#include "oxs/eval/quant/quant_params.h"

#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

QuantParams::QuantParams(const KernelContext& ctx, const Tensor& x, const Tensor& scale,
                         const Tensor* zero_point) {
  const int64_t block = ctx.attr_int("block_size", 0);
  if (block < 0) ctx.fail("block_size is " + std::to_string(block) + "; it must be 0 or positive");
  if (zero_point && zero_point->dims() != scale.dims() &&
      !(zero_point->numel() == 1 && scale.numel() == 1)) {
    ctx.fail("the zero point's shape " + dims_to_string(zero_point->dims()) +
             " differs from the scale's " + dims_to_string(scale.dims()) +
             "; they must be the same");
  }
  // A scalar (or one-element) scale is per-tensor whatever the attributes say.
  if (scale.numel() == 1 && scale.rank() <= 1) return;
  const auto rank = static_cast<int64_t>(x.rank());
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 1), rank);
  len_ = x.dim(size_t(axis));
  inner_ = checked_product(ctx, x.dims(), size_t(axis) + 1, x.rank(), "inner size");
  if (block == 0) {
    if (scale.rank() != 1 || scale.numel() != len_) {
      ctx.fail("the scale has shape " + dims_to_string(scale.dims()) +
               "; without block_size it must be a scalar or 1-D with one entry per slice of axis " +
               std::to_string(axis) + " (" + std::to_string(len_) + ")");
    }
    mode_ = Mode::Axis;
    return;
  }
  // Blocked: the scale has x's shape except ceil(D / block) along the axis.
  Dims want = x.dims();
  want[size_t(axis)] = (len_ + block - 1) / block;
  if (scale.dims() != want) {
    ctx.fail("with block_size " + std::to_string(block) + " along axis " + std::to_string(axis) +
             " the scale must have shape " + dims_to_string(want) + " for input shape " +
             dims_to_string(x.dims()) + ", but has " + dims_to_string(scale.dims()));
  }
  mode_ = Mode::Blocked;
  block_ = block;
  blocks_ = want[size_t(axis)];
}

}  // namespace oxs::eval
