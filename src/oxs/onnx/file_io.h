// File primitives of the onnx/ room: InputFile for parsing; AtomicFile,
// which writes to a temporary file in the target's directory and renames it
// over the target only on commit(), so that a failed or interrupted save
// never leaves a half-written file behind; and OutputDir, a directory that
// commands write several files into. No other room does file I/O for models.
//
// Hostile directories: every temporary file has an unpredictable name
// (getrandom) and is created with O_CREAT|O_EXCL|O_NOFOLLOW, so a symbolic
// link planted at the name is never followed; renaming over a target that
// is a symbolic link replaces the link, never the file it points to; and
// OutputDir works through directory descriptors (openat, mkdirat,
// unlinkat) with O_NOFOLLOW, so nothing is created, replaced or deleted
// through a link inside the directory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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
  // The file `name` (one path component) in the directory open as `dir_fd`;
  // `target` names it in messages. The descriptor must outlive this object.
  AtomicFile(int dir_fd, std::string name, std::string target);
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
  void create_temp();
  std::string target_;
  int dir_fd_ = -1;
  bool own_dir_fd_ = false;
  std::string name_;       // target's name in dir_fd_
  std::string temp_name_;  // temporary file's name in dir_fd_
  std::string temp_;       // its path, for messages
  int fd_ = -1;
  bool committed_ = false;
};

// A directory that a command writes several files into (`oxs run -o DIR`).
// The path given is the user's choice and may go through symbolic links;
// everything inside it is handled relative to its descriptor, never
// following a link. Throws oxs::Error (IO) naming the path.
class OutputDir {
 public:
  // Opens `path`, creating it (and missing parents) when `create`. A file
  // or anything else that is not a directory is an error, and so is a
  // directory we may not write to.
  static OutputDir open(const std::string& path, bool create);
  OutputDir(OutputDir&& o) noexcept;
  OutputDir& operator=(OutputDir&&) = delete;
  OutputDir(const OutputDir&) = delete;
  ~OutputDir();

  const std::string& path() const { return path_; }
  // The subdirectory `name` (one component), created if missing. A
  // symbolic link or a non-directory there is an error, never followed.
  OutputDir subdir(const std::string& name) const;
  // Writes `bytes` as `name` (one component) through a temporary file
  // renamed over it; a link at `name` is replaced, not written through.
  void write_file(const std::string& name, std::string_view bytes) const;
  // A file `name` (one component) written through a temporary file in this
  // directory and renamed over it on commit (AtomicFile); this directory
  // must outlive it.
  std::unique_ptr<AtomicFile> atomic_file(const std::string& name) const;
  // Names of the entries (not "." or "..").
  std::vector<std::string> entries() const;
  // Removes entry `name`: a file or link is unlinked (a link's target is
  // untouched); a directory is emptied and removed without descending
  // through links. Missing entries are fine.
  void remove(const std::string& name) const;

 private:
  OutputDir(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
};

// Directory part of `path` ("." when it has none).
std::string parent_dir(const std::string& path);
// Last component of `path`.
std::string base_name(const std::string& path);

}  // namespace oxs::onnx
