// Signal processing (opsets 17-20): DFT, STFT, MelWeightMatrix. DFTs are
// direct O(n^2) sums in double: a reference, not an FFT.
#include <cmath>
#include <complex>

#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

using cd = std::complex<double>;

// DFT of `in` (length n, zero-padded or truncated to `len`), first `out_len` bins.
void dft_1d(const std::vector<cd>& in, int64_t len, bool inverse, int64_t out_len, cd* out) {
  double sign = inverse ? 1.0 : -1.0;
  for (int64_t k = 0; k < out_len; ++k) {
    cd acc = 0;
    for (int64_t t = 0; t < len && t < int64_t(in.size()); ++t) {
      double a = sign * 2.0 * M_PI * double(k) * double(t) / double(len);
      acc += in[size_t(t)] * cd(std::cos(a), std::sin(a));
    }
    out[k] = inverse ? acc / double(len) : acc;
  }
}

// DFT 17/19/20 along one axis of [..., n, ..., 1 or 2]. From opset 20 the
// axis is an optional scalar input (default -2, counted over the full
// rank). inverse with onesided is the inverse real DFT: the input holds the
// first n bins of a Hermitian spectrum, the output is dft_length real
// samples (default 2 * (n - 1)) with a last dimension of 1.
void dft_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() < 2) ctx.fail("input must have rank >= 2 (last dimension 1 or 2)");
  int64_t last = x.dim(x.rank() - 1);
  if (last != 1 && last != 2) ctx.fail("the last dimension must be 1 (real) or 2 (complex)");
  int64_t r = int64_t(x.rank()) - 1;  // signal rank without the complex dim
  int64_t axis;
  if (ctx.opset() >= 20) {
    axis = -2;
    if (const Tensor* a = ctx.optional_tensor(2); a && a->numel()) {
      axis = scalar_int64(ctx, *a, "axis");
    }
    if (axis < 0) axis += r + 1;
  } else {
    axis = ctx.attr_int("axis", 1);
    if (axis < 0) axis += r;
  }
  if (axis < 0 || axis >= r) {
    ctx.fail("axis is out of range for input " + dims_to_string(x.dims()) +
             " (the last dimension holds the complex parts)");
  }
  bool inverse = ctx.attr_int("inverse", 0) != 0;
  bool onesided = ctx.attr_int("onesided", 0) != 0;
  const bool real_inverse = inverse && onesided;
  int64_t n = x.dim(size_t(axis));
  int64_t len = real_inverse ? 2 * (n - 1) : n;
  if (const Tensor* l = ctx.optional_tensor(1); l && l->numel()) {
    len = scalar_int64(ctx, *l, "dft_length");
  }
  if (len <= 0) ctx.fail("dft_length must be positive");
  int64_t out_len = real_inverse ? len : onesided ? len / 2 + 1 : len;
  const int64_t out_last = real_inverse ? 1 : 2;
  Tensor xd = cast_tensor(x, DataType::Double);
  int64_t outer = checked_product(ctx, x.dims(), 0, size_t(axis), "outer size");
  int64_t inner = checked_product(ctx, x.dims(), size_t(axis) + 1, size_t(r), "inner size");
  Dims od(x.dims().begin(), x.dims().end() - 1);
  od[size_t(axis)] = out_len;
  od.push_back(out_last);
  Tensor y(DataType::Double, od);
  // Nothing to transform: the signal-sized buffers below would be as long as
  // dft_length asks, whatever the (empty) input.
  if (y.numel() == 0) {
    ctx.set_output(0, cast_tensor(y, x.dtype()));
    return;
  }
  check_work(ctx, {outer, inner, out_len, std::max(len, n)}, "the DFT");
  // The signal as the DFT sees it: the inverse real DFT's Hermitian
  // spectrum is completed from its first bins (X[len - k] = conj(X[k])).
  const int64_t sig_len = real_inverse ? len : n;
  std::vector<cd> sig(static_cast<size_t>(sig_len)), res(static_cast<size_t>(out_len));
  const double* px = xd.data<double>();
  double* py = y.mutable_data<double>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t t) {
        const double* e = px + ((o * n + t) * inner + in) * last;
        return cd(e[0], last == 2 ? e[1] : 0.0);
      };
      if (real_inverse) {
        for (int64_t k = 0; k < len; ++k) {
          const int64_t m = k <= len / 2 ? k : len - k;
          sig[size_t(k)] = m >= n ? cd(0) : k <= len / 2 ? at(m) : std::conj(at(m));
        }
      } else {
        for (int64_t t = 0; t < n; ++t) sig[size_t(t)] = at(t);
      }
      dft_1d(sig, len, inverse, out_len, res.data());
      for (int64_t k = 0; k < out_len; ++k) {
        double* e = py + ((o * out_len + k) * inner + in) * out_last;
        e[0] = res[size_t(k)].real();
        if (out_last == 2) e[1] = res[size_t(k)].imag();
      }
    }
  }
  ctx.set_output(0, cast_tensor(y, x.dtype()));
}

