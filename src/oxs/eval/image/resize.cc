// Resize (opsets 10-19: nearest, linear, cubic; every coordinate
// transformation mode; tf_crop_and_resize with extrapolation; axes,
// keep_aspect_ratio_policy and antialias) and Upsample.
// Interpolation is separable: per output dim, each coordinate gets a few
// (input index, weight) taps; an output element sums over the product of
// its dims' taps.
#include <cmath>

#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

struct Tap {
  int64_t index;
  double weight;
};

struct ResizeParams {
  std::string mode = "nearest";
  std::string coord = "half_pixel";
  std::string nearest = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  double extrapolation = 0;
};

// Resize-18 antialias: when downsampling (scale < 1), the linear or cubic
// filter is stretched by 1/scale, so each output averages every input the
// wider filter covers: weights filter((k - r) * scale) over the offsets k
// from base's neighbours (r is the coordinate's fraction), normalized to
// sum 1.
std::vector<double> antialias_weights(const ResizeParams& p, double r, double scale,
                                      int64_t& first_offset) {
  const bool cubic = p.mode == "cubic";
  const int64_t start = int64_t(std::floor((cubic ? -2.0 : -1.0) / scale)) + 1;
  first_offset = start;
  std::vector<double> w;
  double sum = 0;
  const double A = p.cubic_a;
  for (int64_t k = start; k <= 1 - start; ++k) {
    const double s = std::abs((double(k) - r) * scale);
    double v;
    if (cubic) {
      v = s < 1   ? ((A + 2) * s - (A + 3)) * s * s + 1
          : s < 2 ? ((A * s - 5 * A) * s + 8 * A) * s - 4 * A
                  : 0.0;
    } else {
      v = std::max(0.0, 1 - s);
    }
    w.push_back(v);
    sum += v;
  }
  if (sum != 0) {
    for (double& v : w) v /= sum;
  }
  return w;
}

