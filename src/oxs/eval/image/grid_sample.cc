// GridSample 16 (2-D: bilinear, nearest, bicubic) and 20/22 (n-d: linear,
// nearest, cubic). X is [N, C, D1..Dr], grid [N, O1..Or, r] with the
// coordinates of each output point normalized to [-1, 1] and listed
// innermost axis first (x, y, z...). A coordinate is unnormalized to the
// axis's index space (align_corners puts -1 and 1 on the corner elements'
// centres, else on their outer edges); the padding mode says what a point
// outside reads: zeros (0), border (clamped) or reflection (mirrored at the
// borders, then clamped). Linear and cubic interpolate separably over the
// 2^r or 4^r neighbours (cubic with a = -0.75); out-of-range neighbours
// read 0, except that cubic applies the padding to each neighbour.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/common/modern_kernels.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

enum class Mode { Linear, Nearest, Cubic };
enum class Padding { Zeros, Border, Reflection };

double unnormalize(double g, int64_t size, bool align) {
  return align ? (g + 1) / 2 * double(size - 1) : ((g + 1) * double(size) - 1) / 2;
}

// x mirrored into [lo, hi] as often as it takes.
double reflect(double x, double lo, double hi) {
  double span = hi - lo;
  if (span <= 0) return lo;
  if (x < lo) {
    double d = lo - x;
    double n = std::floor(d / span), r = d - n * span;
    return std::fmod(n, 2.0) == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    double d = x - hi;
    double n = std::floor(d / span), r = d - n * span;
    return std::fmod(n, 2.0) == 0 ? hi - r : lo + r;
  }
  return x;
}

// A source coordinate after border or reflection padding.
double pad_coord(double x, int64_t size, Padding padding, bool align) {
  if (padding == Padding::Border) return std::clamp(x, 0.0, double(size - 1));
  if (padding == Padding::Reflection) {
    x = align ? reflect(x, 0, double(size - 1)) : reflect(x, -0.5, double(size) - 0.5);
    return std::clamp(x, 0.0, double(size - 1));
  }
  return x;
}

