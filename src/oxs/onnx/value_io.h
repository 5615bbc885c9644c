// Reading serialized ONNX values of any kind: TensorProto, SequenceProto,
// OptionalProto and MapProto files (the input_N.pb / output_N.pb files of
// ONNX test data, `oxs run --input NAME=FILE.pb`), as IR tensors arranged in
// a small tree, so that rooms without protobuf access can load them. Which
// message a file holds is decided by the type the caller expects (the
// formats share field numbers, so bytes alone are ambiguous); a file that
// does not parse cleanly as that message is an error that says what the
// file looks like instead. No evaluation, no writing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "oxs/ir/tensor.h"
#include "oxs/ir/type.h"

namespace oxs::onnx {

struct ValueData {
  enum class Kind : uint8_t { Tensor, Sequence, Optional, Map };
  Kind kind = Kind::Tensor;
  // Tensor: the tensor. Map: the keys, 1-D int64 (any integer key type is
  // widened) or string.
  std::shared_ptr<ir::Tensor> tensor;
  // Map: the values, 1-D, one per key (each MapProto value must be a
  // one-element tensor).
  std::shared_ptr<ir::Tensor> map_values;
  // Sequence: the elements. Optional: none (empty) or one element.
  std::vector<ValueData> items;
};

// Parses `bytes` as the message for `type`: a TensorProto for a tensor (or
// an unknown type), a SequenceProto for a sequence, a MapProto for a map,
// and for an optional an OptionalProto or else a file of the element's
// kind (taken as a present value). Throws oxs::Error (Input) naming `name`
// when the bytes are not that message (saying which message they look
// like, if any) or hold a value of another kind than `type`.
ValueData parse_value(std::string_view bytes, const ir::Type& type, const std::string& name);
// Reads and parses the file `path`; errors name the file.
ValueData load_value(const std::string& path, const ir::Type& type);

// "TensorProto", "SequenceProto", "OptionalProto", "MapProto" (the first
// message `bytes` parses as cleanly and plausibly), or "" if none.
std::string guess_value_message(std::string_view bytes);

}  // namespace oxs::onnx
