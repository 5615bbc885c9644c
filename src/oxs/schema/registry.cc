#include "oxs/schema/registry.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "oxs/ir/error.h"
#include "oxs/schema/onnx_schema.h"
#include "oxs/schema/suggest.h"
#include "oxs/schema/table/op_table.h"

namespace oxs::schema {
namespace {

// Both sources indexed once: per domain, each op's versions.
struct DomainIndex {
  int64_t min_opset = 0;
  int64_t max_opset = 0;
  int64_t libonnx_max_opset = 0;  // 0: a domain libonnx does not know
  std::unordered_map<std::string, std::vector<int64_t>> versions;  // ascending
};

// One process-wide cache over two sources: libonnx 1.12's registry (op
// versions up to ai.onnx 17, ai.onnx.ml 3) and oxs's own table (the versions
// after those, data/onnx_ops.txt). An op version is answered by the source
// that defines it: Relu at opset 23 is libonnx's Relu-14, Split at opset 23
// is the table's Split-18. libonnx's registry is built on first use and only
// read afterwards; our own maps are guarded by `mu`.
class Registry {
 public:
  Registry() {
    for (const auto& [domain, range] :
         ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map()) {
      DomainIndex& d = domains_[domain];
      d.min_opset = range.first;
      d.max_opset = range.second;
      d.libonnx_max_opset = range.second;
    }
    for (const ::onnx::OpSchema& s : ::onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
      auto it = domains_.find(s.domain());
      if (it == domains_.end()) continue;  // libonnx rejects these at registration anyway
      it->second.versions[s.Name()].push_back(s.since_version());
    }
    for (OpSignature& s : table::parse_op_table(table::embedded_op_table(), "onnx_ops.txt")) {
      DomainIndex& d = domains_[s.domain];
      if (d.min_opset == 0) d.min_opset = 1;
      d.max_opset = std::max(d.max_opset, s.since_version);
      d.versions[s.name].push_back(s.since_version);
      auto sig = std::make_unique<OpSignature>(std::move(s));
      table_.emplace(key(sig->domain, sig->name, sig->since_version), sig.get());
      table_sigs_.push_back(std::move(sig));
    }
    // The table lists only changed ops; the domains' ranges are ONNX 1.23's.
    domains_[""].max_opset = std::max<int64_t>(domains_[""].max_opset, table::kLatestOnnxOpset);
    domains_["ai.onnx.ml"].max_opset =
        std::max<int64_t>(domains_["ai.onnx.ml"].max_opset, table::kLatestMlOpset);
    for (auto& [domain, index] : domains_) {
      for (auto& [name, versions] : index.versions) {
        std::sort(versions.begin(), versions.end());
        versions.erase(std::unique(versions.begin(), versions.end()), versions.end());
      }
    }
  }

  static std::string key(std::string_view domain, std::string_view op, int64_t version) {
    std::string k;
    k.reserve(domain.size() + op.size() + 24);
    k.append(canonical_domain(domain)).push_back('\0');
    k.append(op).push_back('\0');
    k.append(std::to_string(version));
    return k;
  }

  // The since_version in force for `op` at `opset`, or 0.
  int64_t version_at(const DomainIndex& d, std::string_view op, int64_t opset) const {
    auto it = d.versions.find(std::string(op));
    if (it == d.versions.end()) return 0;
    auto v = std::upper_bound(it->second.begin(), it->second.end(), opset);
    return v == it->second.begin() ? 0 : *(v - 1);
  }

  // The table's signature of the version in force, or null when that
  // version is libonnx's (or there is none).
  const OpSignature* table_signature(std::string_view domain_name, std::string_view op,
                                     int64_t opset) const {
    const DomainIndex* d = domain(domain_name);
    if (!d || opset < d->min_opset || opset > d->max_opset) return nullptr;
    const int64_t v = version_at(*d, op, opset);
    if (v == 0) return nullptr;
    auto it = table_.find(key(domain_name, op, v));
    return it == table_.end() ? nullptr : it->second;
  }

  const DomainIndex* domain(std::string_view name) const {
    auto it = domains_.find(std::string(canonical_domain(name)));
    return it == domains_.end() ? nullptr : &it->second;
  }
  const std::unordered_map<std::string, DomainIndex>& domains() const { return domains_; }

  // libonnx's schema of the version in force, or null when the table
  // defines that version (or there is none).
  const ::onnx::OpSchema* find(std::string_view domain_name, std::string_view op,
                               int64_t opset) const {
    const DomainIndex* d = domain(domain_name);
    if (!d || d->libonnx_max_opset == 0 || opset < d->min_opset || opset > d->max_opset) {
      return nullptr;
    }
    if (opset > d->libonnx_max_opset && table_signature(domain_name, op, opset)) return nullptr;
    return ::onnx::OpSchemaRegistry::Schema(std::string(op),
                                            static_cast<int>(std::min(opset, d->libonnx_max_opset)),
                                            std::string(canonical_domain(domain_name)));
  }

