// The front end's native functions. aten::scaled_dot_product_attention:
// ONNX Attention (opset 23) at opset 23 and above, below it the
// decomposition softmax(Q K^T * scale + mask) V. aten::slice.Tensor whose
// bounds may be sizes that vary with the dynamic dims (x[:, :n]).
// The tracer records the op whole only when asked for opset 23 (torch's own
// decomposition is what it records otherwise); ExportedPrograms keep it when
// a function takes it (_decomp.py), so both forms are needed.
#include <cmath>
#include <limits>
#include <memory>

#include "oxs/torch/context.h"
#include "oxs/torch/library.h"

namespace oxs::torch {

namespace {

using builder::Var;

Var shape_slice(Context& cx, const Var& x, int64_t start, int64_t end) {
  return cx.b.op("Shape", {x},
                 attr_list(ir::Attr::of_int("start", start), ir::Attr::of_int("end", end)));
}

std::vector<Var> sdpa(Context& cx) {
  Var q = cx.tensor("query");
  Var k = cx.tensor("key");
  Var v = cx.tensor("value");
  Var mask = cx.optional_tensor("attn_mask");
  bool causal = cx.get_bool("is_causal", false);
  if (cx.get_float("dropout_p", 0.0) != 0.0) cx.fail("dropout_p must be 0 in an export");
  auto qr = q.rank();
  if (!qr || *qr != 4 || k.rank() != qr || v.rank() != qr) {
    cx.fail("query, key and value must be 4-D [batch, heads, length, dim]");
  }
  std::optional<double> scale;
  if (cx.has("scale")) scale = cx.get_float("scale");
  if (cx.opset >= 23) {
    std::vector<ir::Attr> attrs = attr_list(ir::Attr::of_int("is_causal", causal ? 1 : 0));
    if (scale) attrs.push_back(ir::Attr::of_float("scale", static_cast<float>(*scale)));
    std::vector<Var> ins{q, k, v};
    if (mask) ins.push_back(mask);
    return {cx.b.make_node("Attention", ins, std::move(attrs), {.num_outputs = 1})[0]};
  }
  if (cx.get_bool("enable_gqa", false)) {
    cx.fail("enable_gqa below opset 23 is not exported; export at opset=23 (ONNX Attention)");
  }
  auto qs = q.shape();
  if (!scale) {
    if (!qs || !(*qs)[3].is_known()) cx.fail("the head dim must be static to compute the scale");
    scale = 1.0 / std::sqrt(static_cast<double>((*qs)[3].value()));
  }
  ir::DataType dt = cx.out().dtype;
  Var scores = cx.b.op(
      "MatMul", {cx.b.op("Mul", {q, cx.scalar(dt, *scale)}),
                 cx.b.op("Transpose", {k}, attr_list(ir::Attr::of_ints("perm", {0, 1, 3, 2})))});
  Var neg_inf = cx.scalar(dt, -std::numeric_limits<double>::infinity());
  if (causal) {
    // torch's causal mask: the lower triangle of [L, S], aligned top-left.
    Var ls = cx.b.op("Concat", {shape_slice(cx, q, 2, 3), shape_slice(cx, k, 2, 3)},
                     attr_list(ir::Attr::of_int("axis", 0)));
    float one = 1.0f;
    Var ones = cx.b.op(
        "ConstantOfShape", {ls},
        attr_list(ir::Attr::of_tensor("value", std::make_shared<ir::Tensor>(ir::Tensor::from<float>(
                                                   ir::DataType::Float, {1}, {&one, 1})))));
    Var lower = cx.b.op("Trilu", {ones}, attr_list(ir::Attr::of_int("upper", 0)));
    Var out = cx.b.op("Equal", {lower, cx.scalar(ir::DataType::Float, 0.0)});
    scores = cx.b.op("Where", {out, neg_inf, scores});
  }
  if (mask) {
    if (mask.type().elem_type() == ir::DataType::Bool) {
      scores = cx.b.op("Where", {mask, scores, neg_inf});
    } else {
      scores = cx.b.op("Add", {scores, mask});
    }
  }
  Var p = cx.b.op("Softmax", {scores}, attr_list(ir::Attr::of_int("axis", -1)));
  return {cx.b.op("MatMul", {p, v})};
}

// slice.Tensor: Slice with start and end as constants or, when they vary
// with the dynamic dims, computed from the graph (Context::sym).
std::vector<Var> slice(Context& cx) {
  Var x = cx.tensor("self");
  int64_t rank = static_cast<int64_t>(*x.rank());
  int64_t dim = normalize_axis(cx, cx.get_int("dim", 0), rank);
  int64_t step = cx.get_int("step", 1);
  if (step < 1) cx.fail("slice step must be positive");
  auto bound = [&](const char* name, int64_t dflt) {
    const Arg* a = cx.node.find(name);
    if (a && a->symbolic()) return cx.sym(a->syms[0]);
    return cx.ints({cx.get_int(name, dflt)});
  };
  Var start = bound("start", 0);
  Var end = bound("end", std::numeric_limits<int64_t>::max());
  return {cx.b.op("Slice", {x, start, end, cx.ints({dim}), cx.ints({step})})};
}

}  // namespace

void add_front_natives(Library& lib) {
  {
    Candidate c;
    c.overload = "aten::slice.Tensor";
    c.name = "slice (Slice, dynamic bounds)";
    c.kind = Candidate::Kind::Native;
    ParamSpec self;
    self.name = "self";
    c.params.push_back(self);
    for (const char* n : {"dim", "start", "end", "step"}) {
      ParamSpec p;
      p.name = n;
      p.is_input = false;
      p.optional = p.has_default = true;
      p.attr_kind = "int";
      c.params.push_back(p);
    }
    c.native = slice;
    lib.add(std::move(c));
  }
  add_attention(lib);
}

void add_attention(Library& lib) {
  Candidate c;
  c.overload = "aten::scaled_dot_product_attention.default";
  c.name = "scaled_dot_product_attention (Attention-23 / MatMul, Softmax)";
  c.kind = Candidate::Kind::Native;
  auto tensor = [](const char* n, bool optional) {
    ParamSpec p;
    p.name = n;
    p.dtypes = float_types();
    p.optional = p.has_default = optional;
    return p;
  };
  auto attr = [](const char* n, const char* kind) {
    ParamSpec p;
    p.name = n;
    p.is_input = false;
    p.optional = p.has_default = true;
    p.attr_kind = kind;
    return p;
  };
  ParamSpec mask = tensor("attn_mask", true);
  mask.dtypes.push_back(ir::DataType::Bool);
  c.params = {tensor("query", false),     tensor("key", false),
              tensor("value", false),     mask,
              attr("dropout_p", "float"), attr("is_causal", "bool"),
              attr("scale", "float"),     attr("enable_gqa", "bool")};
  c.native = sdpa;
  lib.add(std::move(c));
}

}  // namespace oxs::torch
