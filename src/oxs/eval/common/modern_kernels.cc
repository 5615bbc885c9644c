#include "oxs/eval/common/modern_kernels.h"

namespace oxs::eval {

void register_modern_kernels(KernelRegistry& r) {
  register_attention_kernels(r);
  register_flex_attention_kernels(r);
  register_activation_kernels(r);
  register_norm_function_kernels(r);
  register_loss_kernels(r);
  register_window_kernels(r);
  register_bernoulli_kernels(r);
  register_cast19_kernels(r);
  register_quant_kernels(r);
  register_bitwise_kernels(r);
  register_rotary_kernels(r);
  register_tensor_scatter_kernels(r);
  register_string_kernels(r);
  register_regex_kernels(r);
  register_col2im_kernels(r);
  register_crop_grid_kernels(r);
  register_grid_sample_kernels(r);
  register_deform_conv_kernels(r);
  register_tree_ensemble5_kernels(r);
  register_image_decoder_kernels(r);
  register_cumprod_kernels(r);
  register_causal_conv_kernels(r);
  register_linear_attention_kernels(r);
}

}  // namespace oxs::eval
