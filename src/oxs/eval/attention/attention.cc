// Attention (opsets 23, 24, 25): scaled dot-product attention over 3-D
// ([batch, seq, heads * head_size]) or 4-D ([batch, heads, seq, head_size])
// Q, K, V, with multi-head, grouped-query and multi-query head counts, an
// optional boolean or additive mask (whose key axis may be shorter than the
// keys: the rest is masked), causal masking aligned bottom-right by the cache
// offset, a past key/value cache concatenated in front of K and V (present
// outputs), nonpad_kv_seqlen for an external cache (24), sliding windows (25),
// softcap, softmax_precision and the four qk_matmul_output modes. A query row
// whose bias masks every key gives zeros (not NaN) in Y and in mode 3.
//
// Each (batch, head, query) row is computed on its own: scores against every
// key, the additive bias of that row, softmax, then the weighted sum of V.
#include <cmath>
#include <limits>
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

// Element offsets of a [batch, heads, seq, head_size] view of a 3-D or 4-D
// input.
struct HeadView {
  int64_t heads = 0, seq = 0, size = 0;
  bool packed = false;  // 3-D: [batch, seq, heads * size]
  int64_t at(int64_t b, int64_t h, int64_t s, int64_t d) const {
    if (packed) return ((b * seq + s) * heads + h) * size + d;
    return ((b * heads + h) * seq + s) * size + d;
  }
};

HeadView head_view(const KernelContext& ctx, const Tensor& t, int64_t heads, const char* what) {
  HeadView v;
  if (t.rank() == 4) {
    v.heads = t.dim(1);
    v.seq = t.dim(2);
    v.size = t.dim(3);
    return v;
  }
  if (heads <= 0) {
    ctx.fail(std::string("3-D inputs need the q_num_heads and kv_num_heads attributes (") + what +
             " has shape " + dims_to_string(t.dims()) + ")");
  }
  if (t.dim(2) % heads != 0) {
    ctx.fail(std::string(what) + " hidden size " + std::to_string(t.dim(2)) +
             " is not a multiple of its head count " + std::to_string(heads));
  }
  v.heads = heads;
  v.seq = t.dim(1);
  v.size = t.dim(2) / heads;
  v.packed = true;
  return v;
}

// [batch, heads, past + seq, size] from an optional past cache and the new
// entries (present_key / present_value).
template <class C>
std::vector<C> concat_cache(const std::vector<C>* past, int64_t past_len, const std::vector<C>& x,
                            const HeadView& xv, int64_t batch) {
  const int64_t total = past_len + xv.seq;
  std::vector<C> out(static_cast<size_t>(batch * xv.heads * total * xv.size));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < xv.heads; ++h) {
      C* dst = out.data() + (b * xv.heads + h) * total * xv.size;
      if (past) {
        const C* src = past->data() + (b * xv.heads + h) * past_len * xv.size;
        std::copy(src, src + past_len * xv.size, dst);
      }
      for (int64_t s = 0; s < xv.seq; ++s) {
        for (int64_t d = 0; d < xv.size; ++d) {
          dst[(past_len + s) * xv.size + d] = x[size_t(xv.at(b, h, s, d))];
        }
      }
    }
  }
  return out;
}

struct MaskView {
  const Tensor* t = nullptr;
  int64_t stride[3] = {0, 0, 0};  // batch, head, query
  int64_t len = 0;                // keys covered; later keys are masked
};

