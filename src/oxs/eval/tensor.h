// The evaluator's runtime values. eval::Tensor is a dense tensor: element
// type, dims and either an owned 64-byte-aligned buffer or a view of an
// ir::Tensor's bytes (initializers are never copied). Copies of a Tensor share
// the buffer (cheap Identity, sequences); kernels write only to tensors they
// created. String tensors hold std::string elements. eval::Value is a tensor,
// a sequence of values, an optional or a map (ONNX-ML map(K, V): keys and
// values kept as two 1-D tensors, one entry per index). This file does no
// file I/O and knows nothing of protobuf.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "oxs/ir/dtype.h"
#include "oxs/ir/tensor.h"
#include "oxs/ir/type.h"

namespace oxs::eval {

using ir::DataType;
using Dims = std::vector<int64_t>;

// Largest single tensor the evaluator allocates, checked before allocating.
// Default 16 GiB; a bad shape fails with a clear error instead of an OOM kill.
int64_t allocation_limit();
void set_allocation_limit(int64_t bytes);

// Bytes per element in the evaluator's buffers: ir::element_size, but 1 for
// the sub-byte types (INT4, UINT4, FLOAT4E2M1, INT2, UINT2), which the
// evaluator holds unpacked, one element a byte (convert/narrow.h); 0 for
// String and Undefined.
size_t storage_size(DataType t);

// Element count of `dims`; throws oxs::Error naming `what` if a dim is
// negative or the product overflows.
int64_t checked_numel(const Dims& dims, const std::string& what = "tensor");

class Tensor {
 public:
  Tensor() = default;
  // A zero-filled tensor (empty strings for String). Throws oxs::Error if the
  // shape is invalid or the size is over allocation_limit().
  Tensor(DataType dtype, Dims dims);
  // The same without zero-filling numeric data, for kernels that write
  // every element (the fast paths): saves a pass over the output.
  static Tensor uninitialized(DataType dtype, Dims dims);
  // A view of `t`'s bytes (kept alive by the shared_ptr); copies only when
  // the bytes are misaligned for the element type, and unpacks the sub-byte
  // types.
  static Tensor from_ir(std::shared_ptr<const ir::Tensor> t);
  static Tensor from_ir(const ir::Tensor& t);  // copies the bytes
  // A scalar or 1-D tensor filled from `values`.
  template <class T>
  static Tensor of(DataType dtype, Dims dims, std::span<const T> values) {
    Tensor t(dtype, std::move(dims));
    std::copy(values.begin(), values.end(), t.mutable_data<T>());
    return t;
  }
  // An ir::Tensor with a copy of the contents (for saving, folding); the
  // sub-byte types packed as ONNX stores them.
  ir::Tensor to_ir() const;

  DataType dtype() const { return dtype_; }
  const Dims& dims() const { return dims_; }
  size_t rank() const { return dims_.size(); }
  int64_t dim(size_t i) const { return dims_[i]; }
  int64_t numel() const { return numel_; }
  // Bytes of the buffer (sub-byte types unpacked: see storage_size).
  size_t nbytes() const { return static_cast<size_t>(numel_) * storage_size(dtype_); }
  bool defined() const { return dtype_ != DataType::Undefined; }

  const void* raw() const { return data_; }
  void* mutable_raw() { return data_; }
  template <class T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }
  template <class T>
  T* mutable_data() {
    return static_cast<T*>(data_);
  }
  // For String tensors data<std::string>() works too (the elements are
  // contiguous); do not resize the vector.
  const std::vector<std::string>& strings() const { return *strings_; }
  std::vector<std::string>& mutable_strings() { return *strings_; }

  // Same buffer, new dims of the same element count (Reshape, Squeeze, ...).
  Tensor reshaped(Dims dims) const;
  // Same buffer seen as another element type of the same size (bit cast).
  Tensor bitcast(DataType dtype) const;
  // A deep copy with its own buffer.
  Tensor clone() const;
  // Whether this tensor is the only holder of a numeric buffer the evaluator
  // allocated (not a view of an initializer's bytes, no copy or reshaped
  // alias alive): a kernel may then write its output into it (in place).
  bool sole_owner() const { return owned_ && keep_.use_count() == 1; }

