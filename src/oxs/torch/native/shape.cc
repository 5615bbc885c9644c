// Views and data movement: view/_unsafe_view/reshape/_reshape_alias and
// flatten (Reshape with dims that dynamic_shapes made symbolic kept), expand,
// permute/transpose, cat, stack, slice, select, unsqueeze, squeeze, clone/detach,
// split/unsafe_split/split_with_sizes, unbind, zeros/ones/full (and new_*)
// with dynamic sizes.
#include <algorithm>
#include <limits>

#include "oxs/torch/native/spec.h"

namespace oxs::torch::native {

namespace {

using builder::Var;

std::vector<Var> reshape(Context& cx) {
  Var x = cx.tensor("self");
  // The traced output sizes: exact (view's own list may hold a -1).
  return {cx.b.op("Reshape", {x, cx.reshape_shape(x)})};
}

std::vector<Var> expand(Context& cx) {
  Var x = cx.tensor("self");
  std::vector<int64_t> size = cx.out().dims;
  auto s = x.shape();
  if (!s || s->rank() > size.size()) cx.fail("expand to fewer dims than the input has");
  // Expand broadcasts: a 1 keeps the input's dim, which a dim that varies
  // with the dynamic dims must be (torch expands only size-1 dims).
  // A size-1 dim expanded to a varying size (a class token expanded to the
  // batch) reads that size from the graph input holding the dynamic dim.
  size_t off = size.size() - s->rank();
  std::vector<Var> pieces;
  std::vector<int64_t> run;
  for (size_t i = 0; i < size.size(); ++i) {
    if (!cx.out().dim_varies(i)) {
      run.push_back(size[i]);
      continue;
    }
    if (i >= off && !(*s)[i - off].is_known()) {
      run.push_back(1);
      continue;
    }
    if (!run.empty()) pieces.push_back(cx.ints(run));
    run.clear();
    pieces.push_back(cx.input_dim(size[i]));
  }
  if (pieces.empty()) return {cx.b.op("Expand", {x, cx.ints(run)})};
  if (!run.empty()) pieces.push_back(cx.ints(run));
  Var shape = pieces.size() == 1
                  ? pieces[0]
                  : cx.b.op("Concat", pieces, attr_list(ir::Attr::of_int("axis", 0)));
  return {cx.b.op("Expand", {x, shape})};
}

std::vector<Var> permute(Context& cx) {
  Var x = cx.tensor("self");
  int64_t rank = static_cast<int64_t>(*x.rank());
  std::vector<int64_t> perm = cx.get_ints("dims");
  for (int64_t& p : perm) p = normalize_axis(cx, p, rank);
  return {cx.b.op("Transpose", {x}, attr_list(ir::Attr::of_ints("perm", perm)))};
}

std::vector<Var> transpose(Context& cx) {
  Var x = cx.tensor("self");
  int64_t rank = static_cast<int64_t>(*x.rank());
  int64_t a = normalize_axis(cx, cx.get_int("dim0"), rank);
  int64_t b = normalize_axis(cx, cx.get_int("dim1"), rank);
  // torch allows dims 0 and -1 of a 0-d tensor: nothing to swap.
  if (rank == 0) return {cx.b.op("Identity", {x})};
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[a], perm[b]);
  return {cx.b.op("Transpose", {x}, attr_list(ir::Attr::of_ints("perm", perm)))};
}

std::vector<Var> cat(Context& cx) {
  std::vector<Var> xs;
  for (const Var& v : cx.tensors("tensors")) {
    // torch skips 1-D empty tensors in cat.
    auto s = v.shape();
    if (s && s->rank() == 1 && (*s)[0].is_known() && (*s)[0].value() == 0) continue;
    xs.push_back(v);
  }
  // Only empty 1-D tensors: torch's result is one of them.
  if (xs.empty()) return {cx.b.op("Identity", {cx.tensors("tensors").at(0)})};
  int64_t rank = static_cast<int64_t>(*xs[0].rank());
  int64_t axis = normalize_axis(cx, cx.get_int("dim", 0), rank);
  if (xs.size() == 1) return {cx.b.op("Identity", {xs[0]})};
  return {cx.b.op("Concat", std::move(xs), attr_list(ir::Attr::of_int("axis", axis)))};
}

// stack: Unsqueeze each tensor at dim, then Concat (no ONNX sequence).
std::vector<Var> stack(Context& cx) {
  std::vector<Var> xs = cx.tensors("tensors");
  if (xs.empty() || !xs[0]) cx.fail("stack of no tensors");
  int64_t axis = normalize_axis(cx, cx.get_int("dim", 0), static_cast<int64_t>(*xs[0].rank()) + 1);
  Var axes = cx.ints({axis});
  for (Var& x : xs) x = cx.b.op("Unsqueeze", {x, axes});
  if (xs.size() == 1) return {xs[0]};
  return {cx.b.op("Concat", std::move(xs), attr_list(ir::Attr::of_int("axis", axis)))};
}

std::vector<Var> slice(Context& cx) {
  Var x = cx.tensor("self");
  int64_t rank = static_cast<int64_t>(*x.rank());
  int64_t dim = normalize_axis(cx, cx.get_int("dim", 0), rank);
  int64_t start = cx.get_int("start", 0);
  int64_t end = cx.get_int("end", std::numeric_limits<int64_t>::max());
  int64_t step = cx.get_int("step", 1);
  if (step < 1) cx.fail("slice step must be positive");
  return {cx.b.op("Slice", {x, cx.ints({start}), cx.ints({end}), cx.ints({dim}), cx.ints({step})})};
}

std::vector<Var> select(Context& cx) {
  Var x = cx.tensor("self");
  int64_t rank = static_cast<int64_t>(*x.rank());
  int64_t dim = normalize_axis(cx, cx.get_int("dim"), rank);
  int64_t index = cx.get_int("index");
  Var i = cx.scalar(ir::DataType::Int64, static_cast<double>(index));
  return {cx.b.op("Gather", {x, i}, attr_list(ir::Attr::of_int("axis", dim)))};
}

std::vector<Var> unsqueeze(Context& cx) {
  Var x = cx.tensor("self");
  int64_t axis = normalize_axis(cx, cx.get_int("dim"), static_cast<int64_t>(*x.rank()) + 1);
  return {cx.b.op("Unsqueeze", {x, cx.ints({axis})})};
}

std::vector<Var> squeeze(Context& cx) {
  Var x = cx.tensor("self");
  int64_t rank = static_cast<int64_t>(*x.rank());
  if (!cx.has("dim")) return {cx.b.op("Squeeze", {x})};
  int64_t axis = normalize_axis(cx, cx.get_int("dim"), rank);
  if (rank == 0) return {cx.b.op("Identity", {x})};  // dim 0 or -1 of a 0-d tensor
  auto s = x.shape();
  if ((*s)[axis].is_known() && (*s)[axis].value() != 1) return {cx.b.op("Identity", {x})};
  return {cx.b.op("Squeeze", {x, cx.ints({axis})})};
}

// split.Tensor / split_with_sizes: Split with the sizes made explicit from
// the static size of the split dim (one output per traced output).
std::vector<Var> split(Context& cx) {
  Var x = cx.tensor("self");
  int64_t rank = static_cast<int64_t>(*x.rank());
  int64_t dim = normalize_axis(cx, cx.get_int("dim", 0), rank);
  if (rank == 0) cx.fail("split of a 0-d tensor");
  std::vector<int64_t> sizes;
  for (const OutMeta& o : cx.node.outputs) {
    if (o.id >= 0 && static_cast<int64_t>(o.dims.size()) != rank)
      cx.fail("an output of split has another rank");
  }
  auto s = x.shape();
  if (!s || !(*s)[dim].is_known()) cx.fail("split along a dynamic dimension is not supported");
  if (cx.has("split_sizes")) {
    sizes = cx.get_ints("split_sizes");
  } else {
    int64_t n = (*s)[dim].value(), k = cx.get_int("split_size");
    if (k <= 0) cx.fail("split_size must be positive");
    for (int64_t at = 0; at < n; at += k) sizes.push_back(std::min(k, n - at));
  }
  if (sizes.size() != cx.node.outputs.size()) {
    cx.fail("split gives " + std::to_string(sizes.size()) + " pieces, the trace " +
            std::to_string(cx.node.outputs.size()));
  }
  return cx.b.make_node("Split", {x, cx.ints(sizes)}, attr_list(ir::Attr::of_int("axis", dim)),
                        {.num_outputs = sizes.size()});
}

// unbind.int: Split into size-1 pieces along a static dim, each squeezed.
std::vector<Var> unbind(Context& cx) {
  Var x = cx.tensor("self");
  int64_t rank = static_cast<int64_t>(*x.rank());
  int64_t dim = normalize_axis(cx, cx.get_int("dim", 0), rank);
  if (rank == 0) cx.fail("unbind of a 0-d tensor");
  auto s = x.shape();
  if (!s || !(*s)[dim].is_known()) cx.fail("unbind along a dynamic dimension is not supported");
  auto n = static_cast<size_t>((*s)[dim].value());
  if (n != cx.node.outputs.size()) {
    cx.fail("unbind gives " + std::to_string(n) + " pieces, the trace " +
            std::to_string(cx.node.outputs.size()));
  }
  Var axes = cx.ints({dim});
  if (n == 1) return {cx.b.op("Squeeze", {x, axes})};
  std::vector<Var> parts =
      cx.b.make_node("Split", {x, cx.ints(std::vector<int64_t>(n, 1))},
                     attr_list(ir::Attr::of_int("axis", dim)), {.num_outputs = n});
  std::vector<Var> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(cx.used(i) ? cx.b.op("Squeeze", {parts[i], axes}) : Var());
  return out;
}

// zeros / ones / full / new_zeros / new_ones / new_full: the value expanded
// to the output's sizes, which keep the dims that vary with the dynamic dims
// (the library's functions take the traced sizes as a static attribute).
std::vector<Var> filled(Context& cx, double value) {
  Var v = cx.scalar(cx.out().dtype, value);
  return {cx.b.op("Expand", {v, cx.output_shape()})};
}

std::vector<Var> zeros(Context& cx) {
  return filled(cx, 0.0);
}

std::vector<Var> ones(Context& cx) {
  return filled(cx, 1.0);
}

std::vector<Var> full(Context& cx) {
  return filled(cx, cx.get_float("fill_value"));
}

std::vector<Var> identity(Context& cx) {
  return {cx.b.op("Identity", {cx.tensor("self")})};
}

}  // namespace

