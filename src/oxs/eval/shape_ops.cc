#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

void register_shape_kernels(KernelRegistry& r) {
  (void)r;
}

}  // namespace oxs::eval
