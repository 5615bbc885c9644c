// DeformConv (19, 22): a 2-D convolution whose every kernel tap samples the
// input at its regular position plus a learned offset, read bilinearly
// (inputs outside the image read 0), optionally scaled by a mask.
// X [N, C, H, W], W [OC, C/group, kH, kW], offset [N, G*2*kH*kW, oH, oW]
// holding (dy, dx) per offset group G and tap, B [OC], mask
// [N, G*kH*kW, oH, oW]; channel c uses offset group c / (C / G).
// The sampled taps are gathered per image (im2col with offsets), then
// multiplied by the weights group by group.
#include <cmath>
#include <string>
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/common/modern_kernels.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

// x at (h, w), bilinear with zeros outside [0, H) x [0, W).
double sample(const double* plane, int64_t H, int64_t W, double h, double w) {
  if (!(h > -1 && h < double(H) && w > -1 && w < double(W))) return 0;
  const int64_t h0 = int64_t(std::floor(h)), w0 = int64_t(std::floor(w));
  const double fh = h - double(h0), fw = w - double(w0);
  auto at = [&](int64_t y, int64_t x) {
    return y < 0 || y >= H || x < 0 || x >= W ? 0.0 : plane[y * W + x];
  };
  return (1 - fh) * (1 - fw) * at(h0, w0) + (1 - fh) * fw * at(h0, w0 + 1) +
         fh * (1 - fw) * at(h0 + 1, w0) + fh * fw * at(h0 + 1, w0 + 1);
}

void deform_conv_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& w = ctx.tensor(1);
  const Tensor& offset = ctx.tensor(2);
  const Tensor* bias = ctx.optional_tensor(3);
  const Tensor* mask = ctx.optional_tensor(4);
  if (x.rank() != 4)
    ctx.fail("X must be [N, C, H, W] (only 2-D deformable convolution is supported)");
  require_rank(ctx, w, 4, 4, "W");
  require_rank(ctx, offset, 4, 4, "offset");
  const int64_t n = x.dim(0), c = x.dim(1), H = x.dim(2), W = x.dim(3);
  const int64_t oc = w.dim(0), cg = w.dim(1);
  const std::vector<int64_t> ks = attr_ints_of_len(ctx, "kernel_shape", 2, {w.dim(2), w.dim(3)});
  if (ks[0] != w.dim(2) || ks[1] != w.dim(3)) ctx.fail("kernel_shape must match W's spatial dims");
  const std::vector<int64_t> strides = attr_ints_of_len(ctx, "strides", 2, {1, 1});
  const std::vector<int64_t> dil = attr_ints_of_len(ctx, "dilations", 2, {1, 1});
  const std::vector<int64_t> pads = attr_ints_of_len(ctx, "pads", 4, {0, 0, 0, 0});
  const int64_t group = attr_int_in(ctx, "group", 1, 1, std::max<int64_t>(c, 1));
  const int64_t og = attr_int_in(ctx, "offset_group", 1, 1, std::max<int64_t>(c, 1));
  for (size_t i = 0; i < 2; ++i) {
    if (strides[i] < 1 || dil[i] < 1) ctx.fail("strides and dilations must be positive");
  }
  for (int64_t p : pads) {
    if (p < 0 || p > (int64_t(1) << 32)) ctx.fail("pads must be in [0, 2^32]");
  }
  if (c % group != 0 || oc % group != 0 || cg * group != c) {
    ctx.fail("W " + dims_to_string(w.dims()) + " does not fit X " + dims_to_string(x.dims()) +
             " with group " + std::to_string(group));
  }
  if (c % og != 0) ctx.fail("offset_group must divide the input channels");
  const int64_t kh = ks[0], kw = ks[1], K = kh * kw;
  const int64_t ext_h = dil[0] * (kh - 1) + 1, ext_w = dil[1] * (kw - 1) + 1;
  const int64_t oh = (H + pads[0] + pads[2] - ext_h) / strides[0] + 1;
  const int64_t ow = (W + pads[1] + pads[3] - ext_w) / strides[1] + 1;
  if (oh < 1 || ow < 1) ctx.fail("the kernel is larger than the padded input");
  const Dims want_offset = {n, og * 2 * K, oh, ow};
  if (offset.dims() != want_offset) {
    ctx.fail("offset is " + dims_to_string(offset.dims()) + ", expected " +
             dims_to_string(want_offset));
  }
  const Dims want_mask = {n, og * K, oh, ow};
  if (mask && mask->dims() != want_mask) {
    ctx.fail("mask is " + dims_to_string(mask->dims()) + ", expected " + dims_to_string(want_mask));
  }
  if (bias) require_numel(ctx, *bias, oc, "B");
  const int64_t positions = checked_mul(ctx, oh, ow, "output size");
  check_work(ctx, {n, oc, positions, cg, K}, "DeformConv");
  const int64_t col_size = checked_product(ctx, {c, K, positions}, "the sampled taps");

  const std::vector<double> xv = read_as<double>(x), wv = read_as<double>(w),
                            ov = read_as<double>(offset);
  const std::vector<double> mv = mask ? read_as<double>(*mask) : std::vector<double>();
  const std::vector<double> bv = bias ? read_as<double>(*bias) : std::vector<double>();
  std::vector<double> col(static_cast<size_t>(col_size));
  std::vector<double> out(size_t(checked_mul(ctx, n * oc, positions, "output size")));
  const int64_t c_per_og = c / og, oc_per_group = oc / group;
  for (int64_t b = 0; b < n; ++b) {
    // col[ci][k][p]: channel ci's tap k at output position p, offset and masked.
    for (int64_t ci = 0; ci < c; ++ci) {
      const double* plane = xv.data() + (b * c + ci) * H * W;
      const int64_t g = ci / c_per_og;
      for (int64_t k = 0; k < K; ++k) {
        const int64_t i = k / kw, j = k % kw;
        const double* dy = ov.data() + ((b * og + g) * 2 * K + 2 * k) * positions;
        const double* dx = dy + positions;
        const double* m = mask ? mv.data() + ((b * og + g) * K + k) * positions : nullptr;
        double* dst = col.data() + (ci * K + k) * positions;
        for (int64_t p = 0; p < positions; ++p) {
          const int64_t y = p / ow, xo = p % ow;
          const double h = double(y * strides[0] - pads[0] + i * dil[0]) + dy[p];
          const double wpos = double(xo * strides[1] - pads[1] + j * dil[1]) + dx[p];
          double v = sample(plane, H, W, h, wpos);
          if (m) v *= m[p];
          dst[p] = v;
        }
      }
    }
    for (int64_t o = 0; o < oc; ++o) {
      const int64_t g = o / oc_per_group;
      double* dst = out.data() + (b * oc + o) * positions;
      const double bo = bias ? bv[size_t(o)] : 0.0;
      for (int64_t p = 0; p < positions; ++p) dst[p] = bo;
      for (int64_t cl = 0; cl < cg; ++cl) {
        const int64_t ci = g * cg + cl;
        for (int64_t k = 0; k < K; ++k) {
          const double wt = wv[size_t((o * cg + cl) * K + k)];
          const double* src = col.data() + (ci * K + k) * positions;
          for (int64_t p = 0; p < positions; ++p) dst[p] += wt * src[p];
        }
      }
    }
  }
  ctx.set_output(0, write_as(x.dtype(), {n, oc, oh, ow}, out));
}

}  // namespace

void register_deform_conv_kernels(KernelRegistry& r) {
  r.add("", "DeformConv", 19, deform_conv_k);
}

}  // namespace oxs::eval
