// Image sampling: GridSample (bilinear, nearest, bicubic; zeros, border,
// reflection padding) following PyTorch's grid_sample, and RoiAlign
// (avg/max, half_pixel or output_half_pixel coordinates) following
// onnxruntime's reference implementation.
#include <array>
#include <cmath>

#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

double unnormalize(double g, int64_t size, bool align) {
  return align ? (g + 1) / 2 * double(size - 1) : ((g + 1) * double(size) - 1) / 2;
}

double reflect(double x, double lo, double hi) {
  double span = hi - lo;
  if (span <= 0) return lo;
  if (x < lo) {
    double d = lo - x;
    int64_t n = int64_t(d / span);
    double r = d - double(n) * span;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    double d = x - hi;
    int64_t n = int64_t(d / span);
    double r = d - double(n) * span;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

// A source coordinate after the padding mode (border/reflection) is applied.
double pad_coord(double x, int64_t size, const std::string& padding, bool align) {
  if (padding == "border") return std::clamp(x, 0.0, double(size - 1));
  if (padding == "reflection") {
    x = align ? reflect(x, 0, double(size - 1)) : reflect(x, -0.5, double(size) - 0.5);
    return std::clamp(x, 0.0, double(size - 1));
  }
  return x;
}

void grid_sample_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& grid = ctx.tensor(1);
  if (x.rank() != 4 || grid.rank() != 4 || grid.dim(3) != 2)
    ctx.fail("expects X [N,C,H,W] and grid [N,H,W,2]");
  if (grid.dim(0) != x.dim(0)) {
    ctx.fail("grid " + dims_to_string(grid.dims()) + " and X " + dims_to_string(x.dims()) +
             " must have the same batch size");
  }
  std::string mode = ctx.attr_string("mode", "bilinear");
  std::string padding = ctx.attr_string("padding_mode", "zeros");
  bool align = ctx.attr_int("align_corners", 0) != 0;
  int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  int64_t oh = grid.dim(1), ow = grid.dim(2);
  Tensor xd = cast_tensor(x, DataType::Double), gd = cast_tensor(grid, DataType::Double);
  Tensor y(DataType::Double, {n, c, oh, ow});
  const double* px = xd.data<double>();
  auto pixel = [&](const double* plane, int64_t yy, int64_t xx) {
    return (yy < 0 || yy >= h || xx < 0 || xx >= w) ? 0.0 : plane[yy * w + xx];
  };
  // Bicubic taps: padding applied to each tap, out-of-range taps are 0.
  auto tap = [&](const double* plane, int64_t yy, int64_t xx) {
    if (padding != "zeros") {
      yy = int64_t(pad_coord(double(yy), h, padding, align));
      xx = int64_t(pad_coord(double(xx), w, padding, align));
    }
    return pixel(plane, yy, xx);
  };
  auto cubic = [](double t) {
    const double A = -0.75;
    auto c1 = [A](double s) { return ((A + 2) * s - (A + 3)) * s * s + 1; };
    auto c2 = [A](double s) { return ((A * s - 5 * A) * s + 8 * A) * s - 4 * A; };
    return std::array<double, 4>{c2(t + 1), c1(t), c1(1 - t), c2(2 - t)};
  };
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        const double* g = gd.data<double>() + ((b * oh + i) * ow + j) * 2;
        // NaN or huge grid values sample outside the image (int64 of them is undefined).
        auto tame = [](double v) { return std::isnan(v) ? -1e9 : std::clamp(v, -1e9, 1e9); };
        double sx = tame(unnormalize(g[0], w, align)), sy = tame(unnormalize(g[1], h, align));
        if (mode != "bicubic") {
          sx = pad_coord(sx, w, padding, align);
          sy = pad_coord(sy, h, padding, align);
        }
        for (int64_t ch = 0; ch < c; ++ch) {
          const double* plane = px + (b * c + ch) * h * w;
          double v;
          if (mode == "nearest") {
            v = pixel(plane, int64_t(std::nearbyint(sy)), int64_t(std::nearbyint(sx)));
          } else if (mode == "bilinear") {
            int64_t x0 = int64_t(std::floor(sx)), y0 = int64_t(std::floor(sy));
            double fx = sx - double(x0), fy = sy - double(y0);
            v = pixel(plane, y0, x0) * (1 - fx) * (1 - fy) +
                pixel(plane, y0, x0 + 1) * fx * (1 - fy) +
                pixel(plane, y0 + 1, x0) * (1 - fx) * fy + pixel(plane, y0 + 1, x0 + 1) * fx * fy;
          } else if (mode == "bicubic") {
            int64_t x0 = int64_t(std::floor(sx)), y0 = int64_t(std::floor(sy));
            auto wx = cubic(sx - double(x0)), wy = cubic(sy - double(y0));
            v = 0;
            for (int64_t p = 0; p < 4; ++p) {
              for (int64_t q = 0; q < 4; ++q)
                v += wy[size_t(p)] * wx[size_t(q)] * tap(plane, y0 - 1 + p, x0 - 1 + q);
            }
          } else {
            ctx.fail("unknown mode '" + mode + "'");
          }
          y.mutable_data<double>()[((b * c + ch) * oh + i) * ow + j] = v;
        }
      }
    }
  }
  ctx.set_output(0, cast_tensor(y, x.dtype()));
}

