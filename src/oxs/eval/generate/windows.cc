// HannWindow, HammingWindow, BlackmanWindow (17): function-ops whose libonnx
// bodies stop at opset 17. size is a scalar integer; output_datatype (default
// float) and periodic (default 1: the window of size + 1, without its last
// point) as in the spec.
#include <cmath>
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

enum class Window { Hann, Hamming, Blackman };

template <Window W>
void window_k(KernelContext& ctx) {
  const Tensor& size_t_ = ctx.tensor(0);
  if (size_t_.numel() != 1) ctx.fail("size must be a scalar");
  const int64_t size = size_t_.scalar_int();
  if (size < 0) ctx.fail("size must not be negative, is " + std::to_string(size));
  // The window is built in doubles first: refuse a size whose buffer would
  // pass the evaluator's allocation limit before allocating it.
  if (size > allocation_limit() / int64_t(sizeof(double))) {
    ctx.fail("a window of size " + std::to_string(size) +
             " has more elements than the evaluator's allocation limit allows");
  }
  const DataType dt = static_cast<DataType>(ctx.attr_int("output_datatype", 1));
  if (!ir::is_valid_dtype(int32_t(dt)) || !(ir::is_floating(dt) || ir::is_integer(dt))) {
    ctx.fail("output_datatype must be a numeric type");
  }
  const bool periodic = ctx.attr_int("periodic", 1) != 0;
  const double n1 = double(periodic ? size : size - 1);
  std::vector<double> w(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    const double x = double(i);
    double v = 0;
    if constexpr (W == Window::Hann) {
      double s = std::sin(x * M_PI / n1);
      v = s * s;
    } else if constexpr (W == Window::Hamming) {
      const double alpha = 25.0 / 46.0;
      v = alpha - std::cos(x * M_PI * 2 / n1) * (1 - alpha);
    } else {
      v = 0.42 - 0.5 * std::cos(x * M_PI * 2 / n1) + 0.08 * std::cos(x * M_PI * 4 / n1);
    }
    w[size_t(i)] = v;
  }
  Tensor d(DataType::Double, {size});
  std::copy(w.begin(), w.end(), d.mutable_data<double>());
  ctx.set_output(0, cast_tensor(d, dt));
}

}  // namespace

void register_window_kernels(KernelRegistry& r) {
  r.add("", "HannWindow", 17, window_k<Window::Hann>);
  r.add("", "HammingWindow", 17, window_k<Window::Hamming>);
  r.add("", "BlackmanWindow", 17, window_k<Window::Blackman>);
}

}  // namespace oxs::eval
