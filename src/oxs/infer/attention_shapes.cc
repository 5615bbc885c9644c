// Shape rules of the attention-family table op versions: Attention-23/24/25
// (Y, present_key, present_value, qk_matmul_output), LinearAttention-27
// (output, present_state) and CausalConvWithState-27 (output,
// present_state). Dims that need run-time values stay unknown; the rank is
// given whenever it is known. Internal to infer/.
#include <string>
#include <vector>

#include "oxs/infer/modern_shapes.h"

namespace oxs::infer {
namespace {

using ir::DataType;
using ir::Dim;
using ir::Shape;
using ir::Type;

Dim dim(const std::optional<Shape>& s, size_t i) {
  return s ? dim_at(*s, i) : Dim::unknown();
}

// a / b when a is known and divisible by b > 0.
Dim quotient(const Dim& a, int64_t b) {
  if (!a.is_known() || b <= 0 || a.value() % b != 0) return Dim::unknown();
  return Dim::known(a.value() / b);
}

Dim product(const Dim& a, const Dim& b) {
  return a.is_known() && b.is_known() ? Dim::known(a.value() * b.value()) : Dim::unknown();
}

Dim sum(const Dim& a, const Dim& b) {
  return a.is_known() && b.is_known() ? Dim::known(a.value() + b.value()) : Dim::unknown();
}

// [batch, heads, seq, size] of a 3-D ([batch, seq, heads * size], heads from
// the attribute) or 4-D input.
struct Heads {
  Dim batch, heads, seq, size;
};

std::optional<Heads> heads_of(const ir::Node& n, size_t i, int64_t heads_attr) {
  auto s = input_shape(n, i);
  if (!s) return std::nullopt;
  if (s->rank() == 4) return Heads{dim(s, 0), dim(s, 1), dim(s, 2), dim(s, 3)};
  if (s->rank() == 3) {
    return Heads{dim(s, 0), heads_attr > 0 ? Dim::known(heads_attr) : Dim::unknown(), dim(s, 1),
                 quotient(dim(s, 2), heads_attr)};
  }
  fail(n, "input " + std::to_string(i) + " has shape " + s->to_string() +
              "; Q, K and V must be 3-D or 4-D");
}

void attention(const ir::Node& n, Outputs& out) {
  const DataType q_elem = elem_of(n, 0), v_elem = elem_of(n, 2);
  for (size_t o : {size_t(0), size_t(1), size_t(3)}) {
    if (o < out.size()) out[o] = Type::tensor(q_elem);
  }
  if (out.size() > 2) out[2] = Type::tensor(v_elem);
  const auto qs = input_shape(n, 0);
  const int64_t q_heads = int_attr(n, "q_num_heads", 0), kv_heads = int_attr(n, "kv_num_heads", 0);
  const auto q = heads_of(n, 0, q_heads);
  const auto k = heads_of(n, 1, kv_heads);
  const auto v = heads_of(n, 2, kv_heads);
  const auto past = input_shape(n, 4);
  Dim total = Dim::unknown();
  if (k) total = past ? sum(dim(past, 2), k->seq) : k->seq;
  if (q && v) {
    out[0] = Type::tensor(
        q_elem, qs->rank() == 4
                    ? Shape(std::vector<Dim>{q->batch, q->heads, q->seq, v->size})
                    : Shape(std::vector<Dim>{q->batch, q->seq, product(q->heads, v->size)}));
  }
  if (out.size() > 1 && k) {
    out[1] = Type::tensor(q_elem, Shape(std::vector<Dim>{k->batch, k->heads, total, k->size}));
  }
  if (out.size() > 2 && v) {
    out[2] = Type::tensor(v_elem, Shape(std::vector<Dim>{v->batch, v->heads, total, v->size}));
  }
  if (out.size() > 3 && q) {
    out[3] = Type::tensor(q_elem, Shape(std::vector<Dim>{q->batch, q->heads, q->seq, total}));
  }
}

// LinearAttention-27: query [B, T, Hq * dk], value [B, T, Hkv * dv] ->
// output [B, T, Hq * dv], present_state [B, Hkv, dk, dv] in past_state's
// type (the query's without a past state).
void linear_attention(const ir::Node& n, Outputs& out) {
  const int64_t hq = int_attr(n, "q_num_heads", 0), hkv = int_attr(n, "kv_num_heads", 0);
  const DataType q_elem = elem_of(n, 0);
  const DataType s_elem = input_type(n, 3) ? elem_of(n, 3) : q_elem;
  out[0] = Type::tensor(q_elem);
  if (out.size() > 1) out[1] = Type::tensor(s_elem);
  const auto q = input_shape(n, 0), v = input_shape(n, 2);
  if ((q && q->rank() != 3) || (v && v->rank() != 3)) {
    fail(n, "query, key and value must be 3-D [batch, seq, heads * size]");
  }
  const Dim dv = quotient(dim(v, 2), hkv), dk = quotient(dim(q, 2), hq);
  if (q || v) {
    out[0] = Type::tensor(
        q_elem, Shape(std::vector<Dim>{q ? dim(q, 0) : dim(v, 0), q ? dim(q, 1) : dim(v, 1),
                                       product(Dim::known(hq), dv)}));
  }
  if (out.size() > 1) {
    out[1] = Type::tensor(
        s_elem, Shape(std::vector<Dim>{q ? dim(q, 0) : dim(v, 0),
                                       hkv > 0 ? Dim::known(hkv) : Dim::unknown(), dk, dv}));
  }
}

// CausalConvWithState-27: input [B, C, L], weight [C, 1, K] -> output
// [B, C, L], present_state [B, C, K - 1].
void causal_conv_with_state(const ir::Node& n, Outputs& out) {
  const DataType elem = elem_of(n, 0);
  for (auto& o : out) o = Type::tensor(elem);
  const auto x = input_shape(n, 0), w = input_shape(n, 1);
  if (x && x->rank() != 3)
    fail(n, "input " + x->to_string() + " must be [batch, channels, length]");
  if (x) out[0] = Type::tensor(elem, *x);
  if (out.size() > 1 && (x || w)) {
    const Dim k = dim(w, w ? w->rank() - 1 : 0);
    out[1] = Type::tensor(
        elem, Shape(std::vector<Dim>{dim(x, 0), x ? dim(x, 1) : dim(w, 0),
                                     k.is_known() ? Dim::known(k.value() - 1) : Dim::unknown()}));
  }
}

}  // namespace

bool infer_attention_shapes(const ir::Node& n, Outputs& out) {
  const std::string& op = n.op_type();
  if (out.empty() || (!n.domain().empty() && n.domain() != "ai.onnx")) return false;
  if (op == "Attention") {
    attention(n, out);
  } else if (op == "LinearAttention") {
    linear_attention(n, out);
  } else if (op == "CausalConvWithState") {
    causal_conv_with_state(n, out);
  } else {
    return false;
  }
  return true;
}

}  // namespace oxs::infer
