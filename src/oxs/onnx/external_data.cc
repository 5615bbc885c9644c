#include "oxs/onnx/external_data.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "oxs/ir/error.h"
#include "oxs/ir/printable.h"

namespace oxs::onnx {

namespace {

std::string canonical(const std::string& path) {
  char* p = ::realpath(path.c_str(), nullptr);
  if (!p) return {};
  std::string out(p);
  std::free(p);
  return out;
}

[[noreturn]] void reject(const std::string& model_file, const std::string& tensor,
                         const std::string& location, const std::string& why,
                         ErrorKind kind = ErrorKind::Input) {
  throw Error(
      kind,
      "tensor '" + tensor + "': external data location '" + ir::printable(location) + "' " + why,
      {.file = model_file});
}

}  // namespace

void check_location_syntax(const std::string& location, const std::string& model_file,
                           const std::string& tensor, ErrorKind kind) {
  if (location.empty()) reject(model_file, tensor, location, "is empty", kind);
  if (location.find('\0') != std::string::npos) {
    reject(model_file, tensor, location, "contains a NUL byte", kind);
  }
  if (location.front() == '/') {
    reject(model_file, tensor, location,
           "is an absolute path; external data must be a relative path inside the model's "
           "directory",
           kind);
  }
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find('/', start);
    if (end == std::string::npos) end = location.size();
    if (location.compare(start, end - start, "..") == 0 && end - start == 2) {
      reject(model_file, tensor, location,
             "has a '..' component; external data must stay inside the model's directory", kind);
    }
    start = end + 1;
  }
}

std::string normalize_location(const std::string& location) {
  std::string out;
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find('/', start);
    if (end == std::string::npos) end = location.size();
    std::string_view part(location.data() + start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

ResolvedLocation resolve_location(const std::string& base_dir, const std::string& location,
                                  const std::string& model_file, const std::string& tensor,
                                  bool allow_hardlinks) {
  check_location_syntax(location, model_file, tensor, ErrorKind::Input);
  // Walk component by component with lstat so that a symbolic link anywhere
  // below the model's directory is refused, not followed.
  std::string path = base_dir;
  struct stat st {};
  size_t start = 0;
  bool any = false;
  while (start < location.size()) {
    size_t end = location.find('/', start);
    if (end == std::string::npos) end = location.size();
    std::string part = location.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    path += "/" + part;
    any = true;
    if (::lstat(path.c_str(), &st) != 0) {
      reject(model_file, tensor, location,
             std::string("cannot be opened (") + path + "): " + std::strerror(errno));
    }
    if (S_ISLNK(st.st_mode)) {
      reject(model_file, tensor, location,
             "goes through a symbolic link (" + path + "); links are refused for safety");
    }
    if (end < location.size() && !S_ISDIR(st.st_mode)) {
      reject(model_file, tensor, location, "has a non-directory component (" + path + ")");
    }
  }
  if (!any) reject(model_file, tensor, location, "names no file");
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a fifo"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a device or special file";
    reject(model_file, tensor, location, std::string("is ") + what + ", not a regular file");
  }
  // A hard link is indistinguishable from the file it links to, which may
  // live anywhere on the same file system (as current onnx checks, too).
  if (st.st_nlink > 1 && !allow_hardlinks) {
    reject(model_file, tensor, location,
           "is a file with " + std::to_string(st.st_nlink) +
               " hard links; one of them may be a file outside the model's directory, so it is "
               "refused (allow it with --allow-hardlinks, or LoadOptions::allow_hardlinks, if "
               "you trust where the model comes from)");
  }
  std::string base = canonical(base_dir);
  std::string real = canonical(path);
  if (base.empty() || real.empty()) {
    reject(model_file, tensor, location,
           "cannot be resolved: " + std::string(std::strerror(errno)));
  }
  if (base != "/") base += "/";
  if (real.compare(0, base.size(), base) != 0) {
    reject(model_file, tensor, location, "resolves to " + real + ", outside the model's directory");
  }
  return {real, st.st_dev, st.st_ino, static_cast<uint64_t>(st.st_size)};
}

DataFile::DataFile(std::string canonical_path, dev_t dev, ino_t ino, uint64_t size,
                   std::string model_file)
    : path_(std::move(canonical_path)),
      dev_(dev),
      ino_(ino),
      size_(size),
      model_file_(std::move(model_file)) {}

namespace {

// A data file opened for reading and checked to be the file checked at
// load time; errors name the file and the tensor.
class OpenedDataFile {
 public:
  OpenedDataFile(const std::string& path, dev_t dev, ino_t ino, uint64_t size,
                 const std::string& model_file, const std::string& tensor)
      : path_(path), size_(size), model_file_(model_file), tensor_(tensor) {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) fail(std::string("cannot be opened: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != dev || st.st_ino != ino) {
      fail("was replaced since the model was loaded; load the model again");
    }
    current_size_ = static_cast<uint64_t>(st.st_size);
  }
  ~OpenedDataFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OpenedDataFile(const OpenedDataFile&) = delete;
  OpenedDataFile& operator=(const OpenedDataFile&) = delete;

  int fd() const { return fd_; }
  // Throws unless the file still holds [offset, end).
  void require(uint64_t offset, uint64_t end) const {
    if (current_size_ < end) shrank(offset, end, current_size_);
  }
  [[noreturn]] void shrank(uint64_t offset, uint64_t end, uint64_t now) const {
    fail("shrank to " + std::to_string(now) + " bytes since the model was loaded (it had " +
         std::to_string(size_) + "; this tensor needs bytes " + std::to_string(offset) + ".." +
         std::to_string(end) + "); was it rewritten while in use? Load the model again");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(ErrorKind::IO,
                (tensor_.empty() ? std::string() : "tensor '" + ir::printable(tensor_) + "': ") +
                    "external data file " + path_ + " " + why,
                {.file = model_file_});
  }

 private:
  const std::string& path_;
  uint64_t size_;
  const std::string& model_file_;
  const std::string& tensor_;
  int fd_ = -1;
  uint64_t current_size_ = 0;
};

// Errors of copy_file_range that mean "not between these files": copy
// through a buffer instead.
bool copy_unsupported(int err) {
  return err == EXDEV || err == ENOSYS || err == EOPNOTSUPP || err == EINVAL || err == ETXTBSY ||
         err == EPERM || err == EBADF;
}

}  // namespace

void DataFile::read(uint64_t offset, std::span<std::byte> out, const std::string& tensor) const {
  if (out.empty()) return;
  OpenedDataFile in(path_, dev_, ino_, size_, model_file_, tensor);
  const uint64_t end = offset + out.size();
  in.require(offset, end);
  size_t got = 0;
  while (got < out.size()) {
    ssize_t r =
        ::pread(in.fd(), out.data() + got, out.size() - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) in.fail(std::string("cannot be read: ") + std::strerror(errno));
    if (r == 0) in.shrank(offset, end, offset + got);  // truncated between fstat and here
    got += static_cast<size_t>(r);
  }
}

void DataFile::copy_to(uint64_t offset, uint64_t length, int out_fd, uint64_t out_offset,
                       const std::string& out_name, const std::string& tensor) const {
  if (length == 0) return;
  OpenedDataFile in(path_, dev_, ino_, size_, model_file_, tensor);
  const uint64_t end = offset + length;
  in.require(offset, end);
  // As AtomicFile reports its own writes: the file being written named.
  auto write_failed = [&](int err) {
    throw Error(ErrorKind::IO,
                "cannot write" +
                    (tensor.empty() ? std::string() : " tensor '" + ir::printable(tensor) + "'") +
                    ": " + std::strerror(err),
                {.file = out_name});
  };
  uint64_t done = 0;
  bool in_kernel = true;
  while (done < length && in_kernel) {
    auto from = static_cast<off_t>(offset + done);
    auto to = static_cast<off_t>(out_offset + done);
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(length - done, size_t{1} << 30));
    ssize_t r = ::copy_file_range(in.fd(), &from, out_fd, &to, chunk, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && copy_unsupported(errno)) {
      in_kernel = false;  // the rest through a buffer
    } else if (r < 0 && (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)) {
      write_failed(errno);
    } else if (r < 0) {
      in.fail("cannot be copied to " + out_name + ": " + std::strerror(errno));
    } else if (r == 0) {
      in.shrank(offset, end, offset + done);  // truncated between fstat and here
    } else {
      done += static_cast<uint64_t>(r);
    }
  }
  if (done == length) return;
  std::vector<std::byte> buffer(static_cast<size_t>(std::min<uint64_t>(length - done, 1 << 20)));
  while (done < length) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(length - done, buffer.size()));
    ssize_t r = ::pread(in.fd(), buffer.data(), want, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) in.fail(std::string("cannot be read: ") + std::strerror(errno));
    if (r == 0) in.shrank(offset, end, offset + done);
    size_t put = 0;
    while (put < static_cast<size_t>(r)) {
      ssize_t w = ::pwrite(out_fd, buffer.data() + put, static_cast<size_t>(r) - put,
                           static_cast<off_t>(out_offset + done + put));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) write_failed(errno);
      put += static_cast<size_t>(w);
    }
    done += static_cast<uint64_t>(r);
  }
}

