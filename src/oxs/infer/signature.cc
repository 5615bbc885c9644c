// Checking a node against its operator schema (or a model-local function's
// signature) before inference: input count, omitted required inputs, attribute
// names and types, and type constraints binding consistently across inputs.
// Messages name the op and the offending input or attribute, and suggest the
// closest attribute name for a misspelt one.
#include <onnx/defs/schema.h>

#include <algorithm>

#include "oxs/infer/impl.h"
#include "oxs/ir/error.h"
#include "oxs/schema/registry.h"

namespace oxs::infer {

namespace {

using Formal = ::onnx::OpSchema::FormalParameter;

[[noreturn]] void fail(const ir::Node& n, const std::string& msg) {
  throw Error(ErrorKind::Invalid, node_label(n) + ": " + msg, {.node = n.name()});
}

std::string join(const std::vector<std::string>& xs, const char* sep = ", ") {
  std::string out;
  for (const auto& x : xs) {
    if (!out.empty()) out += sep;
    out += x;
  }
  return out;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  auto close = suggest(name, candidates);
  if (close.empty()) return {};
  std::vector<std::string> quoted;
  for (auto& c : close) quoted.push_back("'" + c + "'");
  return "; did you mean " + join(quoted, " or ") + "?";
}

std::string formal_list(const std::vector<Formal>& fs) {
  std::vector<std::string> names;
  for (const auto& f : fs) {
    std::string s = f.GetName();
    if (f.GetOption() == ::onnx::OpSchema::Optional) s += "?";
    if (f.GetOption() == ::onnx::OpSchema::Variadic) s += "...";
    names.push_back(s);
  }
  return join(names);
}

std::string input_label(const ir::Node& n, size_t i, const std::vector<Formal>& fs) {
  std::string s = "input " + std::to_string(i);
  if (!fs.empty()) s += " (" + fs[std::min(i, fs.size() - 1)].GetName() + ")";
  if (n.input(i) && !n.input(i)->name().empty()) s += " '" + n.input(i)->name() + "'";
  return s;
}

void check_attributes(const ::onnx::OpSchema& s, const ir::Node& n) {
  const auto& schema_attrs = s.attributes();
  for (const auto& a : n.attrs()) {
    auto it = schema_attrs.find(a.name);
    if (it == schema_attrs.end()) {
      // A few schemas accept any extra attribute (schema/ probes which).
      const schema::OpSignature* sig = schema::lookup(s.domain(), s.Name(), s.since_version());
      if (sig && sig->allows_unchecked_attributes) continue;
      std::vector<std::string> names;
      for (const auto& [k, v] : schema_attrs) names.push_back(k);
      std::string msg =
          n.op_type() + " has no attribute '" + a.name + "'" + did_you_mean(a.name, names);
      msg += names.empty() ? " (it takes no attributes)" : " (attributes: " + join(names) + ")";
      fail(n, msg);
    }
    auto want = static_cast<ir::AttrType>(it->second.type);
    if (a.type != want) {
      fail(n, "attribute '" + a.name + "' of " + n.op_type() + " must be of type " +
                  ir::attr_type_name(want) + ", got " + ir::attr_type_name(a.type));
    }
  }
  for (const auto& [name, sa] : schema_attrs) {
    if (sa.required && !n.attr(name)) {
      fail(n, n.op_type() + " requires attribute '" + name + "' (" +
                  ir::attr_type_name(static_cast<ir::AttrType>(sa.type)) + ")");
    }
  }
}

void check_inputs(const ::onnx::OpSchema& s, const ir::Node& n) {
  const auto& fs = s.inputs();
  size_t count = n.num_inputs();
  while (count > 0 && !n.input(count - 1)) --count;  // trailing omitted optionals
  bool variadic = !fs.empty() && fs.back().GetOption() == ::onnx::OpSchema::Variadic;
  if (!variadic && count > fs.size()) {
    fail(n, n.op_type() + " takes at most " + std::to_string(fs.size()) + " inputs (" +
                formal_list(fs) + "), got " + std::to_string(count));
  }
  for (size_t j = 0; j < fs.size(); ++j) {
    const auto& f = fs[j];
    if (f.GetOption() == ::onnx::OpSchema::Single && (j >= count || !n.input(j))) {
      fail(n, "input " + std::to_string(j) + " (" + f.GetName() + ") of " + n.op_type() +
                  " is required but " + (j >= count ? "missing" : "omitted") + "; " + n.op_type() +
                  " takes (" + formal_list(fs) + "), got " + std::to_string(count) + " input(s)");
    }
    if (f.GetOption() == ::onnx::OpSchema::Variadic) {
      size_t have = count > j ? count - j : 0;
      if (have < static_cast<size_t>(std::max(f.GetMinArity(), 0))) {
        fail(n, n.op_type() + " needs at least " + std::to_string(f.GetMinArity()) +
                    " value(s) for variadic input " + f.GetName() + ", got " +
                    std::to_string(have));
      }
    }
  }
  // Type constraints: each input's type must be allowed, and every input of
  // one type parameter must bind it to the same type.
  // A handful of type parameters per op: linear scans, no per-node maps.
  const auto& constraints = s.typeConstraintParams();
  struct Binding {
    const std::string* param;
    std::string type;
    size_t input;
  };
  std::vector<Binding> bound;
  for (size_t i = 0; i < count && !fs.empty(); ++i) {
    const ir::Value* v = n.input(i);
    if (!v) continue;
    auto ts = type_string(v->type());
    if (!ts) continue;
    const Formal& f = fs[std::min(i, fs.size() - 1)];
    const std::string& param = f.GetTypeStr();
    auto al = std::find_if(constraints.begin(), constraints.end(),
                           [&](const auto& tc) { return tc.type_param_str == param; });
    if (al == constraints.end()) {
      if (*ts != param) {
        fail(n,
             input_label(n, i, fs) + " of " + n.op_type() + " must be " + param + ", got " + *ts);
      }
      continue;
    }
    const auto& ok = al->allowed_type_strs;
    if (std::find(ok.begin(), ok.end(), *ts) == ok.end()) {
      fail(n, input_label(n, i, fs) + " of " + n.op_type() + " has type " + *ts +
                  ", which type constraint " + param + " does not allow (allowed: " + join(ok) +
                  ")");
    }
    bool homogeneous = f.GetOption() != ::onnx::OpSchema::Variadic || f.GetIsHomogeneous();
    if (!homogeneous) continue;
    auto it = std::find_if(bound.begin(), bound.end(),
                           [&](const Binding& b) { return *b.param == param; });
    if (it == bound.end()) {
      bound.push_back({&param, *ts, i});
    } else if (it->type != *ts) {
      fail(n, "type constraint " + param + " of " + n.op_type() + " is bound to " + it->type +
                  " by " + input_label(n, it->input, fs) + " but to " + *ts + " by " +
                  input_label(n, i, fs) + "; make them agree (e.g. with Cast or CastLike)");
    }
  }
}

void check_function_call(const ir::Function& fn, const ir::Node& n) {
  size_t count = n.num_inputs();
  while (count > 0 && !n.input(count - 1)) --count;
  if (count > fn.body->inputs().size()) {
    fail(n, "function '" + fn.name + "' takes " + std::to_string(fn.body->inputs().size()) +
                " inputs, got " + std::to_string(count));
  }
  if (n.num_outputs() > fn.body->outputs().size()) {
    fail(n, "function '" + fn.name + "' has " + std::to_string(fn.body->outputs().size()) +
                " outputs, the call asks for " + std::to_string(n.num_outputs()));
  }
  for (const auto& a : n.attrs()) {
    if (std::find(fn.attributes.begin(), fn.attributes.end(), a.name) == fn.attributes.end()) {
      std::string msg = "function '" + fn.name + "' has no attribute parameter '" + a.name + "'" +
                        did_you_mean(a.name, fn.attributes);
      msg +=
          fn.attributes.empty() ? " (it takes none)" : " (parameters: " + join(fn.attributes) + ")";
      fail(n, msg);
    }
  }
}

}  // namespace

void Inferencer::Impl::check_node(const ir::Node& n, const Frame& f) {
  if (const ir::Function* fn = find_function(n)) {
    check_function_call(*fn, n);
    return;
  }
  if (const ::onnx::OpSchema* s = find_schema(n, f)) check_schema(*s, n);
}

void Inferencer::Impl::check_schema(const ::onnx::OpSchema& s, const ir::Node& n) {
  check_inputs(s, n);
  check_attributes(s, n);
  int max_out = s.max_output();
  if (static_cast<int64_t>(n.num_outputs()) > max_out) {
    fail(n, n.op_type() + " has at most " + std::to_string(max_out) + " output(s), the node has " +
                std::to_string(n.num_outputs()));
  }
  if (static_cast<int64_t>(n.num_outputs()) < s.min_output()) {
    fail(n, n.op_type() + " has at least " + std::to_string(s.min_output()) +
                " output(s), the node has " + std::to_string(n.num_outputs()));
  }
}

}  // namespace oxs::infer
