// LinearAttention (27): a recurrent state S [batch, kv_heads, d_k, d_v]
// updated token by token and read by the queries, with the update rules
//   linear:      S += k v^T
//   gated:       S = exp(g) * S + k v^T
//   delta:       S += k (beta * (v - S^T k))^T
//   gated_delta: S = exp(g) * S, then the delta update.
// Q, K, V are 3-D [batch, seq, heads * size]; the query heads share the
// state of their key/value head (grouped as h / (q_heads / kv_heads)).
// decay g is [batch, seq, kv_heads] (per head) or [batch, seq, kv_heads *
// d_k] (per key feature); beta is [batch, seq, kv_heads] or [..., 1].
// Outputs: Y [batch, seq, q_heads * d_v] = scale * q^T S after each token,
// and the final state (in past_state's type). Computed in float.
#include <cmath>
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

void linear_attention_k(KernelContext& ctx) {
  const Tensor& q = ctx.tensor(0);
  const Tensor& k = ctx.tensor(1);
  const Tensor& v = ctx.tensor(2);
  const Tensor* past = ctx.optional_tensor(3);
  const Tensor* decay = ctx.optional_tensor(4);
  const Tensor* beta = ctx.optional_tensor(5);
  const std::string rule = ctx.attr_string("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta") {
    ctx.fail("update_rule must be linear, gated, delta or gated_delta, not '" + rule + "'");
  }
  const bool gating = rule == "gated" || rule == "gated_delta";
  const bool delta = rule == "delta" || rule == "gated_delta";
  if (gating != (decay != nullptr)) {
    ctx.fail("update_rule '" + rule + "' " + (gating ? "needs" : "does not take") +
             " the decay input");
  }
  if (delta != (beta != nullptr)) {
    ctx.fail("update_rule '" + rule + "' " + (delta ? "needs" : "does not take") +
             " the beta input");
  }
  const int64_t hq = ctx.required_attr("q_num_heads").i, hkv = ctx.required_attr("kv_num_heads").i;
  if (hq <= 0 || hkv <= 0 || hq % hkv != 0) {
    ctx.fail("q_num_heads must be a positive multiple of kv_num_heads");
  }
  for (const Tensor* t : {&q, &k, &v}) {
    if (t->rank() != 3) ctx.fail("query, key and value must be 3-D [batch, seq, heads * size]");
  }
  const int64_t b_n = q.dim(0), t_n = q.dim(1);
  if (k.dim(0) != b_n || v.dim(0) != b_n || k.dim(1) != t_n || v.dim(1) != t_n) {
    ctx.fail("query, key and value must have the same batch and sequence sizes");
  }
  if (q.dim(2) % hq != 0 || v.dim(2) % hkv != 0)
    ctx.fail("hidden sizes must divide by the head counts");
  const int64_t dk = q.dim(2) / hq, dv = v.dim(2) / hkv, group = hq / hkv;
  if (k.dim(2) != hkv * dk) ctx.fail("key must be [batch, seq, kv_num_heads * d_k]");
  int64_t decay_w = 0, beta_w = 0;
  if (decay) {
    if (decay->rank() != 3 || decay->dim(0) != b_n || decay->dim(1) != t_n ||
        (decay->dim(2) != hkv && decay->dim(2) != hkv * dk)) {
      ctx.fail("decay must be [batch, seq, kv_num_heads] or [batch, seq, kv_num_heads * d_k]");
    }
    decay_w = decay->dim(2);
  }
  if (beta) {
    if (beta->rank() != 3 || beta->dim(0) != b_n || beta->dim(1) != t_n ||
        (beta->dim(2) != hkv && beta->dim(2) != 1)) {
      ctx.fail("beta must be [batch, seq, kv_num_heads] or [batch, seq, 1]");
    }
    beta_w = beta->dim(2);
  }
  std::vector<float> state(checked_buffer(ctx, {b_n, hkv, dk, dv}, sizeof(float), "the state"),
                           0.0f);
  DataType state_type = q.dtype();
  if (past) {
    if (past->dims() != Dims{b_n, hkv, dk, dv}) {
      ctx.fail("past_state must be [batch, kv_num_heads, d_k, d_v] = " +
               dims_to_string({b_n, hkv, dk, dv}) + ", is " + dims_to_string(past->dims()));
    }
    state = read_as<float>(*past);
    state_type = past->dtype();
  }
  const float scale_attr = ctx.attr_float("scale", 0.0f);
  const float scale = scale_attr == 0.0f ? 1.0f / std::sqrt(float(dk)) : scale_attr;
  const std::vector<float> qd = read_as<float>(q), kd = read_as<float>(k), vd = read_as<float>(v);
  std::vector<float> gd, bd;
  if (decay) gd = read_as<float>(*decay);
  if (beta) bd = read_as<float>(*beta);
  std::vector<float> y(checked_buffer(ctx, {b_n, t_n, hq, dv}, sizeof(float), "Y"), 0.0f),
      vt(static_cast<size_t>(dv));
  for (int64_t b = 0; b < b_n; ++b) {
    for (int64_t t = 0; t < t_n; ++t) {
      const int64_t row = b * t_n + t;
      for (int64_t h = 0; h < hkv; ++h) {
        float* s = state.data() + (b * hkv + h) * dk * dv;
        const float* kt = kd.data() + row * hkv * dk + h * dk;
        const float* vrow = vd.data() + row * hkv * dv + h * dv;
        if (gating) {
          for (int64_t i = 0; i < dk; ++i) {
            const float g = decay_w == hkv ? gd[size_t(row * hkv + h)]
                                           : gd[size_t(row * hkv * dk + h * dk + i)];
            const float e = std::exp(g);
            for (int64_t m = 0; m < dv; ++m) s[i * dv + m] *= e;
          }
        }
        for (int64_t m = 0; m < dv; ++m) vt[size_t(m)] = vrow[m];
        if (delta) {
          const float bt = bd[size_t(row * beta_w + (beta_w == 1 ? 0 : h))];
          for (int64_t m = 0; m < dv; ++m) {
            float retrieved = 0;
            for (int64_t i = 0; i < dk; ++i) retrieved += s[i * dv + m] * kt[i];
            vt[size_t(m)] = bt * (vt[size_t(m)] - retrieved);
          }
        }
        for (int64_t i = 0; i < dk; ++i) {
          for (int64_t m = 0; m < dv; ++m) s[i * dv + m] += kt[i] * vt[size_t(m)];
        }
        for (int64_t g = 0; g < group; ++g) {
          const int64_t hq_i = h * group + g;
          const float* qt = qd.data() + row * hq * dk + hq_i * dk;
          float* out = y.data() + row * hq * dv + hq_i * dv;
          for (int64_t m = 0; m < dv; ++m) {
            float acc = 0;
            for (int64_t i = 0; i < dk; ++i) acc += qt[i] * s[i * dv + m];
            out[m] = scale * acc;
          }
        }
      }
    }
  }
  ctx.set_output(0, write_as(q.dtype(), {b_n, t_n, hq * dv}, y));
  if (ctx.wants_output(1)) ctx.set_output(1, write_as(state_type, {b_n, hkv, dk, dv}, state));
}

}  // namespace

void register_linear_attention_kernels(KernelRegistry& r) {
  r.add("", "LinearAttention", 27, linear_attention_k);
}

}  // namespace oxs::eval
