// Internal to the ai.onnx.ml "basic" kernel files (ml_encoders.cc,
// ml_preprocess.cc, ml_linear.cc): their registration functions, called by
// register_ml_basic_kernels, and small helpers they share. Not a public API.
#pragma once

#include <string>

#include "oxs/eval/kernel.h"

namespace oxs::eval::ml {

inline constexpr const char* kMlDomain = "ai.onnx.ml";

void register_encoder_kernels(KernelRegistry& r);
void register_preprocess_kernels(KernelRegistry& r);
void register_linear_kernels(KernelRegistry& r);

inline std::string type_name(DataType t) {
  return std::string(ir::dtype_name(t));
}

// Fails unless `t` is one of `allowed` (e.g. "float, double, int64 or int32").
void require_type(const KernelContext& ctx, const char* what, const Tensor& t,
                  std::initializer_list<DataType> allowed);

// Element i of a float/double/int32/int64 tensor as float.
float element_as_float(const Tensor& t, int64_t i);
// The tensor as float (a view when it is already float).
Tensor to_float_tensor(const Tensor& t);

}  // namespace oxs::eval::ml
