// Checking a node against a signature from oxs's table (op versions newer
// than libonnx 1.12's): the same rules as signature.cc applies to libonnx
// schemas, from our IR-only OpSignature. A type the version does not allow
// is an error naming the op version, the input and the type.
#include <algorithm>
#include <climits>

#include "oxs/infer/impl.h"
#include "oxs/ir/error.h"
#include "oxs/schema/suggest.h"

namespace oxs::infer {
namespace {

[[noreturn]] void fail(const ir::Node& n, const std::string& msg) {
  throw Error(ErrorKind::Invalid, node_label(n) + ": " + msg, {.node = n.name()});
}

std::string join(const std::vector<std::string>& xs) {
  std::string out;
  for (const auto& x : xs) out += (out.empty() ? "" : ", ") + x;
  return out;
}

bool same_family(const ir::Type& a, const ir::Type& b) {
  if (a.kind() != b.kind() || a.elem_type() != b.elem_type()) return false;
  if (!a.element() || !b.element()) return !a.element() && !b.element();
  return same_family(*a.element(), *b.element());
}

}  // namespace

void Inferencer::Impl::check_table_signature(const ir::Node& n, const schema::OpSignature& sig) {
  const std::string op = sig.display_name();
  size_t count = n.num_inputs();
  while (count > 0 && !n.input(count - 1)) --count;
  if (static_cast<int64_t>(count) > sig.max_input) {
    fail(n, op + " takes at most " + std::to_string(sig.max_input) + " inputs, got " +
                std::to_string(count));
  }
  for (size_t j = 0; j < sig.inputs.size(); ++j) {
    const auto& p = sig.inputs[j];
    if (p.option == schema::ParamOption::Single && (j >= count || !n.input(j))) {
      fail(n, "input " + std::to_string(j) + " (" + p.name + ") of " + op + " is required but " +
                  (j >= count ? "missing" : "omitted"));
    }
  }
  if (static_cast<int64_t>(n.num_outputs()) > sig.max_output ||
      static_cast<int64_t>(n.num_outputs()) < sig.min_output) {
    fail(n, op + " has " + std::to_string(sig.min_output) + " to " +
                (sig.max_output == INT_MAX ? std::string("any number of")
                                           : std::to_string(sig.max_output)) +
                " outputs, the node has " + std::to_string(n.num_outputs()));
  }
  for (const ir::Attr& a : n.attrs()) {
    if (a.name.rfind("__", 0) == 0) continue;
    const schema::AttrParam* p = sig.find_attr(a.name);
    if (!p) {
      std::vector<std::string> names;
      for (const auto& x : sig.attributes) names.push_back(x.name);
      fail(n, op + " has no attribute '" + a.name + "'" +
                  schema::did_you_mean(schema::suggest_attrs(sig, a.name)) +
                  (names.empty() ? " (it takes none)" : " (attributes: " + join(names) + ")"));
    }
    if (!a.is_reference() && a.type != p->type) {
      fail(n, "attribute '" + a.name + "' of " + op + " must be of type " +
                  ir::attr_type_name(p->type) + ", got " + ir::attr_type_name(a.type));
    }
  }
  for (const schema::AttrParam& p : sig.attributes) {
    if (p.required && !n.attr(p.name)) {
      fail(n, op + " requires attribute '" + p.name + "' (" + ir::attr_type_name(p.type) + ")");
    }
  }
  // Type constraints: each typed input allowed, homogeneous bindings agree.
  struct Binding {
    const std::string* param;
    const ir::Type* type;
    size_t input;
  };
  std::vector<Binding> bound;
  for (size_t i = 0; i < count && !sig.inputs.empty(); ++i) {
    const ir::Value* v = n.input(i);
    if (!v || v->type().is_none()) continue;
    if (v->type().is_tensor() && v->type().elem_type() == ir::DataType::Undefined) continue;
    const auto& p = sig.inputs[std::min(i, sig.inputs.size() - 1)];
    const schema::TypeConstraint* c = sig.find_type_constraint(p.type_constraint);
    if (!c) continue;
    bool ok = false;
    for (const ir::Type& t : c->allowed_types) ok = ok || same_family(t, v->type());
    if (!ok) {
      fail(n, "input " + std::to_string(i) + " (" + p.name + ") of " + op + " has type " +
                  v->type().to_string() + ", which type constraint " + c->name +
                  " does not allow (allowed: " + join(c->allowed_type_strs) + ")");
    }
    if (p.option == schema::ParamOption::Variadic && !p.is_homogeneous) continue;
    auto it = std::find_if(bound.begin(), bound.end(),
                           [&](const Binding& b) { return *b.param == c->name; });
    if (it == bound.end()) {
      bound.push_back({&c->name, &v->type(), i});
    } else if (!same_family(*it->type, v->type())) {
      fail(n, "type constraint " + c->name + " of " + op + " is bound to " + it->type->to_string() +
                  " by input " + std::to_string(it->input) + " but to " + v->type().to_string() +
                  " by input " + std::to_string(i) +
                  "; make them agree (e.g. with Cast or CastLike)");
    }
  }
}

}  // namespace oxs::infer
