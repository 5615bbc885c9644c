// Harness (b), structure-aware: the bytes choose an op of any domain the
// schemas know (every since_version, ai.onnx 1-28; or the input's first line
// names it: "#op :Reshape-5" fixes the version, "#op :Pad" lets the next
// byte choose among the op's versions, as the corpus files do), then,
// following its signature, the number of inputs and outputs, a type per
// type constraint (tensors of every element type of ONNX 1.23, sequences,
// optionals, maps), shapes (rank 0-4, dims 0-4) and values per input
// (single_op/values.h), and which attributes to set and to what
// (single_op/attrs.h), graph attributes last (single_op/bodies.h: If
// branches, Loop and Scan bodies shaped from the node). The one-node model
// runs on the evaluator, which must answer with outputs or an oxs::Error.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/byte_reader.h"
#include "fuzz/harness.h"
#include "fuzz/single_op/attrs.h"
#include "fuzz/single_op/bodies.h"
#include "fuzz/single_op/case.h"
#include "fuzz/single_op/values.h"
#include "oxs/eval/session.h"
#include "oxs/ir/error.h"
#include "oxs/ir/model.h"
#include "oxs/schema/ir_version.h"
#include "oxs/schema/registry.h"

namespace oxs::fuzz {
namespace {

// The types of the op's type constraints. Each constraint that allows
// tensors gets its type up front, in the schema's order: in the corpus'
// fixed-version files ("#op :Reshape-5", `extended` false) among its tensor
// types only, as the harness always chose, so those files keep their cases;
// in versionless ones among all its types (sequences, optionals, maps too).
// A constraint with no tensor types (seq(tensor(float)), map(int64, float))
// chooses when an input first needs it. Sparse tensors are never chosen:
// the evaluator takes no sparse inputs.
class TypeChoice {
 public:
  TypeChoice(const schema::OpSignature& sig, bool extended, ByteReader& r) : sig_(sig), r_(r) {
    for (const schema::TypeConstraint& c : sig.type_constraints) {
      std::vector<ir::Type> pool;
      for (const ir::Type& t : usable(c)) {
        if (extended || t.is_tensor()) pool.push_back(t);
      }
      if (!pool.empty()) chosen_[c.name] = r.pick(pool);
    }
  }

  // The type of a formal parameter: its constraint's choice, or the type it
  // names ("tensor(int64)").
  std::optional<ir::Type> of(const schema::FormalParam& p) {
    if (auto it = chosen_.find(p.type_constraint); it != chosen_.end()) return it->second;
    if (const schema::TypeConstraint* c = sig_.find_type_constraint(p.type_constraint)) {
      std::vector<ir::Type> pool = usable(*c);
      if (pool.empty()) return std::nullopt;
      return chosen_[c->name] = r_.pick(pool);
    }
    const std::string& s = p.type_constraint;
    if (s.rfind("tensor(", 0) == 0 && s.back() == ')') {
      if (auto dt = ir::parse_dtype(std::string_view(s).substr(7, s.size() - 8))) {
        return ir::Type::tensor(*dt);
      }
    }
    return std::nullopt;
  }

  // The element types chosen so far (for attribute tensors).
  std::vector<ir::DataType> dtypes() const {
    std::vector<ir::DataType> out;
    for (const auto& [name, t] : chosen_) {
      const ir::Type* e = &t;
      while (e->element() && e->kind() != ir::Type::Kind::Map) e = e->element();
      if (e->is_tensor()) out.push_back(e->elem_type());
    }
    return out;
  }

 private:
  static std::vector<ir::Type> usable(const schema::TypeConstraint& c) {
    std::vector<ir::Type> out;
    for (const ir::Type& t : c.allowed_types) {
      if (t.kind() != ir::Type::Kind::SparseTensor && !t.is_none()) out.push_back(t);
    }
    return out;
  }

