// Reductions (Reduce*, ArgMax/ArgMin), CumSum and the softmax family.
// Reductions accumulate floats in double; NaN propagates through Max/Min.
#include <cmath>
#include <limits>

#include "oxs/eval/broadcast.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {

namespace {

enum class Red { Sum, Mean, Prod, Max, Min, L1, L2, LogSum, LogSumExp, SumSquare };

// Axes to reduce (sorted flags per dim) and whether to reduce at all.
std::vector<bool> reduce_axes(KernelContext& ctx, const Tensor& x, int input_since) {
  std::vector<int64_t> axes;
  bool from_input = ctx.opset() >= input_since;
  if (from_input) {
    if (const Tensor* t = ctx.optional_tensor(1)) axes = t->to_int_vector();
  } else {
    axes = ctx.attr_ints("axes");
  }
  std::vector<bool> red(x.rank(), false);
  if (axes.empty()) {
    if (from_input && ctx.attr_int("noop_with_empty_axes", 0) != 0) return red;
    red.assign(x.rank(), true);
    return red;
  }
  for (int64_t a : axes) red[size_t(normalize_axis(ctx, a, int64_t(x.rank())))] = true;
  return red;
}

template <Red K>
Tensor reduce_tensor(KernelContext& ctx, const Tensor& x) {
  int since = K == Red::Sum ? 13 : 18;
  std::vector<bool> red = reduce_axes(ctx, x, since);
  bool keep = ctx.attr_int("keepdims", 1) != 0;
  Dims kd(x.rank()), od;
  int64_t count = 1;
  for (size_t i = 0; i < x.rank(); ++i) {
    kd[i] = red[i] ? 1 : x.dim(i);
    if (red[i]) count = checked_mul(ctx, count, x.dim(i), "reduced size");
    if (!red[i] || keep) od.push_back(kd[i]);
  }
  Tensor result;
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    // Floating-point types, and LogSumExp of integers (exp of an integer
    // difference is fractional: numpy's formula in double, then the cast),
    // accumulate in double.
    using A = std::conditional_t<std::is_floating_point_v<C> || K == Red::LogSumExp, double, C>;
    Tensor acc_t(dtype_of<A>(), kd);
    A* acc = acc_t.mutable_data<A>();
    const int64_t on = acc_t.numel();
    A init = 0;
    if constexpr (K == Red::Prod) init = 1;
    if constexpr (K == Red::Max) {
      init = std::is_floating_point_v<A> ? -std::numeric_limits<A>::infinity()
                                         : std::numeric_limits<A>::lowest();
    }
    if constexpr (K == Red::Min) {
      init = std::is_floating_point_v<A> ? std::numeric_limits<A>::infinity()
                                         : std::numeric_limits<A>::max();
    }
    for (int64_t i = 0; i < on; ++i) acc[i] = init;
    const T* px = x.data<T>();
    // For LogSumExp, a first pass finds the max per output.
    Tensor mx_t;
    const A* mx = nullptr;
    if constexpr (K == Red::LogSumExp) {
      mx_t = Tensor(dtype_of<A>(), kd);
      A* m = mx_t.mutable_data<A>();
      for (int64_t i = 0; i < on; ++i) m[i] = -std::numeric_limits<A>::infinity();
      for_each_run<1>(x.dims(), {&kd},
                      [&](int64_t o, const int64_t* off, int64_t n, const int64_t* s) {
                        for (int64_t i = 0; i < n; ++i) {
                          A& r = m[off[0] + i * s[0]];
                          r = nan_max(r, A(C(px[o + i])));
                        }
                      });
      for (int64_t i = 0; i < on; ++i) {
        if (std::isinf(m[i])) m[i] = 0;
      }
      mx = m;
    }
    // A double result as the accumulator type. For integers, log(0) is -inf,
    // the log or root of a wrapped negative sum is NaN: clamped to the
    // type's range, NaN as 0 (a plain conversion of either is undefined).
    auto to_acc = [](double d) -> A {
      if constexpr (std::is_integral_v<A>) {
        return saturate_to<A>(d);
      } else {
        return A(d);
      }
    };
    auto step = [&](A r, A v, int64_t out_index) -> A {
      if constexpr (K == Red::Sum || K == Red::Mean || K == Red::LogSum) return wrap_add(r, v);
      if constexpr (K == Red::Prod) return wrap_mul(r, v);
      if constexpr (K == Red::Max) return nan_max(r, v);
      if constexpr (K == Red::Min) return nan_min(r, v);
      if constexpr (K == Red::L1) return wrap_add(r, v < 0 ? wrap_sub(A(0), v) : v);
      if constexpr (K == Red::L2 || K == Red::SumSquare) return wrap_add(r, wrap_mul(v, v));
      if constexpr (K == Red::LogSumExp) {
        return r + to_acc(std::exp(double(v) - double(mx[out_index])));
      }
      (void)out_index;
      return r;
    };
    for_each_run<1>(x.dims(), {&kd},
                    [&](int64_t o, const int64_t* off, int64_t n, const int64_t* s) {
                      A* a = acc + off[0];
                      const T* src = px + o;
                      if (s[0] == 0) {  // the run reduces into one output: accumulate in a register
                        A r = a[0];
                        for (int64_t i = 0; i < n; ++i) r = step(r, A(C(src[i])), off[0]);
                        a[0] = r;
                      } else {
                        for (int64_t i = 0; i < n; ++i) a[i] = step(a[i], A(C(src[i])), off[0] + i);
                      }
                    });
    Tensor out(x.dtype(), od);
    T* po = out.mutable_data<T>();
    for (int64_t i = 0; i < on; ++i) {
      A r = acc[i];
      if constexpr (K == Red::Mean) r = count ? A(r / A(count)) : A(0);
      if constexpr (K == Red::L2) r = to_acc(std::sqrt(double(r)));
      if constexpr (K == Red::LogSum) r = to_acc(std::log(double(r)));
      if constexpr (K == Red::LogSumExp) r = to_acc(std::log(double(r)) + double(mx[i]));
      if constexpr (std::is_integral_v<C> && !std::is_integral_v<A>) {
        po[i] = T(saturate_to<C>(r));
      } else {
        po[i] = T(C(r));
      }
    }
    result = std::move(out);
  });
  return result;
}

