// Geometry of sliding windows (Conv, ConvTranspose, pooling): kernel,
// strides, dilations and pads per spatial axis from the attributes, with
// auto_pad and ceil_mode resolved to explicit pads and output sizes.
#pragma once

#include <cstdint>
#include <vector>

#include "oxs/eval/kernel.h"

namespace oxs::eval {

struct Window {
  std::vector<int64_t> in, kernel, strides, dilations, pad_begin, pad_end, out;
  size_t rank() const { return in.size(); }
  int64_t out_numel() const;
  int64_t kernel_numel() const;
};

// `spatial`: the input's spatial dims; `kernel`: from the weights or the
// kernel_shape attribute.
Window make_window(const KernelContext& ctx, const std::vector<int64_t>& spatial,
                   const std::vector<int64_t>& kernel, bool ceil_mode);

}  // namespace oxs::eval
