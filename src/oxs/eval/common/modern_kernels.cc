#include "oxs/eval/common/modern_kernels.h"

namespace oxs::eval {

void register_modern_kernels(KernelRegistry& r) {
  register_attention_kernels(r);
  register_activation_kernels(r);
  register_norm_function_kernels(r);
  register_loss_kernels(r);
  register_range_kernels(r);
  register_window_kernels(r);
  register_bernoulli_kernels(r);
  register_cast19_kernels(r);
}

}  // namespace oxs::eval
