#include "oxs/eval/buffer_pool.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace oxs::eval {
namespace {

class Pool {
 public:
  Pool() {
    if (const char* env = std::getenv("OXS_BUFFER_POOL_BYTES")) {
      char* end = nullptr;
      unsigned long long v = std::strtoull(env, &end, 10);
      if (end != env && *end == '\0') capacity_ = size_t(v);
    }
  }
  void* take(size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(bytes);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    cached_ -= bytes;
    return p;
  }
  void give(void* p, size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cached_ + bytes <= capacity_) {
        free_[bytes].push_back(p);
        cached_ += bytes;
        return;
      }
    }
    std::free(p);
  }
  void set_capacity(size_t bytes) {
    std::vector<void*> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      capacity_ = bytes;
      drop = take_over(capacity_);
    }
    for (void* p : drop) std::free(p);
  }
  void trim(size_t keep) {
    std::vector<void*> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      drop = take_over(keep);
    }
    for (void* p : drop) std::free(p);
  }
  size_t capacity() {
    std::lock_guard<std::mutex> lock(mu_);
    return capacity_;
  }
  size_t cached() const { return cached_.load(std::memory_order_relaxed); }

 private:
  // Removes cached buffers until at most `keep` bytes stay; mu_ held.
  std::vector<void*> take_over(size_t keep) {
    std::vector<void*> drop;
    for (auto& [size, list] : free_) {
      while (cached_ > keep && !list.empty()) {
        drop.push_back(list.back());
        list.pop_back();
        cached_ -= size;
      }
    }
    return drop;
  }

  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  std::atomic<size_t> cached_{0};
  size_t capacity_ = size_t{1} << 30;
};

// Never destroyed: buffers may be released by static objects at exit.
Pool& pool() {
  static Pool* p = new Pool();
  return *p;
}

struct PoolDeleter {
  size_t bytes;
  void operator()(void* p) const { pool().give(p, bytes); }
};

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

std::shared_ptr<void> acquire_zeroed_buffer(size_t bytes) {
  return acquire_buffer(bytes, true);
}

std::shared_ptr<void> acquire_buffer(size_t bytes, bool zeroed) {
  if (bytes >= kPoolMinBytes) {
    if (void* p = pool().take(bytes)) {
      if (zeroed) std::memset(p, 0, bytes);
      return std::shared_ptr<void>(p, PoolDeleter{bytes});
    }
  }
  void* p = std::aligned_alloc(64, bytes);
  if (!p) return nullptr;
  if (zeroed) std::memset(p, 0, bytes);
  if (bytes >= kPoolMinBytes) return std::shared_ptr<void>(p, PoolDeleter{bytes});
  return std::shared_ptr<void>(p, FreeDeleter());
}

size_t pool_capacity() {
  return pool().capacity();
}
void set_pool_capacity(size_t bytes) {
  pool().set_capacity(bytes);
}
size_t pool_cached_bytes() {
  return pool().cached();
}
void trim_pool(size_t bytes) {
  pool().trim(bytes);
}

}  // namespace oxs::eval
