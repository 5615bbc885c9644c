// Recurrent layers: RNN, GRU, LSTM (forward, reverse, bidirectional;
// sequence_lens; layout 0/1; clip; custom activations). Computed in double
// with plain loops: these are reference kernels, not fast ones.
#include <cmath>
#include <functional>

#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"
#include "oxs/eval/validate/run_limits.h"

namespace oxs::eval {

namespace {

using Act = std::function<double(double)>;

Act activation(const KernelContext& ctx, const std::string& name, float alpha, float beta) {
  std::string n = name;
  if (n == "Sigmoid") return [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  if (n == "Tanh") return [](double x) { return std::tanh(x); };
  if (n == "Relu") return [](double x) { return x > 0 ? x : 0.0; };
  if (n == "LeakyRelu") return [alpha](double x) { return x >= 0 ? x : alpha * x; };
  if (n == "ThresholdedRelu") return [alpha](double x) { return x > alpha ? x : 0.0; };
  if (n == "ScaledTanh") return [alpha, beta](double x) { return alpha * std::tanh(beta * x); };
  if (n == "HardSigmoid") {
    return [alpha, beta](double x) { return std::max(0.0, std::min(1.0, alpha * x + beta)); };
  }
  if (n == "Elu") return [alpha](double x) { return x >= 0 ? x : alpha * (std::exp(x) - 1); };
  if (n == "Softsign") return [](double x) { return x / (1 + std::abs(x)); };
  if (n == "Softplus") return [](double x) { return std::log1p(std::exp(x)); };
  if (n == "Affine") return [alpha, beta](double x) { return alpha * x + beta; };
  ctx.fail("unsupported activation '" + name + "'", ErrorKind::Unsupported);
}

enum class Cell { Rnn, Gru, Lstm };

template <Cell K>
void recurrent_k(KernelContext& ctx) {
  const int gates = K == Cell::Rnn ? 1 : K == Cell::Gru ? 3 : 4;
  const Tensor& xt = ctx.tensor(0);
  if (xt.rank() != 3 || ctx.tensor(1).rank() != 3 || ctx.tensor(2).rank() != 3) {
    ctx.fail("X, W and R must be 3-D");
  }
  int64_t layout = ctx.attr_int("layout", 0);
  std::vector<double> x = [&] {
    Tensor d = cast_tensor(xt, DataType::Double);
    if (layout == 1) d = transpose_tensor(d, {1, 0, 2});
    return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
  }();
  int64_t seq = layout ? xt.dim(1) : xt.dim(0), batch = layout ? xt.dim(0) : xt.dim(1);
  int64_t in = xt.dim(2);
  Tensor w = cast_tensor(ctx.tensor(1), DataType::Double),
         r = cast_tensor(ctx.tensor(2), DataType::Double);
  int64_t dirs = w.dim(0), h = ctx.attr_int("hidden_size", r.dim(2));
  if (h < 0) ctx.fail("hidden_size must not be negative");
  int64_t gates_h = checked_mul(ctx, gates, h, "gates x hidden_size");
  if (xt.rank() != 3 || w.rank() != 3 || r.rank() != 3 || w.dim(1) != gates_h || w.dim(2) != in ||
      r.dim(0) != dirs || r.dim(1) != gates_h || r.dim(2) != h) {
    ctx.fail("X, W and R shapes do not match hidden_size " + std::to_string(h));
  }
  if (const Tensor* bt = ctx.optional_tensor(3); bt && bt->numel() != dirs * 2 * gates * h) {
    ctx.fail("B has the wrong size");
  }
  if (const Tensor* s = ctx.optional_tensor(4)) {
    for (int64_t v : s->to_int_vector()) {
      if (v < 0 || v > seq) ctx.fail("sequence_lens values must be within [0, seq_length]");
    }
    if (s->numel() != batch) ctx.fail("sequence_lens must have one value per batch entry");
  }
  for (size_t i : {size_t(5), size_t(6)}) {
    if (const Tensor* t = ctx.optional_tensor(i); t && t->numel() != dirs * batch * h) {
      ctx.fail("initial_h/initial_c have the wrong size");
    }
  }
  if (const Tensor* p = ctx.optional_tensor(7);
      K == Cell::Lstm && p && p->numel() != dirs * 3 * h) {
    ctx.fail("P has the wrong size");
  }
  // The state and bias vectors below are plain vectors: bound them first.
  int64_t state = checked_product(ctx, {dirs, batch, h}, "the hidden state");
  if (state > allocation_limit() / 8 || dirs > 2) {
    ctx.fail("the hidden state " + std::to_string(dirs) + " x " + std::to_string(batch) + " x " +
             std::to_string(h) + " is over the allocation limit (or W has more than 2 directions)");
  }
  check_work(ctx, {seq, state, std::max<int64_t>(gates * (in + h), 1)}, "the recurrence");
  std::string direction = ctx.attr_string("direction", "forward");
  if ((direction == "bidirectional") != (dirs == 2))
    ctx.fail("direction does not match W's first dimension");
  std::vector<double> b(size_t(dirs * 2 * gates * h), 0.0);
  if (const Tensor* bt = ctx.optional_tensor(3)) {
    Tensor d = cast_tensor(*bt, DataType::Double);
    std::copy(d.data<double>(), d.data<double>() + d.numel(), b.begin());
  }
  std::vector<int64_t> lens(checked_buffer(ctx, {batch}, sizeof(int64_t), "sequence_lens"), seq);
  if (const Tensor* s = ctx.optional_tensor(4)) lens = s->to_int_vector();
  auto initial = [&](size_t i) {
    std::vector<double> v(size_t(dirs * batch * h), 0.0);
    if (const Tensor* t = ctx.optional_tensor(i)) {
      Tensor d = cast_tensor(*t, DataType::Double);
      if (layout == 1) d = transpose_tensor(d, {1, 0, 2});
      std::copy(d.data<double>(), d.data<double>() + d.numel(), v.begin());
    }
    return v;
  };
  std::vector<double> hs = initial(5), cs = K == Cell::Lstm ? initial(6) : std::vector<double>();
  std::vector<double> peep(size_t(dirs * 3 * h), 0.0);
  if (K == Cell::Lstm) {
    if (const Tensor* p = ctx.optional_tensor(7)) {
      Tensor d = cast_tensor(*p, DataType::Double);
      std::copy(d.data<double>(), d.data<double>() + d.numel(), peep.begin());
    }
  }
  std::vector<std::string> names = ctx.attr_strings("activations");
  std::vector<float> alphas = ctx.attr_floats("activation_alpha"),
                     betas = ctx.attr_floats("activation_beta");
  std::vector<std::string> defaults = K == Cell::Rnn ? std::vector<std::string>{"Tanh"}
                                      : K == Cell::Gru
                                          ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                          : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  size_t per = defaults.size();
  std::vector<Act> acts;
  for (size_t i = 0; i < per * size_t(dirs); ++i) {
    std::string n = i < names.size() ? names[i] : defaults[i % per];
    float a = i < alphas.size() ? alphas[i]
                                : (n == "LeakyRelu"     ? 0.01f
                                   : n == "HardSigmoid" ? 0.2f
                                                        : 1.0f);
    float be = i < betas.size() ? betas[i] : (n == "HardSigmoid" ? 0.5f : 0.0f);
    acts.push_back(activation(ctx, n, a, be));
  }
  bool has_clip = ctx.has_attr("clip");
  double clip = ctx.attr_float("clip", 0);
  // std::clamp(v, -clip, clip) needs -clip <= clip (a negative or NaN clip
  // breaks its precondition).
  if (has_clip && !(clip >= 0)) {
    ctx.fail("attribute 'clip' is " + number_text(clip) + "; it must be a number >= 0");
  }
  auto clipped = [&](double v) { return has_clip ? std::clamp(v, -clip, clip) : v; };
  bool lbr = ctx.attr_int("linear_before_reset", 0) != 0;
  bool input_forget = ctx.attr_int("input_forget", 0) != 0;
  std::vector<double> y(checked_buffer(ctx, {seq, state}, sizeof(double), "Y"), 0.0);
  const double* pw = w.data<double>();
  const double* pr = r.data<double>();
  std::vector<double> gx(size_t(gates * h)), gh(size_t(gates * h));
  // A hidden size of 0 leaves nothing to compute, and the batch is then no
  // bound on the loops (X of [1, 2^31, 0] took for ever).
  for (int64_t d = 0; d < dirs && h > 0; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    const double* W = pw + d * gates * h * in;
    const double* R = pr + d * gates * h * h;
    const double* Wb = b.data() + d * 2 * gates * h;
    const double* Rb = Wb + gates * h;
    const Act* f = acts.data() + size_t(d) * per;
    for (int64_t bi = 0; bi < batch; ++bi) {
      double* H = hs.data() + (d * batch + bi) * h;
      double* C = K == Cell::Lstm ? cs.data() + (d * batch + bi) * h : nullptr;
      int64_t len = lens[size_t(bi)];
      for (int64_t step = 0; step < len; ++step) {
        poll_run_limits(gates * h * (in + h + 1));
        int64_t t = reverse ? len - 1 - step : step;
        const double* xv = x.data() + (t * batch + bi) * in;
        for (int64_t g = 0; g < gates * h; ++g) {
          double a = Wb[g], c = Rb[g];
          for (int64_t k = 0; k < in; ++k) a += W[g * in + k] * xv[k];
          for (int64_t k = 0; k < h; ++k) c += R[g * h + k] * H[k];
          gx[size_t(g)] = a;
          gh[size_t(g)] = c;
        }
        std::vector<double> nh(static_cast<size_t>(h));
        if constexpr (K == Cell::Rnn) {
          for (int64_t j = 0; j < h; ++j)
            nh[size_t(j)] = f[0](clipped(gx[size_t(j)] + gh[size_t(j)]));
        } else if constexpr (K == Cell::Gru) {
          for (int64_t j = 0; j < h; ++j) {
            double z = f[0](clipped(gx[size_t(j)] + gh[size_t(j)]));
            double rr = f[0](clipped(gx[size_t(h + j)] + gh[size_t(h + j)]));
            double hh;
            if (lbr) {
              hh = f[1](clipped(gx[size_t(2 * h + j)] + rr * gh[size_t(2 * h + j)]));
            } else {
              // (r ⊙ H) R^T: each H[k] is scaled by its own reset gate.
              double acc = Rb[2 * h + j];
              for (int64_t k = 0; k < h; ++k) {
                double rk = f[0](clipped(gx[size_t(h + k)] + gh[size_t(h + k)]));
                acc += R[(2 * h + j) * h + k] * rk * H[k];
              }
              hh = f[1](clipped(gx[size_t(2 * h + j)] + acc));
            }
            nh[size_t(j)] = (1 - z) * hh + z * H[j];
          }
        } else {
          const double* P = peep.data() + d * 3 * h;
          for (int64_t j = 0; j < h; ++j) {
            double ig = f[0](clipped(gx[size_t(j)] + gh[size_t(j)] + P[j] * C[j]));
            double fg =
                f[0](clipped(gx[size_t(2 * h + j)] + gh[size_t(2 * h + j)] + P[2 * h + j] * C[j]));
            if (input_forget) fg = 1 - ig;
            double cc = f[1](clipped(gx[size_t(3 * h + j)] + gh[size_t(3 * h + j)]));
            double c_new = fg * C[j] + ig * cc;
            double og = f[0](clipped(gx[size_t(h + j)] + gh[size_t(h + j)] + P[h + j] * c_new));
            C[j] = c_new;
            nh[size_t(j)] = og * f[2](c_new);
          }
        }
        std::copy(nh.begin(), nh.end(), H);
        std::copy(nh.begin(), nh.end(), y.begin() + ((t * dirs + d) * batch + bi) * h);
      }
    }
  }
  DataType dt = xt.dtype();
  auto emit = [&](size_t i, std::vector<double>& v, Dims dims, bool is_y) {
    if (!ctx.wants_output(i)) return;
    Tensor t = Tensor::of<double>(DataType::Double, dims, std::span<const double>(v));
    if (layout == 1)
      t = transpose_tensor(t,
                           is_y ? std::vector<int64_t>{2, 0, 1, 3} : std::vector<int64_t>{1, 0, 2});
    ctx.set_output(i, cast_tensor(t, dt));
  };
  emit(0, y, {seq, dirs, batch, h}, true);
  emit(1, hs, {dirs, batch, h}, false);
  if (K == Cell::Lstm) emit(2, cs, {dirs, batch, h}, false);
}

}  // namespace

void register_rnn_kernels(KernelRegistry& r) {
  r.add("", "RNN", 1, recurrent_k<Cell::Rnn>);
  r.add("", "GRU", 1, recurrent_k<Cell::Gru>);
  r.add("", "LSTM", 1, recurrent_k<Cell::Lstm>);
}

}  // namespace oxs::eval
