#include "oxs/eval/validate/checked.h"

#include <charconv>
#include <limits>

#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {
[[noreturn]] void fail_overflow(const KernelContext& ctx, int64_t a, int64_t b, const char* op,
                                const char* what) {
  ctx.fail(std::string(what) + " overflows int64 (" + std::to_string(a) + op + std::to_string(b) +
           ")");
}
}  // namespace

int64_t checked_mul(const KernelContext& ctx, int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) fail_overflow(ctx, a, b, " * ", what);
  return r;
}

int64_t checked_add(const KernelContext& ctx, int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) fail_overflow(ctx, a, b, " + ", what);
  return r;
}

int64_t checked_product(const KernelContext& ctx, const std::vector<int64_t>& dims, size_t begin,
                        size_t end, const char* what) {
  int64_t n = 1;
  for (size_t i = begin; i < end && i < dims.size(); ++i) {
    if (dims[i] < 0) {
      ctx.fail(std::string(what) + " has a negative size " + std::to_string(dims[i]) + " in " +
               dims_to_string(dims));
    }
    n = checked_mul(ctx, n, dims[i], what);
  }
  return n;
}

void check_work(const KernelContext& ctx, std::initializer_list<int64_t> factors,
                const char* what) {
  int64_t w = 1;
  for (int64_t f : factors) {
    if (f <= 0) return;  // nothing to do
    if (__builtin_mul_overflow(w, f, &w) || w > kMaxKernelWork) {
      std::string text;
      for (int64_t g : factors) text += (text.empty() ? "" : " x ") + std::to_string(g);
      ctx.fail(std::string(what) + " needs " + text +
               " steps, more than the evaluator's limit of 2^40; check the shapes and "
               "attributes (kernel_shape, pads, strides)");
    }
  }
}

size_t checked_buffer(const KernelContext& ctx, std::initializer_list<int64_t> factors,
                      size_t elem_size, const char* what) {
  int64_t n = 1;
  bool overflow = false, empty = false;
  for (int64_t f : factors) {
    if (f < 0) ctx.fail(std::string(what) + " has a negative size");
    empty = empty || f == 0;
    overflow = overflow || __builtin_mul_overflow(n, f, &n);
  }
  // Empty only when a factor is 0: a product that wraps to 0 (2^31 x 2^40)
  // is not (it sized LinearRegressor's scores as 0 and the loop wrote past
  // them).
  if (empty) return 0;
  if (overflow || n > allocation_limit() / int64_t(elem_size)) {
    std::string text;
    for (int64_t f : factors) text += (text.empty() ? "" : " x ") + std::to_string(f);
    ctx.fail(std::string(what) + " of " + text + " values is over the allocation limit of " +
             std::to_string(allocation_limit()) + " bytes");
  }
  return size_t(n);
}

void require_rank(const KernelContext& ctx, const Tensor& t, size_t lo, size_t hi,
                  const char* what) {
  if (t.rank() >= lo && t.rank() <= hi) return;
  std::string want = lo == hi ? std::to_string(lo)
                     : hi == std::numeric_limits<size_t>::max()
                         ? ">= " + std::to_string(lo)
                         : "between " + std::to_string(lo) + " and " + std::to_string(hi);
  ctx.fail(std::string(what) + " must have rank " + want + ", but has shape " +
           dims_to_string(t.dims()));
}

void require_numel(const KernelContext& ctx, const Tensor& t, int64_t n, const char* what) {
  if (t.numel() == n) return;
  ctx.fail(std::string(what) + " must have " + std::to_string(n) + " element" +
           (n == 1 ? "" : "s") + ", but has shape " + dims_to_string(t.dims()));
}

void require_same_dims(const KernelContext& ctx, const Tensor& a, const Tensor& b,
                       const char* what_a, const char* what_b) {
  if (a.dims() == b.dims()) return;
  ctx.fail(std::string(what_a) + " " + dims_to_string(a.dims()) + " and " + what_b + " " +
           dims_to_string(b.dims()) + " must have the same shape");
}

void require_dtype(const KernelContext& ctx, const Tensor& t, DataType dt, const char* what) {
  if (t.dtype() == dt) return;
  ctx.fail(std::string(what) + " must be " + std::string(ir::dtype_name(dt)) + ", not " +
           std::string(ir::dtype_name(t.dtype())));
}

int64_t attr_int_in(const KernelContext& ctx, const char* name, int64_t def, int64_t lo,
                    int64_t hi) {
  int64_t v = ctx.attr_int(name, def);
  if (v < lo || v > hi) {
    ctx.fail("attribute '" + std::string(name) + "' is " + std::to_string(v) +
             "; it must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  }
  return v;
}

std::vector<int64_t> attr_ints_of_len(const KernelContext& ctx, const char* name, size_t n,
                                      std::vector<int64_t> def) {
  if (!ctx.has_attr(name)) return def;
  std::vector<int64_t> v = ctx.attr_ints(name);
  if (v.size() != n) {
    ctx.fail("attribute '" + std::string(name) + "' has " + std::to_string(v.size()) +
             " values; it must have " + std::to_string(n));
  }
  return v;
}

std::string number_text(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

int64_t checked_to_int64(const KernelContext& ctx, double v, const char* what) {
  if (!fits_int64(v)) {
    ctx.fail(std::string(what) + " is " + number_text(v) +
             "; it must be a finite number within int64's range");
  }
  return static_cast<int64_t>(v);
}

double scalar_double(const KernelContext& ctx, const Tensor& t, const char* what) {
  require_numel(ctx, t, 1, what);
  if (t.dtype() == DataType::Bool) return bool_at(t, 0) ? 1 : 0;
  if (t.dtype() == DataType::String) ctx.fail(std::string(what) + " must be numeric");
  return t.get_as_double(0);
}

int64_t scalar_int64(const KernelContext& ctx, const Tensor& t, const char* what) {
  require_numel(ctx, t, 1, what);
  if (!ir::is_integer(t.dtype())) {
    ctx.fail(std::string(what) + " must be an integer, not " +
             std::string(ir::dtype_name(t.dtype())));
  }
  if (t.dtype() == DataType::Uint64) {
    uint64_t v = t.data<uint64_t>()[0];
    if (v > uint64_t(std::numeric_limits<int64_t>::max())) {
      ctx.fail(std::string(what) + " " + std::to_string(v) + " does not fit in int64");
    }
    return int64_t(v);
  }
  if (t.dtype() == DataType::Int64) return t.data<int64_t>()[0];
  return int64_t(t.get_as_double(0));
}

bool scalar_bool(const KernelContext& ctx, const Tensor& t, const char* what) {
  require_numel(ctx, t, 1, what);
  if (t.dtype() == DataType::Bool) return bool_at(t, 0);
  if (t.dtype() == DataType::String) ctx.fail(std::string(what) + " must be a bool");
  return t.get_as_double(0) != 0;
}

}  // namespace oxs::eval
