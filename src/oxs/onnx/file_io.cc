#include "oxs/onnx/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
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

namespace {

// 64 unpredictable bits as hex. getrandom cannot fail for 8 bytes once the
// pool is ready; the fallback only keeps names distinct (O_EXCL still keeps
// a planted file or link from being used).
std::string random_suffix() {
  uint64_t r = 0;
  if (::getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) {
    static std::atomic<uint64_t> counter{0};
    r = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
        (uint64_t(::getpid()) << 32) ^ (counter.fetch_add(1) * 0x9e3779b97f4a7c15ULL);
  }
  static const char* hex = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 0; i < 16; ++i) out[size_t(i)] = hex[(r >> (4 * i)) & 15];
  return out;
}

// One path component that names an entry of a directory.
void check_component(const std::string& name, const std::string& dir) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    throw Error(ErrorKind::Internal, "'" + name + "' is not a plain file name", {.file = dir});
  }
}

}  // namespace

AtomicFile::AtomicFile(std::string target) : target_(std::move(target)) {
  const std::string dir = parent_dir(target_);
  name_ = base_name(target_);
  if (name_.empty()) {
    throw Error(ErrorKind::Usage, "names a directory; give a file name", {.file = target_});
  }
  dir_fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) {
    throw Error(ErrorKind::IO, "cannot open the directory " + dir + ": " + errno_text(),
                {.file = target_});
  }
  own_dir_fd_ = true;
  try {
    create_temp();
  } catch (...) {
    ::close(dir_fd_);
    throw;
  }
}

AtomicFile::AtomicFile(int dir_fd, std::string name, std::string target)
    : target_(std::move(target)), dir_fd_(dir_fd), name_(std::move(name)) {
  check_component(name_, target_);
  create_temp();
}

void AtomicFile::create_temp() {
  // Long names keep their start: the temporary name must fit NAME_MAX.
  const std::string stem = "." + name_.substr(0, 200) + ".tmp.";
  for (int attempt = 0; attempt < 64; ++attempt) {
    temp_name_ = stem + random_suffix();
    fd_ = ::openat(dir_fd_, temp_name_.c_str(),
                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ >= 0 || errno != EEXIST) break;
  }
  temp_ = parent_dir(target_) + "/" + temp_name_;
  if (fd_ < 0) {
    throw Error(ErrorKind::IO,
                "cannot create a temporary file in " + parent_dir(target_) + ": " + errno_text(),
                {.file = target_});
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_name_.empty()) ::unlinkat(dir_fd_, temp_name_.c_str(), 0);
  if (own_dir_fd_) ::close(dir_fd_);
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
  // rename() replaces a link at the target itself, never what it points to.
  if (::renameat(dir_fd_, temp_name_.c_str(), dir_fd_, name_.c_str()) != 0)
    fail("cannot rename the temporary file over it");
  committed_ = true;
  ::fsync(dir_fd_);  // makes the rename itself durable
}

OutputDir::OutputDir(OutputDir&& o) noexcept : path_(std::move(o.path_)), fd_(o.fd_) {
  o.fd_ = -1;
}

OutputDir::~OutputDir() {
  if (fd_ >= 0) ::close(fd_);
}

OutputDir OutputDir::open(const std::string& path_as_given, bool create) {
  // "out/" and "out" name one directory; file paths are joined with one '/'.
  std::string path = path_as_given;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  auto fail = [&](const std::string& why) {
    throw Error(ErrorKind::IO, "cannot use as output directory: " + why, {.file = path});
  };
  if (path.empty()) fail("the path is empty");
  if (create) {
    // mkdir -p: the user's path may go through links; that is their choice.
    for (size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
      const std::string prefix = path.substr(0, end);
      if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
        fail("cannot create " + prefix + ": " + errno_text());
      }
      if (end == std::string::npos) break;
    }
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    fail(errno == ENOTDIR ? std::string("it exists and is not a directory") : errno_text());
  }
  if (::faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) != 0) {
    const std::string why = errno_text();
    ::close(fd);
    fail("it is not writable: " + why);
  }
  return OutputDir(path, fd);
}

