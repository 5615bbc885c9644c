// Cast and the conversions every kernel file shares (cast_tensor), plus the
// small shared helpers of kernel_util.h.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "oxs/eval/convert/narrow.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

void throw_bad_dtype(ir::DataType t, const char* what) {
  throw Error(ErrorKind::Unsupported, "element type " + std::string(ir::dtype_name(t)) +
                                          " is not supported here (" + what + " expected)");
}

int64_t normalize_axis(const KernelContext& ctx, int64_t axis, int64_t rank, bool inclusive) {
  int64_t hi = inclusive ? rank + 1 : rank;
  int64_t lo = -rank;
  if (axis < lo || axis >= hi) {
    ctx.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  // Inclusive ranges (Flatten's axis) still count negatives from rank.
  return axis < 0 ? axis + rank : axis;
}

void require_same_dtype(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    ctx.fail("inputs must have the same element type, got " +
             std::string(ir::dtype_name(a.dtype())) + " and " +
             std::string(ir::dtype_name(b.dtype())));
  }
}

namespace {

// Float to integer like numpy on x86: truncation; NaN/out of range give the
// "integer indefinite" value instead of undefined behaviour.
template <class To, class From>
To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<double>(v) != 0.0;
  } else if constexpr (std::is_integral_v<To> && is_float_v<From>) {
    double d = static_cast<double>(v);
    if (std::isnan(d)) return std::numeric_limits<To>::min();
    if constexpr (sizeof(To) >= 4) {
      if (d >= static_cast<double>(std::numeric_limits<To>::max()) ||
          d < static_cast<double>(std::numeric_limits<To>::lowest())) {
        if constexpr (std::is_signed_v<To>) return std::numeric_limits<To>::min();
        if (d < 0 && d > -9.2e18) return static_cast<To>(static_cast<int64_t>(d));
        return static_cast<To>(0);
      }
      return static_cast<To>(d);
    } else {
      // Narrow ints: through int64 then wrap (numpy does the same).
      if (d >= 9.2e18 || d <= -9.2e18) return static_cast<To>(0);
      return static_cast<To>(static_cast<int64_t>(d));
    }
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    // Cast truncates to bfloat16, as onnx's reference implementation (and
    // its test data) does; arithmetic on bfloat16 rounds to nearest even.
    BFloat16 b;
    float f = static_cast<float>(static_cast<compute_t<From>>(v));
    b.bits = static_cast<uint16_t>(float_to_bits(f) >> 16);
    if (std::isnan(f)) b.bits |= 0x40;
    return b;
  } else if constexpr (std::is_same_v<To, Half>) {
    return To(static_cast<float>(static_cast<compute_t<From>>(v)));
  } else {
    return static_cast<To>(static_cast<compute_t<From>>(v));
  }
}

template <class T>
std::string number_to_string(T v) {
  using C = compute_t<T>;
  C c = C(v);
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(c)) return "NaN";
    if (std::isinf(c)) return c > 0 ? "INF" : "-INF";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), c);
    return std::string(buf, r.ptr);
  } else {
    return std::to_string(c);
  }
}

template <class T>
T string_to_number(const std::string& s) {
  if constexpr (std::is_same_v<T, bool>) {
    return s == "True" || s == "true" || s == "1";
  } else {
    using C = compute_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      std::string l;
      for (char ch : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (l == "nan" || l == "+nan" || l == "-nan") return T(std::numeric_limits<C>::quiet_NaN());
      if (l == "inf" || l == "+inf" || l == "infinity")
        return T(std::numeric_limits<C>::infinity());
      if (l == "-inf" || l == "-infinity") return T(-std::numeric_limits<C>::infinity());
      return T(static_cast<C>(std::strtod(s.c_str(), nullptr)));
    } else if constexpr (std::is_signed_v<C>) {
      return static_cast<T>(std::strtoll(s.c_str(), nullptr, 10));
    } else {
      return static_cast<T>(std::strtoull(s.c_str(), nullptr, 10));
    }
  }
}

}  // namespace

Tensor cast_tensor(const Tensor& t, DataType to) {
  if (t.dtype() == to) return t;
  if (is_narrow_type(t.dtype()) || is_narrow_type(to)) return cast_narrow(t, to);
  Tensor out(to, t.dims());
  const int64_t n = t.numel();
  if (t.dtype() == DataType::String) {
    dispatch_numeric(to, [&](auto tag) {
      using O = decltype(tag);
      O* po = out.mutable_data<O>();
      for (int64_t i = 0; i < n; ++i) po[i] = string_to_number<O>(t.strings()[size_t(i)]);
    });
    return out;
  }
  if (to == DataType::String) {
    dispatch_numeric(t.dtype(), [&](auto tag) {
      using I = decltype(tag);
      const I* pi = t.data<I>();
      for (int64_t i = 0; i < n; ++i) out.mutable_strings()[size_t(i)] = number_to_string(pi[i]);
    });
    return out;
  }
  dispatch_numeric(t.dtype(), [&](auto itag) {
    using I = decltype(itag);
    dispatch_numeric(to, [&](auto otag) {
      using O = decltype(otag);
      const I* pi = t.data<I>();
      O* po = out.mutable_data<O>();
      for (int64_t i = 0; i < n; ++i) po[i] = convert<O>(pi[i]);
    });
  });
  return out;
}

namespace {

void cast_k(KernelContext& ctx) {
  const ir::Attr& to = ctx.required_attr("to");
  DataType dt;
  if (to.type == ir::AttrType::String) {  // opset 1 spelled the type
    auto p = ir::parse_dtype(to.s);
    if (!p) ctx.fail("unknown type '" + to.s + "'");
    dt = *p;
  } else {
    if (!ir::is_valid_dtype(static_cast<int32_t>(to.i))) ctx.fail("bad 'to' type");
    dt = static_cast<DataType>(to.i);
  }
  ctx.set_output(0, cast_tensor(ctx.tensor(0), dt));
}

}  // namespace

void register_cast_kernels(KernelRegistry& r) {
  r.add("", "Cast", 1, cast_k);
}

}  // namespace oxs::eval