template <Red K>
void reduce_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if constexpr (K == Red::Max || K == Red::Min) {
    if (x.dtype() == DataType::Bool) {
      // ReduceMax/ReduceMin-20 take bool: "any" and "all", reduced as uint8
      // (so an empty set gives false for Max and true for Min).
      Tensor r = reduce_tensor<K>(ctx, cast_tensor(x, DataType::Uint8));
      ctx.set_output(0, cast_tensor(r, DataType::Bool));
      return;
    }
  }
  ctx.set_output(0, reduce_tensor<K>(ctx, x));
}

template <bool Max>
void arg_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), int64_t(x.rank()));
  bool keep = ctx.attr_int("keepdims", 1) != 0;
  bool last = ctx.attr_int("select_last_index", 0) != 0;
  int64_t len = x.dim(size_t(axis));
  int64_t outer = checked_product(ctx, x.dims(), 0, size_t(axis), "outer size");
  int64_t inner = checked_product(ctx, x.dims(), size_t(axis) + 1, x.rank(), "inner size");
  Dims od;
  for (size_t i = 0; i < x.rank(); ++i) {
    if (int64_t(i) != axis) {
      od.push_back(x.dim(i));
    } else if (keep) {
      od.push_back(1);
    }
  }
  Tensor& out = ctx.alloc_output(0, DataType::Int64, od);
  int64_t* po = out.mutable_data<int64_t>();
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        const T* p = px + o * len * inner + in;
        int64_t best = 0;
        C bv = len ? C(p[0]) : C(0);
        for (int64_t k = 1; k < len; ++k) {
          C v = C(p[k * inner]);
          bool better = Max ? (last ? v >= bv : v > bv) : (last ? v <= bv : v < bv);
          if (better) {
            bv = v;
            best = k;
          }
        }
        po[o * inner + in] = best;
      }
    }
  });
}

void cumsum_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  int64_t axis = normalize_axis(ctx, ctx.tensor(1).scalar_int(), int64_t(x.rank()));
  bool exclusive = ctx.attr_int("exclusive", 0) != 0;
  bool reverse = ctx.attr_int("reverse", 0) != 0;
  int64_t len = x.dim(size_t(axis));
  int64_t outer = checked_product(ctx, x.dims(), 0, size_t(axis), "outer size");
  int64_t inner = checked_product(ctx, x.dims(), size_t(axis) + 1, x.rank(), "inner size");
  Tensor& out = ctx.alloc_output(0, x.dtype(), x.dims());
  // An empty output: nothing to do, and its other dims are no bound on the
  // loops below ([2^62, 0] costs no memory).
  if (out.numel() == 0) return;
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        C acc = 0;
        for (int64_t j = 0; j < len; ++j) {
          int64_t k = reverse ? len - 1 - j : j;
          int64_t idx = (o * len + k) * inner + in;
          C v = C(px[idx]);
          if (exclusive) {
            po[idx] = T(acc);
            acc = wrap_add(acc, v);
          } else {
            acc = wrap_add(acc, v);
            po[idx] = T(acc);
          }
        }
      }
    }
  });
}

