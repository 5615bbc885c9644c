// Col2Im (18): the inverse of im2col. input [N, C * prod(block_shape), L]
// holds, for each of the L sliding-block positions over an image of
// image_shape (with pads, strides, dilations), the block's values; they are
// summed into the image [N, C, *image_shape] (overlaps add up).
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

void col2im_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const std::vector<int64_t> image = ctx.tensor(1).to_int_vector();
  const std::vector<int64_t> block = ctx.tensor(2).to_int_vector();
  const size_t nd = image.size();
  if (nd == 0 || block.size() != nd) ctx.fail("image_shape and block_shape must have one length");
  if (x.rank() != 3)
    ctx.fail("input must be [N, C * prod(block_shape), L], is " + dims_to_string(x.dims()));
  const std::vector<int64_t> dil = ctx.attr_ints("dilations", std::vector<int64_t>(nd, 1));
  const std::vector<int64_t> strides = ctx.attr_ints("strides", std::vector<int64_t>(nd, 1));
  const std::vector<int64_t> pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * nd, 0));
  if (dil.size() != nd || strides.size() != nd || pads.size() != 2 * nd) {
    ctx.fail("dilations and strides need one entry per spatial dim, pads two");
  }
  int64_t kprod = 1, lprod = 1;
  std::vector<int64_t> windows(nd);
  for (size_t d = 0; d < nd; ++d) {
    if (block[d] <= 0 || image[d] < 0 || dil[d] <= 0 || strides[d] <= 0) {
      ctx.fail("block_shape, dilations and strides must be positive, image_shape non-negative");
    }
    const int64_t span = dil[d] * (block[d] - 1) + 1;
    windows[d] = (image[d] + pads[d] + pads[d + nd] - span) / strides[d] + 1;
    if (windows[d] < 0) windows[d] = 0;
    kprod *= block[d];
    lprod *= windows[d];
  }
  const int64_t n = x.dim(0);
  if (x.dim(1) % kprod != 0) ctx.fail("input's second dim must be C * prod(block_shape)");
  const int64_t ch = x.dim(1) / kprod;
  if (x.dim(2) != lprod) {
    ctx.fail("input has " + std::to_string(x.dim(2)) +
             " block positions but the image, pads and strides give " + std::to_string(lprod));
  }
  int64_t img = 1;
  for (int64_t s : image) img *= s;
  Dims od = {n, ch};
  od.insert(od.end(), image.begin(), image.end());
  dispatch_compute(x.dtype(), [&](auto tag) {
    using C = decltype(tag);
    const std::vector<C> xd = read_as<C>(x);
    std::vector<C> y(size_t(n * ch * img), C(0));
    std::vector<int64_t> kidx(nd), widx(nd);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t c = 0; c < ch; ++c) {
        for (int64_t k = 0; k < kprod; ++k) {
          for (int64_t rest = k, d = int64_t(nd) - 1; d >= 0; --d) {
            kidx[size_t(d)] = rest % block[size_t(d)];
            rest /= block[size_t(d)];
          }
          for (int64_t l = 0; l < lprod; ++l) {
            for (int64_t rest = l, d = int64_t(nd) - 1; d >= 0; --d) {
              widx[size_t(d)] = rest % windows[size_t(d)];
              rest /= windows[size_t(d)];
            }
            int64_t off = 0;
            bool inside = true;
            for (size_t d = 0; d < nd; ++d) {
              const int64_t p = widx[d] * strides[d] - pads[d] + kidx[d] * dil[d];
              if (p < 0 || p >= image[d]) inside = false;
              off = off * image[d] + p;
            }
            if (!inside) continue;
            y[size_t((b * ch + c) * img + off)] +=
                xd[size_t(((b * ch + c) * kprod + k) * lprod + l)];
          }
        }
      }
    }
    ctx.set_output(0, write_as(x.dtype(), od, y));
  });
}

}  // namespace

void register_col2im_kernels(KernelRegistry& r) {
  r.add("", "Col2Im", 18, col2im_k);
}

}  // namespace oxs::eval
