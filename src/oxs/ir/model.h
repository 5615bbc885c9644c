// Model and model-local Function: the top of the IR. A Function is a named,
// domain-qualified body graph with attribute parameters; nodes in the body
// refer to them through Attr::ref_attr_name.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "oxs/ir/graph.h"

namespace oxs::ir {

struct OpsetImport {
  std::string domain;  // "" for ai.onnx
  int64_t version = 0;
  uint32_t proto_quirks = 0;  // onnx/ only (e.g. domain field absent)
  bool operator==(const OpsetImport& o) const { return domain == o.domain && version == o.version; }
};

// The version imported for `domain` ("" and "ai.onnx" are the same domain).
std::optional<int64_t> find_opset(const std::vector<OpsetImport>& imports,
                                  const std::string& domain);

class Function {
 public:
  Function() : body(std::make_unique<Graph>()) {}
  Function(std::string domain, std::string name)
      : name(std::move(name)), domain(std::move(domain)), body(std::make_unique<Graph>()) {}

  // The key (domain, name, overload) identifies the function. Once the
  // function is in a Model, change it only through FunctionList::rename (or
  // call FunctionList::reindex after editing it): the list's index would not
  // see the change, and ir::verify reports such a stale entry.
  std::string name;
  std::string domain;
  // FunctionProto.overload (IR 10): "" for the default overload.
  std::string overload;
  std::string doc_string;
  StringPairs metadata_props;  // IR 10
  // Names of every attribute parameter, in order: first those without a
  // default (FunctionProto.attribute), then those with one.
  std::vector<std::string> attributes;
  // The parameters with a default value (FunctionProto.attribute_proto), in
  // order; each one's name is also in `attributes`.
  std::vector<Attr> attribute_defaults;
  std::vector<OpsetImport> opset_imports;
  // Inputs and outputs of the body are the function's formal parameters.
  std::unique_ptr<Graph> body;
  // onnx/ only: how the loaded protobuf deviated from the canonical encoding
  // (e.g. a field explicitly set to its default), so that saving reproduces
  // it exactly. 0 for anything built in memory.
  uint32_t proto_quirks = 0;
};

struct TrainingInfo {
  std::unique_ptr<Graph> initialization;
  std::unique_ptr<Graph> algorithm;
  StringPairs initialization_binding;
  StringPairs update_binding;
};

// A model's functions, in order (the order they are saved in), with an index
// by (domain, name, overload) kept up to date by every add, remove and rename
// (O(1) each, O(1) lookups). Elements cannot be replaced in place, so the
// index cannot be bypassed; a function's own fields other than its key may be
// edited freely. ONNX forbids two functions with the same key; if a loaded
// file has them anyway, lookups find the first, as a scan would.
class FunctionList {
 public:
  using value_type = std::unique_ptr<Function>;
  using const_iterator = std::vector<std::unique_ptr<Function>>::const_iterator;
  using iterator = const_iterator;

  FunctionList() = default;
  FunctionList(FunctionList&&) noexcept = default;
  FunctionList& operator=(FunctionList&&) noexcept = default;
  FunctionList(const FunctionList&) = delete;
  FunctionList& operator=(const FunctionList&) = delete;
  ~FunctionList();

  const_iterator begin() const { return list_.begin(); }
  const_iterator end() const { return list_.end(); }
  size_t size() const { return list_.size(); }
  bool empty() const { return list_.empty(); }
  const std::unique_ptr<Function>& operator[](size_t i) const { return list_[i]; }
  const std::unique_ptr<Function>& front() const { return list_.front(); }
  const std::unique_ptr<Function>& back() const { return list_.back(); }

  // Appends `f` (non-null); returns it.
  Function& push_back(std::unique_ptr<Function> f);
  // Inserts `f` before `pos`; returns it.
  Function& insert(const_iterator pos, std::unique_ptr<Function> f);
  // Removes (and destroys) the function at `pos`; returns the next position.
  const_iterator erase(const_iterator pos);
  // Removes `f` and hands it back (null if `f` is not in the list). O(size).
  std::unique_ptr<Function> take(const Function* f);
  // Removes every function for which `pred(const std::unique_ptr<Function>&)`
  // holds, keeping the order of the rest; returns how many. O(size).
  template <class Pred>
  size_t erase_if(Pred pred);
  void clear();

