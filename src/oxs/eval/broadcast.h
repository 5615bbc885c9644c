// Multidirectional (numpy) broadcasting for elementwise kernels. The output
// index space is coalesced into runs that are contiguous in every input, and
// the loop body sees one run at a time with each input's inner stride (0 for
// a broadcast input, 1 otherwise), so inner loops stay tight and vectorizable.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "oxs/eval/tensor.h"

namespace oxs::eval {

// The broadcast of several shapes; throws (Invalid) when they do not broadcast.
Dims broadcast_shapes(std::span<const Dims* const> shapes);
inline Dims broadcast_shapes(const Dims& a, const Dims& b) {
  const Dims* s[] = {&a, &b};
  return broadcast_shapes(s);
}
// Strides of a row-major tensor of shape `in` seen through shape `out`
// (right-aligned; 0 on broadcast dims).
std::vector<int64_t> broadcast_strides(const Dims& in, const Dims& out);
// Row-major strides of `dims`.
std::vector<int64_t> row_major_strides(const Dims& dims);

// body(out_offset, in_offsets[N], run_length, in_inner_strides[N]) for every
// run of the output, in order.
template <size_t N, class F>
void for_each_run(const Dims& out, const std::array<const Dims*, N>& ins, F&& body) {
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  if (total == 0) return;
  // Coalesce dims from the innermost outwards.
  std::vector<int64_t> cdims;
  std::vector<std::array<int64_t, N>> cstr;
  std::array<std::vector<int64_t>, N> st;
  for (size_t k = 0; k < N; ++k) st[k] = broadcast_strides(*ins[k], out);
  for (size_t r = out.size(); r-- > 0;) {
    if (out[r] == 1) continue;
    std::array<int64_t, N> s;
    for (size_t k = 0; k < N; ++k) s[k] = st[k][r];
    if (!cdims.empty()) {
      bool merge = true;
      for (size_t k = 0; k < N; ++k) {
        if (s[k] != cstr.back()[k] * cdims.back()) merge = false;
      }
      if (merge) {
        cdims.back() *= out[r];
        continue;
      }
    }
    cdims.push_back(out[r]);
    cstr.push_back(s);
  }
  std::array<int64_t, N> off{};
  if (cdims.empty()) {  // a single element
    std::array<int64_t, N> inner{};
    body(int64_t{0}, off.data(), int64_t{1}, inner.data());
    return;
  }
  const int64_t run = cdims[0];
  std::array<int64_t, N> inner = cstr[0];
  const size_t nd = cdims.size();
  std::vector<int64_t> idx(nd, 0);
  for (int64_t o = 0; o < total; o += run) {
    body(o, off.data(), run, inner.data());
    for (size_t d = 1; d < nd; ++d) {
      ++idx[d];
      for (size_t k = 0; k < N; ++k) off[k] += cstr[d][k];
      if (idx[d] < cdims[d]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= cstr[d][k] * cdims[d];
      idx[d] = 0;
    }
  }
}

// out[i] = f(a[i], b[i]) with broadcasting; A, B input element types, O output.
template <class A, class B, class O, class F>
void binary_broadcast(const Tensor& a, const Tensor& b, Tensor& out, F&& f) {
  const A* pa = a.data<A>();
  const B* pb = b.data<B>();
  O* po = out.mutable_data<O>();
  if (a.dims() == b.dims()) {
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
    return;
  }
  for_each_run<2>(out.dims(), {&a.dims(), &b.dims()},
                  [&](int64_t o, const int64_t* off, int64_t n, const int64_t* s) {
                    const A* x = pa + off[0];
                    const B* y = pb + off[1];
                    O* z = po + o;
                    if (s[0] == 1 && s[1] == 1) {
                      for (int64_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
                    } else if (s[0] == 0 && s[1] == 1) {
                      const A xv = x[0];
                      for (int64_t i = 0; i < n; ++i) z[i] = f(xv, y[i]);
                    } else if (s[0] == 1 && s[1] == 0) {
                      const B yv = y[0];
                      for (int64_t i = 0; i < n; ++i) z[i] = f(x[i], yv);
                    } else {
                      for (int64_t i = 0; i < n; ++i) z[i] = f(x[i * s[0]], y[i * s[1]]);
                    }
                  });
}

}  // namespace oxs::eval
