// Runtime values for the single_op harness, chosen by fuzzer bytes: tensors
// of every element type the IR knows (ONNX 1.23: float8, int4/uint4,
// float4e2m1, int2/uint2 included, made through their packed ONNX encoding so
// that they hold only values the type can represent), with small shapes and
// values that are mostly ordinary and sometimes extreme (type limits, NaN,
// infinities); and sequences, optionals and maps of them.
#pragma once

#include <optional>

#include "fuzz/byte_reader.h"
#include "oxs/eval/tensor.h"
#include "oxs/ir/type.h"

namespace oxs::fuzz {

// How the tensors of one case get their shapes. Independent: rank 0-4 and
// dims 0-4 per tensor, nothing shared (how the corpus' fixed-version files,
// "#op :Reshape-5", have always been read, so they keep their cases).
// Related (files whose op line has no version, "#op :Attention"): a rank
// and three dims are chosen once per case, and most tensors take that rank
// (or one less or more) with dims from the three, or repeat the previous
// tensor's shape; so ops that need matching ranks and dims (convolutions,
// attention, recurrent ops) often get past their shape checks. One tensor in
// eight is empty with a dim of 2^31 beside its zero.
class ShapeChooser {
 public:
  static ShapeChooser independent() { return ShapeChooser(); }
  static ShapeChooser related(ByteReader& r);
  eval::Dims next(ByteReader& r);

 private:
  bool related_ = false;
  size_t rank_ = 0;
  int64_t pool_[3] = {1, 1, 1};
  eval::Dims last_;
  bool has_last_ = false;
};

// A tensor of `dtype` with a shape from `shapes` (independent if null).
// Throws oxs::Error only for a dtype the evaluator cannot hold (none today).
eval::Tensor random_tensor(ir::DataType dtype, ByteReader& r, ShapeChooser* shapes = nullptr);

// A value of `type`: a tensor, a sequence of 0-3 tensors, an optional (empty
// or not) or a map of 0-3 entries. nullopt for sparse tensors (the
// evaluator takes no sparse inputs) and untyped values.
std::optional<eval::Value> random_value(const ir::Type& type, ByteReader& r,
                                        ShapeChooser* shapes = nullptr);

}  // namespace oxs::fuzz
