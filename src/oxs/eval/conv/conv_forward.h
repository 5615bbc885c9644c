// The forward convolution core behind Conv, ConvInteger and QLinearConv
// (nn_conv.cc): Y[n, m, out...] = sum W[m, c/g, k...] * X[n, c, window] + B.
// Used only inside src/oxs/eval; it checks nothing (the kernels validate
// shapes and attributes before calling) and allocates no output.
//
// Paths, chosen by conv_forward():
//   - pointwise (1x1.., stride 1, no pads): X itself is the GEMM operand;
//   - depthwise (one input channel per group, group > 1, float/double): a
//     direct loop, instead of one tiny GEMM per channel;
//   - 2-D 3x3 stride 1, float, one group, AVX-512, weights packed, enough
//     channels: Winograd F(2x2, 3x3) (conv_winograd_avx512);
//   - rank <= 3, float, AVX-512 SGEMM in use, weights packed: a direct
//     implicit GEMM (conv_direct_avx512) that reads a padded copy of the
//     input, when its vectors are well used (conv_direct_applies);
//   - rank <= 3, float, AVX-512 SGEMM in use otherwise: the im2col matrix is
//     built straight into the GEMM's packed panels (Im2colRows);
//   - rank <= 3 otherwise: im2col into a per-thread buffer kept between
//     calls (about 1 MiB: a band of output rows at a time, so it stays
//     cache-warm), with whole zero rows / row-wise copies and no bounds
//     checks in the interior;
//   - rank > 3: a generic im2col over the whole output (a checked Tensor).
// The bias is written into Y first and the GEMM accumulates onto it
// (beta = 1), which saves a separate pass over Y. A fused Add and Relu or
// HardSwish (conv_fusion.h) is applied by the packed GEMMs as they store, by
// a pass over each batch's Y on the other paths.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/math/gemm.h"
#include "oxs/eval/parallel/thread_pool.h"
#include "oxs/eval/tensor.h"
#include "oxs/eval/window.h"

namespace oxs::eval::conv_detail {

// A per-thread buffer of at least n elements, reused across calls (kernels
// never re-enter a Conv while one runs on the same thread). Its contents are
// not initialized.
template <class T>
T* scratch(size_t n) {
  thread_local std::unique_ptr<T[]> buf;
  thread_local size_t cap = 0;
  if (cap < n) {
    buf.reset();
    buf.reset(new T[n]);
    cap = n;
  }
  return buf.get();
}

// Frees what std::aligned_alloc returned.
struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};
using AlignedFloats = std::unique_ptr<float, AlignedFree>;

// n floats, 64-byte aligned, zeroed.
inline AlignedFloats aligned_zeros(size_t n) {
  const size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return AlignedFloats(static_cast<float*>(p));
}

// A per-thread aligned_zeros buffer of at least n floats, kept between calls
// (zeroed when allocated, then holding what its last user wrote); Tag tells
// apart the buffers one thread holds at once: 0 the direct and Winograd
// paths' padded input, 1 the Winograd path's per-block buffer.
template <int Tag>
float* aligned_scratch(size_t n) {
  thread_local AlignedFloats buf;
  thread_local size_t cap = 0;
  if (cap < n) {
    buf.reset();
    cap = 0;
    buf = aligned_zeros(n);
    cap = n;
  }
  return buf.get();
}

// A Window seen as 3-D (depth, height, width): 1-D and 2-D convolutions get
// leading axes of size 1 with kernel 1, stride 1, no padding.
struct Geom3 {
  int64_t in[3], k[3], s[3], d[3], p[3], out[3];
};

inline Geom3 geom3(const Window& w) {
  Geom3 g{};
  size_t r = w.rank(), lead = 3 - r;
  for (size_t i = 0; i < 3; ++i) {
    bool real = i >= lead;
    g.in[i] = real ? w.in[i - lead] : 1;
    g.k[i] = real ? w.kernel[i - lead] : 1;
    g.s[i] = real ? w.strides[i - lead] : 1;
    g.d[i] = real ? w.dilations[i - lead] : 1;
    g.p[i] = real ? w.pad_begin[i - lead] : 0;
    g.out[i] = real ? w.out[i - lead] : 1;
  }
  return g;
}

