// Turns fuzzer bytes into choices, consuming from the front; once the
// bytes run out every choice is its smallest option, so any input (even an
// empty one) describes one complete, deterministic case.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace oxs::fuzz {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  bool flag() { return byte() & 1; }
  // A value in [0, n) (n > 0).
  size_t below(size_t n) {
    uint32_t v = byte();
    if (n > 256) v = (v << 8) | byte();
    return n ? v % n : 0;
  }
  int64_t in_range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<size_t>(hi - lo + 1)));
  }
  template <class T>
  const T& pick(const std::vector<T>& options) {
    return options[below(options.size())];
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
  bool exhausted() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace oxs::fuzz