MaskView mask_view(const KernelContext& ctx, const Tensor* m, int64_t batch, int64_t heads,
                   int64_t queries, int64_t keys) {
  MaskView mv;
  if (!m) return mv;
  mv.t = m;
  const int64_t r = int64_t(m->rank());
  if (r < 1 || r > 4) ctx.fail("attn_mask must have rank 1 to 4, has " + dims_to_string(m->dims()));
  mv.len = m->dim(size_t(r - 1));
  if (mv.len > keys) {
    ctx.fail("attn_mask covers " + std::to_string(mv.len) + " keys but there are only " +
             std::to_string(keys));
  }
  const int64_t want[3] = {batch, heads, queries};
  int64_t stride = mv.len;
  for (int64_t axis = 2; axis >= 0; --axis) {
    int64_t md = axis - (3 - (r - 1));  // mask dim aligned with target axis
    if (md < 0) break;
    int64_t d = m->dim(size_t(md));
    if (d != 1 && d != want[axis]) {
      ctx.fail("attn_mask shape " + dims_to_string(m->dims()) +
               " does not broadcast to [batch, q_heads, q_seq, kv_seq] = [" +
               std::to_string(batch) + "," + std::to_string(heads) + "," + std::to_string(queries) +
               "," + std::to_string(keys) + "]");
    }
    mv.stride[axis] = d == 1 ? 0 : stride;
    stride *= d;
  }
  return mv;
}