// The output columns [lo, hi) whose input column ox*s - p + kx*d lies inside
// [0, in) for kernel column kx; the rest read padding.
inline void inside_range(const Geom3& g, int64_t kx, int64_t& lo, int64_t& hi) {
  int64_t off = kx * g.d[2] - g.p[2];  // input column of output column 0
  lo = off >= 0 ? 0 : (-off + g.s[2] - 1) / g.s[2];
  hi = off > g.in[2] - 1 ? 0 : (g.in[2] - 1 - off) / g.s[2] + 1;
  lo = std::min(lo, g.out[2]);
  hi = std::clamp(hi, lo, g.out[2]);
}

// col[(c*K + k) * ld + (row - r0) * OW + ox] for output rows [r0, r1) (a row
// is one (depth, height) position of the output), channels [0, channels).
template <class T>
void im2col_rows(const T* x, int64_t channels, const Geom3& g, int64_t r0, int64_t r1, T* col,
                 int64_t ld) {
  const int64_t OW = g.out[2], OH = g.out[1];
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  for (int64_t c = 0; c < channels; ++c) {
    const T* xc = x + c * in_plane;
    for (int64_t kz = 0; kz < g.k[0]; ++kz) {
      for (int64_t ky = 0; ky < g.k[1]; ++ky) {
        for (int64_t kx = 0; kx < g.k[2]; ++kx) {
          int64_t lo, hi;
          inside_range(g, kx, lo, hi);
          const int64_t ix0 = lo * g.s[2] - g.p[2] + kx * g.d[2];
          T* dst = col + (((c * g.k[0] + kz) * g.k[1] + ky) * g.k[2] + kx) * ld;
          for (int64_t r = r0; r < r1; ++r, dst += OW) {
            const int64_t oz = r / OH, oy = r % OH;
            const int64_t iz = oz * g.s[0] - g.p[0] + kz * g.d[0];
            const int64_t iy = oy * g.s[1] - g.p[1] + ky * g.d[1];
            if (iz < 0 || iz >= g.in[0] || iy < 0 || iy >= g.in[1] || lo >= hi) {
              std::fill(dst, dst + OW, T{});
              continue;
            }
            std::fill(dst, dst + lo, T{});
            const T* src = xc + (iz * g.in[1] + iy) * g.in[2] + ix0;
            if (g.s[2] == 1) {
              std::memcpy(static_cast<void*>(dst + lo), src, size_t(hi - lo) * sizeof(T));
            } else {
              const int64_t s = g.s[2];
              for (int64_t ox = lo; ox < hi; ++ox) dst[ox] = src[(ox - lo) * s];
            }
            std::fill(dst + hi, dst + OW, T{});
          }
        }
      }
    }
  }
}

// Any rank: col[(c*K + k) * P + p] = x[c, window position] (0 outside).
template <class T>
void im2col_generic(const T* x, int64_t channels, const Window& w, T* col) {
  const size_t r = w.rank();
  const int64_t K = w.kernel_numel(), P = w.out_numel();
  int64_t in_n = 1;
  for (int64_t v : w.in) in_n *= v;
  std::vector<int64_t> kidx(r), oidx(r);
  for (int64_t c = 0; c < channels; ++c) {
    const T* xc = x + c * in_n;
    for (int64_t k = 0; k < K; ++k) {
      int64_t rem = k;
      for (size_t d = r; d-- > 0;) {
        kidx[d] = rem % w.kernel[d];
        rem /= w.kernel[d];
      }
      T* dst = col + (c * K + k) * P;
      std::fill(oidx.begin(), oidx.end(), 0);
      for (int64_t p = 0; p < P; ++p) {
        int64_t off = 0;
        bool inside = true;
        for (size_t d = 0; d < r; ++d) {
          int64_t i = oidx[d] * w.strides[d] - w.pad_begin[d] + kidx[d] * w.dilations[d];
          if (i < 0 || i >= w.in[d]) {
            inside = false;
            break;
          }
          off = off * w.in[d] + i;
        }
        dst[p] = inside ? xc[off] : T{};
        for (size_t d = r; d-- > 0;) {
          if (++oidx[d] < w.out[d]) break;
          oidx[d] = 0;
        }
      }
    }
  }
}

