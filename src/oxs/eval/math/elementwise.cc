// Binary and variadic elementwise kernels with broadcasting: arithmetic,
// comparisons, logic, bit shifts, Min/Max/Sum/Mean, Where, PRelu.
#include <cmath>

#include "oxs/eval/broadcast.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

struct AddOp {
  template <class C>
  static C apply(C a, C b) {
    return wrap_add(a, b);
  }
};
struct SubOp {
  template <class C>
  static C apply(C a, C b) {
    return wrap_sub(a, b);
  }
};
struct MulOp {
  template <class C>
  static C apply(C a, C b) {
    return wrap_mul(a, b);
  }
};
struct DivOp {
  template <class C>
  static C apply(C a, C b) {
    return safe_div(a, b);
  }
};

// Before opset 7, binary ops broadcast only with broadcast=1, aligning B
// at `axis` of A: B reshaped (into `holder`) so numpy broadcasting does the
// same; else B itself.
const Tensor& legacy_broadcast(const KernelContext& ctx, const Tensor& a, const Tensor& b,
                               Tensor& holder) {
  if (ctx.opset() >= 7 || ctx.attr_int("broadcast", 0) == 0 || !ctx.has_attr("axis")) return b;
  int64_t axis = ctx.attr_int("axis", 0);
  if (axis < 0) axis += int64_t(a.rank());
  Dims d = b.dims();
  for (int64_t i = axis + int64_t(b.rank()); i < int64_t(a.rank()); ++i) d.push_back(1);
  holder = b.reshaped(d);
  return holder;
}

// Same-type arithmetic on two inputs.
// The fast path (fast/fast_kernels.h) of an arithmetic op.
template <class Op>
constexpr fast::Binary fast_binary() {
  if constexpr (std::is_same_v<Op, AddOp>) return fast::Binary::Add;
  if constexpr (std::is_same_v<Op, SubOp>) return fast::Binary::Sub;
  if constexpr (std::is_same_v<Op, MulOp>) return fast::Binary::Mul;
  return fast::Binary::Div;
}

template <class Op>
void arith_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.tensor(0);
  Tensor b_holder;
  const Tensor& b = legacy_broadcast(ctx, a, ctx.tensor(1), b_holder);
  require_same_dtype(ctx, a, b);
  // Every element is written (by the fast path or binary_broadcast), each
  // after reading the operands' elements at its own index: the output may
  // take over a dying input's buffer (the session's memory plan).
  Tensor& out =
      ctx.alloc_output_reusing(0, a.dtype(), broadcast_shapes(a.dims(), b.dims()), {0, 1});
  if (fast::binary(fast_binary<Op>(), a, b, out)) return;
  dispatch_arith(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    binary_broadcast<T, T, T>(a, b, out, [](T x, T y) { return T(Op::apply(C(x), C(y))); });
  });
}

// Integer Pow: exact (wrapping, as numpy) for whole exponents; other
// exponents through double, 0 where the result has no integer value.
template <class C>
C int_pow(C base, double e) {
  if (e >= 0 && e == std::floor(e) && e < 1e18) {
    C r = 1, b = base;
    for (auto n = static_cast<uint64_t>(e); n; n >>= 1) {
      if (n & 1) r = wrap_mul(r, b);
      b = wrap_mul(b, b);
    }
    return r;
  }
  double r = std::pow(static_cast<double>(base), e);
  if (!(r >= double(std::numeric_limits<C>::lowest()) &&
        r < double(std::numeric_limits<C>::max()) + 1.0)) {
    return 0;
  }
  return static_cast<C>(r);
}

void pow_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.tensor(0);
  Tensor b = cast_tensor(ctx.tensor(1), DataType::Double);
  Tensor& out = ctx.alloc_output(0, a.dtype(), broadcast_shapes(a.dims(), b.dims()));
  dispatch_arith(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    if constexpr (std::is_same_v<C, float>) {
      binary_broadcast<T, double, T>(a, b, out, [](T x, double y) {
        return T(std::pow(static_cast<float>(x), static_cast<float>(y)));
      });
    } else if constexpr (std::is_same_v<C, double>) {
      binary_broadcast<T, double, T>(a, b, out, [](T x, double y) { return std::pow(x, y); });
    } else {
      binary_broadcast<T, double, T>(a, b, out, [](T x, double y) { return int_pow<C>(x, y); });
    }
  });
}

void mod_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.tensor(0);
  const Tensor& b = ctx.tensor(1);
  require_same_dtype(ctx, a, b);
  bool fmod = ctx.attr_int("fmod", 0) != 0;
  Tensor& out = ctx.alloc_output(0, a.dtype(), broadcast_shapes(a.dims(), b.dims()));
  dispatch_arith(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      if (fmod) {
        binary_broadcast<T, T, T>(a, b, out, [](T x, T y) { return T(std::fmod(C(x), C(y))); });
      } else {
        binary_broadcast<T, T, T>(a, b, out, [](T x, T y) {
          C r = std::fmod(C(x), C(y));
          if (r != 0 && ((r < 0) != (C(y) < 0))) r += C(y);
          return T(r);
        });
      }
    } else {
      binary_broadcast<T, T, T>(a, b, out, [fmod](T x, T y) -> T {
        if (y == 0) return 0;
        if constexpr (std::is_signed_v<T>) {
          if (y == -1) return 0;
          T r = static_cast<T>(x % y);
          if (!fmod && r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
          return r;
        } else {
          return static_cast<T>(x % y);
        }
      });
    }
  });
}