template <class C>
void attention_typed(KernelContext& ctx) {
  const Tensor& q = ctx.tensor(0);
  const Tensor& k = ctx.tensor(1);
  const Tensor& v = ctx.tensor(2);
  const DataType dt = q.dtype();
  require_same_dtype(ctx, q, k);
  require_same_dtype(ctx, q, v);
  const size_t rank = q.rank();
  if ((rank != 3 && rank != 4) || k.rank() != rank || v.rank() != rank) {
    ctx.fail("Q, K and V must all be 3-D or all 4-D; got " + dims_to_string(q.dims()) + ", " +
             dims_to_string(k.dims()) + ", " + dims_to_string(v.dims()));
  }
  const int64_t q_heads_attr = ctx.attr_int("q_num_heads", 0);
  const int64_t kv_heads_attr = ctx.attr_int("kv_num_heads", 0);
  if (rank == 4 && ctx.opset() >= 25 &&
      (ctx.has_attr("q_num_heads") || ctx.has_attr("kv_num_heads"))) {
    ctx.fail("q_num_heads and kv_num_heads must not be given for 4-D inputs");
  }
  const int64_t batch = q.dim(0);
  if (k.dim(0) != batch || v.dim(0) != batch) ctx.fail("Q, K and V must have the same batch size");
  HeadView qv = head_view(ctx, q, q_heads_attr, "Q");
  HeadView kv = head_view(ctx, k, kv_heads_attr, "K");
  HeadView vv = head_view(ctx, v, kv_heads_attr, "V");
  if (kv.size != qv.size) {
    ctx.fail("Q and K head sizes differ (" + std::to_string(qv.size) + " vs " +
             std::to_string(kv.size) + ")");
  }
  if (vv.heads != kv.heads || vv.seq != kv.seq)
    ctx.fail("K and V must have the same heads and length");
  if (kv.heads <= 0 || qv.heads % kv.heads != 0) {
    ctx.fail("the query head count " + std::to_string(qv.heads) +
             " must be a multiple of the key/value head count " + std::to_string(kv.heads));
  }
  const Tensor* past_k = ctx.optional_tensor(4);
  const Tensor* past_v = ctx.optional_tensor(5);
  const Tensor* nonpad = ctx.optional_tensor(6);
  if ((past_k == nullptr) != (past_v == nullptr)) {
    ctx.fail("past_key and past_value must be given together");
  }
  if (nonpad && past_k) ctx.fail("nonpad_kv_seqlen cannot be combined with past_key/past_value");
  int64_t past_len = 0;
  std::vector<C> pk, pv;
  if (past_k) {
    require_same_dtype(ctx, q, *past_k);
    require_same_dtype(ctx, q, *past_v);
    if (past_k->rank() != 4 || past_v->rank() != 4 || past_k->dim(0) != batch ||
        past_k->dim(1) != kv.heads || past_k->dim(3) != kv.size || past_v->dim(0) != batch ||
        past_v->dim(1) != kv.heads || past_v->dim(2) != past_k->dim(2) ||
        past_v->dim(3) != vv.size) {
      ctx.fail("past_key " + dims_to_string(past_k->dims()) + " / past_value " +
               dims_to_string(past_v->dims()) + " do not match [batch, kv_heads, past, size]");
    }
    past_len = past_k->dim(2);
    pk = read_as<C>(*past_k);
    pv = read_as<C>(*past_v);
  }
  std::vector<int64_t> nonpad_len;
  const int64_t keys = past_len + kv.seq;
  if (nonpad) {
    nonpad_len = nonpad->to_int_vector();
    if (int64_t(nonpad_len.size()) != batch)
      ctx.fail("nonpad_kv_seqlen must have one entry per batch");
    for (int64_t n : nonpad_len) {
      if (n < 0 || n > keys) {
        ctx.fail("nonpad_kv_seqlen entry " + std::to_string(n) + " is outside [0, " +
                 std::to_string(keys) + "]");
      }
    }
  }
  const std::vector<C> qd = read_as<C>(q);
  const std::vector<C> pres_k =
      concat_cache<C>(past_k ? &pk : nullptr, past_len, read_as<C>(k), kv, batch);
  const std::vector<C> pres_v =
      concat_cache<C>(past_v ? &pv : nullptr, past_len, read_as<C>(v), vv, batch);

  const Tensor* mask = ctx.optional_tensor(3);
  if (mask && mask->dtype() != DataType::Bool) require_same_dtype(ctx, q, *mask);
  MaskView mv = mask_view(ctx, mask, batch, qv.heads, qv.seq, keys);
  std::vector<C> maskd;
  if (mask) maskd = read_as<C>(*mask);
  const bool bool_mask = mask && mask->dtype() == DataType::Bool;

  const C scale =
      ctx.has_attr("scale") ? C(ctx.attr_float("scale", 1)) : C(1) / std::sqrt(C(qv.size));
  const C softcap = C(ctx.attr_float("softcap", 0));
  const bool causal = ctx.attr_int("is_causal", 0) != 0;
  const int64_t left = ctx.attr_int("left_window_size", -1);
  const int64_t right = ctx.attr_int("right_window_size", -1);
  if (left < -1 || right < -1) ctx.fail("window sizes must be -1 or non-negative");
  const int64_t mode = ctx.attr_int("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) ctx.fail("qk_matmul_output_mode must be 0, 1, 2 or 3");
  DataType softmax_type = dt;
  if (ctx.has_attr("softmax_precision")) {
    int64_t p = ctx.attr_int("softmax_precision", 1);
    if (p != 1 && p != 10 && p != 11 && p != 16) {
      ctx.fail("softmax_precision must be 1 (float), 10 (float16), 11 (double) or 16 (bfloat16)");
    }
    softmax_type = static_cast<DataType>(p);
  }

  const int64_t group = qv.heads / kv.heads;
  const C neg_inf = -std::numeric_limits<C>::infinity();
  std::vector<C> y(static_cast<size_t>(batch * qv.heads * qv.seq * vv.size));
  std::vector<C> qk_out;
  const bool want_qk = ctx.wants_output(3);
  if (want_qk) qk_out.resize(static_cast<size_t>(batch * qv.heads * qv.seq * keys));
  std::vector<C> score(static_cast<size_t>(keys)), bias(static_cast<size_t>(keys)),
      prob(static_cast<size_t>(keys));
  HeadView yv{qv.heads, qv.seq, vv.size, qv.packed};
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t offset = past_k ? past_len : nonpad ? nonpad_len[size_t(b)] - qv.seq : 0;
    for (int64_t h = 0; h < qv.heads; ++h) {
      const int64_t hk = h / group;
      const C* kbase = pres_k.data() + (b * kv.heads + hk) * keys * kv.size;
      const C* vbase = pres_v.data() + (b * kv.heads + hk) * keys * vv.size;
      for (int64_t i = 0; i < qv.seq; ++i) {
        const int64_t pos = offset + i;
        bool any_allowed = false;
        for (int64_t j = 0; j < keys; ++j) {
          C s = 0;
          for (int64_t d = 0; d < qv.size; ++d) {
            s += qd[size_t(qv.at(b, h, i, d))] * kbase[j * kv.size + d];
          }
          s *= scale;
          C raw = s;
          if (softcap > 0) s = softcap * std::tanh(s / softcap);
          C bj = 0;
          if (mask) {
            if (j >= mv.len) {
              bj = neg_inf;
            } else {
              C m = maskd[size_t(b * mv.stride[0] + h * mv.stride[1] + i * mv.stride[2] + j)];
              bj = bool_mask ? (m != 0 ? C(0) : neg_inf) : m;
            }
          }
          if (causal && j > pos) bj += neg_inf;
          if (left >= 0 && pos - j > left) bj += neg_inf;
          if (right >= 0 && j - pos > right) bj += neg_inf;
          if (nonpad && j >= nonpad_len[size_t(b)]) bj += neg_inf;
          if (!(std::isinf(bj) && bj < 0)) any_allowed = true;
          score[size_t(j)] = s;
          bias[size_t(j)] = bj;
          if (want_qk && mode < 2) {
            qk_out[size_t(((b * qv.heads + h) * qv.seq + i) * keys + j)] = mode == 0 ? raw : s;
          }
        }
        C mx = neg_inf;
        for (int64_t j = 0; j < keys; ++j) {
          C x = round_to(softmax_type, score[size_t(j)] + bias[size_t(j)]);
          prob[size_t(j)] = x;
          if (want_qk && mode == 2) {
            qk_out[size_t(((b * qv.heads + h) * qv.seq + i) * keys + j)] =
                score[size_t(j)] + bias[size_t(j)];
          }
          if (x > mx) mx = x;
        }
        if (!any_allowed || (std::isinf(mx) && mx < 0)) {
          std::fill(prob.begin(), prob.end(), C(0));
        } else {
          C sum = 0;
          for (int64_t j = 0; j < keys; ++j) {
            prob[size_t(j)] = std::exp(prob[size_t(j)] - mx);
            sum += prob[size_t(j)];
          }
          for (int64_t j = 0; j < keys; ++j)
            prob[size_t(j)] = round_to(softmax_type, prob[size_t(j)] / sum);
        }
        if (want_qk && mode == 3) {
          std::copy(prob.begin(), prob.end(),
                    qk_out.begin() + ((b * qv.heads + h) * qv.seq + i) * keys);
        }
        for (int64_t d = 0; d < vv.size; ++d) {
          C acc = 0;
          for (int64_t j = 0; j < keys; ++j) acc += prob[size_t(j)] * vbase[j * vv.size + d];
          y[size_t(yv.at(b, h, i, d))] = acc;
        }
      }
    }
  }
  Dims ydims =
      rank == 4 ? Dims{batch, qv.heads, qv.seq, vv.size} : Dims{batch, qv.seq, qv.heads * vv.size};
  ctx.set_output(0, write_as(dt, ydims, y));
  if (ctx.wants_output(1))
    ctx.set_output(1, write_as(dt, {batch, kv.heads, keys, kv.size}, pres_k));
  if (ctx.wants_output(2))
    ctx.set_output(2, write_as(dt, {batch, kv.heads, keys, vv.size}, pres_v));
  if (want_qk) ctx.set_output(3, write_as(dt, {batch, qv.heads, qv.seq, keys}, qk_out));
}

void attention_k(KernelContext& ctx) {
  dispatch_compute(ctx.tensor(0).dtype(), [&](auto tag) { attention_typed<decltype(tag)>(ctx); });
}

}  // namespace

void register_attention_kernels(KernelRegistry& r) {
  r.add("", "Attention", 23, attention_k);
}

}  // namespace oxs::eval
