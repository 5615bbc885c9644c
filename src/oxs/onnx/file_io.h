// File primitives of the onnx/ room: whole-file read-only mappings for
// parsing, and AtomicFile, which writes to a uniquely named temporary file in
// the target's directory and renames it over the target only on commit(), so
// that a failed or interrupted save never leaves a half-written file behind.
// No other room does file I/O for models.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace oxs::onnx {

// A read-only private mapping of a whole regular file (empty files map to an
// empty span). Throws oxs::Error naming `path`.
class FileMapping {
 public:
  explicit FileMapping(const std::string& path);
  ~FileMapping();
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_), size_}; }

 private:
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

class AtomicFile {
 public:
  // Creates the temporary file beside `target`. Throws oxs::Error (IO).
  explicit AtomicFile(std::string target);
  // Removes the temporary file unless commit() succeeded.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  int fd() const { return fd_; }
  const std::string& target() const { return target_; }
  const std::string& temp_path() const { return temp_; }
  void write(const void* data, size_t size);
  void pwrite(const void* data, size_t size, uint64_t offset);
  void truncate(uint64_t size);
  // fsync and close; the file is complete but not yet in place.
  void finish();
  // Renames over the target (after finish()) and syncs the directory.
  void commit();

 private:
  [[noreturn]] void fail(const std::string& what) const;
  std::string target_;
  std::string temp_;
  int fd_ = -1;
  bool committed_ = false;
};

// Directory part of `path` ("." when it has none).
std::string parent_dir(const std::string& path);
// Last component of `path`.
std::string base_name(const std::string& path);

}  // namespace oxs::onnx
