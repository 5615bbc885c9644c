// Registration functions of the kernel families in eval/'s sub-folders: the
// ops and versions of ai.onnx opsets 18-28, ai.onnx.ml 4-5 and
// ai.onnx.preview 1, and kernels for the function-ops whose libonnx (1.12)
// bodies exist only up to opset 17. register_modern_kernels calls them all.
#pragma once

#include "oxs/eval/kernel.h"

namespace oxs::eval {

void register_attention_kernels(KernelRegistry& r);         // attention/
void register_flex_attention_kernels(KernelRegistry& r);    // attention/
void register_activation_kernels(KernelRegistry& r);        // activation/
void register_norm_function_kernels(KernelRegistry& r);     // norm/
void register_loss_kernels(KernelRegistry& r);              // loss/
void register_window_kernels(KernelRegistry& r);            // generate/
void register_bernoulli_kernels(KernelRegistry& r);         // generate/
void register_cast19_kernels(KernelRegistry& r);            // convert/
void register_quant_kernels(KernelRegistry& r);             // quant/
void register_bitwise_kernels(KernelRegistry& r);           // bits/
void register_rotary_kernels(KernelRegistry& r);            // attention/
void register_tensor_scatter_kernels(KernelRegistry& r);    // attention/
void register_linear_attention_kernels(KernelRegistry& r);  // attention/
void register_causal_conv_kernels(KernelRegistry& r);       // attention/
void register_cumprod_kernels(KernelRegistry& r);           // scan/
void register_crop_grid_kernels(KernelRegistry& r);         // image/
void register_col2im_kernels(KernelRegistry& r);            // image/
void register_grid_sample_kernels(KernelRegistry& r);       // image/
void register_deform_conv_kernels(KernelRegistry& r);       // conv/
void register_tree_ensemble5_kernels(KernelRegistry& r);    // ml/
void register_image_decoder_kernels(KernelRegistry& r);     // image/
void register_string_kernels(KernelRegistry& r);            // text/
void register_regex_kernels(KernelRegistry& r);             // text/

}  // namespace oxs::eval