// `out` is in * scale unrounded, as in the spec's formulas.
double source_coord(const ResizeParams& p, int64_t o, double scale, int64_t in, double out,
                    double roi_start, double roi_end) {
  const std::string& c = p.coord;
  double x = double(o);
  if (c == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (c == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (c == "align_corners") return out == 1 ? 0.0 : x * double(in - 1) / double(out - 1);
  if (c == "asymmetric") return x / scale;
  if (c == "half_pixel_symmetric") {  // Resize-19: centred when out is rounded
    double adjustment = double(int64_t(out)) / out;
    double offset = double(in) / 2 * (1 - adjustment);
    return offset + (x + 0.5) / scale - 0.5;
  }
  if (c == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (c == "tf_crop_and_resize") {
    return out > 1 ? roi_start * double(in - 1) +
                         x * (roi_end - roi_start) * double(in - 1) / double(out - 1)
                   : 0.5 * (roi_start + roi_end) * double(in - 1);
  }
  throw Error(ErrorKind::Unsupported, "unknown coordinate_transformation_mode '" + c + "'");
}

// Taps per output coordinate of one dim; an empty list means "extrapolate".
std::vector<std::vector<Tap>> dim_taps(const ResizeParams& p, int64_t in, int64_t out, double scale,
                                       double roi_start, double roi_end) {
  std::vector<std::vector<Tap>> taps(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    auto& t = taps[size_t(o)];
    if (in == out && p.coord != "tf_crop_and_resize" && scale == 1.0) {
      t.push_back({o, 1.0});
      continue;
    }
    double x = source_coord(p, o, scale, in, double(in) * scale, roi_start, roi_end);
    // NaN or infinite roi/scales: no input index to take (int64(NaN) is undefined).
    if (!std::isfinite(x) || std::abs(x) > 9.0e15) {
      throw Error(ErrorKind::Invalid, "resize maps output index " + std::to_string(o) +
                                          " to a non-finite input coordinate; check roi and "
                                          "scales");
    }
    if (p.coord == "tf_crop_and_resize" && (x < 0 || x > double(in - 1))) continue;
    if (p.mode == "nearest") {
      double f = std::floor(x);
      int64_t i;
      if (p.nearest == "floor") {
        i = int64_t(f);
      } else if (p.nearest == "ceil") {
        i = int64_t(std::ceil(x));
      } else if (x - f == 0.5) {
        i = p.nearest == "round_prefer_ceil" ? int64_t(f) + 1 : int64_t(f);
      } else {
        i = int64_t(std::round(x));
      }
      t.push_back({std::clamp<int64_t>(i, 0, in - 1), 1.0});
      continue;
    }
    int64_t base = int64_t(std::floor(x));
    double r = x - double(base);
    std::vector<double> w;
    int64_t first;
    if (p.antialias && scale < 1 && (p.mode == "linear" || p.mode == "cubic")) {
      int64_t off = 0;
      w = antialias_weights(p, r, scale, off);
      first = base + off;
    } else if (p.mode == "linear") {
      w = {1 - r, r};
      first = base;
    } else if (p.mode == "cubic") {
      double A = p.cubic_a;
      auto c1 = [A](double s) { return ((A + 2) * s - (A + 3)) * s * s + 1; };        // |s| <= 1
      auto c2 = [A](double s) { return ((A * s - 5 * A) * s + 8 * A) * s - 4 * A; };  // 1 < |s| < 2
      w = {c2(r + 1), c1(r), c1(1 - r), c2(2 - r)};
      first = base - 1;
    } else {
      throw Error(ErrorKind::Unsupported, "unknown resize mode '" + p.mode + "'");
    }
    double sum = 0;
    for (size_t k = 0; k < w.size(); ++k) {
      int64_t i = first + int64_t(k);
      if (p.exclude_outside && (i < 0 || i >= in)) {
        w[k] = 0;
        continue;
      }
      sum += w[k];
    }
    for (size_t k = 0; k < w.size(); ++k) {
      if (w[k] == 0) continue;
      double wk = p.exclude_outside && sum != 0 ? w[k] / sum : w[k];
      t.push_back({std::clamp<int64_t>(first + int64_t(k), 0, in - 1), wk});
    }
  }
  return taps;
}

// floor(in * scale), with the scale checked to be finite and positive.
int64_t scaled_dim(const KernelContext& ctx, int64_t in, double scale) {
  if (!std::isfinite(scale) || scale <= 0) ctx.fail("scales must be finite and positive");
  double v = std::floor(double(in) * scale);
  if (v > 9.0e15) ctx.fail("scales make an output dimension too large");
  return int64_t(v);
}

Tensor resize(const KernelContext& ctx, const Tensor& x, const Dims& od,
              const std::vector<double>& scales, const std::vector<double>& roi,
              const ResizeParams& p) {
  size_t r = x.rank();
  Tensor out(x.dtype(), od);  // checks the size before any per-coordinate tables
  // Nothing to compute; an empty output may still have a huge axis (sizes
  // [0, 2^62]) whose tap table could not be allocated.
  if (out.numel() == 0) return out;
  // Each output element sums over up to 4 taps per axis (cubic).
  int64_t taps_per = 1;
  for (size_t d = 0; d < r; ++d) {
    if (od[d] == x.dim(d)) continue;
    int64_t n = 4;
    if (p.antialias && scales[d] < 1 && p.mode != "nearest") {
      // The stretched filter covers about 4 / scale inputs (cubic).
      if (!(scales[d] > 1e-9)) ctx.fail("antialias needs scales above 1e-9");
      n = 2 * int64_t(std::ceil(2 / scales[d])) + 2;
    }
    taps_per = checked_mul(ctx, taps_per, n, "the taps per element");
  }
  check_work(ctx, {out.numel(), taps_per}, "Resize");
  std::vector<std::vector<std::vector<Tap>>> taps(r);
  for (size_t d = 0; d < r; ++d) {
    double rs = roi.size() == 2 * r ? roi[d] : 0, re = roi.size() == 2 * r ? roi[d + r] : 1;
    if (x.dim(d) == 0 && od[d] > 0) {
      ctx.fail("cannot resize the empty axis " + std::to_string(d) + " of " +
               dims_to_string(x.dims()) + " to " + std::to_string(od[d]) + " elements");
    }
    taps[d] = dim_taps(p, x.dim(d), od[d], scales[d], rs, re);
  }
  auto is = std::vector<int64_t>(r, 1);
  for (size_t d = r; d-- > 1;) is[d - 1] = is[d] * x.dim(d);
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    std::vector<int64_t> idx(r, 0);
    for (int64_t o = 0; o < out.numel(); ++o) {
      bool extrapolate = false;
      for (size_t d = 0; d < r; ++d) {
        if (taps[d][size_t(idx[d])].empty()) extrapolate = true;
      }
      // One tap of weight 1 on every axis (nearest, kept axes, grid points):
      // the input element itself, copied, so int64 values past 2^53 stay exact.
      bool copy = !extrapolate;
      int64_t at = 0;
      for (size_t d = 0; d < r && copy; ++d) {
        const std::vector<Tap>& ts = taps[d][size_t(idx[d])];
        copy = ts.size() == 1 && ts[0].weight == 1.0;
        if (copy) at += ts[0].index * is[d];
      }
      if (copy) {
        po[o] = px[at];
      } else {
        double acc = p.extrapolation;
        if (!extrapolate) {
          // Sum over the product of taps (recursive over dims).
          acc = 0;
          auto rec = [&](auto&& self, size_t d, int64_t off, double w) -> void {
            if (d == r) {
              acc += w * double(C(px[off]));
              return;
            }
            for (const Tap& t : taps[d][size_t(idx[d])])
              self(self, d + 1, off + t.index * is[d], w * t.weight);
          };
          rec(rec, 0, 0, 1.0);
        }
        if constexpr (std::is_integral_v<C>) {
          // Cubic overshoot, and int64 values rounded to double, can land
          // past the type's range, where a plain conversion is undefined.
          po[o] = T(saturate_to<C>(std::nearbyint(acc)));
        } else {
          po[o] = T(C(acc));
        }
      }
      for (size_t d = r; d-- > 0;) {
        if (++idx[d] < od[d]) break;
        idx[d] = 0;
      }
    }
  });
  return out;
}

void resize_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  size_t r = x.rank();
  ResizeParams p;
  p.mode = ctx.attr_string("mode", "nearest");
  std::vector<double> scales, roi;
  Dims od(r);
  const Tensor* sizes = nullptr;
  if (ctx.opset() < 11) {
    p.coord = "asymmetric";
    p.nearest = "floor";
    Tensor s = cast_tensor(ctx.tensor(1), DataType::Double);
    scales.assign(s.data<double>(), s.data<double>() + s.numel());
  } else {
    p.coord = ctx.attr_string("coordinate_transformation_mode", "half_pixel");
    p.nearest = ctx.attr_string("nearest_mode", "round_prefer_floor");
    p.cubic_a = ctx.attr_float("cubic_coeff_a", -0.75f);
    p.exclude_outside = ctx.attr_int("exclude_outside", 0) != 0;
    p.antialias = ctx.attr_int("antialias", 0) != 0;
    p.extrapolation = ctx.attr_float("extrapolation_value", 0.0f);
    if (std::isnan(p.extrapolation) && ir::is_integer(x.dtype())) {
      ctx.fail("extrapolation_value is nan; a " + std::string(ir::dtype_name(x.dtype())) +
               " tensor cannot hold it");
    }
    if (const Tensor* t = ctx.optional_tensor(1); t && t->numel() > 0) {
      Tensor d = cast_tensor(*t, DataType::Double);
      roi.assign(d.data<double>(), d.data<double>() + d.numel());
    }
    if (const Tensor* t = ctx.optional_tensor(2); t && t->numel() > 0) {
      Tensor d = cast_tensor(*t, DataType::Double);
      scales.assign(d.data<double>(), d.data<double>() + d.numel());
    }
    if (const Tensor* t = ctx.optional_tensor(3); t && t->numel() > 0) sizes = t;
  }
  // Resize-18: `axes` says which dims scales/sizes/roi cover (the others
  // keep their size); keep_aspect_ratio_policy scales sized axes alike.
  std::vector<int64_t> axes;
  for (int64_t a : ctx.attr_ints("axes")) axes.push_back(normalize_axis(ctx, a, int64_t(r)));
  if (axes.empty()) {
    for (size_t d = 0; d < r; ++d) axes.push_back(int64_t(d));
  }
  const size_t na = axes.size();
  if (!roi.empty() && roi.size() != 2 * na) ctx.fail("roi must have two entries per axis");
  if (!roi.empty() && na != r) {
    std::vector<double> full(2 * r);
    for (size_t d = 0; d < r; ++d) full[d + r] = 1;
    for (size_t k = 0; k < na; ++k) {
      full[size_t(axes[k])] = roi[k];
      full[size_t(axes[k]) + r] = roi[k + na];
    }
    roi = std::move(full);
  }
  std::vector<double> full_scales(r, 1.0);
  for (size_t d = 0; d < r; ++d) od[d] = x.dim(d);
  if (sizes) {
    std::vector<int64_t> s = sizes->to_int_vector();
    if (s.size() != na) ctx.fail("sizes must have one entry per dimension (or per axis in 'axes')");
    const std::string policy = ctx.attr_string("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
      ctx.fail("keep_aspect_ratio_policy must be stretch, not_larger or not_smaller");
    }
    double common = policy == "not_larger" ? INFINITY : 0;
    for (size_t k = 0; k < na; ++k) {
      int64_t in = x.dim(size_t(axes[k]));
      double sc = in ? double(s[k]) / double(in) : 1.0;
      common = policy == "not_larger" ? std::min(common, sc) : std::max(common, sc);
    }
    for (size_t k = 0; k < na; ++k) {
      size_t d = size_t(axes[k]);
      if (policy == "stretch") {
        od[d] = s[k];
        full_scales[d] = x.dim(d) ? double(s[k]) / double(x.dim(d)) : 1.0;
      } else {
        od[d] = checked_to_int64(ctx, std::round(common * double(x.dim(d))),
                                 "an output size scaled by keep_aspect_ratio_policy");
        full_scales[d] = common;
      }
    }
  } else {
    if (scales.size() != na) {
      ctx.fail("scales must have one entry per dimension (or per axis in 'axes')");
    }
    for (size_t k = 0; k < na; ++k) {
      size_t d = size_t(axes[k]);
      full_scales[d] = scales[k];
      od[d] = scaled_dim(ctx, x.dim(d), scales[k]);
    }
  }
  scales = std::move(full_scales);
  ctx.set_output(0, resize(ctx, x, od, scales, roi, p));
}

void upsample_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  ResizeParams p;
  p.mode = ctx.attr_string("mode", "nearest");
  if (p.mode == "bilinear") p.mode = "linear";
  p.coord = "asymmetric";
  p.nearest = "floor";
  std::vector<double> scales;
  if (ctx.opset() >= 9) {
    Tensor s = cast_tensor(ctx.tensor(1), DataType::Double);
    scales.assign(s.data<double>(), s.data<double>() + s.numel());
  } else {
    for (float f : ctx.attr_floats("scales")) scales.push_back(f);
  }
  if (scales.size() != x.rank()) ctx.fail("scales must have one entry per dimension");
  Dims od(x.rank());
  for (size_t d = 0; d < x.rank(); ++d) od[d] = scaled_dim(ctx, x.dim(d), scales[d]);
  ctx.set_output(0, resize(ctx, x, od, scales, {}, p));
}

}  // namespace

void register_resize_kernels(KernelRegistry& r) {
  r.add("", "Resize", 10, resize_k);
  r.add("", "Upsample", 7, upsample_k);
}

}  // namespace oxs::eval
