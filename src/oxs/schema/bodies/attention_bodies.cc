#include "oxs/schema/bodies/attention_bodies.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "oxs/ir/error.h"
#include "oxs/schema/bodies/context_bodies.h"

namespace oxs::schema::bodies {
namespace {

// A float attribute value as ONNX text (always with '.' and an exponent, so
// the parser reads a float).
std::string float_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9e", v);
  return buf;
}

const ::onnx::AttributeProto* attr(const ::onnx::FunctionBodyBuildContext& ctx, const char* name) {
  return ctx.getAttribute(name);
}

int64_t int_attr(const ::onnx::FunctionBodyBuildContext& ctx, const char* name, int64_t dflt) {
  const ::onnx::AttributeProto* a = ctx.getAttribute(name);
  return a ? a->i() : dflt;
}

[[noreturn]] void refuse(const OpSignature& sig, const std::string& why) {
  throw Error(ErrorKind::Invalid, sig.display_name() + ": " + why);
}

// The rank of input i, or -1 when its type or shape is unknown.
int rank_of(const ::onnx::FunctionBodyBuildContext& ctx, int i) {
  const ::onnx::TypeProto* t = ctx.getInputType(i);
  if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return -1;
  return t->tensor_type().shape().dim_size();
}

// Lines "  name = Op <attrs> (inputs)" of a body being written.
struct Text {
  std::string s;
  void add(const std::string& line) { s += "  " + line + "\n"; }
};

// 0 and -inf in the element type of `like` (the bias and the fully masked
// rows need them), and the last axis as a 1-D index.
void common_constants(Text& t, const char* like) {
  t.add("zero_f = Constant <value_float = 0.0> ()");
  t.add("neg_inf_f = Log (zero_f)");
  t.add(std::string("zero_t = CastLike (zero_f, ") + like + ")");
  t.add(std::string("neg_inf_t = CastLike (neg_inf_f, ") + like + ")");
  t.add("last_axis = Constant <value_ints = [-1]> ()");
}

// [B, Hkv, S, D] -> [B, Hq, S, D] for Hq a multiple of Hkv: each key/value
// head serves Hq / Hkv consecutive query heads.
void repeat_heads(Text& t, const std::string& in, const std::string& out, const char* q4) {
  t.add(in + "_b_h = Shape <start = 0, end = 2> (" + in + ")");
  t.add(in + "_h = Shape <start = 1, end = 2> (" + in + ")");
  t.add(in + "_sd = Shape <start = 2> (" + in + ")");
  t.add(in + "_b = Shape <start = 0, end = 1> (" + in + ")");
  t.add(std::string(in) + "_hq = Shape <start = 1, end = 2> (" + q4 + ")");
  t.add(in + "_group = Div (" + in + "_hq, " + in + "_h)");
  t.add(in + "_wide = Concat <axis = 0> (" + in + "_b_h, " + in + "_group, " + in + "_sd)");
  t.add(in + "_flat = Concat <axis = 0> (" + in + "_b, " + in + "_hq, " + in + "_sd)");
  t.add(in + "_group_axis = Constant <value_ints = [2]> ()");
  t.add(in + "_5d = Unsqueeze (" + in + ", " + in + "_group_axis)");
  t.add(in + "_expanded = Expand (" + in + "_5d, " + in + "_wide)");
  t.add(out + " = Reshape (" + in + "_expanded, " + in + "_flat)");
}

// scale_f: the scale attribute, or 1 / sqrt(head size) from dimension 3 of
// `rank4` (a float [1]).
void scale_value(Text& t, const ::onnx::AttributeProto* scale, const std::string& rank4) {
  if (scale) {
    t.add("scale_f = Constant <value_float = " + float_text(scale->f()) + "> ()");
    return;
  }
  t.add("head_size = Shape <start = 3, end = 4> (" + rank4 + ")");
  t.add("head_size_f = Cast <to = 1> (head_size)");
  t.add("root_head_size = Sqrt (head_size_f)");
  t.add("one_f = Constant <value_float = 1.0> ()");
  t.add("scale_f = Div (one_f, root_head_size)");
}

// k_q, v_q: `k` and `v` with their heads repeated for the query heads of
// `q` (a copy when the counts are equal). Done whatever the sizes: a body
// serves every call of its node with the same element types and ranks
// (eval caches it so), so it must not depend on head counts.
void heads_for_queries(Text& t, const std::string& k, const std::string& v, const char* q) {
  repeat_heads(t, k, "k_q", q);
  repeat_heads(t, v, "v_q", q);
}

}  // namespace

