// Reading the input_N.pb / output_N.pb files of the ONNX backend tests as
// eval::Values, through the onnx room's reader (the one `oxs run --input`
// uses). Shared by the conformance runner and the version-converter tests.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "oxs/eval/session.h"
#include "oxs/onnx/value_io.h"

namespace oxs::testing {

inline eval::Value from_value_data(onnx::ValueData& d) {
  using Kind = onnx::ValueData::Kind;
  switch (d.kind) {
    case Kind::Tensor:
      return eval::Tensor::from_ir(std::shared_ptr<const ir::Tensor>(d.tensor));
    case Kind::Sequence: {
      std::vector<eval::Value> items;
      for (auto& e : d.items) items.push_back(from_value_data(e));
      return eval::Value::sequence(std::move(items));
    }
    case Kind::Optional:
      if (d.items.empty()) return eval::Value::optional(std::nullopt);
      return eval::Value::optional(from_value_data(d.items[0]));
    case Kind::Map:
      return eval::Value::map(eval::Tensor::from_ir(*d.tensor),
                              eval::Tensor::from_ir(*d.map_values));
  }
  return {};
}

// Parses the file as the proto kind the declared type calls for.
inline eval::Value read_backend_value(const std::string& path, const ir::Type& type) {
  onnx::ValueData d = onnx::load_value(path, type);
  eval::Value v = from_value_data(d);
  // A quirk of the test data: numpy has no bfloat16, so bfloat16 tensors
  // were written as uint16 holding the bits.
  if (type.is_tensor() && type.elem_type() == ir::DataType::BFloat16 &&
      v.tensor().dtype() == ir::DataType::Uint16) {
    return v.tensor().bitcast(ir::DataType::BFloat16);
  }
  return v;
}

}  // namespace oxs::testing
