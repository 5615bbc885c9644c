// The native functions of every family, in one library call.
#include "oxs/torch/native/spec.h"

namespace oxs::torch {

void add_native_functions(Library& lib) {
  native::add_linalg(lib);
  native::add_conv_norm(lib);
  native::add_pool_reduce(lib);
  native::add_shape(lib);
  native::add_norm_softmax(lib);
}

namespace native {

std::vector<int64_t> spatial(const Context& cx, const std::vector<int64_t>& v, size_t k,
                             const char* what) {
  if (v.size() == k) return v;
  if (v.size() == 1) return std::vector<int64_t>(k, v[0]);
  cx.fail(std::string(what) + " has " + std::to_string(v.size()) + " values for " +
          std::to_string(k) + " spatial dimensions");
}

}  // namespace native
}  // namespace oxs::torch
