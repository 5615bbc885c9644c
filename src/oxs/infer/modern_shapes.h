// Shape rules for the image, signal, convolution, attention and ML ops of
// oxs's own op versions that modern_ops.cc does not cover: GridSample-20/22
// (n-d), AffineGrid-20, CenterCropPad-18, Col2Im-18, DeformConv-19/22,
// DFT-20, Resize-18/19 with axes or keep_aspect_ratio_policy,
// ImageDecoder-20, OptionalHasElement/OptionalGetElement-18,
// SplitToSequence-24, StringSplit-20, ai.onnx.preview FlexAttention-1 and
// ai.onnx.ml TreeEnsemble-5 and LabelEncoder-4 with tensor attributes. Dims that depend on values
// not known before run time stay unknown; the rank is given whenever it is known. Internal to
// infer/.
#pragma once

#include "oxs/infer/node_access.h"

namespace oxs::infer {

// Fills `out` for `n` when its op is one of the above; returns whether it was.
bool infer_modern_shapes(const ir::Node& n, Inferencer::Impl& impl, Outputs& out);

// Attention-23/24/25 (every output), LinearAttention-27 and
// CausalConvWithState-27 (attention_shapes.cc).
bool infer_attention_shapes(const ir::Node& n, Outputs& out);

// AveragePool, LpPool and MaxPool where libonnx's rule does not apply
// (ceil_mode, dilations; pool_shapes.cc).
bool infer_pool_shapes(const ir::Node& n, Outputs& out);

}  // namespace oxs::infer