// depthwise() for one float plane with AVX-512 (fast/depthwise.cc), the
// same sums in the same order, then + res (y's plane of a fused residual, or
// null) and Relu when `relu` or HardSwish when `hard_swish`; false when it
// does not apply (decided by the geometry alone, so the same for every plane).
bool depthwise_avx512(const float* xc, const float* wj, const Geom3& g, float* y,
                      const float* res = nullptr, bool relu = false, bool hard_swish = false);

// Depthwise conv with one output per input channel (fast/depthwise_channels.cc):
// y [c, out...] = conv(x [c, in...], w [c, 1, kernel...]) + bias (c values,
// or null), then `ep` (its residual laid out as y), every element written,
// 16 channels to a vector (so narrow planes and strides cost no idle lanes);
// the same sums in the same order as depthwise(), so the same bits. False
// when it does not apply (decided by the geometry alone: no AVX-512, a
// kernel with depth, rows too wide for its buffers); y is untouched then.
bool depthwise_channels_avx512(const float* x, const float* w, const float* bias, int64_t c,
                               const Geom3& g, float* y, const GemmEpilogue* ep);

// One input channel per group (depthwise, channel multiplier mg): each
// output plane y (pre-filled with the bias) accumulates w * shifted input.
template <class T>
void depthwise(const T* xc, const T* wj, const Geom3& g, T* y) {
  const int64_t OW = g.out[2], rows = g.out[0] * g.out[1];
  for (int64_t kz = 0; kz < g.k[0]; ++kz) {
    for (int64_t ky = 0; ky < g.k[1]; ++ky) {
      for (int64_t kx = 0; kx < g.k[2]; ++kx) {
        const T wv = wj[(kz * g.k[1] + ky) * g.k[2] + kx];
        int64_t lo, hi;
        inside_range(g, kx, lo, hi);
        if (lo >= hi) continue;
        const int64_t ix0 = lo * g.s[2] - g.p[2] + kx * g.d[2], s = g.s[2];
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t oz = r / g.out[1], oy = r % g.out[1];
          const int64_t iz = oz * g.s[0] - g.p[0] + kz * g.d[0];
          const int64_t iy = oy * g.s[1] - g.p[1] + ky * g.d[1];
          if (iz < 0 || iz >= g.in[0] || iy < 0 || iy >= g.in[1]) continue;
          const T* src = xc + (iz * g.in[1] + iy) * g.in[2] + ix0;
          T* dst = y + r * OW + lo;
          const int64_t n = hi - lo;
          if (s == 1) {
            for (int64_t i = 0; i < n; ++i) dst[i] += wv * src[i];
          } else {
            for (int64_t i = 0; i < n; ++i) dst[i] += wv * src[i * s];
          }
        }
      }
    }
  }
}

// The im2col matrix of one group as a RowSource (gemm.h): row p = (channel,
// kz, ky, kx), column j = output position; fill() (conv_pack_avx512.cc,
// AVX-512 code, so only called by sgemm_avx512_rows) writes it straight into
// the GEMM's packed panels, so no im2col buffer is written and read back.
struct Im2colRows {
  const float* x;  // the group's first input channel
  Geom3 g;
  static void fill(const void* self, int64_t p0, int64_t rows, int64_t j0, int64_t len, float* dst,
                   int64_t stride, int64_t row_step);
};

