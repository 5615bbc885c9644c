// ONNX external data: safe resolution of a tensor's `location` and lazy,
// shared memory mapping of data files. A location must be a relative path
// inside the model's directory: no '..' component, no symbolic link anywhere
// below that directory, a regular file, and (checked with realpath) really
// inside it; offset and length must lie within the file. These rules close
// the path traversal holes of CVE-2022-25882 and CVE-2024-27318.
// A DataFile is opened and mapped on the first bytes() call of any tensor
// that lives in it (thread-safe, one mapping per file per load), so loading
// a model costs nothing per weight byte.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>

#include "oxs/ir/error.h"
#include "oxs/ir/tensor.h"

namespace oxs::onnx {

class DataFile {
 public:
  DataFile(std::string canonical_path, dev_t dev, ino_t ino, uint64_t size, std::string model_file);
  ~DataFile();
  DataFile(const DataFile&) = delete;
  DataFile& operator=(const DataFile&) = delete;

  // The whole file, mapped on first call. Throws oxs::Error if the file was
  // replaced or shrunk since it was checked at load time.
  std::span<const std::byte> map() const;
  bool is_mapped() const { return mapped_.load(std::memory_order_acquire); }
  const std::string& canonical_path() const { return path_; }
  dev_t dev() const { return dev_; }
  ino_t ino() const { return ino_; }
  uint64_t size() const { return size_; }

 private:
  std::string path_;
  dev_t dev_;
  ino_t ino_;
  uint64_t size_;
  std::string model_file_;
  mutable std::mutex mutex_;
  mutable std::atomic<bool> mapped_{false};
  mutable const std::byte* data_ = nullptr;
};

// Bytes [offset, offset+length) of a DataFile.
class ExternalStorage final : public ir::Storage {
 public:
  ExternalStorage(std::shared_ptr<const DataFile> file, uint64_t offset, uint64_t length)
      : file_(std::move(file)), offset_(offset), length_(length) {}
  Kind kind() const override { return file_->is_mapped() ? Kind::Mapped : Kind::Lazy; }
  std::span<const std::byte> bytes() const override {
    return file_->map().subspan(offset_, length_);
  }
  size_t size() const override { return length_; }
  const DataFile& file() const { return *file_; }
  uint64_t offset() const { return offset_; }

 private:
  std::shared_ptr<const DataFile> file_;
  uint64_t offset_;
  uint64_t length_;
};

// The checked result of resolving a location.
struct ResolvedLocation {
  std::string canonical_path;
  dev_t dev = 0;
  ino_t ino = 0;
  uint64_t size = 0;
};

// Checks `location` (see the header comment). `model_file` and `tensor` name
// the source in errors. Throws oxs::Error (Input).
ResolvedLocation resolve_location(const std::string& base_dir, const std::string& location,
                                  const std::string& model_file, const std::string& tensor);

// `location` without "." and empty components ("./a//b" -> "a/b"); call
// after check_location_syntax.
std::string normalize_location(const std::string& location);

// Checks a location for writing (relative, no '..', no NUL). Throws oxs::Error (Usage).
void check_location_syntax(const std::string& location, const std::string& model_file,
                           const std::string& tensor, ErrorKind kind);

// One DataFile per canonical path for all tensors of one load, and each
// distinct location checked once (a model may have thousands of tensors in
// one file).
class DataFileRegistry {
 public:
  // resolve_location(), remembered per (base_dir, location).
  ResolvedLocation resolve(const std::string& base_dir, const std::string& location,
                           const std::string& model_file, const std::string& tensor);
  std::shared_ptr<const DataFile> open(const ResolvedLocation& where,
                                       const std::string& model_file);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const DataFile>> files_;
  std::unordered_map<std::string, ResolvedLocation> resolved_;
};

}  // namespace oxs::onnx