// Attention-23/24/25 (see the op's doc in data/onnx_ops.txt): Q, K, V as
// [batch, heads, seq, size] (3-D inputs split into heads by q_num_heads and
// kv_num_heads first), the past cache joined in front of K and V, key/value
// heads repeated for grouped queries, Q and K each scaled by sqrt(scale), the
// softcap, then the additive bias (attn_mask, padded with -inf up to the
// keys; is_causal and the windows aligned to the query's absolute position:
// past length + i, or nonpad_kv_seqlen - q_seq + i; keys past
// nonpad_kv_seqlen), softmax in softmax_precision with a query row whose
// every key is masked giving zeros, and the probabilities times V.
bool attention_body(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
                    ::onnx::FunctionProto& out) {
  const int rank = rank_of(ctx, 0);
  if (rank < 0) return false;  // the layout depends on Q's rank
  if (rank != 3 && rank != 4) {
    refuse(sig, "input Q has rank " + std::to_string(rank) + "; it must be 3 or 4");
  }
  const bool has_mask = ctx.hasInput(3);
  const bool has_past = ctx.hasInput(4) || ctx.hasInput(5);
  const bool has_nonpad = sig.inputs.size() > 6 && ctx.hasInput(6);
  if (has_past && !(ctx.hasInput(4) && ctx.hasInput(5))) {
    refuse(sig, "past_key and past_value must be given together");
  }
  if (has_past && has_nonpad) {
    refuse(sig, "nonpad_kv_seqlen cannot be combined with past_key/past_value");
  }
  bool bool_mask = false;
  if (has_mask) {
    const ::onnx::TypeProto* m = ctx.getInputType(3);
    if (!m || !m->has_tensor_type() || m->tensor_type().elem_type() == 0) return false;
    bool_mask = m->tensor_type().elem_type() == ::onnx::TensorProto::BOOL;
  }
  const int64_t q_heads = int_attr(ctx, "q_num_heads", 0);
  const int64_t kv_heads = int_attr(ctx, "kv_num_heads", 0);
  if (rank == 3 && (q_heads <= 0 || kv_heads <= 0)) {
    refuse(sig, "3-D inputs need positive q_num_heads and kv_num_heads attributes");
  }
  if (rank == 4 && sig.since_version >= 25 &&
      (attr(ctx, "q_num_heads") || attr(ctx, "kv_num_heads"))) {
    refuse(sig, "q_num_heads and kv_num_heads must not be given for 4-D inputs");
  }
  const int64_t mode = int_attr(ctx, "qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) {
    refuse(sig, "qk_matmul_output_mode is " + std::to_string(mode) + "; it must be 0, 1, 2 or 3");
  }
  const ::onnx::AttributeProto* precision = attr(ctx, "softmax_precision");
  if (precision && precision->i() != 1 && precision->i() != 10 && precision->i() != 11 &&
      precision->i() != 16) {
    refuse(sig, "softmax_precision is " + std::to_string(precision->i()) +
                    "; it must be 1 (float), 10 (float16), 11 (double) or 16 (bfloat16)");
  }
  const ::onnx::AttributeProto* scale = attr(ctx, "scale");
  if (scale && !std::isfinite(scale->f())) refuse(sig, "scale must be finite");
  const double softcap = attr(ctx, "softcap") ? attr(ctx, "softcap")->f() : 0.0;
  if (!std::isfinite(softcap)) refuse(sig, "softcap must be finite");
  const bool causal = int_attr(ctx, "is_causal", 0) != 0;
  const int64_t left = int_attr(ctx, "left_window_size", -1);
  const int64_t right = int_attr(ctx, "right_window_size", -1);
  if (left < -1 || right < -1) refuse(sig, "window sizes must be -1 or non-negative");

  Text t;
  common_constants(t, "Q");
  // Heads: [batch, heads, seq, size].
  if (rank == 3) {
    t.add("q_split = Constant <value_ints = [0, 0, " + std::to_string(q_heads) + ", -1]> ()");
    t.add("kv_split = Constant <value_ints = [0, 0, " + std::to_string(kv_heads) + ", -1]> ()");
    t.add("q_heads = Reshape (Q, q_split)");
    t.add("k_heads = Reshape (K, kv_split)");
    t.add("v_heads = Reshape (V, kv_split)");
    t.add("q4 = Transpose <perm = [0, 2, 1, 3]> (q_heads)");
    t.add("k4 = Transpose <perm = [0, 2, 1, 3]> (k_heads)");
    t.add("v4 = Transpose <perm = [0, 2, 1, 3]> (v_heads)");
  } else {
    t.add("q4 = Identity (Q)");
    t.add("k4 = Identity (K)");
    t.add("v4 = Identity (V)");
  }
  if (has_past) {
    t.add("k_all = Concat <axis = 2> (past_key, k4)");
    t.add("v_all = Concat <axis = 2> (past_value, v4)");
  } else {
    t.add("k_all = Identity (k4)");
    t.add("v_all = Identity (v4)");
  }
  t.add("present_key = Identity (k_all)");
  t.add("present_value = Identity (v_all)");
  heads_for_queries(t, "k_all", "v_all", "q4");
  // Scores, scaled as the spec advises: Q and K each by sqrt(scale).
  t.add("k_t = Transpose <perm = [0, 1, 3, 2]> (k_q)");
  if (scale && scale->f() <= 0) {
    t.add("scale_f = Constant <value_float = " + float_text(scale->f()) + "> ()");
    t.add("scale_t = CastLike (scale_f, Q)");
    t.add("qk_unscaled = MatMul (q4, k_t)");
    t.add("qk = Mul (qk_unscaled, scale_t)");
  } else {
    scale_value(t, scale, "q4");
    t.add("root_scale_f = Sqrt (scale_f)");
    t.add("root_scale = CastLike (root_scale_f, Q)");
    t.add("q_scaled = Mul (q4, root_scale)");
    t.add("k_scaled = Mul (k_t, root_scale)");
    t.add("qk = MatMul (q_scaled, k_scaled)");
  }
  if (softcap > 0) {
    t.add("cap_f = Constant <value_float = " + float_text(softcap) + "> ()");
    t.add("cap = CastLike (cap_f, Q)");
    t.add("qk_over_cap = Div (qk, cap)");
    t.add("qk_tanh = Tanh (qk_over_cap)");
    t.add("qk_capped = Mul (qk_tanh, cap)");
  } else {
    t.add("qk_capped = Identity (qk)");
  }
  // The additive bias.
  std::string bias;
  t.add("total = Shape <start = 2, end = 3> (k_all)");
  if (has_mask) {
    if (bool_mask) {
      t.add("mask_bias_short = Where (attn_mask, zero_t, neg_inf_t)");
    } else {
      t.add("mask_bias_short = CastLike (attn_mask, Q)");
    }
    // A mask shorter than the keys masks the rest.
    t.add("mask_len = Shape <start = -1> (attn_mask)");
    t.add("mask_missing = Sub (total, mask_len)");
    t.add("zero_1d = Constant <value_ints = [0]> ()");
    t.add("mask_pads = Concat <axis = 0> (zero_1d, mask_missing)");
    t.add("mask_bias = Pad (mask_bias_short, mask_pads, neg_inf_t, last_axis)");
    bias = "mask_bias";
  }
  std::string blocked;
  auto block = [&](const std::string& name, const std::string& line) {
    t.add(name + " = " + line);
    if (blocked.empty()) {
      blocked = name;
    } else {
      t.add(name + "_or = Or (" + blocked + ", " + name + ")");
      blocked = name + "_or";
    }
  };
  if (causal || left >= 0 || right >= 0 || has_nonpad) {
    t.add("zero_s = Constant <value_int = 0> ()");
    t.add("one_s = Constant <value_int = 1> ()");
    t.add("total_s = Squeeze (total)");
    t.add("q_len = Shape <start = 2, end = 3> (q4)");
    t.add("q_len_s = Squeeze (q_len)");
    t.add("key_pos = Range (zero_s, total_s, one_s)");
    t.add("q_index = Range (zero_s, q_len_s, one_s)");
    t.add("column = Constant <value_ints = [1]> ()");
    t.add("q_column = Unsqueeze (q_index, column)");
    t.add("batch_first = Constant <value_ints = [-1, 1, 1, 1]> ()");
    // The absolute position of each query: [L, 1], or [B, 1, L, 1].
    if (has_past) {
      t.add("past_len = Shape <start = 2, end = 3> (past_key)");
      t.add("q_pos = Add (q_column, past_len)");
    } else if (has_nonpad) {
      t.add("nonpad_offset = Sub (nonpad_kv_seqlen, q_len)");
      t.add("nonpad_offset_4d = Reshape (nonpad_offset, batch_first)");
      t.add("q_pos = Add (q_column, nonpad_offset_4d)");
    } else {
      t.add("q_pos = Identity (q_column)");
    }
    if (causal) block("after_query", "Greater (key_pos, q_pos)");
    if (left >= 0) {
      t.add("left_c = Constant <value_int = " + std::to_string(left) + "> ()");
      t.add("left_dist = Sub (q_pos, key_pos)");
      block("left_of_window", "Greater (left_dist, left_c)");
    }
    if (right >= 0) {
      t.add("right_c = Constant <value_int = " + std::to_string(right) + "> ()");
      t.add("right_dist = Sub (key_pos, q_pos)");
      block("right_of_window", "Greater (right_dist, right_c)");
    }
    if (has_nonpad) {
      t.add("nonpad_4d = Reshape (nonpad_kv_seqlen, batch_first)");
      block("padding", "GreaterOrEqual (key_pos, nonpad_4d)");
    }
    t.add("position_bias = Where (" + blocked + ", neg_inf_t, zero_t)");
    if (bias.empty()) {
      bias = "position_bias";
    } else {
      t.add("bias = Add (" + bias + ", position_bias)");
      bias = "bias";
    }
  }
  t.add(bias.empty() ? "scores = Identity (qk_capped)" : "scores = Add (qk_capped, " + bias + ")");
  // Softmax over the keys; a row with no key left (every score -inf, or
  // NaN) is zeros.
  if (precision) {
    t.add("x = Cast <to = " + std::to_string(precision->i()) + "> (scores)");
  } else {
    t.add("x = Identity (scores)");
  }
  t.add("probs_x = Softmax <axis = -1> (x)");
  t.add("probs_raw = CastLike (probs_x, Q)");
  t.add("neg_inf_x = CastLike (neg_inf_f, x)");
  t.add("live = Greater (x, neg_inf_x)");
  t.add("live_f = Cast <to = 1> (live)");
  t.add("row_live_f = ReduceMax <keepdims = 1> (live_f, last_axis)");
  t.add("row_live = Cast <to = 9> (row_live_f)");
  t.add("probs = Where (row_live, probs_raw, zero_t)");
  t.add("y4 = MatMul (probs, v_q)");
  if (rank == 3) {
    t.add("y_seq_first = Transpose <perm = [0, 2, 1, 3]> (y4)");
    t.add("y_packed = Constant <value_ints = [0, 0, -1]> ()");
    t.add("Y = Reshape (y_seq_first, y_packed)");
  } else {
    t.add("Y = Identity (y4)");
  }
  static const char* const kModeOutput[] = {"qk", "qk_capped", "scores", "probs"};
  t.add(std::string("qk_matmul_output = Identity (") + kModeOutput[mode] + ")");

  std::string text = header(sig) + "Attention (Q, K, V, attn_mask, past_key, past_value" +
                     (sig.inputs.size() > 6 ? ", nonpad_kv_seqlen" : "") +
                     ") => (Y, present_key, present_value, qk_matmul_output)\n{\n" + t.s + "}\n";
  parse_into(text, sig, out);
  return true;
}