// The direct (implicit GEMM) path of conv_direct_avx512.cc, for float convs
// of rank <= 3 with packed weights: no im2col matrix, the input copied once
// into a padded buffer the micro-kernel reads directly; the bits of the
// Im2colRows path. Which convs take it: Auto (where its vectors are at least
// 3/4 used, i.e. not for narrow outputs such as 7x7), Off, or Always (every
// conv it can run, for tests). It starts as OXS_CONV_DIRECT=off|always in the
// environment says, else Auto.
enum class ConvDirectMode { Auto, Off, Always };
void set_conv_direct_mode(ConvDirectMode mode);
ConvDirectMode conv_direct_mode();
// Whether conv_direct_avx512 runs for this geometry with cg input channels
// per group (the same answer for every group and batch element).
bool conv_direct_applies(const Geom3& g, int64_t cg);
// One group: y [a.m, P] = a (the group's packed W) x (implicit im2col of x,
// its cg input channels) + bias (a.m values, or null), then `ep` (its
// residual laid out as y), every element written. Only where AVX-512 is.
void conv_direct_avx512(const float* x, int64_t cg, const Geom3& g, const PackedA& a, float* y,
                        const float* bias, const GemmEpilogue* ep);
// How many times conv_direct_avx512 has run in this process (tests check
// that the path they mean to test ran).
int64_t conv_direct_runs();

// The Winograd F(2x2, 3x3) path of conv_winograd_avx512.cc, for float 2-D
// 3x3 convs with stride 1, dilation 1, one group and packed (constant)
// weights: 16 multiplies per 2x2 output tile and channel pair instead of 36.
// Its rounding differs from the direct path's (the tests bound the error).
// Which convs take it: Auto (at least 16 input and 16 output channels and 16
// tiles, i.e. outputs of about 8x8 or more), Off, or On (every conv it can
// run, for tests). It starts as OXS_CONV_WINOGRAD=off|on in the environment
// says, else Auto.
enum class ConvWinogradMode { Auto, Off, On };
void set_conv_winograd_mode(ConvWinogradMode mode);
ConvWinogradMode conv_winograd_mode();
bool conv_winograd_applies(const Geom3& g, int64_t cg, int64_t mg, int64_t group);
// y [m, OH*OW] = conv(x [cg, IH, IW], w [m, cg, 3, 3]) + bias (m values, or
// null), then `ep`; every element written. `key` is the session's packed W
// (it identifies the weights: their transform is made on the first call and
// kept while key lives). Only where AVX-512 is. Returns false, having
// written nothing, when W or x holds an Inf or NaN: the caller runs the
// direct path then, whose non-finite outputs are the reference's.
bool conv_winograd_avx512(const float* x, const float* w, int64_t cg, int64_t m, const Geom3& g,
                          const std::shared_ptr<const PackedA>& key, float* y, const float* bias,
                          const GemmEpilogue* ep);
// How many times conv_winograd_avx512 has run in this process.
int64_t conv_winograd_runs();

// Bytes of im2col buffer per GEMM: a band of output rows this large keeps
// the buffer in L2 while OpenBLAS packs it.
inline constexpr int64_t kColBandBytes = int64_t(1) << 20;

// W packed once per group (fast/packed_weights.h), or null.
using PackedGroups = std::vector<std::shared_ptr<const PackedA>>;

// Y += residual (laid out as Y), then the activation, over `count` values.
inline void apply_epilogue(float* y, int64_t count, const GemmEpilogue& ep) {
  for (int64_t i = 0; i < count; ++i) {
    float v = y[i];
    if (ep.residual) v += ep.residual[i];
    y[i] = fast::tail_act(v, ep.act());
  }
}

