#include "oxs/ir/tensor.h"

#include <cstring>
#include <functional>
#include <limits>
#include <string_view>

#include "oxs/ir/error.h"

namespace oxs::ir {

Tensor::Tensor(DataType dtype, std::vector<int64_t> dims) : dtype_(dtype), dims_(std::move(dims)) {}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

int64_t Tensor::expected_nbytes() const {
  int64_t n = numel();
  if (n < 0) return -1;
  return packed_nbytes(dtype_, n);
}

std::span<const std::byte> Tensor::bytes() const {
  if (!storage_) return {};
  return storage_->bytes();
}

void Tensor::check_view(size_t elem_size, size_t align) const {
  auto b = bytes();
  if (b.size() % elem_size != 0) {
    throw Error(ErrorKind::Input, "tensor '" + name + "' has " + std::to_string(b.size()) +
                                      " bytes, not a multiple of its element size " +
                                      std::to_string(elem_size));
  }
  if (reinterpret_cast<uintptr_t>(b.data()) % align != 0) {
    throw Error(ErrorKind::Internal,
                "tensor '" + name + "' data is misaligned; copy it with mutable_bytes() first");
  }
}

std::span<std::byte> Tensor::mutable_bytes() {
  if (!storage_ || storage_->kind() != Storage::Kind::Owned || storage_.use_count() > 1) {
    auto b = bytes();
    std::string copy(reinterpret_cast<const char*>(b.data()), b.size());
    storage_ = std::make_shared<OwnedStorage>(std::move(copy));
  }
  auto* owned = const_cast<OwnedStorage*>(static_cast<const OwnedStorage*>(storage_.get()));
  return {reinterpret_cast<std::byte*>(owned->data().data()), owned->data().size()};
}

bool Tensor::same_value(const Tensor& o) const {
  if (dtype_ != o.dtype_ || dims_ != o.dims_) return false;
  if (dtype_ == DataType::String) return strings == o.strings;
  auto a = bytes();
  auto b = o.bytes();
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

size_t Tensor::content_hash() const {
  size_t h = std::hash<int32_t>()(static_cast<int32_t>(dtype_));
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (int64_t d : dims_) mix(std::hash<int64_t>()(d));
  if (dtype_ == DataType::String) {
    for (const auto& s : strings) mix(std::hash<std::string>()(s));
  } else {
    auto b = bytes();
    mix(std::hash<std::string_view>()(
        std::string_view(reinterpret_cast<const char*>(b.data()), b.size())));
  }
  return h;
}

}  // namespace oxs::ir