  const OpSignature* lookup(std::string_view domain_name, std::string_view op, int64_t opset) {
    std::string key = Registry::key(domain_name, op, opset);
    std::lock_guard<std::mutex> lock(mu_);
    auto hit = by_query_.find(key);
    if (hit != by_query_.end()) return hit->second;
    const OpSignature* sig = table_signature(domain_name, op, opset);
    if (sig) {
      // from oxs's table
    } else if (const ::onnx::OpSchema* schema = find(domain_name, op, opset)) {
      auto& slot = by_schema_[schema];
      if (!slot) {
        slot = std::make_unique<OpSignature>(signature_from_onnx(*schema));
        schema_of_[slot.get()] = schema;
      }
      sig = slot.get();
    }
    by_query_.emplace(std::move(key), sig);
    return sig;
  }

  const ::onnx::OpSchema* schema_of(const OpSignature& sig) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = schema_of_.find(&sig);
    return it == schema_of_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<std::string, DomainIndex> domains_;       // immutable after construction
  std::vector<std::unique_ptr<OpSignature>> table_sigs_;       // immutable after construction
  std::unordered_map<std::string, const OpSignature*> table_;  // key(domain, op, since)
  std::mutex mu_;
  std::unordered_map<std::string, const OpSignature*> by_query_;
  std::unordered_map<const ::onnx::OpSchema*, std::unique_ptr<OpSignature>> by_schema_;
  std::unordered_map<const OpSignature*, const ::onnx::OpSchema*> schema_of_;
};

Registry& registry() {
  static Registry r;  // thread-safe initialization
  return r;
}

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
  return registry().lookup(domain, op, opset);
}

const ::onnx::OpSchema* find_onnx_schema(std::string_view domain, std::string_view op,
                                         int64_t opset) {
  return registry().find(domain, op, opset);
}

const ::onnx::OpSchema* onnx_schema_of(const OpSignature& sig) {
  if (const ::onnx::OpSchema* s = registry().schema_of(sig)) return s;
  // A signature copied or built by hand: find its schema by identity.
  return registry().find(sig.domain, sig.name, sig.since_version);
}

const OpSignature& require(std::string_view domain, std::string_view op, int64_t opset) {
  if (const OpSignature* sig = lookup(domain, op, opset); sig && !sig->deprecated) return *sig;
  const std::string where = domain_label(canonical_domain(domain));
  const DomainIndex* d = registry().domain(domain);
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
  auto it = d->versions.find(std::string(op));
  if (it == d->versions.end()) {
    throw Error(ErrorKind::Invalid, "unknown op '" + std::string(op) + "' in " + where +
                                        " at opset " + std::to_string(opset) +
                                        did_you_mean(suggest_ops(domain, op, opset)));
  }
  const std::vector<int64_t>& versions = it->second;
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
  const DomainIndex* d = registry().domain(domain);
  if (!d) return std::nullopt;
  return d->max_opset;
}

std::optional<int64_t> earliest_opset(std::string_view domain) {
  const DomainIndex* d = registry().domain(domain);
  if (!d) return std::nullopt;
  return d->min_opset;
}

std::vector<std::string> known_domains() {
  std::vector<std::string> out;
  for (const auto& [name, index] : registry().domains()) out.push_back(name);
  std::sort(out.begin(), out.end());  // "" sorts first
  return out;
}

bool is_known_domain(std::string_view domain) {
  return registry().domain(domain) != nullptr;
}

std::vector<std::string> op_names(std::string_view domain, int64_t opset) {
  std::vector<std::string> out;
  const DomainIndex* d = registry().domain(domain);
  if (!d || opset < d->min_opset || opset > d->max_opset) return out;
  for (const auto& [name, versions] : d->versions) {
    if (versions.front() > opset) continue;
    const OpSignature* s = registry().lookup(domain, name, opset);
    if (s && !s->deprecated) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<const OpSignature*> all_signatures(std::string_view domain) {
  std::vector<const OpSignature*> out;
  const DomainIndex* d = registry().domain(domain);
  if (!d) return out;
  std::vector<std::string> names;
  for (const auto& [name, versions] : d->versions) names.push_back(name);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    for (int64_t v : d->versions.at(name)) {
      if (const OpSignature* s = registry().lookup(domain, name, v)) out.push_back(s);
    }
  }
  return out;
}

std::vector<int64_t> op_versions(std::string_view domain, std::string_view op) {
  const DomainIndex* d = registry().domain(domain);
  if (!d) return {};
  auto it = d->versions.find(std::string(op));
  return it == d->versions.end() ? std::vector<int64_t>{} : it->second;
}

}  // namespace oxs::schema