// y: [n, m, out...] (contents ignored; every element is written). x: [n, c,
// in...], w: [m, c/group, kernel...], bias: [m] or null; `packed` (float
// only) is w packed per group, whose GEMMs add the bias as they store; `ep`
// (float only; its residual laid out as y) is applied to y last.
template <class T>
void conv_forward(const T* x, const T* w, const T* bias, T* y, int64_t n, int64_t c, int64_t m,
                  int64_t group, const Window& win, const PackedGroups* packed = nullptr,
                  const GemmEpilogue* ep = nullptr) {
  using C = compute_t<T>;
  const int64_t cg = c / group, mg = m / group, K = win.kernel_numel(), P = win.out_numel();
  const int64_t CK = cg * K;
  int64_t in_n = 1;
  for (int64_t v : win.in) in_n *= v;
  bool pointwise = true;
  for (size_t i = 0; i < win.rank(); ++i) {
    pointwise = pointwise && win.kernel[i] == 1 && win.strides[i] == 1 && win.pad_begin[i] == 0 &&
                win.pad_end[i] == 0;
  }
  if (P == 0 || m == 0) return;
  const bool depthwise_conv = cg == 1 && group > 1 && win.rank() <= 3;
  // The paths below that take the packed weights write Y whole (bias added
  // as they store); the others accumulate onto Y holding the bias.
  bool fused = false;
  if constexpr (std::is_same_v<T, float>) {
    fused = packed && !depthwise_conv &&
            (pointwise || (win.rank() <= 3 && win.strides.back() < (int64_t(1) << 24) &&
                           gemm_f32_uses_avx512(mg, P, CK)));
  }
  // The epilogue from Y's element `offset` on.
  auto epilogue_at = [&](int64_t offset) {
    GemmEpilogue e = ep ? *ep : GemmEpilogue{};
    if (e.residual) e.residual += offset;
    return e;
  };
  // One batch element; returns after the first path that applies, true
  // when that path applied the epilogue too.
  auto batch = [&](int64_t b) -> bool {
    const T* xb = x + b * c * in_n;
    T* yb = y + b * m * P;
    if constexpr (std::is_same_v<T, float>) {
      if (depthwise_conv && mg == 1) {  // writes every element of y
        const GemmEpilogue e = epilogue_at(b * m * P);
        if (depthwise_channels_avx512(xb, w, bias, m, geom3(win), yb, ep ? &e : nullptr)) {
          return true;
        }
      }
    }
    if (!fused) {
      for (int64_t j = 0; j < m; ++j) std::fill_n(yb + j * P, P, bias ? bias[j] : T{});
    }
    if (pointwise) {  // in_n == P: X_g [cg, P] is the right operand as it is
      if constexpr (std::is_same_v<T, float>) {
        // One output position (a squeeze-excite block's 1x1 convs): a
        // matrix-vector product, y[j] = W[j, :] . x, whose dot products
        // read W's rows as they are (the blocked GEMM would pad the one
        // column to a vector and re-read W's panels); then + bias and the
        // epilogue, as the separate Add and Relu would. Taken whether or
        // not W is packed, so fed and constant weights give the same bits.
        if (P == 1 && group == 1 &&
            fast::small_m_gemm(false, true, 1, m, c, 1.0f, xb, c, w, c, 0.0f, yb, m)) {
          if (bias) {
            for (int64_t j = 0; j < m; ++j) yb[j] += bias[j];
          }
          if (ep) apply_epilogue(yb, m, epilogue_at(b * m));
          return true;
        }
        if (fused) {
          for (int64_t g = 0; g < group; ++g) {
            const GemmEpilogue eg = epilogue_at(b * m * P + g * mg * P);
            sgemm_avx512_packed_a(*(*packed)[size_t(g)], P, xb + g * cg * in_n, P, yb + g * mg * P,
                                  P, bias ? bias + g * mg : nullptr, ep ? &eg : nullptr);
          }
          return true;
        }
      }
      for (int64_t g = 0; g < group; ++g) {
        gemm<T>(false, false, mg, P, cg, C(1), w + g * mg * CK, CK, xb + g * cg * in_n, P, C(1),
                yb + g * mg * P, P);
      }
      return false;
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (depthwise_conv) {
        Geom3 g3 = geom3(win);
        std::atomic<bool> tail_done{false};
        // Output planes are independent: split over the thread pool.
        parallel_for(m, double(P * K), [&](int64_t j0, int64_t j1) {
          for (int64_t j = j0; j < j1; ++j) {
            const T* xc = xb + (j / mg) * in_n;
            if constexpr (std::is_same_v<T, float>) {
              const GemmEpilogue e = epilogue_at(b * m * P + j * P);
              if (depthwise_avx512(xc, w + j * K, g3, yb + j * P, e.residual, e.relu,
                                   e.hard_swish)) {
                tail_done = true;  // (every plane alike: the same geometry)
                continue;
              }
            }
            depthwise(xc, w + j * K, g3, yb + j * P);
          }
        });
        return tail_done.load();
      }
    }
    if constexpr (std::is_same_v<T, float>) {
      // (Strides that large would overflow the gather's 32-bit lane offsets.)
      if (win.rank() <= 3 && win.strides.back() < (int64_t(1) << 24) &&
          gemm_f32_uses_avx512(mg, P, CK)) {
        const Geom3 g3 = geom3(win);
        if (fused && win.rank() == 2 && conv_winograd_applies(g3, cg, mg, group)) {
          const GemmEpilogue eg = epilogue_at(b * m * P);
          if (conv_winograd_avx512(xb, w, cg, m, g3, (*packed)[0], yb, bias, ep ? &eg : nullptr)) {
            return true;
          }
        }
        if (fused && conv_direct_applies(g3, cg)) {
          for (int64_t g = 0; g < group; ++g) {
            const GemmEpilogue eg = epilogue_at(b * m * P + g * mg * P);
            conv_direct_avx512(xb + g * cg * in_n, cg, g3, *(*packed)[size_t(g)], yb + g * mg * P,
                               bias ? bias + g * mg : nullptr, ep ? &eg : nullptr);
          }
          return true;
        }
        for (int64_t g = 0; g < group; ++g) {
          Im2colRows src{xb + g * cg * in_n, g3};
          const RowSource rows{&src, &Im2colRows::fill};
          if (fused) {
            const GemmEpilogue eg = epilogue_at(b * m * P + g * mg * P);
            sgemm_avx512_rows_packed(*(*packed)[size_t(g)], P, rows, yb + g * mg * P, P,
                                     bias ? bias + g * mg : nullptr, ep ? &eg : nullptr);
          } else {
            sgemm_avx512_rows(mg, P, CK, w + g * mg * CK, CK, rows, 1.0f, yb + g * mg * P, P);
          }
        }
        return fused;
      }
    }
    if (win.rank() > 3) {
      Tensor col_t(dtype_of<T>(), {CK, P});  // checked against the allocation limit
      T* col = col_t.mutable_data<T>();
      for (int64_t g = 0; g < group; ++g) {
        im2col_generic(xb + g * cg * in_n, cg, win, col);
        gemm<T>(false, false, mg, P, CK, C(1), w + g * mg * CK, CK, col, P, C(1), yb + g * mg * P,
                P);
      }
      return false;
    }
    Geom3 g3 = geom3(win);
    const int64_t OW = g3.out[2], rows = g3.out[0] * g3.out[1];
    const int64_t row_bytes = std::max<int64_t>(1, CK * OW * int64_t(sizeof(T)));
    const int64_t band = std::clamp<int64_t>(kColBandBytes / row_bytes, 1, rows);
    if (row_bytes > allocation_limit()) {
      throw Error(ErrorKind::Input, "Conv: one output row needs " + std::to_string(row_bytes) +
                                        " bytes of im2col buffer, over the evaluator's limit");
    }
    T* col = scratch<T>(size_t(CK * band * OW));
    for (int64_t g = 0; g < group; ++g) {
      for (int64_t r0 = 0; r0 < rows; r0 += band) {
        const int64_t r1 = std::min(rows, r0 + band), np = (r1 - r0) * OW;
        im2col_rows(xb + g * cg * in_n, cg, g3, r0, r1, col, np);
        gemm<T>(false, false, mg, np, CK, C(1), w + g * mg * CK, CK, col, np, C(1),
                yb + g * mg * P + r0 * OW, P);
      }
    }
    return false;
  };
  for (int64_t b = 0; b < n; ++b) {
    const bool tail_done = batch(b);
    if constexpr (std::is_same_v<T, float>) {
      if (ep && !tail_done) apply_epilogue(y + b * m * P, m * P, epilogue_at(b * m * P));
    }
  }
}

}  // namespace oxs::eval::conv_detail
