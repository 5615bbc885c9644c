// MaxPool over float [N, C, H, W] (fast_kernels.h): per output, the window
// clipped to the input once (no per-element bounds test), planes split over
// the thread pool. Same result as the reference kernel, NaN included (a NaN
// in the window wins, and a window entirely in the padding gives -inf).
#include <algorithm>
#include <cmath>
#include <limits>

#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/kernel.h"
#include "oxs/eval/parallel/thread_pool.h"
#include "oxs/eval/window.h"

namespace oxs::eval::fast {

bool max_pool_2d(KernelContext& ctx) {
  if (!enabled()) return false;
  const Tensor& x = ctx.tensor(0);
  if (x.dtype() != DataType::Float || x.rank() != 4 || ctx.wants_output(1)) return false;
  const std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape");
  if (kernel.size() != 2) return false;
  for (int64_t d : ctx.attr_ints("dilations")) {
    if (d != 1) return false;
  }
  const std::vector<int64_t> spatial{x.dim(2), x.dim(3)};
  const Window w = make_window(ctx, spatial, kernel, ctx.attr_int("ceil_mode", 0) != 0);
  const int64_t H = spatial[0], W = spatial[1], OH = w.out[0], OW = w.out[1];
  const int64_t planes = x.dim(0) * x.dim(1);
  Tensor& y = ctx.alloc_output_uninitialized(0, DataType::Float, {x.dim(0), x.dim(1), OH, OW});
  const float* px = x.data<float>();
  float* py = y.mutable_data<float>();
  const int64_t KH = kernel[0], KW = kernel[1], SH = w.strides[0], SW = w.strides[1];
  const int64_t PH = w.pad_begin[0], PW = w.pad_begin[1];
  parallel_for(planes, double(OH * OW * KH * KW), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const float* xp = px + p * H * W;
      float* yp = py + p * OH * OW;
      for (int64_t oy = 0; oy < OH; ++oy) {
        const int64_t y0 = std::max<int64_t>(0, oy * SH - PH);
        const int64_t y1 = std::min<int64_t>(H, oy * SH - PH + KH);
        for (int64_t ox = 0; ox < OW; ++ox) {
          const int64_t x0 = std::max<int64_t>(0, ox * SW - PW);
          const int64_t x1 = std::min<int64_t>(W, ox * SW - PW + KW);
          float m = -std::numeric_limits<float>::infinity();
          for (int64_t iy = y0; iy < y1; ++iy) {
            const float* row = xp + iy * W;
            for (int64_t ix = x0; ix < x1; ++ix) {
              const float v = row[ix];
              if (v > m || std::isnan(v)) m = v;
            }
          }
          yp[oy * OW + ox] = m;
        }
      }
    }
  });
  return true;
}

}  // namespace oxs::eval::fast