enum class Soft { Softmax, LogSoftmax, Hardmax };

template <Soft K>
void softmax_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  int64_t r = int64_t(x.rank());
  bool v13 = ctx.opset() >= 13;
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", v13 ? -1 : 1), r);
  int64_t outer = 1, len = 1, inner = 1;
  for (int64_t i = 0; i < r; ++i) {
    if (i < axis) {
      outer = checked_mul(ctx, outer, x.dim(size_t(i)), "outer size");
    } else if (i == axis || !v13) {
      len = checked_mul(ctx, len, x.dim(size_t(i)), "axis size");  // opset < 13: [outer, rest]
    } else {
      inner = checked_mul(ctx, inner, x.dim(size_t(i)), "inner size");
    }
  }
  // Both paths write every element, each after reading all of its row (or
  // column) of x: the output may take x's buffer when x dies here.
  Tensor& out = ctx.alloc_output_reusing(0, x.dtype(), x.dims(), {0});
  // An empty output: nothing to do, and its other dims are no bound on the
  // loops below ([2^62, 0] costs no memory).
  if (out.numel() == 0) return;
  if (K != Soft::Hardmax && inner == 1 &&
      fast::softmax_rows(x, out, outer, len, K == Soft::LogSoftmax)) {
    return;
  }
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        const T* p = px + o * len * inner + in;
        T* q = po + o * len * inner + in;
        C mx = -std::numeric_limits<C>::infinity();
        int64_t arg = 0;
        for (int64_t k = 0; k < len; ++k) {
          C v = C(p[k * inner]);
          if (v > mx) {
            mx = v;
            arg = k;
          }
        }
        if constexpr (K == Soft::Hardmax) {
          for (int64_t k = 0; k < len; ++k) q[k * inner] = T(C(k == arg ? 1 : 0));
        } else {
          double sum = 0;
          for (int64_t k = 0; k < len; ++k) sum += std::exp(double(C(p[k * inner])) - double(mx));
          for (int64_t k = 0; k < len; ++k) {
            double d = double(C(p[k * inner])) - double(mx);
            q[k * inner] = T(C(K == Soft::Softmax ? std::exp(d) / sum : d - std::log(sum)));
          }
        }
      }
    }
  });
}

}  // namespace

void register_reduce_kernels(KernelRegistry& r) {
  r.add("", "ReduceSum", 1, reduce_k<Red::Sum>);
  r.add("", "ReduceMean", 1, reduce_k<Red::Mean>);
  r.add("", "ReduceProd", 1, reduce_k<Red::Prod>);
  r.add("", "ReduceMax", 1, reduce_k<Red::Max>);
  r.add("", "ReduceMin", 1, reduce_k<Red::Min>);
  r.add("", "ReduceL1", 1, reduce_k<Red::L1>);
  r.add("", "ReduceL2", 1, reduce_k<Red::L2>);
  r.add("", "ReduceLogSum", 1, reduce_k<Red::LogSum>);
  r.add("", "ReduceLogSumExp", 1, reduce_k<Red::LogSumExp>);
  r.add("", "ReduceSumSquare", 1, reduce_k<Red::SumSquare>);
  r.add("", "ArgMax", 1, arg_k<true>);
  r.add("", "ArgMin", 1, arg_k<false>);
  r.add("", "CumSum", 11, cumsum_k);
  // Softmax-13 and LogSoftmax-13 are function-ops in libonnx, but their
  // bodies exist only up to opset 17: the kernel (single-axis from 13 on)
  // serves every version.
  r.add("", "Softmax", 1, softmax_k<Soft::Softmax>);
  r.add("", "LogSoftmax", 1, softmax_k<Soft::LogSoftmax>);
  r.add("", "Hardmax", 1, softmax_k<Soft::Hardmax>);
}

}  // namespace oxs::eval
