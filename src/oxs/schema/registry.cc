#include "oxs/schema/registry.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "oxs/ir/error.h"
#include "oxs/schema/onnx_schema.h"
#include "oxs/schema/suggest.h"
#include "oxs/schema/table/op_index.h"
#include "oxs/schema/table/op_table.h"

namespace oxs::schema {
namespace {

using index::DomainRange;
using index::OpVersion;

// The entries of `op` in domain number `domain`, ascending by since_version
// (empty when the op is unknown there).
std::span<const OpVersion> entries_of(uint32_t domain, std::string_view op) {
  const std::span<const OpVersion> all = index::op_versions();
  auto before = [](const OpVersion& e, std::pair<uint32_t, std::string_view> k) {
    return e.domain != k.first ? e.domain < k.first : e.name < k.second;
  };
  auto after = [](std::pair<uint32_t, std::string_view> k, const OpVersion& e) {
    return k.first != e.domain ? k.first < e.domain : k.second < e.name;
  };
  auto lo = std::lower_bound(all.begin(), all.end(), std::pair{domain, op}, before);
  auto hi = std::upper_bound(lo, all.end(), std::pair{domain, op}, after);
  return {lo, hi};
}

// The domain's number in index::domains(), or -1. No canonicalization:
// "ai.onnx" is not "" here.
int domain_number(std::string_view exact_name) {
  const std::span<const DomainRange> all = index::domains();
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].name == exact_name) return static_cast<int>(i);
  }
  return -1;
}

// The entry in force for `op` at `opset` among `entries` (the greatest
// since_version <= opset), or null.
const OpVersion* in_force(std::span<const OpVersion> entries, int64_t opset) {
  const OpVersion* found = nullptr;
  for (const OpVersion& e : entries) {
    if (e.since_version > opset) break;
    found = &e;
  }
  return found;
}

// One process-wide view over two sources: libonnx 1.12's schemas (op
// versions up to ai.onnx 17, ai.onnx.ml 3) and oxs's own table (the versions
// after those, data/onnx_ops.txt). Which versions exist comes from the index
// made at build time (table/op_index.h); an op version's libonnx schema or
// table signature is built when it is first asked for, so a process pays
// only for the ops it uses (libonnx's own registry, which builds every
// schema on first use, stays unbuilt). An op version is answered by the
// source that defines it: Relu at opset 23 is libonnx's Relu-14, Split at
// opset 23 is the table's Split-18. Built objects live until exit; `mu`
// guards their slots.
class Registry {
 public:
  Registry() : signatures_(index::op_versions().size()), schemas_(index::op_versions().size()) {}

  const DomainRange* domain(std::string_view name) const {
    const int d = domain_number(canonical_domain(name));
    return d < 0 ? nullptr : &index::domains()[static_cast<size_t>(d)];
  }

  // The entry in force for `op` at `opset` of `domain_name`, or null when
  // the domain is unknown, the opset out of its range or the op absent.
  const OpVersion* entry(std::string_view domain_name, std::string_view op, int64_t opset) const {
    const int d = domain_number(canonical_domain(domain_name));
    if (d < 0) return nullptr;
    const DomainRange& range = index::domains()[static_cast<size_t>(d)];
    if (opset < range.min_opset || opset > range.max_opset) return nullptr;
    return in_force(entries_of(static_cast<uint32_t>(d), op), opset);
  }

  const OpSignature* signature(const OpVersion& e) {
    const size_t i = number(e);
    std::lock_guard<std::mutex> lock(mu_);
    if (!signatures_[i]) {
      if (e.libonnx >= 0) {
        const ::onnx::OpSchema& schema = schema_locked(e);
        signatures_[i] = std::make_unique<OpSignature>(signature_from_onnx(schema));
        schema_of_[signatures_[i].get()] = &schema;
      } else {
        const std::string_view text =
            table::embedded_op_table().substr(e.table_offset, e.table_size);
        std::vector<OpSignature> parsed = table::parse_op_table(text, "onnx_ops.txt", e.table_line);
        if (parsed.size() != 1 || parsed[0].name != e.name) {
          throw Error(ErrorKind::Internal, "onnx_ops.txt:" + std::to_string(e.table_line) +
                                               ": the index of the table "
                                               "does not match its text; rebuild");
        }
        signatures_[i] = std::make_unique<OpSignature>(std::move(parsed[0]));
      }
    }
    return signatures_[i].get();
  }