  // For a string tensor: charges the heap bytes of its elements (those
  // longer than the small-string buffer) to the run's budget, once per
  // string storage (the executor calls it on every string a kernel
  // returns). Throws oxs::Error when the text alone is over the allocation
  // limit or the run would pass its budget. A no-op for other types.
  void charge_string_bytes();

  // Element i as double (numeric types and bool), for printing and tests.
  double get_as_double(int64_t i) const;
  // Reads a 0-D or 1-element integer tensor (int32/int64) as int64.
  int64_t scalar_int() const;
  // The elements of an int32/int64 tensor as int64 (shape inputs, axes).
  std::vector<int64_t> to_int_vector() const;

 private:
  // Allocates the buffer of a numeric tensor (zero-filled when `zeroed`).
  void allocate(bool zeroed);

  DataType dtype_ = DataType::Undefined;
  Dims dims_;
  int64_t numel_ = 0;
  std::shared_ptr<const void> keep_;  // owner of data_
  void* data_ = nullptr;
  std::shared_ptr<std::vector<std::string>> strings_;
  bool owned_ = false;  // data_ lies in a buffer allocate() made
};

struct SequenceStore;  // a sequence's elements and their charge (tensor.cc)

// A runtime value: a tensor, a sequence, an optional or a map. `type` is kept
// for empty sequences and empty optionals, whose element type cannot be
// derived.
class Value {
 public:
  enum class Kind : uint8_t { None, Tensor, Sequence, Optional, Map };

  Value() = default;
  Value(Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {}  // NOLINT: implicit
  // A sequence's element bookkeeping (held_overhead per element) is charged
  // to the run's budget for as long as the elements live.
  static Value sequence(std::vector<Value> items, ir::Type elem_type = {});
  // `seq` (a sequence) with `item` inserted at `pos` (<= its length), or
  // with element `pos` (< its length) erased. When no other value shares
  // `seq`'s elements they are taken over rather than copied (an append is
  // O(1), so a Loop that grows a sequence stays linear) and `seq` is left
  // without elements; otherwise they are copied and `seq` is unchanged.
  static Value sequence_inserted(Value& seq, size_t pos, Value item);
  static Value sequence_erased(Value& seq, size_t pos);
  static Value optional(std::optional<Value> v, ir::Type elem_type = {});
  // A map of keys[i] -> values[i]: `keys` a 1-D int64 or string tensor,
  // `values` a 1-D tensor of the same length (one scalar per entry, as the
  // ONNX-ML operators produce). Entries keep the given order; keys are not
  // required to be unique (the operators that read maps define what a
  // repeated key means). Throws oxs::Error on other key types or lengths.
  static Value map(Tensor keys, Tensor values);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  bool is_sequence() const { return kind_ == Kind::Sequence; }
  bool is_optional() const { return kind_ == Kind::Optional; }
  bool is_map() const { return kind_ == Kind::Map; }

  const Tensor& tensor() const;  // throws oxs::Error if not a tensor
  Tensor& tensor();
  const std::vector<Value>& items() const;  // a sequence's elements
  std::vector<Value>& items();
  bool has_element() const { return opt_ != nullptr; }  // optional
  const Value& element() const;
  // A map's keys and values (1-D, same length); throw if not a map.
  const Tensor& map_keys() const;
  const Tensor& map_values() const;
  int64_t map_size() const { return map_keys().numel(); }
  // Element type of a sequence or optional (possibly None when unknown).
  const ir::Type& elem_type() const { return elem_type_; }

  // "float[2,3]", "seq[4]", "optional(float[2])", "map(int64,float)[3]", "none".
  std::string describe() const;

 private:
  Kind kind_ = Kind::None;
  Tensor tensor_;
  std::shared_ptr<SequenceStore> seq_;
  std::shared_ptr<Value> opt_;
  std::shared_ptr<const Tensor> map_values_;  // keys are in tensor_
  ir::Type elem_type_;
};

// Bytes of bookkeeping that a value kept in a sequence or among the scan
// outputs a Loop collects costs besides its buffer (the object, its dims,
// its buffer's control blocks): charged to the run's budget, so that 2^30
// references to one tiny tensor count.
int64_t held_overhead(const Value& v);

// "float[2,3]" for dims {2,3}.
std::string dims_to_string(const Dims& dims);

}  // namespace oxs::eval
