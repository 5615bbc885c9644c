// Internal to torch/native/: shorthands for declaring a native function's
// parameters (by ATen schema name) and registering it.
#pragma once

#include <string>
#include <vector>

#include "oxs/torch/context.h"
#include "oxs/torch/library.h"

namespace oxs::torch::native {

using Ints = std::vector<int64_t>;

// A tensor input.
inline ParamSpec tensor(std::string name, std::vector<ir::DataType> dtypes = {}, int min_rank = -1,
                        int max_rank = -1) {
  return {std::move(name), true, std::move(dtypes), false, "", false, min_rank, max_rank};
}
inline ParamSpec optional_tensor(std::string name, std::vector<ir::DataType> dtypes = {}) {
  return {std::move(name), true, std::move(dtypes), true, "", true, -1, -1};
}
// A non-tensor argument of kind int, float, bool, ints, floats, str, tensors or "" (any).
inline ParamSpec attr(std::string name, std::string kind, bool has_default = true) {
  return {std::move(name), false, {}, true, std::move(kind), has_default, -1, -1};
}

inline void add(Library& lib, std::string overload, std::string name, std::vector<ParamSpec> params,
                NativeFn fn) {
  Candidate c;
  c.overload = std::move(overload);
  c.name = std::move(name);
  c.kind = Candidate::Kind::Native;
  c.params = std::move(params);
  c.native = fn;
  lib.add(std::move(c));
}

// The per-file registration functions (native/*.cc).
void add_linalg(Library& lib);
void add_conv_norm(Library& lib);
void add_pool_reduce(Library& lib);
void add_shape(Library& lib);
void add_norm_softmax(Library& lib);

// k spatial values from an ATen int list of length 1 or k.
std::vector<int64_t> spatial(const Context& cx, const std::vector<int64_t>& v, size_t k,
                             const char* what);

}  // namespace oxs::torch::native
