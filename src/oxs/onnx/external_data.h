// ONNX external data: safe resolution of a tensor's `location` and lazy
// reading of data files. A location must be a relative path inside the
// model's directory: no '..' component, no symbolic link anywhere below that
// directory, a regular file with a single link (a hard link can make a file
// from anywhere on the file system appear inside the directory; an explicit
// allow_hardlinks lifts this one rule), and (checked with realpath) really
// inside it; offset and length must lie within the file. These rules close
// the path traversal holes of CVE-2022-25882 and CVE-2024-27318.
//
// A tensor's bytes are read with pread on its first bytes() call (thread-
// safe, once), so loading a model costs nothing per weight byte, and saving
// copies the bytes of a tensor never read from file to file in the kernel
// (DataFile::copy_to), so re-saving a model costs no memory per weight byte. They are
// read, not memory-mapped: a mapped file that another process truncates
// kills the reader with SIGBUS on its next access, anywhere in any room,
// while a read sees the shorter file and throws a clear oxs::Error. Each
// read checks that the file is still the one checked at load time.
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
  DataFile(const DataFile&) = delete;
  DataFile& operator=(const DataFile&) = delete;

  // Reads bytes [offset, offset + out.size()) into `out`. The file is opened
  // anew for each read (a model may have thousands of data files: no
  // descriptor is kept) and must still be the file checked at load time
  // (device, inode, size). Throws oxs::Error (IO) naming the file and
  // `tensor` if it was replaced, shrank, or cannot be read.
  void read(uint64_t offset, std::span<std::byte> out, const std::string& tensor) const;
  // Copies bytes [offset, offset + length) into the file open as `out_fd`
  // at `out_offset` without bringing them into this process when the
  // kernel can (copy_file_range: an in-kernel copy, or shared extents on
  // file systems that reflink), else through a 1 MiB buffer where the file
  // systems refuse it. The same checks and errors as read(); a failed write
  // names `out_name`. Saving uses it for weights that were never read.
  void copy_to(uint64_t offset, uint64_t length, int out_fd, uint64_t out_offset,
               const std::string& out_name, const std::string& tensor) const;
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
};

// Bytes [offset, offset+length) of a DataFile, read into memory (64-byte
// aligned) on the first bytes() call; Lazy until then, Owned after.
class ExternalStorage final : public ir::Storage {
 public:
  ExternalStorage(std::shared_ptr<const DataFile> file, uint64_t offset, uint64_t length,
                  std::string tensor = {})
      : file_(std::move(file)), offset_(offset), length_(length), tensor_(std::move(tensor)) {}
  ~ExternalStorage() override;
  Kind kind() const override {
    return loaded_.load(std::memory_order_acquire) ? Kind::Owned : Kind::Lazy;
  }
  std::span<const std::byte> bytes() const override;
  size_t size() const override { return length_; }
  const DataFile& file() const { return *file_; }
  uint64_t offset() const { return offset_; }

 private:
  std::shared_ptr<const DataFile> file_;
  uint64_t offset_;
  uint64_t length_;
  std::string tensor_;
  mutable std::mutex mutex_;
  mutable std::atomic<bool> loaded_{false};
  mutable std::byte* data_ = nullptr;
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
                                  const std::string& model_file, const std::string& tensor,
                                  bool allow_hardlinks = false);

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
  explicit DataFileRegistry(bool allow_hardlinks = false) : allow_hardlinks_(allow_hardlinks) {}
  // resolve_location(), remembered per (base_dir, location).
  ResolvedLocation resolve(const std::string& base_dir, const std::string& location,
                           const std::string& model_file, const std::string& tensor);
  std::shared_ptr<const DataFile> open(const ResolvedLocation& where,
                                       const std::string& model_file);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const DataFile>> files_;
  std::unordered_map<std::string, ResolvedLocation> resolved_;
  bool allow_hardlinks_;
};

}  // namespace oxs::onnx