namespace {

// A graph for a Scan or If attribute: `nodes` (ONNX text lines) parsed as the
// body of a function with the given input and output names, typed as float
// tensors of unknown shape (the evaluator and inference take the shapes from
// the values bound to them).
::onnx::GraphProto graph_of(const OpSignature& sig, const std::string& name,
                            const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs, const std::string& nodes,
                            int32_t elem_type) {
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  ::onnx::FunctionProto f;
  parse_into(header(sig) + name + " (" + join(inputs) + ") => (" + join(outputs) + ")\n{\n" +
                 nodes + "}\n",
             sig, f);
  ::onnx::GraphProto g;
  g.set_name(name);
  for (const std::string& i : inputs) {
    auto* v = g.add_input();
    v->set_name(i);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
  }
  for (const std::string& o : outputs) {
    auto* v = g.add_output();
    v->set_name(o);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
  }
  for (const auto& n : f.node()) *g.add_node() = n;
  return g;
}

// The node of `f` that outputs `value`.
::onnx::NodeProto& producer(const OpSignature& sig, ::onnx::FunctionProto& f,
                            const std::string& value) {
  for (auto& n : *f.mutable_node()) {
    for (const std::string& o : n.output()) {
      if (o == value) return n;
    }
  }
  throw Error(ErrorKind::Internal, sig.display_name() + ": the built body has no '" + value + "'");
}

void set_graph_attr(::onnx::NodeProto& n, const std::string& name, ::onnx::GraphProto g) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::GRAPH);
  *a->mutable_g() = std::move(g);
}

}  // namespace

