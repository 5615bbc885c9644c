// Tensor values (initializers, constants, attribute tensors). Bytes live in a
// Storage that is owned, borrowed from another owner, or memory-mapped; a
// Storage may also be lazy (external data mapped on first access), so loading
// a model never reads its weights. The IR does no file I/O itself: the onnx/
// room provides mapped and lazy storages through the Storage interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "oxs/ir/dtype.h"
#include "oxs/ir/metadata.h"

namespace oxs::ir {

class Storage {
 public:
  enum class Kind : uint8_t { Owned, Borrowed, Mapped, Lazy };
  virtual ~Storage() = default;
  virtual Kind kind() const = 0;
  // The bytes. A lazy storage maps or reads them on first call (thread-safe)
  // and throws oxs::Error if that fails.
  virtual std::span<const std::byte> bytes() const = 0;
  // Size known without touching the data.
  virtual size_t size() const = 0;
};

// Bytes owned by the storage; built from a string or vector without copying.
class OwnedStorage final : public Storage {
 public:
  explicit OwnedStorage(std::string bytes) : bytes_(std::move(bytes)) {}
  Kind kind() const override { return Kind::Owned; }
  std::span<const std::byte> bytes() const override {
    return {reinterpret_cast<const std::byte*>(bytes_.data()), bytes_.size()};
  }
  size_t size() const override { return bytes_.size(); }
  std::string& data() { return bytes_; }

 private:
  std::string bytes_;
};

// Bytes owned by someone else, kept alive by `keepalive` (may be null when the
// caller guarantees the lifetime).
class BorrowedStorage final : public Storage {
 public:
  BorrowedStorage(const std::byte* data, size_t size, std::shared_ptr<const void> keepalive)
      : data_(data), size_(size), keepalive_(std::move(keepalive)) {}
  Kind kind() const override { return Kind::Borrowed; }
  std::span<const std::byte> bytes() const override { return {data_, size_}; }
  size_t size() const override { return size_; }

 private:
  const std::byte* data_;
  size_t size_;
  std::shared_ptr<const void> keepalive_;
};

// Where a tensor's bytes live outside the model file (ONNX external data).
struct ExternalData {
  std::string location;  // relative to the model's directory
  int64_t offset = 0;
  int64_t length = -1;  // -1: not given (to the end of the file)
  std::string checksum;
  // Every key/value in its original order, including the ones above, so that
  // saving reproduces the proto exactly.
  std::vector<std::pair<std::string, std::string>> entries;
};

class Tensor {
 public:
  // How the bytes were (or will be) stored in the proto.
  enum class Encoding : uint8_t { Raw, Typed, External };

  Tensor() = default;
  Tensor(DataType dtype, std::vector<int64_t> dims);

  // A tensor owning a copy of `values`.
  template <class T>
  static Tensor from(DataType dtype, std::vector<int64_t> dims, std::span<const T> values) {
    Tensor t(dtype, std::move(dims));
    std::string bytes(reinterpret_cast<const char*>(values.data()), values.size_bytes());
    t.set_storage(std::make_shared<OwnedStorage>(std::move(bytes)));
    return t;
  }
  static Tensor scalar_float(float v) { return from<float>(DataType::Float, {}, {&v, 1}); }
  static Tensor scalar_int64(int64_t v) { return from<int64_t>(DataType::Int64, {}, {&v, 1}); }

  DataType dtype() const { return dtype_; }
  void set_dtype(DataType t) { dtype_ = t; }
  const std::vector<int64_t>& dims() const { return dims_; }
  void set_dims(std::vector<int64_t> d) { dims_ = std::move(d); }
  // Element count; -1 if a dim is negative or the product overflows.
  int64_t numel() const;
  // Byte size from dtype and dims (0 for strings); -1 when numel() is -1.
  int64_t expected_nbytes() const;

  std::string name;
  std::string doc_string;
  StringPairs metadata_props;  // TensorProto.metadata_props (IR 10)
  Encoding encoding = Encoding::Raw;
  ExternalData external;  // meaningful when encoding == External
  // TensorProto.segment, when present.
  bool has_segment = false;
  int64_t segment_begin = 0;
  int64_t segment_end = 0;
  // onnx/ only: how the loaded protobuf deviated from the canonical encoding
  // (e.g. a field explicitly set to its default), so that saving reproduces
  // it exactly. 0 for anything built in memory.
  uint32_t proto_quirks = 0;

  // Non-string data. Lazy storages are materialized here.
  std::span<const std::byte> bytes() const;
  size_t stored_size() const { return storage_ ? storage_->size() : 0; }
  const std::shared_ptr<const Storage>& storage() const { return storage_; }
  void set_storage(std::shared_ptr<const Storage> s) { storage_ = std::move(s); }
  // Data as T; throws oxs::Error if the size does not match or is misaligned.
  template <class T>
  std::span<const T> data() const {
    auto b = bytes();
    check_view(sizeof(T), alignof(T));
    return {reinterpret_cast<const T*>(b.data()), b.size() / sizeof(T)};
  }
  // Mutable bytes; copies borrowed/mapped/lazy storage into owned first.
  std::span<std::byte> mutable_bytes();

  // String tensors keep their elements here instead of in storage.
  std::vector<std::string> strings;

  // Same dtype, dims and bytes/strings (names and encodings ignored).
  bool same_value(const Tensor& o) const;
  // A hash of dtype, dims and content, for deduplication.
  size_t content_hash() const;

 private:
  void check_view(size_t elem_size, size_t align) const;

  DataType dtype_ = DataType::Undefined;
  std::vector<int64_t> dims_;
  std::shared_ptr<const Storage> storage_;
};

// COO sparse tensor: values (1-D, NNZ) and indices ([NNZ, rank] or [NNZ]).
struct SparseTensor {
  Tensor values;
  Tensor indices;
  std::vector<int64_t> dims;
};

}  // namespace oxs::ir
