// CausalConvWithState (27): a depthwise causal 1-D convolution carrying its
// left context. input [batch, channels, length], weight [channels, 1, k],
// optional bias [channels] and past_state [batch, channels, k - 1] (zeros
// when absent). The output at t sees the k - 1 previous positions (from the
// state, then the input); activation "silu"/"swish" applies x * sigmoid(x).
// present_state holds the last k - 1 positions of state + input.
#include <cmath>
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

template <class C>
void causal_conv_typed(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& w = ctx.tensor(1);
  const Tensor* bias = ctx.optional_tensor(2);
  const Tensor* past = ctx.optional_tensor(3);
  const std::string act = ctx.attr_string("activation", "none");
  if (act != "none" && act != "silu" && act != "swish") {
    ctx.fail("activation must be none, silu or swish, not '" + act + "'");
  }
  if (x.rank() != 3)
    ctx.fail("input must be [batch, channels, length], is " + dims_to_string(x.dims()));
  const int64_t n = x.dim(0), ch = x.dim(1), len = x.dim(2);
  if (w.rank() != 3 || w.dim(0) != ch || w.dim(1) != 1 || w.dim(2) < 1) {
    ctx.fail("weight must be [channels, 1, k], is " + dims_to_string(w.dims()));
  }
  const int64_t k = w.dim(2), ctxlen = k - 1, total = ctxlen + len;
  if (bias && bias->dims() != Dims{ch}) ctx.fail("bias must be [channels]");
  if (past && past->dims() != Dims{n, ch, ctxlen}) {
    ctx.fail("past_state must be [batch, channels, k - 1] = " + dims_to_string({n, ch, ctxlen}) +
             ", is " + dims_to_string(past->dims()));
  }
  const std::vector<C> xd = read_as<C>(x), wd = read_as<C>(w);
  std::vector<C> bd, pd;
  if (bias) bd = read_as<C>(*bias);
  if (past) pd = read_as<C>(*past);
  std::vector<C> padded(size_t(n * ch * total), C(0));
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t c = 0; c < ch; ++c) {
      C* row = padded.data() + (b * ch + c) * total;
      if (past) std::copy_n(pd.data() + (b * ch + c) * ctxlen, ctxlen, row);
      std::copy_n(xd.data() + (b * ch + c) * len, len, row + ctxlen);
    }
  }
  std::vector<C> y(size_t(n * ch * len)), state(size_t(n * ch * ctxlen));
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t c = 0; c < ch; ++c) {
      const C* row = padded.data() + (b * ch + c) * total;
      for (int64_t t = 0; t < len; ++t) {
        C acc = bias ? bd[size_t(c)] : C(0);
        for (int64_t j = 0; j < k; ++j) acc += wd[size_t(c * k + j)] * row[t + j];
        acc = round_to(x.dtype(), acc);
        if (act != "none") acc = acc / (C(1) + std::exp(-acc));
        y[size_t((b * ch + c) * len + t)] = acc;
      }
      std::copy_n(row + len, ctxlen, state.data() + (b * ch + c) * ctxlen);
    }
  }
  ctx.set_output(0, write_as(x.dtype(), x.dims(), y));
  if (ctx.wants_output(1)) ctx.set_output(1, write_as(x.dtype(), {n, ch, ctxlen}, state));
}

void causal_conv_k(KernelContext& ctx) {
  dispatch_compute(ctx.tensor(0).dtype(), [&](auto tag) { causal_conv_typed<decltype(tag)>(ctx); });
}

}  // namespace

void register_causal_conv_kernels(KernelRegistry& r) {
  r.add("", "CausalConvWithState", 27, causal_conv_k);
}

}  // namespace oxs::eval
