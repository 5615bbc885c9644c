// ai.onnx.preview FlexAttention (1): scaled dot-product attention over
// rank-4 Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev] (Hq a multiple
// of Hkv: query head h reads key/value head h / (Hq / Hkv)), with two
// optional subgraphs: score_mod rewrites the scaled scores [B, Hq, L, S]
// before the softmax over S, prob_mod the probabilities after it. Scores,
// softmax and the subgraphs work in softmax_precision (float, or double for
// double inputs); Y [B, Hq, L, Ev] is rounded to Q's type at the end.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/common/modern_kernels.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

// The subgraph's one output, checked to keep `dims`, as doubles.
std::vector<double> run_mod(KernelContext& ctx, const char* name, DataType precision,
                            const Dims& dims, const std::vector<double>& values) {
  const ir::Graph& g = ctx.attr_graph(name);
  std::vector<Value> in = {Value(write_as(precision, dims, values))};
  std::vector<Value> out = ctx.run_subgraph(g, in);
  if (out.size() != 1 || !out[0].is_tensor()) {
    ctx.fail(std::string(name) + " must have one tensor output");
  }
  const Tensor& t = out[0].tensor();
  if (t.dims() != dims) {
    ctx.fail(std::string(name) + " returned " + dims_to_string(t.dims()) + ", expected " +
             dims_to_string(dims) + " (its input's shape)");
  }
  return read_as<double>(t);
}

void flex_attention_k(KernelContext& ctx) {
  const Tensor& q = ctx.tensor(0);
  const Tensor& k = ctx.tensor(1);
  const Tensor& v = ctx.tensor(2);
  require_rank(ctx, q, 4, 4, "Q");
  require_rank(ctx, k, 4, 4, "K");
  require_rank(ctx, v, 4, 4, "V");
  const int64_t b = q.dim(0), hq = q.dim(1), l = q.dim(2), e = q.dim(3);
  const int64_t hkv = k.dim(1), s = k.dim(2), ev = v.dim(3);
  if (k.dim(0) != b || v.dim(0) != b || k.dim(3) != e || v.dim(1) != hkv || v.dim(2) != s) {
    ctx.fail("Q " + dims_to_string(q.dims()) + ", K " + dims_to_string(k.dims()) + " and V " +
             dims_to_string(v.dims()) + " must be [B, Hq, L, E], [B, Hkv, S, E], [B, Hkv, S, Ev]");
  }
  if (hkv < 1 || hq % hkv != 0) {
    ctx.fail("the query heads (" + std::to_string(hq) +
             ") must be a multiple of the key/value heads (" + std::to_string(hkv) + ")");
  }
  const DataType precision = DataType(
      ctx.attr_int("softmax_precision",
                   int64_t(q.dtype() == DataType::Double ? DataType::Double : DataType::Float)));
  if (!ir::is_floating(precision)) ctx.fail("softmax_precision must be a floating-point type");
  const double scale =
      ctx.has_attr("scale") ? double(ctx.attr_float("scale", 1)) : 1.0 / std::sqrt(double(e));
  check_work(ctx, {b, hq, l, s, std::max(e, ev)}, "FlexAttention");
  const Dims score_dims = {b, hq, l, s};
  const int64_t n_scores = checked_product(ctx, score_dims, "the scores");
  const std::vector<double> qv = read_as<double>(q), kv = read_as<double>(k),
                            vv = read_as<double>(v);
  const int64_t group = hq / hkv;
  std::vector<double> scores(static_cast<size_t>(n_scores));
  for (int64_t bh = 0; bh < b * hq; ++bh) {
    const int64_t kvh = (bh / hq) * hkv + (bh % hq) / group;
    for (int64_t i = 0; i < l; ++i) {
      const double* qr = qv.data() + (bh * l + i) * e;
      for (int64_t j = 0; j < s; ++j) {
        const double* kr = kv.data() + (kvh * s + j) * e;
        double dot = 0;
        for (int64_t d = 0; d < e; ++d) dot += qr[d] * kr[d];
        scores[size_t((bh * l + i) * s + j)] = round_to(precision, dot * scale);
      }
    }
  }
  if (ctx.has_attr("score_mod")) scores = run_mod(ctx, "score_mod", precision, score_dims, scores);
  for (int64_t row = 0; row < b * hq * l; ++row) {
    double* p = scores.data() + row * s;
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < s; ++j) mx = std::max(mx, p[j]);
    double sum = 0;
    for (int64_t j = 0; j < s; ++j) sum += p[j] = std::exp(p[j] - mx);
    for (int64_t j = 0; j < s; ++j) p[j] = round_to(precision, p[j] / sum);
  }
  if (ctx.has_attr("prob_mod")) scores = run_mod(ctx, "prob_mod", precision, score_dims, scores);
  std::vector<double> y(static_cast<size_t>(checked_product(ctx, {b, hq, l, ev}, "Y")), 0.0);
  for (int64_t bh = 0; bh < b * hq; ++bh) {
    const int64_t kvh = (bh / hq) * hkv + (bh % hq) / group;
    for (int64_t i = 0; i < l; ++i) {
      const double* p = scores.data() + (bh * l + i) * s;
      double* out = y.data() + (bh * l + i) * ev;
      for (int64_t j = 0; j < s; ++j) {
        const double* vr = vv.data() + (kvh * s + j) * ev;
        for (int64_t d = 0; d < ev; ++d) out[d] += p[j] * vr[d];
      }
    }
  }
  ctx.set_output(0, write_as(q.dtype(), {b, hq, l, ev}, y));
}

}  // namespace

void register_flex_attention_kernels(KernelRegistry& r) {
  r.add("ai.onnx.preview", "FlexAttention", 1, flex_attention_k);
}

}  // namespace oxs::eval