// LinearAttention-27 (see the op's doc in data/onnx_ops.txt and the kernel
// eval/attention/linear_attention.cc): a Scan over the sequence carrying the
// state S [batch, kv_heads, d_k, d_v] in float. Per token: S *= exp(decay)
// (gated rules), the delta rules replace v by beta * (v - S^T k), S += k v^T,
// and the query heads of each key/value head read q^T S. The outputs are
// scaled after the Scan and cast back (present_state to past_state's type,
// or the query's when there is no past).
bool linear_attention_body(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
                           ::onnx::FunctionProto& out) {
  const ::onnx::AttributeProto* rule_attr = attr(ctx, "update_rule");
  const std::string rule = rule_attr ? rule_attr->s() : "gated_delta";
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta") {
    refuse(sig, "update_rule is '" + rule + "'; it must be linear, gated, delta or gated_delta");
  }
  const bool gating = rule == "gated" || rule == "gated_delta";
  const bool delta = rule == "delta" || rule == "gated_delta";
  if (gating != ctx.hasInput(4)) {
    refuse(sig, "update_rule '" + rule + "' " + (gating ? "needs" : "does not take") +
                    " the decay input");
  }
  if (delta != ctx.hasInput(5)) {
    refuse(sig,
           "update_rule '" + rule + "' " + (delta ? "needs" : "does not take") + " the beta input");
  }
  const int64_t hq = int_attr(ctx, "q_num_heads", 0), hkv = int_attr(ctx, "kv_num_heads", 0);
  if (hq <= 0 || hkv <= 0 || hq % hkv != 0) {
    refuse(sig,
           "q_num_heads and kv_num_heads must be positive, q_num_heads a multiple of "
           "kv_num_heads");
  }
  for (int i = 0; i < 3; ++i) {
    const int r = rank_of(ctx, i);
    if (r >= 0 && r != 3) {
      refuse(sig, "query, key and value must be 3-D [batch, seq, heads * size]; input " +
                      std::to_string(i) + " has rank " + std::to_string(r));
    }
  }
  const double scale = attr(ctx, "scale") ? attr(ctx, "scale")->f() : 0.0;
  if (!std::isfinite(scale)) refuse(sig, "scale must be finite");
  const std::string heads = std::to_string(hkv), group = std::to_string(hq / hkv);

  Text t;
  t.add("q_f = Cast <to = 1> (query)");
  t.add("k_f = Cast <to = 1> (key)");
  t.add("v_f = Cast <to = 1> (value)");
  t.add("q_split = Constant <value_ints = [0, 0, " + heads + ", " + group + ", -1]> ()");
  t.add("kv_split = Constant <value_ints = [0, 0, " + heads + ", -1]> ()");
  t.add("q5 = Reshape (q_f, q_split)");
  t.add("q_seq = Transpose <perm = [1, 0, 2, 3, 4]> (q5)");
  t.add("k4 = Reshape (k_f, kv_split)");
  t.add("k_seq = Transpose <perm = [1, 0, 2, 3]> (k4)");
  t.add("v4 = Reshape (v_f, kv_split)");
  t.add("v_seq = Transpose <perm = [1, 0, 2, 3]> (v4)");
  std::string scan_inputs = "s0, q_seq, k_seq, v_seq";
  std::vector<std::string> step_inputs = {"step_s", "step_q", "step_k", "step_v"};
  if (gating) {
    // [B, T, kv_heads * w] -> [T, B, kv_heads, w, 1], w = 1 or d_k.
    t.add("d_f = Cast <to = 1> (decay)");
    t.add("d4 = Reshape (d_f, kv_split)");
    t.add("d_tail = Constant <value_ints = [4]> ()");
    t.add("d5 = Unsqueeze (d4, d_tail)");
    t.add("d_seq = Transpose <perm = [1, 0, 2, 3, 4]> (d5)");
    scan_inputs += ", d_seq";
    step_inputs.push_back("step_d");
  }
  if (delta) {
    // [B, T, kv_heads or 1] -> [T, B, kv_heads or 1, 1].
    t.add("b_f = Cast <to = 1> (beta)");
    t.add("b_tail = Constant <value_ints = [3]> ()");
    t.add("b4 = Unsqueeze (b_f, b_tail)");
    t.add("b_seq = Transpose <perm = [1, 0, 2, 3]> (b4)");
    scan_inputs += ", b_seq";
    step_inputs.push_back("step_b");
  }
  t.add("heads_c = Constant <value_ints = [" + heads + "]> ()");
  if (ctx.hasInput(3)) {
    t.add("s0 = Cast <to = 1> (past_state)");
  } else {
    t.add("batch = Shape <start = 0, end = 1> (query)");
    t.add("k_hidden = Shape <start = 2, end = 3> (key)");
    t.add("v_hidden = Shape <start = 2, end = 3> (value)");
    t.add("d_k = Div (k_hidden, heads_c)");
    t.add("d_v = Div (v_hidden, heads_c)");
    t.add("s_shape = Concat <axis = 0> (batch, heads_c, d_k, d_v)");
    t.add("s0 = ConstantOfShape (s_shape)");
  }
  t.add("s_final, y_seq = Scan <num_scan_inputs = " + std::to_string(step_inputs.size() - 1) +
        "> (" + scan_inputs + ")");
  t.add("y5 = Transpose <perm = [1, 0, 2, 3, 4]> (y_seq)");
  t.add("packed = Constant <value_ints = [0, 0, -1]> ()");
  t.add("y3 = Reshape (y5, packed)");
  if (scale != 0) {
    t.add("scale_f = Constant <value_float = " + float_text(scale) + "> ()");
  } else {
    t.add("q_hidden = Shape <start = 2, end = 3> (query)");
    t.add("q_heads_c = Constant <value_ints = [" + std::to_string(hq) + "]> ()");
    t.add("q_d_k = Div (q_hidden, q_heads_c)");
    t.add("q_d_k_f = Cast <to = 1> (q_d_k)");
    t.add("root_d_k = Sqrt (q_d_k_f)");
    t.add("one_f = Constant <value_float = 1.0> ()");
    t.add("scale_f = Div (one_f, root_d_k)");
  }
  t.add("y_scaled = Mul (y3, scale_f)");
  t.add("output = CastLike (y_scaled, query)");
  t.add(std::string("present_state = CastLike (s_final, ") +
        (ctx.hasInput(3) ? "past_state" : "query") + ")");

  Text step;
  if (gating) {
    step.add("step_gate = Exp (step_d)");
    step.add("step_s1 = Mul (step_s, step_gate)");
  } else {
    step.add("step_s1 = Identity (step_s)");
  }
  step.add("step_ax2 = Constant <value_ints = [2]> ()");
  step.add("step_ax3 = Constant <value_ints = [3]> ()");
  step.add("step_k_col = Unsqueeze (step_k, step_ax3)");
  if (delta) {
    step.add("step_k_row = Unsqueeze (step_k, step_ax2)");
    step.add("step_read = MatMul (step_k_row, step_s1)");
    step.add("step_read3 = Squeeze (step_read, step_ax2)");
    step.add("step_miss = Sub (step_v, step_read3)");
    step.add("step_vt = Mul (step_b, step_miss)");
  } else {
    step.add("step_vt = Identity (step_v)");
  }
  step.add("step_v_row = Unsqueeze (step_vt, step_ax2)");
  step.add("step_outer = MatMul (step_k_col, step_v_row)");
  step.add("step_s2 = Add (step_s1, step_outer)");
  step.add("step_y = MatMul (step_q, step_s2)");

  parse_into(header(sig) +
                 "LinearAttention (query, key, value, past_state, decay, beta) => (output, "
                 "present_state)\n{\n" +
                 t.s + "}\n",
             sig, out);
  set_graph_attr(producer(sig, out, "s_final"), "body",
                 graph_of(sig, "linear_attention_step", step_inputs, {"step_s2", "step_y"}, step.s,
                          ::onnx::TensorProto::FLOAT));
  return true;
}

