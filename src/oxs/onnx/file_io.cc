#include "oxs/onnx/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "oxs/ir/error.h"

namespace oxs::onnx {

namespace {

std::string errno_text() {
  return std::strerror(errno);
}

}  // namespace

std::string parent_dir(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

InputFile::InputFile(const std::string& path) : path_(path) {
  // Checking the type before open() keeps a fifo from blocking the open.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw Error(ErrorKind::IO, "cannot open: " + errno_text(), {.file = path});
  }
  if (S_ISDIR(st.st_mode)) {
    throw Error(ErrorKind::Input, "is a directory, not an .onnx file", {.file = path});
  }
  if (!S_ISREG(st.st_mode)) {
    throw Error(ErrorKind::Input, "is not a regular file (a fifo, socket or device?)",
                {.file = path});
  }
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error(ErrorKind::IO, "cannot open: " + errno_text(), {.file = path});
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw Error(ErrorKind::IO, "cannot stat the opened file", {.file = path});
  }
  size_ = static_cast<uint64_t>(st.st_size);
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string InputFile::head(size_t n) const {
  std::string out(std::min<uint64_t>(n, size_), '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t r = ::pread(fd_, out.data() + got, out.size() - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw Error(ErrorKind::IO, "cannot read: " + errno_text(), {.file = path_});
    got += static_cast<size_t>(r);
  }
  return out;
}

AtomicFile::AtomicFile(std::string target) : target_(std::move(target)) {
  temp_ = parent_dir(target_) + "/." + base_name(target_) + ".tmp.XXXXXX";
  fd_ = ::mkstemp(temp_.data());
  if (fd_ < 0) {
    throw Error(ErrorKind::IO,
                "cannot create a temporary file in " + parent_dir(target_) + ": " + errno_text(),
                {.file = target_});
  }
  ::fchmod(fd_, 0644);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFile::fail(const std::string& what) const {
  throw Error(ErrorKind::IO, what + ": " + errno_text(), {.file = target_});
}

void AtomicFile::write(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write");
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
}

void AtomicFile::pwrite(const void* data, size_t size, uint64_t offset) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::pwrite(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write");
    }
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
}

void AtomicFile::truncate(uint64_t size) {
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) fail("cannot set the file size");
}

void AtomicFile::finish() {
  if (fd_ < 0) return;
  if (::fsync(fd_) != 0) fail("cannot flush to disk");
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail("cannot close");
  }
  fd_ = -1;
}

void AtomicFile::commit() {
  finish();
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    fail("cannot rename the temporary file over it");
  committed_ = true;
  // Make the rename itself durable.
  int dfd = ::open(parent_dir(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace oxs::onnx