void bitshift_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.tensor(0);
  const Tensor& b = ctx.tensor(1);
  require_same_dtype(ctx, a, b);
  bool left = ctx.attr_string("direction") == "LEFT";
  Tensor& out = ctx.alloc_output(0, a.dtype(), broadcast_shapes(a.dims(), b.dims()));
  dispatch_int(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_unsigned_v<T>) {
      binary_broadcast<T, T, T>(a, b, out, [left](T x, T y) -> T {
        if (y >= sizeof(T) * 8) return 0;
        return left ? static_cast<T>(x << y) : static_cast<T>(x >> y);
      });
    } else {
      ctx.fail("BitShift takes unsigned integers");
    }
  });
}

enum class Cmp { Eq, Lt, Le, Gt, Ge };

template <Cmp K>
void compare_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.tensor(0);
  const Tensor& b = ctx.tensor(1);
  require_same_dtype(ctx, a, b);
  Tensor& out = ctx.alloc_output(0, DataType::Bool, broadcast_shapes(a.dims(), b.dims()));
  auto cmp = [](auto x, auto y) -> bool {
    if constexpr (K == Cmp::Eq) return x == y;
    if constexpr (K == Cmp::Lt) return x < y;
    if constexpr (K == Cmp::Le) return x <= y;
    if constexpr (K == Cmp::Gt) return x > y;
    if constexpr (K == Cmp::Ge) return x >= y;
  };
  dispatch_all(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, std::string>) {
      if constexpr (K != Cmp::Eq) ctx.fail("strings can only be compared for equality");
      const auto& sa = a.strings();
      const auto& sb = b.strings();
      bool* po = out.mutable_data<bool>();
      auto sta = broadcast_strides(a.dims(), out.dims());
      auto stb = broadcast_strides(b.dims(), out.dims());
      auto os = row_major_strides(out.dims());
      for (int64_t i = 0; i < out.numel(); ++i) {
        int64_t ia = 0, ib = 0, r = i;
        for (size_t d = 0; d < os.size(); ++d) {
          int64_t q = r / os[d];
          r %= os[d];
          ia += q * sta[d];
          ib += q * stb[d];
        }
        po[i] = sa[static_cast<size_t>(ia)] == sb[static_cast<size_t>(ib)];
      }
    } else {
      using C = compute_t<T>;
      binary_broadcast<T, T, bool>(a, b, out, [&](T x, T y) { return cmp(C(x), C(y)); });
    }
  });
}

enum class Logic { And, Or, Xor };

template <Logic K>
void logic_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.tensor(0);
  const Tensor& b = ctx.tensor(1);
  if (a.dtype() != DataType::Bool || b.dtype() != DataType::Bool) ctx.fail("inputs must be bool");
  Tensor& out = ctx.alloc_output(0, DataType::Bool, broadcast_shapes(a.dims(), b.dims()));
  binary_broadcast<bool, bool, bool>(a, b, out, [](bool x, bool y) {
    if constexpr (K == Logic::And) return x && y;
    if constexpr (K == Logic::Or) return x || y;
    if constexpr (K == Logic::Xor) return x != y;
  });
}

enum class Var { Min, Max, Sum, Mean };

template <Var K>
void variadic_kernel(KernelContext& ctx) {
  size_t n = ctx.num_inputs();
  if (n == 0) ctx.fail("needs at least one input");
  std::vector<const Dims*> shapes;
  for (size_t i = 0; i < n; ++i) shapes.push_back(&ctx.tensor(i).dims());
  Dims out_dims = broadcast_shapes(shapes);
  DataType dt = ctx.tensor(0).dtype();
  for (size_t i = 1; i < n; ++i) require_same_dtype(ctx, ctx.tensor(0), ctx.tensor(i));
  dispatch_arith(dt, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    auto f = [](C x, C y) -> C {
      if constexpr (K == Var::Min) return nan_min(x, y);
      if constexpr (K == Var::Max) return nan_max(x, y);
      if constexpr (K == Var::Sum || K == Var::Mean) return wrap_add(x, y);
    };
    // Accumulate in a compute-type buffer, then round once.
    Tensor acc_t(dtype_of<C>(), out_dims);
    C* acc = acc_t.mutable_data<C>();
    {
      // Broadcast against a tensor of the output's shape: the first input
      // may be smaller than the output (Max(0, x) with a scalar 0).
      const Tensor& x = ctx.tensor(0);
      Tensor tmp(dtype_of<C>(), out_dims);
      binary_broadcast<T, C, C>(x, tmp, acc_t, [](T v, C) { return C(v); });
    }
    for (size_t i = 1; i < n; ++i) {
      binary_broadcast<C, T, C>(acc_t, ctx.tensor(i), acc_t, [&](C v, T w) { return f(v, C(w)); });
    }
    Tensor& out = ctx.alloc_output(0, dt, out_dims);
    T* po = out.mutable_data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) {
      if constexpr (K == Var::Mean) {
        po[i] = T(acc[i] / static_cast<C>(n));
      } else {
        po[i] = T(acc[i]);
      }
    }
  });
}