ExternalStorage::~ExternalStorage() {
  if (data_) ::operator delete[](data_, std::align_val_t(64));
}

std::span<const std::byte> ExternalStorage::bytes() const {
  if (!loaded_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!loaded_.load(std::memory_order_relaxed)) {
      if (length_ > 0) {
        auto* p = static_cast<std::byte*>(::operator new[](length_, std::align_val_t(64)));
        try {
          file_->read(offset_, {p, length_}, tensor_);
        } catch (...) {
          ::operator delete[](p, std::align_val_t(64));
          throw;
        }
        data_ = p;
      }
      loaded_.store(true, std::memory_order_release);
    }
  }
  return {data_, length_};
}

ResolvedLocation DataFileRegistry::resolve(const std::string& base_dir, const std::string& location,
                                           const std::string& model_file,
                                           const std::string& tensor) {
  std::string key = base_dir;
  key += '\0';
  key += location;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = resolved_.find(key);
    if (it != resolved_.end()) return it->second;
  }
  ResolvedLocation where =
      resolve_location(base_dir, location, model_file, tensor, allow_hardlinks_);
  std::lock_guard<std::mutex> lock(mutex_);
  resolved_.emplace(std::move(key), where);
  return where;
}

std::shared_ptr<const DataFile> DataFileRegistry::open(const ResolvedLocation& where,
                                                       const std::string& model_file) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = files_[where.canonical_path];
  if (!slot) {
    slot = std::make_shared<DataFile>(where.canonical_path, where.dev, where.ino, where.size,
                                      model_file);
  }
  return slot;
}

}  // namespace oxs::onnx
