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
  ParamSpec p;
  p.name = std::move(name);
  p.dtypes = std::move(dtypes);
  p.min_rank = min_rank;
  p.max_rank = max_rank;
  return p;
}
inline ParamSpec optional_tensor(std::string name, std::vector<ir::DataType> dtypes = {}) {
  ParamSpec p;
  p.name = std::move(name);
  p.dtypes = std::move(dtypes);
  p.optional = p.has_default = true;
  return p;
}
// A non-tensor argument of kind int, float, bool, ints, floats, str, tensors or "" (any).
inline ParamSpec attr(std::string name, std::string kind, bool has_default = true) {
  ParamSpec p;
  p.name = std::move(name);
  p.is_input = false;
  p.optional = true;
  p.attr_kind = std::move(kind);
  p.has_default = has_default;
  return p;
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
