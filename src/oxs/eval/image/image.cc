// Image sampling: RoiAlign
// (avg/max, half_pixel or output_half_pixel coordinates) following
// onnxruntime's reference implementation. (GridSample is in image/.)
#include <array>
#include <cmath>

#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

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
  r.add("", "RoiAlign", 10, roi_align_k);
}

}  // namespace oxs::eval