namespace {

// Renames every value of `g` (and of its nested graphs) defined in it:
// `from` becomes `to` (a value of the enclosing body), every other name
// gets `prefix`. Graph inputs other than `from` are an error of the caller.
void rename_graph(::onnx::GraphProto& g, const std::string& from, const std::string& to,
                  const std::string& prefix) {
  auto rename = [&](std::string* name) {
    if (name->empty()) return;
    *name = *name == from ? to : prefix + *name;
  };
  for (auto& v : *g.mutable_input()) rename(v.mutable_name());
  for (auto& v : *g.mutable_output()) rename(v.mutable_name());
  for (auto& v : *g.mutable_value_info()) rename(v.mutable_name());
  for (auto& t : *g.mutable_initializer()) rename(t.mutable_name());
  for (auto& n : *g.mutable_node()) {
    for (auto& i : *n.mutable_input()) rename(&i);
    for (auto& o : *n.mutable_output()) rename(&o);
    if (!n.name().empty()) n.set_name(prefix + n.name());
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) rename_graph(*a.mutable_g(), from, to, prefix);
      for (auto& sub : *a.mutable_graphs()) rename_graph(sub, from, to, prefix);
    }
  }
}

}  // namespace

// ai.onnx.preview FlexAttention-1 (see the op's doc and the kernel
// eval/attention/flex_attention.cc): rank-4 Q, K, V, key/value heads
// repeated for grouped queries, scores Q K^T * scale in softmax_precision
// (float, or double for double inputs), score_mod applied to them, softmax
// over the keys, prob_mod applied to the probabilities, times V, cast back to
// Q's type. A subgraph attribute runs as both branches of an If on a constant
// true condition, its input renamed to the body's value and its other names
// prefixed (so they cannot clash with the body's). The body imports ai.onnx
// 18 (the call site does not say which ai.onnx opset the model imports; the
// subgraphs' ops are read at that version).
bool flex_attention_body(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
                         ::onnx::FunctionProto& out) {
  const ::onnx::TypeProto* q = ctx.getInputType(0);
  if (!q || !q->has_tensor_type() || q->tensor_type().elem_type() == 0) return false;
  const int32_t q_elem = q->tensor_type().elem_type();
  for (int i = 0; i < 3; ++i) {
    const int r = rank_of(ctx, i);
    if (r >= 0 && r != 4) {
      refuse(sig, "Q, K and V must be 4-D; input " + std::to_string(i) + " has rank " +
                      std::to_string(r));
    }
  }
  const ::onnx::AttributeProto* precision_attr = attr(ctx, "softmax_precision");
  int64_t precision = q_elem == ::onnx::TensorProto::DOUBLE ? 11 : 1;
  if (precision_attr) precision = precision_attr->i();
  if (precision != ::onnx::TensorProto::FLOAT && precision != ::onnx::TensorProto::DOUBLE &&
      precision != ::onnx::TensorProto::FLOAT16 && precision != ::onnx::TensorProto::BFLOAT16) {
    refuse(sig, "softmax_precision is " + std::to_string(precision) +
                    "; it must be a floating-point type (1, 10, 11 or 16)");
  }
  const ::onnx::AttributeProto* scale = attr(ctx, "scale");
  if (scale && !std::isfinite(scale->f())) refuse(sig, "scale must be finite");
  const ::onnx::AttributeProto* mods[2] = {attr(ctx, "score_mod"), attr(ctx, "prob_mod")};
  for (const ::onnx::AttributeProto* m : mods) {
    if (m && (!m->has_g() || m->g().input_size() != 1 || m->g().output_size() != 1)) {
      refuse(sig, "attribute " + m->name() + " must be a graph with one input and one output");
    }
  }
  const std::string p = std::to_string(precision);

  Text t;
  t.add("q_p = Cast <to = " + p + "> (Q)");
  t.add("k_p = Cast <to = " + p + "> (K)");
  t.add("v_p = Cast <to = " + p + "> (V)");
  heads_for_queries(t, "k_p", "v_p", "q_p");
  scale_value(t, scale, "Q");
  t.add("scale_p = Cast <to = " + p + "> (scale_f)");
  t.add("k_t = Transpose <perm = [0, 1, 3, 2]> (k_q)");
  t.add("qk = MatMul (q_p, k_t)");
  t.add("scores = Mul (qk, scale_p)");
  t.add("always_i = Constant <value_int = 1> ()");
  t.add("always = Cast <to = 9> (always_i)");
  t.add(mods[0] ? "scores_mod = If (always)" : "scores_mod = Identity (scores)");
  t.add("probs = Softmax <axis = -1> (scores_mod)");
  t.add(mods[1] ? "probs_mod = If (always)" : "probs_mod = Identity (probs)");
  t.add("y_p = MatMul (probs_mod, v_q)");
  t.add("Y = CastLike (y_p, Q)");

  parse_into("<domain: \"ai.onnx.preview\", opset_import: [\"\" : 18, \"ai.onnx.preview\" : " +
                 std::to_string(sig.since_version) + "]>\nFlexAttention (Q, K, V) => (Y)\n{\n" +
                 t.s + "}\n",
             sig, out);
  const char* const ins[2] = {"scores", "probs"};
  const char* const outs[2] = {"scores_mod", "probs_mod"};
  for (int i = 0; i < 2; ++i) {
    if (!mods[i]) continue;
    ::onnx::GraphProto g = mods[i]->g();
    const std::string from = g.input(0).name();
    rename_graph(g, from, ins[i], std::string("oxs_") + mods[i]->name() + "__");
    g.clear_input();
    ::onnx::NodeProto& node = producer(sig, out, outs[i]);
    set_graph_attr(node, "then_branch", g);
    set_graph_attr(node, "else_branch", std::move(g));
  }
  return true;
}
}  // namespace oxs::schema::bodies