void stft_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() != 3) ctx.fail("signal must be [batch, length, 1 or 2]");
  int64_t batch = x.dim(0), n = x.dim(1), last = x.dim(2);
  if (last != 1 && last != 2) ctx.fail("the last dimension must be 1 (real) or 2 (complex)");
  int64_t step = ctx.tensor(1).scalar_int();
  std::vector<double> window;
  if (const Tensor* w = ctx.optional_tensor(2)) {
    Tensor wd = cast_tensor(*w, DataType::Double);
    window.assign(wd.data<double>(), wd.data<double>() + wd.numel());
  }
  int64_t flen = window.empty() ? 0 : int64_t(window.size());
  if (const Tensor* l = ctx.optional_tensor(3)) flen = l->scalar_int();
  if (flen <= 0 || step <= 0) ctx.fail("frame_length and frame_step must be positive");
  if (!window.empty() && int64_t(window.size()) != flen) {
    ctx.fail("window length must equal frame_length");
  }
  bool onesided = ctx.attr_int("onesided", 1) != 0;
  int64_t frames = n >= flen ? (n - flen) / step + 1 : 0;
  int64_t bins = onesided ? flen / 2 + 1 : flen;
  Tensor y(DataType::Double, {batch, frames, bins, 2});
  // No frame (a frame_length past the signal, 2^31 say): nothing to
  // compute, and the frame-sized buffers below would be that long.
  if (y.numel() == 0) {
    ctx.set_output(0, cast_tensor(y, x.dtype()));
    return;
  }
  check_work(ctx, {batch, frames, bins, flen}, "the STFT");
  // A frame fits in the signal from here on: flen <= n.
  if (window.empty()) window.assign(size_t(flen), 1.0);
  Tensor xd = cast_tensor(x, DataType::Double);
  std::vector<cd> sig(static_cast<size_t>(flen)), res(static_cast<size_t>(bins));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t t = 0; t < flen; ++t) {
        const double* e = xd.data<double>() + (b * n + f * step + t) * last;
        sig[size_t(t)] = cd(e[0], last == 2 ? e[1] : 0.0) * window[size_t(t)];
      }
      dft_1d(sig, flen, false, bins, res.data());
      for (int64_t k = 0; k < bins; ++k) {
        double* e = y.mutable_data<double>() + ((b * frames + f) * bins + k) * 2;
        e[0] = res[size_t(k)].real();
        e[1] = res[size_t(k)].imag();
      }
    }
  }
  ctx.set_output(0, cast_tensor(y, x.dtype()));
}

// Triangular mel filters, computed as onnx's reference does (integer bin
// edges).
void mel_weight_matrix_k(KernelContext& ctx) {
  int64_t mels = ctx.tensor(0).scalar_int();
  int64_t dft_len = ctx.tensor(1).scalar_int();
  int64_t rate = ctx.tensor(2).scalar_int();
  double lo = scalar_double(ctx, ctx.tensor(3), "lower_edge_hertz");
  double hi = scalar_double(ctx, ctx.tensor(4), "upper_edge_hertz");
  DataType dt = DataType(ctx.attr_int("output_datatype", int64_t(DataType::Float)));
  if (!ir::is_floating(dt) && !ir::is_integer(dt)) ctx.fail("output_datatype must be numeric");
  if (mels <= 0 || dft_len <= 0 || rate <= 0) ctx.fail("sizes and sample rate must be positive");
  if (!std::isfinite(lo) || !std::isfinite(hi)) ctx.fail("the edge frequencies must be finite");
  int64_t spec_bins = dft_len / 2 + 1;
  Tensor y(DataType::Double, {spec_bins, mels});  // checks the size before the tables
  double lo_mel = 2595 * std::log10(1 + lo / 700), hi_mel = 2595 * std::log10(1 + hi / 700);
  double mel_step = (hi_mel - lo_mel) / double(mels + 2);
  std::vector<int64_t> bins(static_cast<size_t>(mels + 2));
  for (int64_t i = 0; i < mels + 2; ++i) {
    double m = double(i) * mel_step + lo_mel;
    double hz = 700 * (std::pow(10.0, m / 2595) - 1);
    double b = std::floor((double(dft_len) + 1) * hz / double(rate));
    if (!(std::abs(b) < 9.0e15)) ctx.fail("mel filter edges fall outside the spectrum");
    bins[size_t(i)] = int64_t(b);
  }
  double* py = y.mutable_data<double>();
  auto at = [&](int64_t j, int64_t i) -> double& {
    if (j < 0 || j >= spec_bins) ctx.fail("mel filter edges fall outside the spectrum");
    return py[j * mels + i];
  };
  for (int64_t i = 0; i < mels; ++i) {
    int64_t l = bins[size_t(i)], c = bins[size_t(i + 1)], h = bins[size_t(i + 2)];
    if (c == l) {
      at(c, i) = 1;
    } else {
      for (int64_t j = l; j <= c; ++j) at(j, i) = double(j - l) / double(c - l);
    }
    if (h > c) {
      for (int64_t j = c; j < h; ++j) at(j, i) = double(h - j) / double(h - c);
    }
  }
  ctx.set_output(0, cast_tensor(y, dt));
}

}  // namespace

void register_signal_kernels(KernelRegistry& r) {
  r.add("", "DFT", 17, dft_k);
  r.add("", "STFT", 17, stft_k);
  r.add("", "MelWeightMatrix", 17, mel_weight_matrix_k);
}

}  // namespace oxs::eval
