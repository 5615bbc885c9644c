// FunctionList: the model's functions in order plus an index by key. Every
// mutation keeps the index exact in O(1); only the cases that involve two
// functions with the same key (invalid ONNX, but a file may contain them)
// rebuild it, because "the first one wins" needs the list order.
#include <algorithm>
#include <functional>

#include "oxs/ir/error.h"
#include "oxs/ir/model.h"

namespace oxs::ir {

namespace {

std::string_view normal_domain(std::string_view d) {
  return d == "ai.onnx" ? std::string_view() : d;
}

}  // namespace

size_t FunctionList::KeyHash::operator()(const KeyView& k) const {
  std::hash<std::string_view> h;
  size_t seed = h(k.name);
  seed ^= h(k.domain) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  seed ^= h(k.overload) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  return seed;
}

FunctionList::~FunctionList() = default;

FunctionList::Key FunctionList::key_of(const Function& f) {
  return {std::string(normal_domain(f.domain)), f.name, f.overload};
}

void FunctionList::index(Function& f) {
  auto [it, fresh] = by_key_.try_emplace(key_of(f), &f);
  if (fresh) {
    key_of_indexed_[&f] = &it->first;
  } else {
    ++shadowed_;
  }
}

void FunctionList::unindex(const Function& f) {
  auto k = key_of_indexed_.find(&f);
  by_key_.erase(*k->second);
  key_of_indexed_.erase(k);
}

void FunctionList::reindex() {
  by_key_.clear();
  key_of_indexed_.clear();
  shadowed_ = 0;
  for (const auto& f : list_) index(*f);
}

Function& FunctionList::push_back(std::unique_ptr<Function> f) {
  if (!f) throw Error(ErrorKind::Usage, "FunctionList::push_back: null function");
  list_.push_back(std::move(f));
  index(*list_.back());
  return *list_.back();
}

Function& FunctionList::insert(const_iterator pos, std::unique_ptr<Function> f) {
  if (!f) throw Error(ErrorKind::Usage, "FunctionList::insert: null function");
  Function& added = **list_.insert(pos, std::move(f));
  // A key already taken by a later function changes which one is first.
  if (find(added.domain, added.name, added.overload)) {
    reindex();
  } else {
    index(added);
  }
  return added;
}

void FunctionList::after_removal(size_t removed, bool rebuild) {
  removals_ += removed;
  if (rebuild) reindex();
}

FunctionList::const_iterator FunctionList::erase(const_iterator pos) {
  bool rebuild = false;
  if (key_of_indexed_.count(pos->get())) {
    rebuild = shadowed_ > 0;
    unindex(**pos);
  } else {
    --shadowed_;
  }
  size_t at = static_cast<size_t>(pos - list_.begin());
  list_.erase(pos);
  after_removal(1, rebuild);
  return list_.begin() + static_cast<std::ptrdiff_t>(at);
}

std::unique_ptr<Function> FunctionList::take(const Function* f) {
  for (auto it = list_.begin(); it != list_.end(); ++it) {
    if (it->get() != f) continue;
    std::unique_ptr<Function> out = std::move(*it);
    // Erase the now-null slot with the bookkeeping of `out`.
    bool rebuild = false;
    if (key_of_indexed_.count(out.get())) {
      rebuild = shadowed_ > 0;
      unindex(*out);
    } else {
      --shadowed_;
    }
    list_.erase(it);
    after_removal(1, rebuild);
    return out;
  }
  return nullptr;
}

void FunctionList::clear() {
  removals_ += list_.size();
  list_.clear();
  by_key_.clear();
  key_of_indexed_.clear();
  shadowed_ = 0;
}

void FunctionList::rename(Function& f, std::string domain, std::string name, std::string overload) {
  const bool indexed = key_of_indexed_.count(&f) > 0;
  if (!indexed && std::none_of(list_.begin(), list_.end(),
                               [&](const std::unique_ptr<Function>& g) { return g.get() == &f; })) {
    throw Error(ErrorKind::Usage, "FunctionList::rename: function '" + f.name +
                                      "' is not in this list; add it with push_back");
  }
  const bool was_alone = indexed && shadowed_ == 0;
  if (was_alone) unindex(f);
  f.domain = std::move(domain);
  f.name = std::move(name);
  f.overload = std::move(overload);
  // Without duplicates (before and after) the entry just moves; otherwise
  // which function is first depends on the order.
  if (was_alone && !find(f.domain, f.name, f.overload)) {
    index(f);
  } else {
    reindex();
  }
}

Function* FunctionList::find(std::string_view domain, std::string_view name,
                             std::string_view overload) const {
  auto it = by_key_.find(KeyView{normal_domain(domain), name, overload});
  return it == by_key_.end() ? nullptr : it->second;
}

std::vector<const Function*> FunctionList::stale() const {
  std::vector<const Function*> out;
  for (const auto& f : list_) {
    auto k = key_of_indexed_.find(f.get());
    if (k == key_of_indexed_.end()) {
      // Shadowed: its key must be taken by another function.
      if (!find(f->domain, f->name, f->overload)) out.push_back(f.get());
      continue;
    }
    if (!KeyEq::same(view(*k->second), {normal_domain(f->domain), f->name, f->overload})) {
      out.push_back(f.get());
    }
  }
  return out;
}

}  // namespace oxs::ir