  const schema::OpSignature& sig_;
  ByteReader& r_;
  std::map<std::string, ir::Type> chosen_;
};

// The ai.onnx opset imported beside another domain's op: the one released
// with it, so function bodies and nested ops resolve.
int64_t companion_opset(const OpVersion& op) {
  if (op.domain == "ai.onnx.ml") return op.version <= 3 ? 17 : op.version == 4 ? 19 : 21;
  if (op.domain == "ai.onnx.preview") return schema::latest_opset("").value_or(17);
  return 17;
}

// "#op DOMAIN:OP-VERSION\n" or "#op DOMAIN:OP\n" at the start of an input
// names its op, so the corpus keeps meaning the same case when the op table
// grows (an index into the table does not: every op added shifts the ones
// after it). Without a version (0 here) the first choice byte picks one of
// the op's versions. `pos` is set past the line.
std::optional<OpVersion> named_op(const uint8_t* data, size_t size, size_t& pos) {
  const std::string_view text(reinterpret_cast<const char*>(data), std::min<size_t>(size, 200));
  if (text.substr(0, 4) != "#op ") return std::nullopt;
  const size_t end = text.find('\n'), colon = text.find(':');
  if (end == std::string_view::npos || colon > end) return std::nullopt;
  std::string_view name = text.substr(colon + 1, end - colon - 1);
  int64_t version = 0;
  if (const size_t dash = name.rfind('-'); dash != std::string_view::npos) {
    if (dash + 1 >= name.size()) return std::nullopt;
    for (size_t i = dash + 1; i < name.size(); ++i) {
      if (name[i] < '0' || name[i] > '9' || version > 1000) return std::nullopt;
      version = version * 10 + (name[i] - '0');
    }
    name = name.substr(0, dash);
  }
  pos = end + 1;
  return OpVersion{std::string(text.substr(4, colon - 4)), std::string(name), version};
}

std::string describe_attr(const ir::Attr& a) {
  std::string out = a.name + "=" + ir::attr_type_name(a.type);
  if (a.type == ir::AttrType::Int) out += ":" + std::to_string(a.i);
  if (a.type == ir::AttrType::TypeProto) out += ":" + a.tp.to_string();
  if (a.g) {
    out += "(";
    for (const ir::Node* n : a.g->nodes()) out += n->op_type() + ",";
    out += ")";
  }
  return out;
}

std::string describe_case(const std::map<std::string, eval::Value>& feeds, const ir::Node& node) {
  std::string out = "in:";
  for (const auto& [name, v] : feeds) out += " " + v.describe();
  out += "; attrs:";
  for (const ir::Attr& a : node.attrs()) out += " " + describe_attr(a);
  return out;
}

}  // namespace

const std::vector<OpVersion>& single_op_table() {
  static const std::vector<OpVersion> ops = [] {
    std::vector<OpVersion> out;
    for (const std::string& domain : schema::known_domains()) {
      const int64_t first = schema::earliest_opset(domain).value_or(1);
      const int64_t latest = schema::latest_opset(domain).value_or(0);
      std::vector<std::string> names;
      for (int64_t v = first; v <= latest; ++v) {
        for (std::string& n : schema::op_names(domain, v)) names.push_back(std::move(n));
      }
      std::sort(names.begin(), names.end());
      names.erase(std::unique(names.begin(), names.end()), names.end());
      for (const std::string& n : names) {
        for (int64_t v : schema::op_versions(domain, n)) out.push_back({domain, n, v});
      }
    }
    return out;
  }();
  return ops;
}

CaseReport run_single_op_case(const uint8_t* data, size_t size, bool describe) {
  CaseReport report;
  const std::vector<OpVersion>& ops = single_op_table();
  if (ops.empty()) return report;
  size_t pos = 0;
  std::optional<OpVersion> named = named_op(data, size, pos);
  if (!named && size >= 4 && std::string_view(reinterpret_cast<const char*>(data), 4) == "#op ") {
    return report;  // a mangled op line: no case
  }
  ByteReader r(data + pos, size - pos);
  OpVersion which = named ? *named : ops[r.below(ops.size())];
  ShapeChooser shapes = ShapeChooser::independent();
  const bool extended = which.version == 0;
  if (extended) {
    const std::vector<int64_t> versions = schema::op_versions(which.domain, which.op);
    if (versions.empty()) return report;
    which.version = r.pick(versions);
    shapes = ShapeChooser::related(r);
  }
  report.op = which;
  const schema::OpSignature* sig = schema::lookup(which.domain, which.op, which.version);
  if (!sig) return report;
  // Hostile sizes must meet the evaluator's limits, not exhaust the machine
  // or hang: one tensor, all of a run's tensors, and the run's time.
  eval::set_allocation_limit(int64_t{64} << 20);
  eval::SessionOptions options;
  options.max_live_bytes = int64_t{256} << 20;
  options.max_seconds = 0.5;
  options.threads = 1;

  static const bool verbose = std::getenv("OXS_FUZZ_VERBOSE") != nullptr;
  report.outcome = CaseOutcome::NotBuilt;
  try {
    ir::Model model;
    model.opset_imports = {{which.domain, which.version}};
    if (!which.domain.empty()) model.opset_imports.push_back({"", companion_opset(which)});
    ir::Graph& g = *model.graph;
    g.set_name("fuzz");
    TypeChoice types(*sig, extended, r);
    std::map<std::string, eval::Value> feeds;
    std::vector<ir::Value*> inputs;
    for (size_t i = 0; i < sig->inputs.size(); ++i) {
      const schema::FormalParam& p = sig->inputs[i];
      size_t count = 1;
      if (p.option == schema::ParamOption::Optional) count = r.flag() ? 1 : 0;
      if (p.option == schema::ParamOption::Variadic) count = size_t(p.min_arity) + r.below(3);
      for (size_t k = 0; k < count; ++k) {
        std::optional<ir::Type> type = types.of(p);
        if (!type) return report;  // a type the schema names in a way not read here
        std::optional<eval::Value> value = random_value(*type, r, &shapes);
        if (!value) return report;
        const std::string name = "in" + std::to_string(inputs.size());
        inputs.push_back(g.add_input(name, *type));
        feeds[name] = std::move(*value);
      }
      if (count == 0 && i + 1 < sig->inputs.size()) inputs.push_back(nullptr);  // skipped optional
    }
    while (!inputs.empty() && !inputs.back()) inputs.pop_back();
    size_t outputs = size_t(std::max(sig->min_output, 1));
    if (sig->max_output > sig->min_output) {
      outputs += r.below(size_t(std::min(sig->max_output, 4)));
    }
    ir::Node* node = g.create_node(which.op, inputs, outputs, which.domain);
    const std::vector<ir::DataType> dtypes = types.dtypes();
    std::vector<const schema::AttrParam*> graphs;
    for (const schema::AttrParam& p : sig->attributes) {
      if (!p.required && !r.flag()) continue;
      if (is_graph_attr(p.type)) {
        if (!extended) (void)r.byte();  // where the harness used to read (and drop) one
        graphs.push_back(&p);
        continue;
      }
      ir::Attr a = random_attr(p, dtypes, extended, r);
      if (a.type != ir::AttrType::Undefined) node->set_attr(std::move(a));
    }
    // Bodies last: their shape follows the node's other attributes
    // (Scan's num_scan_inputs).
    for (const schema::AttrParam* p : graphs) {
      if (p->type == ir::AttrType::Graph) {
        node->set_attr(ir::Attr::of_graph(p->name, random_body(*node, p->name, which.version, r)));
      } else {
        ir::Attr a(p->name, p->type);
        for (size_t i = 0, n = r.below(3); i < n; ++i) {
          a.graphs.push_back(random_body(*node, p->name, which.version, r));
        }
        node->set_attr(std::move(a));
      }
    }
    for (size_t i = 0; i < node->num_outputs(); ++i) g.add_output(node->output(i));
    model.ir_version = schema::min_ir_version(model);
    if (describe || verbose) report.description = describe_case(feeds, *node);

    if (verbose) {
      std::fprintf(stderr, "single_op: %s%s%s-%lld, %zu inputs, %zu attributes\n",
                   which.domain.c_str(), which.domain.empty() ? "" : ".", which.op.c_str(),
                   static_cast<long long>(which.version), inputs.size(), node->attrs().size());
      std::fprintf(stderr, "single_op: %s\n", report.description.c_str());
    }
    report.outcome = CaseOutcome::Refused;
    eval::Session session(model, options);
    report.outcome = CaseOutcome::Failed;
    (void)session.run(feeds);
    report.outcome = CaseOutcome::Ran;
  } catch (const Error& e) {
    report.message = e.what();
  }
  if (verbose) {
    static const char* names[] = {"no case", "not built", "refused", "failed", "ran"};
    std::fprintf(stderr, "single_op: %s%s%s\n", names[int(report.outcome)],
                 report.message.empty() ? "" : ": ", report.message.c_str());
  }
  return report;
}

void single_op(const uint8_t* data, size_t size) {
  (void)run_single_op_case(data, size);
}

}  // namespace oxs::fuzz