void where_kernel(KernelContext& ctx) {
  const Tensor& c = ctx.tensor(0);
  const Tensor& x = ctx.tensor(1);
  const Tensor& y = ctx.tensor(2);
  require_same_dtype(ctx, x, y);
  const Dims* shapes[] = {&c.dims(), &x.dims(), &y.dims()};
  Tensor& out = ctx.alloc_output(0, x.dtype(), broadcast_shapes(shapes));
  if (c.dtype() != DataType::Bool) ctx.fail("condition must be bool");
  // Read as bytes: a bool tensor's bytes may hold values other than 0 and 1.
  const auto* pc = static_cast<const uint8_t*>(c.raw());
  auto run = [&](auto get_x, auto get_y, auto set) {
    for_each_run<3>(out.dims(), {&c.dims(), &x.dims(), &y.dims()},
                    [&](int64_t o, const int64_t* off, int64_t n, const int64_t* s) {
                      for (int64_t i = 0; i < n; ++i) {
                        bool cond = pc[off[0] + i * s[0]] != 0;
                        int64_t src = cond ? off[1] + i * s[1] : off[2] + i * s[2];
                        set(o + i, cond ? get_x(src) : get_y(src));
                      }
                    });
  };
  if (x.dtype() == DataType::String) {
    auto& so = out.mutable_strings();
    run([&](int64_t i) { return x.strings()[static_cast<size_t>(i)]; },
        [&](int64_t i) { return y.strings()[static_cast<size_t>(i)]; },
        [&](int64_t i, const std::string& v) { so[static_cast<size_t>(i)] = v; });
    return;
  }
  dispatch_bytes(storage_size(x.dtype()), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = out.mutable_data<T>();
    run([&](int64_t i) { return px[i]; }, [&](int64_t i) { return py[i]; },
        [&](int64_t i, T v) { po[i] = v; });
  });
}

void prelu_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  Tensor slope = ctx.tensor(1);
  // Before opset 7 a 1-D slope was per channel (axis 1).
  if (ctx.opset() < 7 && slope.rank() == 1 && x.rank() > 2 && slope.dim(0) == x.dim(1) &&
      slope.dim(0) != x.dim(x.rank() - 1)) {
    Dims d{slope.dim(0)};
    for (size_t i = 2; i < x.rank(); ++i) d.push_back(1);
    slope = slope.reshaped(d);
  }
  require_same_dtype(ctx, x, slope);
  Tensor& out = ctx.alloc_output(0, x.dtype(), broadcast_shapes(x.dims(), slope.dims()));
  dispatch_arith(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    binary_broadcast<T, T, T>(x, slope, out,
                              [](T v, T s) { return C(v) < C(0) ? T(wrap_mul(C(v), C(s))) : v; });
  });
}

}  // namespace

void register_elementwise_kernels(KernelRegistry& r) {
  r.add("", "Add", 1, arith_kernel<AddOp>);
  r.add("", "Sub", 1, arith_kernel<SubOp>);
  r.add("", "Mul", 1, arith_kernel<MulOp>);
  r.add("", "Div", 1, arith_kernel<DivOp>);
  r.add("", "Pow", 1, pow_kernel);
  r.add("", "Mod", 10, mod_kernel);
  r.add("", "BitShift", 11, bitshift_kernel);
  r.add("", "Equal", 1, compare_kernel<Cmp::Eq>);
  r.add("", "Less", 1, compare_kernel<Cmp::Lt>);
  r.add("", "LessOrEqual", 12, compare_kernel<Cmp::Le>);
  r.add("", "Greater", 1, compare_kernel<Cmp::Gt>);
  r.add("", "GreaterOrEqual", 12, compare_kernel<Cmp::Ge>);
  r.add("", "And", 1, logic_kernel<Logic::And>);
  r.add("", "Or", 1, logic_kernel<Logic::Or>);
  r.add("", "Xor", 1, logic_kernel<Logic::Xor>);
  r.add("", "Min", 1, variadic_kernel<Var::Min>);
  r.add("", "Max", 1, variadic_kernel<Var::Max>);
  r.add("", "Sum", 1, variadic_kernel<Var::Sum>);
  r.add("", "Mean", 1, variadic_kernel<Var::Mean>);
  r.add("", "Where", 9, where_kernel);
  r.add("", "PRelu", 1, prelu_kernel);
}

}  // namespace oxs::eval