std::array<double, 4> cubic_weights(double t) {
  const double a = -0.75;
  auto near = [a](double s) { return ((a + 2) * s - (a + 3)) * s * s + 1; };
  auto far = [a](double s) { return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a; };
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

Mode parse_mode(const KernelContext& ctx) {
  const bool modern = ctx.opset() >= 20;
  std::string m = ctx.attr_string("mode", modern ? "linear" : "bilinear");
  if (m == "nearest") return Mode::Nearest;
  if (m == (modern ? "linear" : "bilinear")) return Mode::Linear;
  if (m == (modern ? "cubic" : "bicubic")) return Mode::Cubic;
  ctx.fail("unknown mode '" + m + "' (GridSample-" + std::to_string(ctx.opset() >= 20 ? 20 : 16) +
           " knows " + (modern ? "linear, nearest, cubic" : "bilinear, nearest, bicubic") + ")");
}

Padding parse_padding(const KernelContext& ctx) {
  std::string p = ctx.attr_string("padding_mode", "zeros");
  if (p == "zeros") return Padding::Zeros;
  if (p == "border") return Padding::Border;
  if (p == "reflection") return Padding::Reflection;
  ctx.fail("unknown padding_mode '" + p + "' (zeros, border or reflection)");
}

void grid_sample_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& grid = ctx.tensor(1);
  const size_t max_rank = ctx.opset() >= 20 ? 64 : 4;
  require_rank(ctx, x, 3, max_rank, "X");
  const size_t r = x.rank() - 2;  // spatial rank
  if (grid.rank() != r + 2 || grid.dim(r + 1) != int64_t(r) || grid.dim(0) != x.dim(0)) {
    ctx.fail("grid " + dims_to_string(grid.dims()) + " must be [N, O1..O" + std::to_string(r) +
             ", " + std::to_string(r) + "] for X " + dims_to_string(x.dims()));
  }
  const Mode mode = parse_mode(ctx);
  const Padding padding = parse_padding(ctx);
  const bool align = attr_int_in(ctx, "align_corners", 0, 0, 1) != 0;
  if (mode == Mode::Cubic && r != 2) ctx.fail("cubic mode samples 2-D images only (X of rank 4)");
  const int64_t n = x.dim(0), c = x.dim(1);
  const int64_t in_plane = checked_product(ctx, x.dims(), 2, x.rank(), "X's spatial size");
  const int64_t out_plane = checked_product(ctx, grid.dims(), 1, r + 1, "grid's output size");
  const int64_t taps = mode == Mode::Nearest ? 1 : int64_t(1) << (mode == Mode::Cubic ? 2 * r : r);
  check_work(ctx, {n, c, out_plane, taps}, "GridSample");
  Dims od = {n, c};
  for (size_t d = 0; d < r; ++d) od.push_back(grid.dim(1 + d));

  // Spatial sizes, outermost first, and their strides in a plane.
  std::vector<int64_t> size(r), stride(r);
  for (size_t d = 0; d < r; ++d) size[d] = x.dim(2 + d);
  for (size_t d = r, s = 1; d-- > 0;) {
    stride[d] = int64_t(s);
    s *= size_t(size[d]);
  }
  const std::vector<double> xv = read_as<double>(x), gv = read_as<double>(grid);
  checked_mul(ctx, n * c, out_plane, "output size");
  Tensor y(DataType::Double, od);
  double* out = y.mutable_data<double>();

  std::vector<double> src(r);
  std::vector<int64_t> base(r), corner(r);
  std::vector<std::array<double, 4>> w(r);
  const int64_t per_axis = mode == Mode::Cubic ? 4 : 2;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < out_plane; ++o) {
      const double* g = gv.data() + (b * out_plane + o) * int64_t(r);
      for (size_t d = 0; d < r; ++d) {
        // grid lists the innermost axis first; NaN or huge values sample outside.
        double v = g[r - 1 - d];
        double s = unnormalize(std::isnan(v) ? -1e9 : std::clamp(v, -1e9, 1e9), size[d], align);
        if (mode != Mode::Cubic) s = pad_coord(s, size[d], padding, align);
        src[d] = s;
      }
      // Each tap: its weight and its element offset in a plane (-1: reads 0).
      auto offset_of = [&](const std::vector<int64_t>& at) -> int64_t {
        int64_t off = 0;
        for (size_t d = 0; d < r; ++d) {
          int64_t i = at[d];
          if (mode == Mode::Cubic && padding != Padding::Zeros) {
            i = int64_t(pad_coord(double(i), size[d], padding, align));
          }
          if (i < 0 || i >= size[d]) return -1;
          off += i * stride[d];
        }
        return off;
      };
      for (int64_t ch = 0; ch < c; ++ch) {
        const double* plane = xv.data() + (b * c + ch) * in_plane;
        double acc = 0;
        if (mode == Mode::Nearest) {
          for (size_t d = 0; d < r; ++d) corner[d] = int64_t(std::nearbyint(src[d]));
          int64_t off = offset_of(corner);
          acc = off < 0 ? 0.0 : plane[off];
        } else {
          for (size_t d = 0; d < r; ++d) {
            base[d] = int64_t(std::floor(src[d]));
            double t = src[d] - double(base[d]);
            if (mode == Mode::Cubic) {
              w[d] = cubic_weights(t);
              base[d] -= 1;
            } else {
              w[d] = {1 - t, t, 0, 0};
            }
          }
          for (int64_t k = 0; k < taps; ++k) {
            double weight = 1;
            for (size_t d = 0, rest = size_t(k); d < r; ++d, rest /= size_t(per_axis)) {
              const size_t j = rest % size_t(per_axis);
              corner[d] = base[d] + int64_t(j);
              weight *= w[d][j];
            }
            int64_t off = offset_of(corner);
            if (off >= 0) acc += weight * plane[off];
          }
        }
        out[(b * c + ch) * out_plane + o] = acc;
      }
    }
  }
  ctx.set_output(0, cast_tensor(y, x.dtype()));
}

}  // namespace

void register_grid_sample_kernels(KernelRegistry& r) {
  r.add("", "GridSample", 16, grid_sample_k);
}

}  // namespace oxs::eval