  // libonnx's schema of a libonnx entry, built and finalized as libonnx's
  // registry does (OpSchemaRegisterOnce) the first time.
  const ::onnx::OpSchema* schema(const OpVersion& e) {
    if (e.libonnx < 0) return nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    return &schema_locked(e);
  }

  const ::onnx::OpSchema* schema_of(const OpSignature& sig) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = schema_of_.find(&sig);
    return it == schema_of_.end() ? nullptr : it->second;
  }

 private:
  static size_t number(const OpVersion& e) {
    return static_cast<size_t>(&e - index::op_versions().data());
  }

  const ::onnx::OpSchema& schema_locked(const OpVersion& e) {
    std::unique_ptr<::onnx::OpSchema>& slot = schemas_[number(e)];
    if (!slot) {
      auto s = std::make_unique<::onnx::OpSchema>(index::make_libonnx_schema(e.libonnx));
      s->Finalize();
      if (s->Name() != e.name || s->SinceVersion() != e.since_version) {
        throw Error(ErrorKind::Internal, "libonnx schema #" + std::to_string(e.libonnx) + " is " +
                                             s->Name() + "-" + std::to_string(s->SinceVersion()) +
                                             ", not " + std::string(e.name) + "; rebuild oxs");
      }
      slot = std::move(s);
    }
    return *slot;
  }

  std::mutex mu_;
  std::vector<std::unique_ptr<OpSignature>> signatures_;    // by entry number
  std::vector<std::unique_ptr<::onnx::OpSchema>> schemas_;  // by entry number
  std::unordered_map<const OpSignature*, const ::onnx::OpSchema*> schema_of_;
};

Registry& registry() {
  static Registry r;  // thread-safe initialization
  return r;
}

// libonnx's ISchemaRegistry over the same lazily built schemas, for
// libonnx's checker and shape inference: the same answers as
// OpSchemaRegistry::Schema (exact domain strings, libonnx's versions only)
// without building libonnx's whole registry.
class LazyOnnxRegistry final : public ::onnx::ISchemaRegistry {
 public:
  const ::onnx::OpSchema* GetSchema(const std::string& key, const int maxInclusiveVersion,
                                    const std::string& domain) const override {
    const int d = domain_number(domain);
    if (d < 0 || index::domains()[static_cast<size_t>(d)].libonnx_max_opset == 0) return nullptr;
    const OpVersion* found = nullptr;
    for (const OpVersion& e : entries_of(static_cast<uint32_t>(d), key)) {
      if (e.since_version > maxInclusiveVersion) break;
      if (e.libonnx >= 0) found = &e;
    }
    return found ? registry().schema(*found) : nullptr;
  }
};

std::string domain_label(std::string_view domain) {
  return domain.empty() ? std::string("ai.onnx") : std::string(domain);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out;
}

}  // namespace

std::string_view canonical_domain(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view() : domain;
}

const OpSignature* lookup(std::string_view domain, std::string_view op, int64_t opset) {
  const OpVersion* e = registry().entry(domain, op, opset);
  return e ? registry().signature(*e) : nullptr;
}

const ::onnx::OpSchema* find_onnx_schema(std::string_view domain, std::string_view op,
                                         int64_t opset) {
  const OpVersion* e = registry().entry(domain, op, opset);
  return e ? registry().schema(*e) : nullptr;
}

const ::onnx::OpSchema* onnx_schema_of(const OpSignature& sig) {
  if (const ::onnx::OpSchema* s = registry().schema_of(sig)) return s;
  // A signature copied or built by hand: find its schema by identity.
  return find_onnx_schema(sig.domain, sig.name, sig.since_version);
}

const ::onnx::ISchemaRegistry& onnx_schema_registry() {
  static const LazyOnnxRegistry r;
  return r;
}

