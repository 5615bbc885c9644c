// noop: nodes that return their input unchanged become that input:
// Identity, Dropout in inference, Cast to the input's own type, Reshape to
// the input's own (static) shape, Transpose with the identity permutation,
// Expand to a shape the input already has, Slice that keeps everything,
// Pad with zero pads, Concat of one input. Each is a rule on its op type.
#include <fmt/format.h>

#include <limits>

#include "oxs/rewrite/core/constants.h"
#include "oxs/rewrite/core/forward.h"
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

// The static dims of a tensor value, if known.
std::optional<std::vector<int64_t>> static_dims(const ir::Value* v) {
  if (!v || !v->type().is_tensor() || !v->type().shape() || !v->type().shape()->is_static()) {
    return std::nullopt;
  }
  std::vector<int64_t> d;
  for (const ir::Dim& x : v->type().shape()->dims()) d.push_back(x.value());
  return d;
}

std::optional<std::vector<int64_t>> const_ints(const ir::Value* v) {
  auto t = constant_of(v);
  if (!t) return std::nullopt;
  return tensor_ints(*t);
}

// "" when node `n` is a no-op forwarding input 0, else why not.
using NoopTest = std::string (*)(const ir::Node& n, int64_t opset);

std::string identity_test(const ir::Node&, int64_t) {
  return "";
}

std::string dropout_test(const ir::Node& n, int64_t opset) {
  if (n.num_outputs() > 1 && n.output(1) &&
      (n.output(1)->has_uses() || n.output(1)->is_graph_output()))
    return "its mask output is used";
  if (opset < 7) {
    const ir::Attr* t = n.attr("is_test");
    if (!t || t->i == 0) return "training mode (is_test is not 1)";
  }
  if (n.num_inputs() > 2 && n.input(2)) {
    auto t = constant_of(n.input(2));
    auto v = t ? tensor_doubles(*t, 1) : std::nullopt;
    if (!v || v->size() != 1 || (*v)[0] != 0) return "training_mode is not a constant false";
  }
  return "";
}

std::string cast_test(const ir::Node& n, int64_t) {
  const ir::Attr* to = n.attr("to");
  const ir::Type& t = n.input(0)->type();
  if (!to || !t.is_tensor() || t.elem_type() == ir::DataType::Undefined)
    return "input type unknown";
  if (int64_t(t.elem_type()) != to->i) return "casts to another type";
  return "";
}

std::string reshape_test(const ir::Node& n, int64_t) {
  auto in = static_dims(n.input(0));
  auto shape = n.num_inputs() > 1 ? const_ints(n.input(1)) : std::nullopt;
  if (!in || !shape) return "input shape or target shape not known";
  const ir::Attr* az = n.attr("allowzero");
  bool allowzero = az && az->i != 0;
  if (shape->size() != in->size()) return "changes the rank";
  // With every other dim kept, a single -1 can only stand for the same dim.
  size_t inferred = 0;
  for (int64_t s : *shape) inferred += s == -1;
  for (size_t i = 0; i < in->size(); ++i) {
    int64_t s = (*shape)[i];
    if (s == 0 && !allowzero) s = (*in)[i];
    if (s == -1 && inferred == 1) s = (*in)[i];
    if (s != (*in)[i]) return fmt::format("dim {} changes", i);
  }
  return "";
}

std::string transpose_test(const ir::Node& n, int64_t) {
  const ir::Attr* p = n.attr("perm");
  if (!p) {
    auto in = static_dims(n.input(0));
    const auto& s = n.input(0)->type().shape();
    if (s && s->rank() <= 1) return "";
    return in && in->size() <= 1 ? "" : "reverses the axes";
  }
  for (size_t i = 0; i < p->ints.size(); ++i) {
    if (p->ints[i] != int64_t(i)) return "perm is not the identity";
  }
  return "";
}

std::string expand_test(const ir::Node& n, int64_t) {
  auto in = static_dims(n.input(0));
  auto shape = n.num_inputs() > 1 ? const_ints(n.input(1)) : std::nullopt;
  if (!in || !shape) return "input shape or target shape not known";
  if (shape->size() > in->size()) return "raises the rank";
  size_t off = in->size() - shape->size();
  for (size_t i = 0; i < shape->size(); ++i) {
    int64_t s = (*shape)[i], d = (*in)[off + i];
    if (s != 1 && s != d) return fmt::format("broadcasts dim {}", off + i);
  }
  return "";
}

