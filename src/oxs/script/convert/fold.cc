#include "oxs/script/convert/fold.h"

#include <cmath>

namespace oxs::script {

namespace {

using K = PyValue::Kind;

bool is_intlike(const PyValue& v) {
  return v.kind == K::kInt || v.kind == K::kBool;
}
int64_t int_of(const PyValue& v) {
  return v.kind == K::kBool ? (v.b ? 1 : 0) : v.i;
}

std::optional<PyValue> overflow(std::string* why) {
  *why = "the result does not fit in 64 bits";
  return std::nullopt;
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floor_mod(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

// Elements of a folded value, nested lists counted through.
uint64_t py_size(const PyValue& v) {
  if (v.kind == K::kStr) return v.s.size();
  if (!v.is_sequence()) return 1;
  uint64_t n = 1;
  for (const PyValue& x : v.items) n += py_size(x);
  return n;
}

constexpr uint64_t kMaxFoldedSize = uint64_t{1} << 20;

}  // namespace

std::optional<PyValue> fold_binop(BinOpKind op, const PyValue& a, const PyValue& b,
                                  std::string* why) {
  // Sequences and strings: + and * only.
  if (a.kind == K::kStr || b.kind == K::kStr || a.is_sequence() || b.is_sequence()) {
    // Sizes are checked before anything is built, without overflow: a
    // script cannot make the compiler allocate without bound.
    if (op == BinOpKind::kAdd && a.kind == b.kind && (a.kind == K::kStr || a.is_sequence())) {
      uint64_t size = py_size(a) + py_size(b);
      if (size > kMaxFoldedSize) {
        *why = "the result would have " + std::to_string(size) + " elements (the limit is " +
               std::to_string(kMaxFoldedSize) + ")";
        return std::nullopt;
      }
      if (a.kind == K::kStr) return PyValue::of_str(a.s + b.s);
      PyValue r = a;
      r.items.insert(r.items.end(), b.items.begin(), b.items.end());
      return r;
    }
    const PyValue* seq = (a.is_sequence() || a.kind == K::kStr) ? &a : &b;
    const PyValue* count = seq == &a ? &b : &a;
    if (op == BinOpKind::kMult && (seq->is_sequence() || seq->kind == K::kStr) &&
        is_intlike(*count)) {
      int64_t n = int_of(*count);
      if (seq->s.empty() && seq->items.empty()) return *seq;  // "" * n, [] * n
      uint64_t unit = py_size(*seq);
      if (n > 0 && unit > 0 && static_cast<uint64_t>(n) > kMaxFoldedSize / unit) {
        *why = "the repeated " + std::string(seq->type_name()) + " would be too large (" +
               std::to_string(unit) + " x " + std::to_string(n) + " elements; the limit is " +
               std::to_string(kMaxFoldedSize) + ")";
        return std::nullopt;
      }
      PyValue r = *seq;
      r.items.clear();
      r.s.clear();
      for (int64_t k = 0; k < n; ++k) {
        if (seq->kind == K::kStr) {
          r.s += seq->s;
        } else {
          r.items.insert(r.items.end(), seq->items.begin(), seq->items.end());
        }
      }
      return r;
    }
    *why = std::string("Python cannot apply '") + binop_symbol(op) + "' to " + a.type_name() +
           " and " + b.type_name();
    return std::nullopt;
  }
  if (!a.is_number() || !b.is_number()) {
    *why = std::string("Python cannot apply '") + binop_symbol(op) + "' to " + a.type_name() +
           " and " + b.type_name();
    return std::nullopt;
  }
  if (is_intlike(a) && is_intlike(b)) {
    int64_t x = int_of(a), y = int_of(b), r = 0;
    switch (op) {
      case BinOpKind::kAdd:
        if (__builtin_add_overflow(x, y, &r)) return overflow(why);
        return PyValue::of_int(r);
      case BinOpKind::kSub:
        if (__builtin_sub_overflow(x, y, &r)) return overflow(why);
        return PyValue::of_int(r);
      case BinOpKind::kMult:
        if (__builtin_mul_overflow(x, y, &r)) return overflow(why);
        return PyValue::of_int(r);
      case BinOpKind::kDiv:
        if (y == 0) break;
        return PyValue::of_float(static_cast<double>(x) / static_cast<double>(y));
      case BinOpKind::kFloorDiv:
        if (y == 0) break;
        if (x == INT64_MIN && y == -1) return overflow(why);
        return PyValue::of_int(floor_div(x, y));
      case BinOpKind::kMod:
        if (y == 0) break;
        if (y == -1) return PyValue::of_int(0);
        return PyValue::of_int(floor_mod(x, y));
      case BinOpKind::kPow: {
        if (y < 0)
          return PyValue::of_float(std::pow(static_cast<double>(x), static_cast<double>(y)));
        int64_t acc = 1;
        for (int64_t k = 0; k < y; ++k) {
          if (__builtin_mul_overflow(acc, x, &acc)) return overflow(why);
          if (acc == 0 || acc == 1) break;
          if (acc == -1) {
            acc = ((y - k - 1) % 2 == 0) ? -1 : 1;
            break;
          }
        }
        return PyValue::of_int(acc);
      }
      case BinOpKind::kLShift:
        if (y < 0 || y >= 63 || (x != 0 && (x > (INT64_MAX >> y) || x < (INT64_MIN >> y)))) {
          return overflow(why);
        }
        return PyValue::of_int(x << y);
      case BinOpKind::kRShift:
        if (y < 0) break;
        return PyValue::of_int(y >= 63 ? (x < 0 ? -1 : 0) : (x >> y));
      case BinOpKind::kBitAnd:
        if (a.kind == K::kBool && b.kind == K::kBool) return PyValue::of_bool(a.b && b.b);
        return PyValue::of_int(x & y);
      case BinOpKind::kBitOr:
        if (a.kind == K::kBool && b.kind == K::kBool) return PyValue::of_bool(a.b || b.b);
        return PyValue::of_int(x | y);
      case BinOpKind::kBitXor:
        if (a.kind == K::kBool && b.kind == K::kBool) return PyValue::of_bool(a.b != b.b);
        return PyValue::of_int(x ^ y);
      case BinOpKind::kMatMult:
        *why = "'@' needs tensors";
        return std::nullopt;
    }
    *why = y == 0 ? "division by zero" : "negative shift count";
    return std::nullopt;
  }
  double x = a.as_double(), y = b.as_double();
  switch (op) {
    case BinOpKind::kAdd:
      return PyValue::of_float(x + y);
    case BinOpKind::kSub:
      return PyValue::of_float(x - y);
    case BinOpKind::kMult:
      return PyValue::of_float(x * y);
    case BinOpKind::kDiv:
      if (y == 0) break;
      return PyValue::of_float(x / y);
    case BinOpKind::kFloorDiv:
      if (y == 0) break;
      return PyValue::of_float(std::floor(x / y));
    case BinOpKind::kMod: {
      if (y == 0) break;
      double m = std::fmod(x, y);
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      return PyValue::of_float(m);
    }
    case BinOpKind::kPow:
      return PyValue::of_float(std::pow(x, y));
    default:
      *why = std::string("Python cannot apply '") + binop_symbol(op) + "' to floats";
      return std::nullopt;
  }
  *why = "division by zero";
  return std::nullopt;
}

std::optional<PyValue> fold_unary(UnaryOpKind op, const PyValue& a, std::string* why) {
  switch (op) {
    case UnaryOpKind::kNot:
      return PyValue::of_bool(!a.truthy());
    case UnaryOpKind::kUAdd:
    case UnaryOpKind::kUSub:
      if (is_intlike(a)) {
        int64_t x = int_of(a);
        if (op == UnaryOpKind::kUAdd) return PyValue::of_int(x);
        if (x == INT64_MIN) return overflow(why);
        return PyValue::of_int(-x);
      }
      if (a.kind == K::kFloat) return PyValue::of_float(op == UnaryOpKind::kUSub ? -a.f : a.f);
      break;
    case UnaryOpKind::kInvert:
      if (is_intlike(a)) return PyValue::of_int(~int_of(a));
      break;
  }
  *why = std::string("Python cannot apply '") + unaryop_symbol(op) + "' to " + a.type_name();
  return std::nullopt;
}

std::optional<bool> fold_compare(CmpOpKind op, const PyValue& a, const PyValue& b,
                                 std::string* why) {
  switch (op) {
    case CmpOpKind::kEq:
      return py_equal(a, b);
    case CmpOpKind::kNotEq:
      return !py_equal(a, b);
    case CmpOpKind::kIs:
    case CmpOpKind::kIsNot: {
      bool same = (a.kind == K::kNone && b.kind == K::kNone) ||
                  (a.kind == K::kBool && b.kind == K::kBool && a.b == b.b);
      if (!same && !(a.kind == K::kNone || b.kind == K::kNone || a.kind == K::kBool)) {
        same = py_equal(a, b);
      }
      return op == CmpOpKind::kIs ? same : !same;
    }
    case CmpOpKind::kIn:
    case CmpOpKind::kNotIn: {
      bool found = false;
      if (b.is_sequence()) {
        for (const PyValue& x : b.items) found = found || py_equal(a, x);
      } else if (b.kind == K::kStr && a.kind == K::kStr) {
        found = b.s.find(a.s) != std::string::npos;
      } else {
        *why = std::string("'in' needs a list, tuple or str on its right, not ") + b.type_name();
        return std::nullopt;
      }
      return op == CmpOpKind::kIn ? found : !found;
    }
    default:
      break;
  }
  int c = 0;
  if (a.is_number() && b.is_number()) {
    if (is_intlike(a) && is_intlike(b)) {
      c = int_of(a) < int_of(b) ? -1 : int_of(a) > int_of(b) ? 1 : 0;
    } else {
      double x = a.as_double(), y = b.as_double();
      if (std::isnan(x) || std::isnan(y)) return false;
      c = x < y ? -1 : x > y ? 1 : 0;
    }
  } else if (a.kind == K::kStr && b.kind == K::kStr) {
    c = a.s.compare(b.s);
    c = c < 0 ? -1 : c > 0 ? 1 : 0;
  } else {
    *why = std::string("Python cannot order ") + a.type_name() + " and " + b.type_name();
    return std::nullopt;
  }
  switch (op) {
    case CmpOpKind::kLt:
      return c < 0;
    case CmpOpKind::kLtE:
      return c <= 0;
    case CmpOpKind::kGt:
      return c > 0;
    case CmpOpKind::kGtE:
      return c >= 0;
    default:
      return false;
  }
}

}  // namespace oxs::script
