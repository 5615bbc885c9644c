#include "oxs/schema/registry.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "oxs/ir/error.h"
#include "oxs/schema/onnx_schema.h"
#include "oxs/schema/suggest.h"

namespace oxs::schema {
namespace {

// What libonnx registered, indexed once: per domain, each op's versions.
struct DomainIndex {
  int64_t min_opset = 0;
  int64_t max_opset = 0;
  std::unordered_map<std::string, std::vector<int64_t>> versions;  // ascending
};

// One process-wide cache. libonnx's registry is built on first use and only
// read afterwards; our own maps are guarded by `mu`.
class Registry {
 public:
  Registry() {
    for (const auto& [domain, range] :
         ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map()) {
      DomainIndex& d = domains_[domain];
      d.min_opset = range.first;
      d.max_opset = range.second;
    }
    for (const ::onnx::OpSchema& s : ::onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
      auto it = domains_.find(s.domain());
      if (it == domains_.end()) continue;  // libonnx rejects these at registration anyway
      it->second.versions[s.Name()].push_back(s.since_version());
    }
    for (auto& [domain, index] : domains_) {
      for (auto& [name, versions] : index.versions) std::sort(versions.begin(), versions.end());
    }
  }

  const DomainIndex* domain(std::string_view name) const {
    auto it = domains_.find(std::string(canonical_domain(name)));
    return it == domains_.end() ? nullptr : &it->second;
  }
  const std::unordered_map<std::string, DomainIndex>& domains() const { return domains_; }

  const ::onnx::OpSchema* find(std::string_view domain_name, std::string_view op,
                               int64_t opset) const {
    const DomainIndex* d = domain(domain_name);
    if (!d || opset < d->min_opset || opset > d->max_opset) return nullptr;
    return ::onnx::OpSchemaRegistry::Schema(std::string(op), static_cast<int>(opset),
                                            std::string(canonical_domain(domain_name)));
  }

  const OpSignature* lookup(std::string_view domain_name, std::string_view op, int64_t opset) {
    std::string key;
    key.reserve(domain_name.size() + op.size() + 24);
    key.append(canonical_domain(domain_name)).push_back('\0');
    key.append(op).push_back('\0');
    key.append(std::to_string(opset));
    std::lock_guard<std::mutex> lock(mu_);
    auto hit = by_query_.find(key);
    if (hit != by_query_.end()) return hit->second;
    const OpSignature* sig = nullptr;
    if (const ::onnx::OpSchema* schema = find(domain_name, op, opset)) {
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
  std::unordered_map<std::string, DomainIndex> domains_;  // immutable after construction
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
                                        " is not supported; the linked libonnx knows opsets " +
                                        std::to_string(d->min_opset) + " to " +
                                        std::to_string(d->max_opset));
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
    const ::onnx::OpSchema* s = registry().find(domain, name, opset);
    if (s && !s->deprecated()) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> op_versions(std::string_view domain, std::string_view op) {
  const DomainIndex* d = registry().domain(domain);
  if (!d) return {};
  auto it = d->versions.find(std::string(op));
  return it == d->versions.end() ? std::vector<int64_t>{} : it->second;
}

}  // namespace oxs::schema