OutputDir OutputDir::subdir(const std::string& name) const {
  check_component(name, path_);
  const std::string path = path_ + "/" + name;
  if (::mkdirat(fd_, name.c_str(), 0755) != 0 && errno != EEXIST) {
    throw Error(ErrorKind::IO, "cannot create directory: " + errno_text(), {.file = path});
  }
  int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    struct stat st {};
    const bool link =
        ::fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
    throw Error(ErrorKind::IO,
                link           ? std::string("is a symbolic link; refusing to write through it")
                : e == ENOTDIR ? std::string("exists and is not a directory")
                               : "cannot open: " + std::string(std::strerror(e)),
                {.file = path});
  }
  return OutputDir(path, fd);
}

void OutputDir::write_file(const std::string& name, std::string_view bytes) const {
  std::unique_ptr<AtomicFile> file = atomic_file(name);
  file->write(bytes.data(), bytes.size());
  file->commit();
}

std::unique_ptr<AtomicFile> OutputDir::atomic_file(const std::string& name) const {
  return std::make_unique<AtomicFile>(fd_, name, path_ + "/" + name);
}

std::vector<std::string> OutputDir::entries() const {
  std::vector<std::string> out;
  int fd = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = fd >= 0 ? ::fdopendir(fd) : nullptr;
  if (!d) {
    if (fd >= 0) ::close(fd);
    throw Error(ErrorKind::IO, "cannot list: " + errno_text(), {.file = path_});
  }
  while (const dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n != "." && n != "..") out.emplace_back(n);
  }
  ::closedir(d);
  return out;
}

void OutputDir::remove(const std::string& name) const {
  check_component(name, path_);
  auto fail = [&](const std::string& what) {
    throw Error(ErrorKind::IO, "cannot remove " + what + ": " + errno_text(),
                {.file = path_ + "/" + name});
  };
  struct stat st {};
  if (::fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return;
    fail("it");
  }
  if (!S_ISDIR(st.st_mode)) {
    if (::unlinkat(fd_, name.c_str(), 0) != 0 && errno != ENOENT) fail("it");
    return;
  }
  // A directory: depth-first with an explicit stack of open directories,
  // each opened with O_NOFOLLOW relative to its parent.
  struct Level {
    DIR* dir;
    std::string name;  // in its parent
  };
  std::vector<Level> stack;
  struct Closer {
    std::vector<Level>& stack;
    ~Closer() {
      for (Level& l : stack) ::closedir(l.dir);
    }
  } closer{stack};
  auto enter = [&](int parent, const std::string& child) {
    constexpr size_t kMaxDepth = 64;
    if (stack.size() >= kMaxDepth) {
      errno = ELOOP;
      fail("a directory nested more than 64 levels deep (remove it yourself)");
    }
    int fd = ::openat(parent, child.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR* d = fd >= 0 ? ::fdopendir(fd) : nullptr;
    if (!d) {
      if (fd >= 0) ::close(fd);
      fail("'" + child + "'");
    }
    stack.push_back({d, child});
  };
  enter(fd_, name);
  while (!stack.empty()) {
    DIR* d = stack.back().dir;
    errno = 0;
    const dirent* e = ::readdir(d);
    if (!e) {
      if (errno != 0) fail("an entry");
      std::string done = std::move(stack.back().name);
      ::closedir(d);
      stack.pop_back();
      const int parent = stack.empty() ? fd_ : ::dirfd(stack.back().dir);
      if (::unlinkat(parent, done.c_str(), AT_REMOVEDIR) != 0) fail("directory '" + done + "'");
      continue;
    }
    const std::string child = e->d_name;
    if (child == "." || child == "..") continue;
    struct stat cst {};
    if (::fstatat(::dirfd(d), child.c_str(), &cst, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      fail("'" + child + "'");
    }
    if (S_ISDIR(cst.st_mode)) {
      enter(::dirfd(d), child);
    } else if (::unlinkat(::dirfd(d), child.c_str(), 0) != 0 && errno != ENOENT) {
      fail("'" + child + "'");
    }
  }
}

}  // namespace oxs::onnx
