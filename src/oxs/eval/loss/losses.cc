// NegativeLogLikelihoodLoss (12, 13, 22) and SoftmaxCrossEntropyLoss (12,
// 13), function-ops in ONNX whose libonnx bodies stop at opset 17.
// input is [N, C, d1, ...], target [N, d1, ...] (class indices), weight an
// optional [C]; a target equal to ignore_index contributes nothing (neither
// loss nor weight). reduction "mean" divides by the sum of the weights taken
// (the count of targets not ignored when there is no weight input).
#include <cmath>
#include <optional>
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

// The loss of `logp` ([N, C, D...] log-probabilities, as C values) against
// `target`; sets output 0.
template <class C>
void nll(KernelContext& ctx, const std::vector<C>& logp, const Tensor& input, const Tensor& target,
         const Tensor* weight) {
  if (input.rank() < 2)
    ctx.fail("input must be at least 2-D [N, C, ...], is " + dims_to_string(input.dims()));
  const int64_t n = input.dim(0), classes = input.dim(1);
  Dims want = input.dims();
  want.erase(want.begin() + 1);
  if (target.dims() != want) {
    ctx.fail("target shape " + dims_to_string(target.dims()) +
             " must be input's without the class axis " + dims_to_string(want));
  }
  if (weight && (weight->rank() != 1 || weight->dim(0) != classes)) {
    ctx.fail("weight must have shape [" + std::to_string(classes) + "], has " +
             dims_to_string(weight->dims()));
  }
  std::vector<C> w;
  if (weight) w = read_as<C>(*weight);
  const std::string reduction = ctx.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    ctx.fail("reduction must be \"none\", \"sum\" or \"mean\", not \"" + reduction + "\"");
  }
  std::optional<int64_t> ignore;
  if (ctx.has_attr("ignore_index")) ignore = ctx.attr_int("ignore_index", 0);
  const std::vector<int64_t> t = target.to_int_vector();
  const int64_t d = n == 0 ? 0 : int64_t(t.size()) / n;
  std::vector<C> loss(t.size());
  C wsum = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < d; ++k) {
      const size_t e = size_t(i * d + k);
      const int64_t c = t[e];
      if (ignore && c == *ignore) continue;
      if (c < 0 || c >= classes) {
        ctx.fail("target value " + std::to_string(c) + " is outside [0, " +
                 std::to_string(classes) + ") and is not ignore_index");
      }
      const C wc = weight ? w[size_t(c)] : C(1);
      loss[e] = -logp[size_t((i * classes + c) * d + k)] * wc;
      wsum += wc;
    }
  }
  const DataType dt = input.dtype();
  if (reduction == "none") {
    ctx.set_output(0, write_as(dt, target.dims(), loss));
    return;
  }
  C total = 0;
  for (C v : loss) total += v;
  if (reduction == "mean") total = (weight || ignore) ? total / wsum : total / C(loss.size());
  ctx.set_output(0, write_as(dt, {}, std::vector<C>{total}));
}

void nll_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  dispatch_compute(x.dtype(), [&](auto tag) {
    using C = decltype(tag);
    nll<C>(ctx, read_as<C>(x), x, ctx.tensor(1), ctx.optional_tensor(2));
  });
}

// log_softmax over the class axis (1), then NLL; output 1 is the
// log-probabilities.
void sce_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() < 2)
    ctx.fail("scores must be at least 2-D [N, C, ...], is " + dims_to_string(x.dims()));
  dispatch_compute(x.dtype(), [&](auto tag) {
    using C = decltype(tag);
    std::vector<C> s = read_as<C>(x);
    const int64_t n = x.dim(0), classes = x.dim(1);
    const int64_t d = n * classes == 0 ? 0 : x.numel() / (n * classes);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < d; ++k) {
        C* p = s.data() + i * classes * d + k;
        C mx = -std::numeric_limits<C>::infinity();
        for (int64_t c = 0; c < classes; ++c) mx = std::max(mx, p[c * d]);
        C sum = 0;
        for (int64_t c = 0; c < classes; ++c) sum += std::exp(p[c * d] - mx);
        const C lse = mx + std::log(sum);
        for (int64_t c = 0; c < classes; ++c) p[c * d] = p[c * d] - lse;
      }
    }
    // The loss is taken from the log-probabilities as X's type holds them.
    for (C& v : s) v = round_to(x.dtype(), v);
    nll<C>(ctx, s, x, ctx.tensor(1), ctx.optional_tensor(2));
    if (ctx.wants_output(1)) ctx.set_output(1, write_as(x.dtype(), x.dims(), s));
  });
}

}  // namespace

void register_loss_kernels(KernelRegistry& r) {
  r.add("", "NegativeLogLikelihoodLoss", 12, nll_k);
  r.add("", "SoftmaxCrossEntropyLoss", 12, sce_k);
}

}  // namespace oxs::eval