void add_shape(Library& lib) {
  add(lib, "aten::view.default", "view (Reshape)", {tensor("self"), attr("size", "ints", false)},
      reshape);
  add(lib, "aten::_unsafe_view.default", "_unsafe_view (Reshape)",
      {tensor("self"), attr("size", "ints", false)}, reshape);
  add(lib, "aten::reshape.default", "reshape (Reshape)",
      {tensor("self"), attr("shape", "ints", false)}, reshape);
  add(lib, "aten::_reshape_alias.default", "_reshape_alias (Reshape)",
      {tensor("self"), attr("size", "ints", false), attr("stride", "ints", false)}, reshape);
  add(lib, "aten::flatten.using_ints", "flatten (Reshape)",
      {tensor("self"), attr("start_dim", "int"), attr("end_dim", "int")}, reshape);
  add(lib, "aten::expand.default", "expand (Expand)",
      {tensor("self"), attr("size", "ints", false), attr("implicit", "bool")}, expand);
  add(lib, "aten::permute.default", "permute (Transpose)",
      {tensor("self"), attr("dims", "ints", false)}, permute);
  for (const char* o : {"aten::transpose.int", "aten::transpose_.default"}) {
    add(lib, o, "transpose (Transpose)",
        {tensor("self"), attr("dim0", "int", false), attr("dim1", "int", false)}, transpose);
  }
  add(lib, "aten::cat.default", "cat (Concat)",
      {attr("tensors", "tensors", false), attr("dim", "int")}, cat);
  add(lib, "aten::stack.default", "stack (Unsqueeze, Concat)",
      {attr("tensors", "tensors", false), attr("dim", "int")}, stack);
  add(lib, "aten::slice.Tensor", "slice (Slice)",
      {tensor("self"), attr("dim", "int"), attr("start", "int"), attr("end", "int"),
       attr("step", "int")},
      slice);
  add(lib, "aten::select.int", "select (Gather)",
      {tensor("self", {}, 1), attr("dim", "int", false), attr("index", "int", false)}, select);
  add(lib, "aten::split.Tensor", "split (Split)",
      {tensor("self", {}, 1), attr("split_size", "int", false), attr("dim", "int")}, split);
  add(lib, "aten::unsafe_split.Tensor", "unsafe_split (Split)",
      {tensor("self", {}, 1), attr("split_size", "int", false), attr("dim", "int")}, split);
  add(lib, "aten::unbind.int", "unbind (Split, Squeeze)",
      {tensor("self", {}, 1), attr("dim", "int")}, unbind);
  add(lib, "aten::split_with_sizes.default", "split_with_sizes (Split)",
      {tensor("self", {}, 1), attr("split_sizes", "ints", false), attr("dim", "int")}, split);
  add(lib, "aten::unsqueeze.default", "unsqueeze (Unsqueeze)",
      {tensor("self"), attr("dim", "int", false)}, unsqueeze);
  add(lib, "aten::squeeze.dim", "squeeze.dim (Squeeze)",
      {tensor("self"), attr("dim", "int", false)}, squeeze);
  add(lib, "aten::squeeze.default", "squeeze (Squeeze)", {tensor("self")}, squeeze);
  // dtype, layout, device, pin_memory: the output's type is the node's.
  std::vector<ParamSpec> creation{attr("size", "ints", false), attr("dtype", "int"),
                                  attr("layout", ""), attr("device", ""), attr("pin_memory", "")};
  std::vector<ParamSpec> filled_creation = creation;
  filled_creation.push_back(attr("fill_value", "float", false));
  std::vector<ParamSpec> like = creation;
  like.insert(like.begin(), tensor("self"));
  std::vector<ParamSpec> filled_like = filled_creation;
  filled_like.insert(filled_like.begin(), tensor("self"));
  add(lib, "aten::zeros.default", "zeros (Expand)", creation, zeros);
  add(lib, "aten::ones.default", "ones (Expand)", creation, ones);
  add(lib, "aten::full.default", "full (Expand)", filled_creation, full);
  add(lib, "aten::new_zeros.default", "new_zeros (Expand)", like, zeros);
  add(lib, "aten::new_ones.default", "new_ones (Expand)", like, ones);
  add(lib, "aten::new_full.default", "new_full (Expand)", filled_like, full);
  for (const char* o : {"aten::clone.default", "aten::detach.default", "aten::alias.default"}) {
    add(lib, o, std::string(o).substr(6) + " (Identity)",
        {tensor("self"), attr("memory_format", "")}, identity);
  }
}

}  // namespace oxs::torch::native
