// shape-fold: shape computations whose answer the types already know become
// constants: Shape(x) of a static shape (with opset 15's start/end), Size(x)
// of a static shape, and Gather(Shape(x), indices) when the gathered dims
// are known even if others are symbolic (symbolic dims are never invented:
// what is not known stays computed).
#include <fmt/format.h>

#include "oxs/rewrite/core/constants.h"
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

const ir::Shape* shape_of(const ir::Value* v) {
  if (!v || !v->type().is_tensor() || !v->type().shape()) return nullptr;
  return &*v->type().shape();
}

// Shape's [start, end) range (opset 15), clamped as the spec says.
std::pair<int64_t, int64_t> shape_range(const ir::Node& n, int64_t rank) {
  auto clamp = [rank](int64_t v) {
    if (v < 0) v += rank;
    return std::min(std::max<int64_t>(v, 0), rank);
  };
  const ir::Attr* s = n.attr("start");
  const ir::Attr* e = n.attr("end");
  return {s ? clamp(s->i) : 0, e ? clamp(e->i) : rank};
}

ir::Tensor int64_tensor(std::vector<int64_t> v, bool scalar) {
  std::vector<int64_t> dims;
  if (!scalar) dims.push_back(int64_t(v.size()));
  return ir::Tensor::from<int64_t>(ir::DataType::Int64, dims, v);
}

bool replace_with_constant(ir::Node& n, Rewriter& rw, std::string* why, const char* rule,
                           ir::Tensor t) {
  if (n.output(0)->is_graph_output()) return no(why, "its output is a graph output");
  return apply_at(rw, rule, n, why, [&] {
    ir::Value* c = rw.constant(n, std::move(t), n.output(0)->name());
    rw.replace_all_uses(n.output(0), c);
    rw.erase_if_dead(n);
  });
}

bool fold_shape(ir::Node& n, Rewriter& rw, std::string* why) {
  const ir::Shape* s = shape_of(n.input(0));
  if (!s) return no(why, "the input's shape is unknown");
  auto [b, e] = shape_range(n, int64_t(s->rank()));
  std::vector<int64_t> dims;
  for (int64_t i = b; i < e; ++i) {
    if (!(*s)[size_t(i)].is_known()) return no(why, fmt::format("dim {} is not static", i));
    dims.push_back((*s)[size_t(i)].value());
  }
  return replace_with_constant(n, rw, why, "shape-fold.Shape", int64_tensor(dims, false));
}

bool fold_size(ir::Node& n, Rewriter& rw, std::string* why) {
  const ir::Shape* s = shape_of(n.input(0));
  if (!s || !s->numel()) return no(why, "the input's shape is not static");
  return replace_with_constant(n, rw, why, "shape-fold.Size", int64_tensor({*s->numel()}, true));
}

bool fold_gather(ir::Node& n, Rewriter& rw, std::string* why) {
  const ir::Node* shape = n.input(0) ? n.input(0)->producer() : nullptr;
  if (!shape || shape->op_type() != "Shape" || !shape->domain().empty()) {
    return no(why, "input 0 is not a Shape");
  }
  const ir::Attr* axis = n.attr("axis");
  if (axis && axis->i != 0) return no(why, "axis is not 0");
  auto idx_t = constant_of(n.num_inputs() > 1 ? n.input(1) : nullptr);
  auto idx = idx_t ? tensor_ints(*idx_t) : std::nullopt;
  if (!idx || idx_t->dims().size() > 1) return no(why, "indices are not a constant of rank <= 1");
  const ir::Shape* s = shape_of(shape->input(0));
  if (!s) return no(why, "the shape's input has no known rank");
  auto [b, e] = shape_range(*shape, int64_t(s->rank()));
  std::vector<int64_t> out;
  for (int64_t i : *idx) {
    int64_t len = e - b;
    if (i < 0) i += len;
    if (i < 0 || i >= len) return no(why, "an index is out of range");
    const ir::Dim& d = (*s)[size_t(b + i)];
    if (!d.is_known()) return no(why, fmt::format("gathered dim {} is {}", b + i, d.to_string()));
    out.push_back(d.value());
  }
  return replace_with_constant(n, rw, why, "shape-fold.GatherShape",
                               int64_tensor(out, idx_t->dims().empty()));
}

}  // namespace

std::unique_ptr<Pass> make_shape_fold_pass(const PassOptions& o) {
  check_options("shape-fold", o, {});
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(std::make_unique<FunctionRule>("shape-fold.Shape",
                                                 std::vector<std::string>{"Shape"}, fold_shape));
  rules.push_back(std::make_unique<FunctionRule>("shape-fold.Size",
                                                 std::vector<std::string>{"Size"}, fold_size));
  rules.push_back(std::make_unique<FunctionRule>("shape-fold.GatherShape",
                                                 std::vector<std::string>{"Gather"}, fold_gather));
  return std::make_unique<RuleSetPass>("shape-fold", "shape folding", std::move(rules));
}

}  // namespace oxs::rewrite