std::string slice_test(const ir::Node& n, int64_t opset) {
  if (opset < 10) return "opset < 10 (attribute form)";
  auto in = static_dims(n.input(0));
  if (!in || n.num_inputs() < 3) return "input shape not known";
  auto starts = const_ints(n.input(1));
  auto ends = const_ints(n.input(2));
  if (!starts || !ends) return "starts/ends not constant";
  std::vector<int64_t> axes;
  if (n.num_inputs() > 3 && n.input(3)) {
    auto a = const_ints(n.input(3));
    if (!a) return "axes not constant";
    axes = *a;
  } else {
    for (size_t i = 0; i < starts->size(); ++i) axes.push_back(int64_t(i));
  }
  if (n.num_inputs() > 4 && n.input(4)) {
    auto st = const_ints(n.input(4));
    if (!st) return "steps not constant";
    for (int64_t s : *st) {
      if (s != 1) return "a step is not 1";
    }
  }
  if (axes.size() != starts->size() || ends->size() != starts->size()) return "malformed";
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t ax = axes[i] < 0 ? axes[i] + int64_t(in->size()) : axes[i];
    if (ax < 0 || ax >= int64_t(in->size())) return "axis out of range";
    int64_t d = (*in)[size_t(ax)];
    int64_t s = (*starts)[i], e = (*ends)[i];
    if (s < 0) s += d;
    if (s > 0) return fmt::format("starts at {} on axis {}", (*starts)[i], ax);
    if (e < 0) e += d;
    if (e < d) return fmt::format("ends at {} on axis {}", (*ends)[i], ax);
  }
  return "";
}

std::string pad_test(const ir::Node& n, int64_t opset) {
  std::vector<int64_t> pads;
  if (opset < 11) {
    const ir::Attr* p = n.attr("pads");
    if (!p) return "no pads";
    pads = p->ints;
  } else {
    auto p = n.num_inputs() > 1 ? const_ints(n.input(1)) : std::nullopt;
    if (!p) return "pads not constant";
    pads = *p;
  }
  for (int64_t p : pads) {
    if (p != 0) return "pads are not all zero";
  }
  return "";
}

std::string concat_test(const ir::Node& n, int64_t) {
  return n.num_inputs() == 1 ? "" : "more than one input";
}

struct NoopKind {
  const char* op;
  NoopTest test;
};

const NoopKind kNoops[] = {
    {"Identity", identity_test},   {"Dropout", dropout_test},
    {"Cast", cast_test},           {"Reshape", reshape_test},
    {"Transpose", transpose_test}, {"Expand", expand_test},
    {"Slice", slice_test},         {"Pad", pad_test},
    {"Concat", concat_test},
};

std::unique_ptr<Rule> noop_rule(const NoopKind& k) {
  std::string name = std::string("noop.") + k.op;
  NoopTest test = k.test;
  return std::make_unique<FunctionRule>(
      name, std::vector<std::string>{k.op},
      [name, test](ir::Node& n, Rewriter& rw, std::string* why) {
        if (n.num_inputs() == 0 || !n.input(0) || n.num_outputs() == 0 || !n.output(0)) {
          return no(why, "no input or output");
        }
        ir::Value* in = n.input(0);
        ir::Value* out = n.output(0);
        if (in->type().kind() != ir::Type::Kind::Tensor && n.op_type() != "Identity") {
          return no(why, "input is not a tensor");
        }
        std::string r = test(n, rw.opset(*n.graph()));
        if (!r.empty()) return no(why, r);
        if (!can_forward(*out, *in)) {
          return no(why, "its output is a graph output its input cannot stand for");
        }
        return apply_at(rw, name, n, why, [&] {
          rw.replace_all_uses(out, in);
          rw.erase_if_dead(n);
        });
      });
}

}  // namespace

std::unique_ptr<Pass> make_noop_pass(const PassOptions& o) {
  check_options("noop", o, {});
  std::vector<std::unique_ptr<Rule>> rules;
  for (const NoopKind& k : kNoops) rules.push_back(noop_rule(k));
  return std::make_unique<RuleSetPass>("noop", "remove no-op nodes", std::move(rules));
}

}  // namespace oxs::rewrite