const OpSignature& require(std::string_view domain, std::string_view op, int64_t opset) {
  if (const OpSignature* sig = lookup(domain, op, opset); sig && !sig->deprecated) return *sig;
  const std::string where = domain_label(canonical_domain(domain));
  const DomainRange* d = registry().domain(domain);
  if (!d) {
    std::vector<std::string> known;
    for (const std::string& k : known_domains()) known.push_back(domain_label(k));
    throw Error(ErrorKind::Invalid, "unknown op domain '" + std::string(domain) +
                                        "'; the known domains are " + join(known));
  }
  if (opset < d->min_opset || opset > d->max_opset) {
    throw Error(ErrorKind::Invalid, "opset " + std::to_string(opset) + " of " + where +
                                        " is not supported; oxs knows opsets " +
                                        std::to_string(d->min_opset) + " to " +
                                        std::to_string(d->max_opset) + " (ONNX 1.23)");
  }
  const std::vector<int64_t> versions = op_versions(domain, op);
  if (versions.empty()) {
    throw Error(ErrorKind::Invalid, "unknown op '" + std::string(op) + "' in " + where +
                                        " at opset " + std::to_string(opset) +
                                        did_you_mean(suggest_ops(domain, op, opset)));
  }
  if (opset < versions.front()) {
    throw Error(ErrorKind::Invalid, "op '" + std::string(op) + "' does not exist at opset " +
                                        std::to_string(opset) + " of " + where +
                                        "; it was introduced at opset " +
                                        std::to_string(versions.front()));
  }
  const OpSignature* sig = lookup(domain, op, opset);
  if (sig && sig->deprecated) {
    throw Error(ErrorKind::Invalid,
                "op '" + std::string(op) + "' was removed (deprecated) at opset " +
                    std::to_string(sig->since_version) + " of " + where + "; use an opset below " +
                    std::to_string(sig->since_version) + " or the op that replaces it");
  }
  throw Error(ErrorKind::Internal, "no schema for '" + std::string(op) + "' at opset " +
                                       std::to_string(opset) + " of " + where);
}

void require_known_opsets(const std::vector<ir::OpsetImport>& imports, std::string_view what) {
  for (const ir::OpsetImport& imp : imports) {
    auto latest = latest_opset(imp.domain);
    if (latest && imp.version > *latest) {
      throw Error(ErrorKind::Unsupported,
                  std::string(what) + " imports " + domain_label(canonical_domain(imp.domain)) +
                      " opset " + std::to_string(imp.version) + "; oxs knows opsets up to " +
                      std::to_string(*latest) +
                      " (ONNX 1.23), so it cannot run or check it with the right op semantics");
    }
  }
}

std::optional<int64_t> latest_opset(std::string_view domain) {
  const DomainRange* d = registry().domain(domain);
  if (!d) return std::nullopt;
  return d->max_opset;
}

std::optional<int64_t> earliest_opset(std::string_view domain) {
  const DomainRange* d = registry().domain(domain);
  if (!d) return std::nullopt;
  return d->min_opset;
}

std::vector<std::string> known_domains() {
  std::vector<std::string> out;
  for (const DomainRange& d : index::domains()) out.emplace_back(d.name);
  std::sort(out.begin(), out.end());  // "" sorts first
  return out;
}

bool is_known_domain(std::string_view domain) {
  return registry().domain(domain) != nullptr;
}

namespace {

// Calls f(name, entries) for each op of `domain`, by name.
template <class F>
void for_each_op(std::string_view domain, F f) {
  const int d = domain_number(canonical_domain(domain));
  if (d < 0) return;
  const std::span<const OpVersion> all = index::op_versions();
  auto it = std::lower_bound(all.begin(), all.end(), static_cast<uint32_t>(d),
                             [](const OpVersion& e, uint32_t k) { return e.domain < k; });
  while (it != all.end() && it->domain == static_cast<uint32_t>(d)) {
    auto next = it;
    while (next != all.end() && next->domain == it->domain && next->name == it->name) ++next;
    f(it->name, std::span<const OpVersion>(it, next));
    it = next;
  }
}

}  // namespace

std::vector<std::string> op_names(std::string_view domain, int64_t opset) {
  std::vector<std::string> out;
  const DomainRange* d = registry().domain(domain);
  if (!d || opset < d->min_opset || opset > d->max_opset) return out;
  for_each_op(domain, [&](std::string_view name, std::span<const OpVersion> versions) {
    if (versions.front().since_version > opset) return;
    const OpSignature* s = lookup(domain, name, opset);
    if (s && !s->deprecated) out.emplace_back(name);
  });
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<const OpSignature*> all_signatures(std::string_view domain) {
  std::vector<const OpSignature*> out;
  for_each_op(domain, [&](std::string_view name, std::span<const OpVersion> versions) {
    for (const OpVersion& v : versions) {
      if (const OpSignature* s = lookup(domain, name, v.since_version)) out.push_back(s);
    }
  });
  return out;
}

std::vector<int64_t> op_versions(std::string_view domain, std::string_view op) {
  std::vector<int64_t> out;
  const int d = domain_number(canonical_domain(domain));
  if (d < 0) return out;
  for (const OpVersion& e : entries_of(static_cast<uint32_t>(d), op)) {
    out.push_back(e.since_version);
  }
  return out;
}

}  // namespace oxs::schema
