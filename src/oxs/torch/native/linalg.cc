// Matrix products: addmm (Gemm, with a transposed weight folded into transB),
// mm, bmm and matmul (MatMul), t (Transpose).
#include "oxs/torch/native/spec.h"

namespace oxs::torch::native {

namespace {

using builder::Var;

// x itself when it is Transpose(y, perm=[1,0]): y, else null.
Var transposed_source(const Var& x) {
  const ir::Node* p = x.value()->producer();
  if (!p || p->op_type() != "Transpose" || !p->domain().empty() || p->num_inputs() != 1) return {};
  const ir::Attr* perm = p->attr("perm");
  if (!perm || perm->ints != std::vector<int64_t>{1, 0}) return {};
  return Var(x.builder(), p->input(0));
}

std::vector<Var> addmm(Context& cx) {
  Var c = cx.tensor("self"), a = cx.tensor("mat1"), m = cx.tensor("mat2");
  double beta = cx.get_float("beta", 1.0), alpha = cx.get_float("alpha", 1.0);
  std::vector<ir::Attr> attrs;
  if (alpha != 1.0) attrs.push_back(ir::Attr::of_float("alpha", static_cast<float>(alpha)));
  if (beta != 1.0) attrs.push_back(ir::Attr::of_float("beta", static_cast<float>(beta)));
  if (Var src = transposed_source(m)) {
    m = src;
    attrs.push_back(ir::Attr::of_int("transB", 1));
  }
  if (beta == 0.0) return {cx.b.op("Gemm", {a, m}, std::move(attrs))};
  return {cx.b.op("Gemm", {a, m, c}, std::move(attrs))};
}

// linear(input, weight, bias): Gemm with transB for a matrix input, else
// MatMul by the transposed weight (plus Add).
std::vector<Var> linear(Context& cx) {
  Var x = cx.tensor("input"), w = cx.tensor("weight"), bias = cx.optional_tensor("bias");
  if (*x.rank() == 2 && *w.rank() == 2) {
    std::vector<Var> in{x, w};
    if (bias) in.push_back(bias);
    return {cx.b.op("Gemm", std::move(in), attr_list(ir::Attr::of_int("transB", 1)))};
  }
  Var wt =
      *w.rank() < 2 ? w : cx.b.op("Transpose", {w}, attr_list(ir::Attr::of_ints("perm", {1, 0})));
  Var y = cx.b.op("MatMul", {x, wt});
  if (bias) y = cx.b.op("Add", {y, bias});
  return {y};
}

std::vector<Var> matmul(Context& cx) {
  return {cx.b.op("MatMul", {cx.tensor("self"), cx.tensor(cx.has("mat2") ? "mat2" : "other")})};
}

std::vector<Var> t(Context& cx) {
  Var x = cx.tensor("self");
  if (x.rank() && *x.rank() < 2) return {cx.b.op("Identity", {x})};
  return {cx.b.op("Transpose", {x}, attr_list(ir::Attr::of_ints("perm", {1, 0})))};
}

}  // namespace

void add_linalg(Library& lib) {
  auto f = float_types();
  // MatMul also multiplies int32 and int64 matrices (torch does on CPU).
  auto m = float_types();
  m.push_back(ir::DataType::Int32);
  m.push_back(ir::DataType::Int64);
  add(lib, "aten::addmm.default", "addmm (Gemm)",
      {tensor("self", f, 0, 2), tensor("mat1", f, 2, 2), tensor("mat2", f, 2, 2),
       attr("beta", "float"), attr("alpha", "float")},
      addmm);
  add(lib, "aten::linear.default", "linear (Gemm or MatMul)",
      {tensor("input", f, 1), tensor("weight", f, 1, 2), optional_tensor("bias", f)}, linear);
  add(lib, "aten::mm.default", "mm (MatMul)", {tensor("self", m, 2, 2), tensor("mat2", m, 2, 2)},
      matmul);
  add(lib, "aten::bmm.default", "bmm (MatMul)", {tensor("self", m, 3, 3), tensor("mat2", m, 3, 3)},
      matmul);
  add(lib, "aten::matmul.default", "matmul (MatMul)", {tensor("self", m, 1), tensor("other", m, 1)},
      matmul);
  add(lib, "aten::t.default", "t (Transpose)", {tensor("self", {}, 0, 2)}, t);
}

}  // namespace oxs::torch::native