  // Changes `f`'s key (f must be in the list).
  void rename(Function& f, std::string domain, std::string name, std::string overload = {});
  // Rebuilds the index from the functions' current keys: the way to make
  // direct edits of listed functions' keys visible. O(size).
  void reindex();
  // The first function with this key ("" and "ai.onnx" are the same
  // domain), or null. O(1).
  Function* find(std::string_view domain, std::string_view name,
                 std::string_view overload = {}) const;
  // Functions whose key differs from the one they are indexed under (edited
  // without rename/reindex). O(size); ir::verify reports them.
  std::vector<const Function*> stale() const;
  // How many functions have ever been removed: a cache keyed by a Function's
  // address must be dropped when this changes (the address may be reused).
  uint64_t removals() const { return removals_; }

 private:
  struct Key {
    std::string domain;  // normalized: "ai.onnx" is ""
    std::string name;
    std::string overload;
  };
  struct KeyView {
    std::string_view domain, name, overload;
  };
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(const KeyView& k) const;
    size_t operator()(const Key& k) const { return (*this)(view(k)); }
  };
  struct KeyEq {
    using is_transparent = void;
    static bool same(const KeyView& a, const KeyView& b) {
      return a.domain == b.domain && a.name == b.name && a.overload == b.overload;
    }
    bool operator()(const Key& a, const Key& b) const { return same(view(a), view(b)); }
    bool operator()(const KeyView& a, const Key& b) const { return same(a, view(b)); }
    bool operator()(const Key& a, const KeyView& b) const { return same(view(a), b); }
  };
  static KeyView view(const Key& k) { return {k.domain, k.name, k.overload}; }
  static Key key_of(const Function& f);
  // Indexes `f` unless its key is already taken (by an earlier function).
  void index(Function& f);
  // Drops `f`'s index entry, which names it; a shadowed duplicate then needs
  // a rebuild to take its place.
  void unindex(const Function& f);
  void after_removal(size_t removed, bool rebuild);

  std::vector<std::unique_ptr<Function>> list_;
  // Key -> first function with that key; and each indexed function's key.
  std::unordered_map<Key, Function*, KeyHash, KeyEq> by_key_;
  std::unordered_map<const Function*, const Key*> key_of_indexed_;
  // Listed functions shadowed by an earlier one with the same key.
  size_t shadowed_ = 0;
  uint64_t removals_ = 0;
};

template <class Pred>
size_t FunctionList::erase_if(Pred pred) {
  size_t removed = 0;
  bool rebuild = false;
  std::erase_if(list_, [&](const std::unique_ptr<Function>& f) {
    if (!pred(f)) return false;
    ++removed;
    if (key_of_indexed_.count(f.get())) {
      rebuild = rebuild || shadowed_ > 0;
      unindex(*f);
    } else {
      --shadowed_;
    }
    return true;
  });
  after_removal(removed, rebuild);
  return removed;
}

class Model {
 public:
  Model() : graph(std::make_unique<Graph>()) {}

  int64_t ir_version = 8;
  std::vector<OpsetImport> opset_imports;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  std::string doc_string;
  std::unique_ptr<Graph> graph;
  StringPairs metadata_props;
  std::vector<TrainingInfo> training_info;
  FunctionList functions;
  std::vector<DeviceConfiguration> configuration;  // IR 11

  // Proto2 presence of scalar fields that hold their default value, so that
  // a round trip reproduces the file exactly. Only onnx/ reads these.
  bool has_ir_version = true;
  bool has_model_version = false;
  // onnx/ only: how the loaded protobuf deviated from the canonical encoding
  // (e.g. a field explicitly set to its default), so that saving reproduces
  // it exactly. 0 for anything built in memory.
  uint32_t proto_quirks = 0;

  // The model-local function with this key, or null. O(1).
  Function* find_function(std::string_view domain, std::string_view name,
                          std::string_view overload = {}) const {
    return functions.find(domain, name, overload);
  }
};

}  // namespace oxs::ir
