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

// A file opened for reading a model: checked to be a regular file (a fifo
// is refused before it can block the open), with its size and first bytes
// at hand. Reading it as a stream rather than a mapping keeps a large inline
// model from being resident twice (file pages and parsed copies). Throws
// oxs::Error naming `path`.
class InputFile {
 public:
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  // Up to `n` bytes from the start of the file.
  std::string head(size_t n) const;

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
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
