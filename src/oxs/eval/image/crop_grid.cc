// CenterCropPad (18): each axis in `axes` (default all) is cropped or
// zero-padded to `shape`, centred (an odd difference puts the extra element
// at the end). AffineGrid (20): the sampling grid [N, H, W, 2] (or
// [N, D, H, W, 3]) of theta [N, 2, 3] (or [N, 3, 4]) applied to the
// normalized coordinates in [-1, 1] of an output of `size` [N, C, H, W] (or
// [N, C, D, H, W]); align_corners puts -1 and 1 on the corner pixels'
// centres rather than their outer edges.
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

void center_crop_pad_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const std::vector<int64_t> shape = ctx.tensor(1).to_int_vector();
  const int64_t r = int64_t(x.rank());
  std::vector<int64_t> axes = ctx.attr_ints("axes");
  if (axes.empty()) {
    for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  }
  if (axes.size() != shape.size()) {
    ctx.fail("shape has " + std::to_string(shape.size()) + " entries but there are " +
             std::to_string(axes.size()) + " axes");
  }
  Dims od = x.dims();
  std::vector<int64_t> in_start(size_t(r), 0), out_start(size_t(r), 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    const size_t a = size_t(normalize_axis(ctx, axes[k], r));
    if (shape[k] < 0) ctx.fail("shape entries must not be negative");
    const int64_t dim = x.dim(a);
    od[a] = shape[k];
    if (shape[k] < dim) in_start[a] = (dim - shape[k]) / 2;
    if (shape[k] > dim) out_start[a] = (shape[k] - dim) / 2;
  }
  Tensor out(x.dtype(), od);
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    std::vector<int64_t> idx(size_t(r), 0);
    for (int64_t e = 0; e < x.numel(); ++e) {
      int64_t o = 0;
      bool inside = true;
      for (size_t d = 0; d < size_t(r); ++d) {
        const int64_t i = idx[d] - in_start[d] + out_start[d];
        if (i < 0 || i >= od[d]) inside = false;
        o = o * od[d] + i;
      }
      if (inside) po[o] = px[e];
      for (size_t d = size_t(r); d-- > 0;) {
        if (++idx[d] < x.dim(d)) break;
        idx[d] = 0;
      }
    }
  });
  ctx.set_output(0, out);
}

void affine_grid_k(KernelContext& ctx) {
  const Tensor& theta = ctx.tensor(0);
  const std::vector<int64_t> size = ctx.tensor(1).to_int_vector();
  if (size.size() != 4 && size.size() != 5)
    ctx.fail("size must be [N, C, H, W] or [N, C, D, H, W]");
  const int64_t nd = int64_t(size.size()) - 2;  // spatial dims: 2 or 3
  const int64_t n = size[0];
  if (theta.rank() != 3 || theta.dim(0) != n || theta.dim(1) != nd || theta.dim(2) != nd + 1) {
    ctx.fail("theta must be [N, " + std::to_string(nd) + ", " + std::to_string(nd + 1) +
             "] for this size, is " + dims_to_string(theta.dims()));
  }
  const bool align = ctx.attr_int("align_corners", 0) != 0;
  std::vector<int64_t> spatial(size.begin() + 2, size.end());  // D?, H, W
  int64_t points = 1;
  for (int64_t s : spatial) {
    if (s < 0) ctx.fail("size entries must not be negative");
    points *= s;
  }
  auto coord = [&](int64_t i, int64_t len) {
    if (align) return len == 1 ? -1.0 : -1.0 + double(i) * 2.0 / double(len - 1);
    return -1.0 + (2.0 * double(i) + 1.0) / double(len);
  };
  dispatch_compute(theta.dtype(), [&](auto tag) {
    using C = decltype(tag);
    const std::vector<C> th = read_as<C>(theta);
    std::vector<C> grid(size_t(n * points * nd));
    std::vector<double> homo(size_t(nd + 1));
    for (int64_t p = 0; p < points; ++p) {
      // The point's coordinates, x (along W) first, then y, then z.
      int64_t rest = p;
      for (int64_t d = nd - 1; d >= 0; --d) {
        const int64_t len = spatial[size_t(d)];
        homo[size_t(nd - 1 - d)] = coord(rest % len, len);
        rest /= len;
      }
      homo[size_t(nd)] = 1.0;
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t row = 0; row < nd; ++row) {
          double acc = 0;
          for (int64_t c = 0; c <= nd; ++c) {
            acc += double(th[size_t((b * nd + row) * (nd + 1) + c)]) * homo[size_t(c)];
          }
          grid[size_t((b * points + p) * nd + row)] = C(acc);
        }
      }
    }
    Dims gd = {n};
    gd.insert(gd.end(), spatial.begin(), spatial.end());
    gd.push_back(nd);
    ctx.set_output(0, write_as(theta.dtype(), gd, grid));
  });
}

}  // namespace

void register_crop_grid_kernels(KernelRegistry& r) {
  r.add("", "CenterCropPad", 18, center_crop_pad_k);
  r.add("", "AffineGrid", 20, affine_grid_k);
}

}  // namespace oxs::eval
