// Reading a serialized TensorProto file (the input_N.pb / output_N.pb files
// of ONNX test data, `oxs run --input NAME=FILE.pb`) as an ir::Tensor, so
// that rooms without protobuf access can load them.
#pragma once

#include <memory>
#include <string>

#include "oxs/ir/tensor.h"

namespace oxs::onnx {

// Throws oxs::Error naming `path` if it cannot be read or is not a valid
// TensorProto.
std::shared_ptr<ir::Tensor> load_tensor(const std::string& path);

}  // namespace oxs::onnx
