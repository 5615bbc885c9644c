// Where QuantizeLinear/DequantizeLinear find each element's scale and zero
// point: one for the whole tensor, one per slice of `axis` (opset 13), or one
// per block of `block_size` consecutive elements along `axis` (opset 21's
// blocked quantization, the scale having x's shape but ceil(D/B) along axis).
#pragma once

#include <cstdint>

#include "oxs/eval/kernel.h"

namespace oxs::eval {

class QuantParams {
 public:
  // Checks the shapes of `scale` and `zero_point` (may be null) against `x`
  // and the node's axis/block_size attributes; fails naming what is wrong.
  QuantParams(const KernelContext& ctx, const Tensor& x, const Tensor& scale,
              const Tensor* zero_point);

  // Index into the scale (and zero point) of element `i` of x.
  int64_t at(int64_t i) const {
    switch (mode_) {
      case Mode::Tensor:
        return 0;
      case Mode::Axis:
        return (i / inner_) % len_;
      case Mode::Blocked: {
        const int64_t outer = i / (inner_ * len_);
        const int64_t a = (i / inner_) % len_;
        return (outer * blocks_ + a / block_) * inner_ + i % inner_;
      }
    }
    return 0;
  }

 private:
  enum class Mode { Tensor, Axis, Blocked };
  Mode mode_ = Mode::Tensor;
  int64_t inner_ = 1, len_ = 1, block_ = 1, blocks_ = 1;
};

}  // namespace oxs::eval
