// A set of pointers in one flat open-addressing table (linear probing,
// deletion by backward shift): no allocation per element, which matters for
// the driver's worklist (a node is inserted and erased once per visit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace oxs::rewrite {

class PointerSet {
 public:
  explicit PointerSet(size_t expected = 16) { rehash(capacity_for(expected)); }

  // False if `p` (non-null) was already in the set.
  bool insert(const void* p) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.size() * 2);
    size_t i = find_slot(p);
    if (slots_[i] == p) return false;
    slots_[i] = p;
    ++size_;
    return true;
  }

  void erase(const void* p) {
    size_t i = find_slot(p);
    if (slots_[i] != p) return;
    slots_[i] = nullptr;
    --size_;
    // Shift later members of the probe run back into the hole.
    size_t mask = slots_.size() - 1;
    for (size_t j = (i + 1) & mask; slots_[j]; j = (j + 1) & mask) {
      size_t home = hash(slots_[j]) & mask;
      bool between = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (!between) {
        slots_[i] = slots_[j];
        slots_[j] = nullptr;
        i = j;
      }
    }
  }

  size_t size() const { return size_; }

 private:
  static size_t capacity_for(size_t n) {
    size_t c = 16;
    while (c < n * 2) c *= 2;
    return c;
  }
  static size_t hash(const void* p) {
    auto x = reinterpret_cast<uintptr_t>(p);
    x ^= x >> 17;
    x *= 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(x ^ (x >> 29));
  }
  size_t find_slot(const void* p) const {
    size_t mask = slots_.size() - 1;
    size_t i = hash(p) & mask;
    while (slots_[i] && slots_[i] != p) i = (i + 1) & mask;
    return i;
  }
  void rehash(size_t capacity) {
    std::vector<const void*> old = std::move(slots_);
    slots_.assign(capacity, nullptr);
    size_ = 0;
    for (const void* p : old) {
      if (p) insert(p);
    }
  }

  std::vector<const void*> slots_;
  size_t size_ = 0;
};

}  // namespace oxs::rewrite