void roi_align_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  Tensor rois = cast_tensor(ctx.tensor(1), DataType::Double);
  std::vector<int64_t> bidx = cast_tensor(ctx.tensor(2), DataType::Int64).to_int_vector();
  if (x.rank() != 4 || rois.rank() != 2 || rois.dim(1) != 4)
    ctx.fail("expects X [N,C,H,W] and rois [R,4]");
  bool half_pixel = ctx.attr_string("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  bool max_mode = ctx.attr_string("mode", "avg") == "max";
  int64_t oh = ctx.attr_int("output_height", 1), ow = ctx.attr_int("output_width", 1);
  int64_t sr = ctx.attr_int("sampling_ratio", 0);
  if (sr < 0 || oh < 1 || ow < 1) {
    ctx.fail("output_height and output_width must be positive and sampling_ratio >= 0");
  }
  double scale = ctx.attr_float("spatial_scale", 1.0f);
  int64_t c = x.dim(1), h = x.dim(2), w = x.dim(3), nr = rois.dim(0);
  Tensor xd = cast_tensor(x, DataType::Double);
  Tensor y(DataType::Double, {nr, c, oh, ow});
  double off = half_pixel ? 0.5 : 0.0;
  for (int64_t r = 0; r < nr; ++r) {
    const double* roi = rois.data<double>() + r * 4;
    if (int64_t(bidx.size()) != nr) ctx.fail("batch_indices must have one value per roi");
    int64_t b = bidx[size_t(r)];
    if (b < 0 || b >= x.dim(0)) ctx.fail("batch index out of range");
    double sw = roi[0] * scale - off, sh = roi[1] * scale - off;
    double rw = roi[2] * scale - off - sw, rh = roi[3] * scale - off - sh;
    if (!half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    if (!std::isfinite(sw) || !std::isfinite(sh) || !std::isfinite(rw) || !std::isfinite(rh)) {
      ctx.fail("roi " + std::to_string(r) + " (scaled by spatial_scale) is not finite");
    }
    double bh = rh / double(oh), bw = rw / double(ow);
    double gh_d = sr > 0 ? double(sr) : std::ceil(rh / double(oh));
    double gw_d = sr > 0 ? double(sr) : std::ceil(rw / double(ow));
    if (!(std::abs(gh_d) < 1e9 && std::abs(gw_d) < 1e9)) {
      ctx.fail("roi " + std::to_string(r) + " is not finite or too large to sample");
    }
    int64_t gh = int64_t(gh_d), gw = int64_t(gw_d);
    check_work(ctx, {c, oh, ow, std::max<int64_t>(gh, 1), std::max<int64_t>(gw, 1)}, "RoiAlign");
    double count = double(std::max<int64_t>(gh * gw, 1));
    for (int64_t ch = 0; ch < c; ++ch) {
      const double* plane = xd.data<double>() + (b * c + ch) * h * w;
      for (int64_t ph = 0; ph < oh; ++ph) {
        for (int64_t pw = 0; pw < ow; ++pw) {
          double acc = 0;
          bool first = true;
          for (int64_t iy = 0; iy < gh; ++iy) {
            double yy = sh + double(ph) * bh + (double(iy) + 0.5) * bh / double(gh);
            for (int64_t ix = 0; ix < gw; ++ix) {
              double xx = sw + double(pw) * bw + (double(ix) + 0.5) * bw / double(gw);
              double v = 0;
              if (!(yy < -1.0 || yy > double(h) || xx < -1.0 || xx > double(w))) {
                double ty = std::max(yy, 0.0), tx = std::max(xx, 0.0);
                int64_t yl = int64_t(ty), xl = int64_t(tx), yh, xh;
                if (yl >= h - 1) {
                  yh = yl = h - 1;
                  ty = double(yl);
                } else {
                  yh = yl + 1;
                }
                if (xl >= w - 1) {
                  xh = xl = w - 1;
                  tx = double(xl);
                } else {
                  xh = xl + 1;
                }
                double ly = ty - double(yl), lx = tx - double(xl), hy = 1 - ly, hx = 1 - lx;
                double v1 = hy * hx * plane[yl * w + xl], v2 = hy * lx * plane[yl * w + xh];
                double v3 = ly * hx * plane[yh * w + xl], v4 = ly * lx * plane[yh * w + xh];
                v = max_mode ? std::max({v1, v2, v3, v4}) : v1 + v2 + v3 + v4;
              }
              if (max_mode) {
                acc = first ? v : std::max(acc, v);
              } else {
                acc += v;
              }
              first = false;
            }
          }
          y.mutable_data<double>()[((r * c + ch) * oh + ph) * ow + pw] =
              max_mode ? acc : acc / count;
        }
      }
    }
  }
  ctx.set_output(0, cast_tensor(y, x.dtype()));
}

}  // namespace

void register_image_kernels(KernelRegistry& r) {
  r.add("", "GridSample", 16, grid_sample_k);
  r.add("", "RoiAlign", 10, roi_align_k);
}

}  // namespace oxs::eval
