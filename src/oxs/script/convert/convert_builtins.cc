// Python builtins and library calls with a compile-time meaning in a
// script: Opset(...), make_tensor / external_tensor literals, TypeVar,
// math.* and np.array on Python values, len/abs/min/max, and the errors for
// the rest (print, range outside a for, decorators used as values).
#include <climits>
#include <cmath>

#include "oxs/ir/dtype.h"
#include "oxs/schema/registry.h"
#include "oxs/script/convert/compiler.h"
#include "oxs/script/convert/convert_codes.h"

namespace oxs::script {

SVal FunctionConverter::call_builtin(const std::string& which, const Call& e, size_t nout) {
  std::vector<SVal> args;
  for (const Expr* a : e.args) {
    if (a->kind == ExprKind::kStarred) return unsupported_expr(*a);
    args.push_back(eval(*a));
    if (args.back().is_poison()) return SVal::poison();
  }
  auto kw = [&](const std::string& k) -> const Expr* {
    for (const Keyword& x : e.keywords) {
      if (x.arg == k) return x.value;
    }
    return nullptr;
  };
  auto all_py = [&] {
    for (const SVal& a : args) {
      if (a.kind != SVal::Kind::kPy) return false;
    }
    return true;
  };
  if (which == "Opset") {
    std::optional<std::string> domain;
    std::optional<int64_t> version;
    if (args.size() >= 1 && args[0].kind == SVal::Kind::kPy &&
        args[0].py.kind == PyValue::Kind::kStr)
      domain = args[0].py.s;
    if (args.size() >= 2 && args[1].kind == SVal::Kind::kPy &&
        args[1].py.kind == PyValue::Kind::kInt)
      version = args[1].py.i;
    for (const Keyword& k : e.keywords) {
      SVal v = eval(*k.value);
      if (k.arg == "domain" && v.kind == SVal::Kind::kPy && v.py.kind == PyValue::Kind::kStr)
        domain = v.py.s;
      if (k.arg == "version" && v.kind == SVal::Kind::kPy && v.py.kind == PyValue::Kind::kInt)
        version = v.py.i;
    }
    if (!domain || !version || *version < 1) {
      error(code::kBadCall, e.span, "Opset needs a domain name and a version >= 1",
            "write Opset(\"com.example\", 1)");
      return SVal::poison();
    }
    SVal o;
    o.kind = SVal::Kind::kOpset;
    o.opset = {std::string(schema::canonical_domain(*domain)), *version};
    o.origin = e.span;
    o.name = "Opset(\"" + *domain + "\", " + std::to_string(*version) + ")";
    return o;
  }
  if (which == "make_tensor") {
    // make_tensor(name, data_type, dims, vals)
    std::vector<SVal> a = args;
    for (const char* k : {"name", "data_type", "dims", "vals"}) {
      if (const Expr* x = kw(k)) a.push_back(eval(*x));
    }
    if (a.size() < 4) {
      error(code::kBadCall, e.span, "make_tensor needs name, data_type, dims and vals",
            "write make_tensor(\"t\", TensorProto.FLOAT, [2], [1.0, 2.0])");
      return SVal::poison();
    }
    int64_t dt = 0;
    if (a[1].kind == SVal::Kind::kPy && a[1].py.kind == PyValue::Kind::kInt) dt = a[1].py.i;
    if (a[1].kind == SVal::Kind::kType && a[1].type && a[1].type->kind == TypeInfo::Kind::kTensor)
      dt = static_cast<int64_t>(a[1].type->dtype);
    if (!ir::is_valid_dtype(static_cast<int32_t>(dt)) || dt == 0 || a[2].kind != SVal::Kind::kPy ||
        !a[2].py.is_sequence() || a[3].kind != SVal::Kind::kPy) {
      error(code::kBadCall, e.span, "make_tensor needs an element type, a list of dims and values",
            "write make_tensor(\"t\", TensorProto.FLOAT, [2], [1.0, 2.0])");
      return SVal::poison();
    }
    std::vector<int64_t> dims;
    int64_t numel = 1;
    for (const PyValue& d : a[2].py.items) {
      if (d.kind != PyValue::Kind::kInt || d.i < 0 || d.i > (1 << 24)) {
        error(code::kBadCall, e.span, "make_tensor: dims must be non-negative ints");
        return SVal::poison();
      }
      dims.push_back(d.i);
      numel *= d.i;
      if (numel > (1 << 24)) {
        error(code::kBadCall, e.span, "make_tensor: the tensor is too large for a literal");
        return SVal::poison();
      }
    }
    PyValue flat = a[3].py.is_sequence() ? a[3].py : PyValue::of_list({a[3].py});
    if (static_cast<int64_t>(flat.items.size()) != numel) {
      error(code::kBadCall, e.span,
            "make_tensor: " + std::to_string(flat.items.size()) + " values for dims of " +
                std::to_string(numel) + " elements");
      return SVal::poison();
    }
    std::string why;
    auto t = py_to_tensor(flat, static_cast<ir::DataType>(dt), &why);
    if (!t) {
      error(code::kBadCall, e.span, "make_tensor: " + why);
      return SVal::poison();
    }
    t->set_dims(dims);
    if (a[0].kind == SVal::Kind::kPy && a[0].py.kind == PyValue::Kind::kStr) t->name = a[0].py.s;
    PyValue p;
    p.kind = PyValue::Kind::kTensor;
    p.tensor = std::make_shared<ir::Tensor>(std::move(*t));
    return SVal::of(std::move(p));
  }
  if (which == "external_tensor") {
    // external_tensor(name, data_type, dims, location, offset=0, length=-1):
    // a tensor whose bytes live in a file beside the script (what `oxs
    // decompile --weights` writes).
    std::vector<SVal> a = args;
    for (const char* k : {"name", "data_type", "dims", "location"}) {
      if (const Expr* x = kw(k)) a.push_back(eval(*x));
    }
    auto int_kw = [&](const char* k, int64_t dflt) -> std::optional<int64_t> {
      const Expr* x = kw(k);
      if (!x) return dflt;
      SVal v = eval(*x);
      if (v.kind == SVal::Kind::kPy && v.py.kind == PyValue::Kind::kInt) return v.py.i;
      return std::nullopt;
    };
    std::optional<int64_t> offset = int_kw("offset", 0);
    std::optional<int64_t> length = int_kw("length", -1);
    const char* usage =
        "write external_tensor(\"w\", TensorProto.FLOAT, [2, 3], \"model.weights\", offset=0, "
        "length=24)";
    int64_t dt = 0;
    if (a.size() >= 2 && a[1].kind == SVal::Kind::kPy && a[1].py.kind == PyValue::Kind::kInt)
      dt = a[1].py.i;
    if (a.size() < 4 || !ir::is_valid_dtype(static_cast<int32_t>(dt)) || dt == 0 ||
        dt == static_cast<int64_t>(ir::DataType::String) || a[2].kind != SVal::Kind::kPy ||
        !a[2].py.is_sequence() || a[3].kind != SVal::Kind::kPy ||
        a[3].py.kind != PyValue::Kind::kStr || !offset || !length || *offset < 0) {
      error(code::kBadCall, e.span,
            "external_tensor needs a name, a numeric element type, dims, a file name and "
            "integer offset/length",
            usage);
      return SVal::poison();
    }
    std::vector<int64_t> dims;
    for (const PyValue& d : a[2].py.items) {
      if (d.kind != PyValue::Kind::kInt || d.i < 0) {
        error(code::kBadCall, e.span, "external_tensor: dims must be non-negative ints", usage);
        return SVal::poison();
      }
      dims.push_back(d.i);
    }
    std::string name =
        a[0].kind == SVal::Kind::kPy && a[0].py.kind == PyValue::Kind::kStr ? a[0].py.s : "";
    auto t = std::make_shared<ir::Tensor>(static_cast<ir::DataType>(dt), dims);
    t->name = name;
    int64_t expected = t->expected_nbytes();
    if (expected < 0 || (*length >= 0 && *length != expected)) {
      error(code::kBadCall, e.span,
            "external_tensor '" + name + "': length " + std::to_string(*length) +
                " does not match its type and dims (" + std::to_string(expected) + " bytes)",
            usage);
      return SVal::poison();
    }
    if (!c_.options.external_data) {
      error(
          code::kBadCall, e.span,
          "external_tensor '" + name + "' needs the script's directory to find '" + a[3].py.s + "'",
          "compile the script from its file (oxs compile FILE.py)");
      return SVal::poison();
    }
    try {
      t->set_storage(c_.options.external_data(a[3].py.s, *offset, expected, name));
    } catch (const Error& err) {
      error(code::kBadCall, e.span, err.message(), "check the file name, offset and length");
      return SVal::poison();
    }
    PyValue p;
    p.kind = PyValue::Kind::kTensor;
    p.tensor = std::move(t);
    return SVal::of(std::move(p));
  }
  if (which == "numpy.array") {
    // np.array([...], dtype=np.float32): a constant tensor.
    const Expr* dt_expr = kw("dtype");
    ir::DataType dt = ir::DataType::Undefined;
    if (dt_expr) {
      SVal d = eval(*dt_expr);
      if (d.is_poison()) return d;
      if (d.kind != SVal::Kind::kType || !d.type || d.type->kind != TypeInfo::Kind::kTensor ||
          d.type->dtype == ir::DataType::Undefined) {
        error(code::kBadCall, dt_expr->span, "dtype= takes a numpy type here, not " + d.describe(),
              "write dtype=np.float32 (or np.int64, np.float64, ...)");
        return SVal::poison();
      }
      dt = d.type->dtype;
    }
    if (args.size() != 1 || !all_py()) {
      error(code::kNoOnnxMeaning, e.span,
            "np.array() works on Python values at compile time, not on tensors",
            "write a literal list, e.g. np.array([1.0, 2.0], dtype=np.float32)");
      return SVal::poison();
    }
    std::string why;
    auto t = py_to_tensor(args[0].py, dt, &why);
    if (!t) {
      error(code::kBadConstant, e.span, args[0].py.repr() + " cannot become an array: " + why);
      return SVal::poison();
    }
    PyValue p;
    p.kind = PyValue::Kind::kTensor;
    p.tensor = std::make_shared<ir::Tensor>(std::move(*t));
    return SVal::of(std::move(p));
  }
  if (which == "TypeVar") {
    // TypeVar("T", FLOAT, DOUBLE) / TypeVar("T", bound=FLOAT | DOUBLE): a tensor
    // type of one of them (generic unless they agree).
    std::vector<SVal> cands(args.begin() + (args.empty() ? 0 : 1), args.end());
    if (const Expr* b = kw("bound")) cands.push_back(eval(*b));
    ir::DataType dt = ir::DataType::Undefined;
    bool first = true;
    for (const SVal& c : cands) {
      auto t = c_.type_of(c, e.span);
      if (!t) return SVal::poison();
      ir::DataType d = t->kind == TypeInfo::Kind::kTensor ? t->dtype : ir::DataType::Undefined;
      dt = first ? d : (d == dt ? dt : ir::DataType::Undefined);
      first = false;
    }
    auto ti = std::make_shared<TypeInfo>();
    ti->kind = TypeInfo::Kind::kTensor;
    ti->dtype = dt;
    SVal v =
        SVal::named(SVal::Kind::kType,
                    args.empty() || args[0].kind != SVal::Kind::kPy ? "TypeVar" : args[0].py.s);
    v.type = std::move(ti);
    return v;
  }
  if (which.rfind("math.", 0) == 0) {
    if (!all_py() || args.empty() || !args[0].py.is_number() ||
        (which == "math.pow" && (args.size() < 2 || !args[1].py.is_number()))) {
      error(code::kNoOnnxMeaning, e.span,
            which + "() works on Python numbers at compile time, not on tensors",
            "use the ONNX op instead (op.Sqrt, op.Exp, op.Log, ...)");
      return SVal::poison();
    }
    double x = args[0].py.as_double();
    double r = 0;
    std::string f = which.substr(5);
    if (f == "sqrt")
      r = std::sqrt(x);
    else if (f == "exp")
      r = std::exp(x);
    else if (f == "log")
      r = args.size() > 1 && args[1].py.is_number() ? std::log(x) / std::log(args[1].py.as_double())
                                                    : std::log(x);
    else if (f == "log2")
      r = std::log2(x);
    else if (f == "log10")
      r = std::log10(x);
    else if (f == "sin")
      r = std::sin(x);
    else if (f == "cos")
      r = std::cos(x);
    else if (f == "tan")
      r = std::tan(x);
    else if (f == "tanh")
      r = std::tanh(x);
    else if (f == "atan")
      r = std::atan(x);
    else if (f == "erf")
      r = std::erf(x);
    else if (f == "fabs")
      r = std::fabs(x);
    else if (f == "pow")
      r = std::pow(x, args[1].py.as_double());
    else if (f == "floor" || f == "ceil") {
      double v = f == "floor" ? std::floor(x) : std::ceil(x);
      if (!std::isfinite(v) || std::fabs(v) >= 9.2e18) {
        error(code::kBadConstant, e.span, which + "() of " + args[0].py.repr() + " is not an int");
        return SVal::poison();
      }
      return SVal::of(PyValue::of_int(static_cast<int64_t>(v)));
    }
    return SVal::of(PyValue::of_float(r));
  }
  if (which == "len" && args.size() == 1) {
    if (args[0].kind == SVal::Kind::kPy &&
        (args[0].py.is_sequence() || args[0].py.kind == PyValue::Kind::kStr)) {
      return SVal::of(PyValue::of_int(static_cast<int64_t>(
          args[0].py.kind == PyValue::Kind::kStr ? args[0].py.s.size() : args[0].py.items.size())));
    }
    if (args[0].kind == SVal::Kind::kTuple) {
      return SVal::of(PyValue::of_int(static_cast<int64_t>(args[0].items.size())));
    }
    error(code::kNoOnnxMeaning, e.span,
          "len() of " + args[0].describe() + " is not known while the graph is built",
          "use op.Shape(x) for the dims or op.Size(x) for the element count");
    return SVal::poison();
  }
  if ((which == "abs" || which == "min" || which == "max") && all_py() && !args.empty()) {
    std::vector<PyValue> xs;
    if (args.size() == 1 && args[0].py.is_sequence())
      xs = args[0].py.items;
    else
      for (auto& a : args) xs.push_back(a.py);
    bool ok = !xs.empty();
    for (auto& x : xs) ok = ok && x.is_number();
    if (ok) {
      if (which == "abs") {
        const PyValue& x = xs[0];
        if (x.kind == PyValue::Kind::kFloat) return SVal::of(PyValue::of_float(std::fabs(x.f)));
        int64_t v = x.kind == PyValue::Kind::kBool ? x.b : x.i;
        if (v == INT64_MIN)
          ok = false;
        else
          return SVal::of(PyValue::of_int(v < 0 ? -v : v));
      } else {
        const PyValue* best = &xs[0];
        for (auto& x : xs) {
          if (which == "min" ? x.as_double() < best->as_double()
                             : x.as_double() > best->as_double())
            best = &x;
        }
        return SVal::of(*best);
      }
    }
  }
  if (which == "range") {
    error(code::kUnsupportedFeature, e.span,
          "range() is only supported as the iterable of a for loop", "write `for i in range(n):`");
    return SVal::poison();
  }
  if (which == "script" || which == "graph") {
    error(code::kNoOnnxMeaning, e.span, which + "() is a decorator, not a value in a script",
          "use @" + which + "() above a def");
    return SVal::poison();
  }
  (void)nout;
  std::string hint =
      which == "print" ? "remove it; a graph cannot print (use `oxs eval` to see values)"
      : which == "abs" || which == "min" || which == "max" ? "on tensors use op.Abs, op.Min, op.Max"
                                                           : "use ONNX ops";
  error(code::kNoOnnxMeaning, e.func->span, which + "() has no ONNX meaning in a script", hint);
  return SVal::poison();
}

}  // namespace oxs::script
