#include "oxs/ir/name_authority.h"

#include <functional>

namespace oxs::ir {

uint64_t NameSet::hash(std::string_view s) {
  return std::hash<std::string_view>()(s);
}

size_t NameSet::probe(std::string_view s, uint64_t h) const {
  const size_t mask = slots_.size() - 1;
  const auto tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.index == 0) return i;
    if (slot.tag == tag && strings_[slot.index - 1] == s) return i;
  }
}

bool NameSet::contains(std::string_view s) const {
  if (slots_.empty()) return false;
  return slots_[probe(s, hash(s))].index != 0;
}

bool NameSet::insert(std::string_view s) {
  // Load factor at most 1/2 keeps probe sequences short.
  if ((strings_.size() + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
  const uint64_t h = hash(s);
  const size_t i = probe(s, h);
  if (slots_[i].index != 0) return false;
  strings_.emplace_back(s);
  hashes_.push_back(h);
  slots_[i] = {static_cast<uint32_t>(strings_.size()), static_cast<uint32_t>(h >> 32)};
  return true;
}

void NameSet::reserve(size_t n) {
  size_t want = 16;
  while (want < n * 2) want *= 2;
  if (want > slots_.size()) rehash(want);
  strings_.reserve(n);
  hashes_.reserve(n);
}

void NameSet::rehash(size_t slots) {
  slots_.assign(slots, Slot{0, 0});
  const size_t mask = slots - 1;
  for (size_t k = 0; k < strings_.size(); ++k) {
    const uint64_t h = hashes_[k];
    size_t i = h & mask;
    while (slots_[i].index != 0) i = (i + 1) & mask;
    slots_[i] = {static_cast<uint32_t>(k + 1), static_cast<uint32_t>(h >> 32)};
  }
}

std::string NameAuthority::unique(NameSet& set, Counters& next, std::string_view base) {
  std::string stem = base.empty() ? std::string("_v") : std::string(base);
  if (set.insert(stem)) return stem;
  // The counter per stem makes repeated requests O(1) amortized: each suffix
  // is tried at most once per stem.
  size_t& n = next[stem];
  for (;;) {
    std::string candidate = stem + "_" + std::to_string(++n);
    if (set.insert(candidate)) return candidate;
  }
}

}  // namespace oxs::ir
