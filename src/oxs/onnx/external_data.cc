#include "oxs/onnx/external_data.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

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

void DataFile::read(uint64_t offset, std::span<std::byte> out, const std::string& tensor) const {
  auto fail = [&](const std::string& why) {
    throw Error(ErrorKind::IO,
                (tensor.empty() ? std::string() : "tensor '" + ir::printable(tensor) + "': ") +
                    "external data file " + path_ + " " + why,
                {.file = model_file_});
  };
  if (out.empty()) return;
  int fd = ::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) fail(std::string("cannot be opened: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != dev_ || st.st_ino != ino_) {
    fail("was replaced since the model was loaded; load the model again");
  }
  const uint64_t end = offset + out.size();
  auto shrank = [&](uint64_t now) {
    fail("shrank to " + std::to_string(now) + " bytes since the model was loaded (it had " +
         std::to_string(size_) + "; this tensor needs bytes " + std::to_string(offset) + ".." +
         std::to_string(end) + "); was it rewritten while in use? Load the model again");
  };
  if (static_cast<uint64_t>(st.st_size) < end) shrank(static_cast<uint64_t>(st.st_size));
  size_t got = 0;
  while (got < out.size()) {
    ssize_t r = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail(std::string("cannot be read: ") + std::strerror(errno));
    if (r == 0) shrank(offset + got);  // truncated between fstat and here
    got += static_cast<size_t>(r);
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
