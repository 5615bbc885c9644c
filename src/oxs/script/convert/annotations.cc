// Type annotations: FLOAT, FLOAT[...], FLOAT[64, 128], FLOAT["N", 3],
// FLOAT[None], unions (A | B, Union[A, B]), Optional[T], Sequence[T],
// TensorType, TypeVars, Annotated[T, ...] (stripped), and the Python types
// that make a parameter an attribute (int, float, str, bool, Sequence[int]).
// Also the signature of a script function: which parameters are inputs,
// which are attributes, their defaults.
#include "oxs/ir/dtype.h"
#include "oxs/script/convert/compiler.h"
#include "oxs/script/convert/convert_codes.h"

namespace oxs::script {

namespace {

TypeInfo tensor_info(ir::DataType dt) {
  TypeInfo t;
  t.kind = TypeInfo::Kind::kTensor;
  t.dtype = dt;
  return t;
}

SVal type_value(TypeInfo t, std::string name) {
  SVal v = SVal::named(SVal::Kind::kType, std::move(name));
  v.type = std::make_shared<TypeInfo>(std::move(t));
  return v;
}

ir::AttrType list_attr(ir::AttrType elem) {
  switch (elem) {
    case ir::AttrType::Int:
      return ir::AttrType::Ints;
    case ir::AttrType::Float:
      return ir::AttrType::Floats;
    case ir::AttrType::String:
      return ir::AttrType::Strings;
    default:
      return ir::AttrType::Undefined;
  }
}

// The attribute type a Python default value suggests.
ir::AttrType attr_type_of(const PyValue& v) {
  switch (v.kind) {
    case PyValue::Kind::kBool:
    case PyValue::Kind::kInt:
      return ir::AttrType::Int;
    case PyValue::Kind::kFloat:
      return ir::AttrType::Float;
    case PyValue::Kind::kStr:
      return ir::AttrType::String;
    case PyValue::Kind::kTensor:
      return ir::AttrType::Tensor;
    case PyValue::Kind::kList:
    case PyValue::Kind::kTuple: {
      ir::DataType d = natural_dtype(v);
      if (d == ir::DataType::Float) return ir::AttrType::Floats;
      if (d == ir::DataType::String) return ir::AttrType::Strings;
      if (d == ir::DataType::Int64 || d == ir::DataType::Bool) return ir::AttrType::Ints;
      return ir::AttrType::Undefined;
    }
    default:
      return ir::AttrType::Undefined;
  }
}

}  // namespace

bool default_fits(ir::AttrType t, const PyValue& v) {
  switch (t) {
    case ir::AttrType::Int:
      return v.kind == PyValue::Kind::kInt || v.kind == PyValue::Kind::kBool;
    case ir::AttrType::Float:
      return v.is_number();
    case ir::AttrType::String:
      return v.kind == PyValue::Kind::kStr;
    case ir::AttrType::Ints:
    case ir::AttrType::Floats:
    case ir::AttrType::Strings: {
      if (!v.is_sequence()) return false;
      ir::AttrType e = t == ir::AttrType::Ints     ? ir::AttrType::Int
                       : t == ir::AttrType::Floats ? ir::AttrType::Float
                                                   : ir::AttrType::String;
      for (const PyValue& x : v.items) {
        if (!default_fits(e, x)) return false;
      }
      return true;
    }
    case ir::AttrType::Tensor:
      return v.kind == PyValue::Kind::kTensor || v.is_number() || v.is_sequence();
    default:
      return false;
  }
}

ir::Type TypeInfo::to_ir() const {
  switch (kind) {
    case Kind::kTensor:
      // A tensor type needs an element type to be written; generic is untyped.
      if (dtype == ir::DataType::Undefined) return {};
      return ir::Type::tensor(dtype, shape);
    case Kind::kSequence:
      return ir::Type::sequence(items.empty() ? ir::Type() : items[0].to_ir());
    case Kind::kOptional:
      return items.empty() ? ir::Type() : items[0].to_ir();
    default:
      return {};
  }
}

std::string TypeInfo::describe() const {
  switch (kind) {
    case Kind::kTensor: {
      std::string s = dtype == ir::DataType::Undefined ? "TensorType"
                                                       : std::string(ir::dtype_script_name(dtype));
      if (!shape) return s + "[...]";
      if (shape->rank() > 0) s += shape->to_string();
      return s;
    }
    case Kind::kAttr:
      return std::string(ir::attr_type_name(attr)) + " attribute";
    case Kind::kSequence:
      return "Sequence[" + (items.empty() ? std::string("?") : items[0].describe()) + "]";
    case Kind::kOptional:
      return "Optional[" + (items.empty() ? std::string("?") : items[0].describe()) + "]";
    case Kind::kTuple:
      return "a tuple of " + std::to_string(items.size()) + " types";
    case Kind::kAny:
      return "Any";
  }
  return "?";
}

std::optional<TypeInfo> Compiler::type_of(const SVal& v, Span span) {
  switch (v.kind) {
    case SVal::Kind::kPoison:
      return std::nullopt;
    case SVal::Kind::kType:
      if (v.type) return *v.type;
      if (v.name == "typing.Any") return TypeInfo{};
      error(code::kBadAnnotation, span, "'" + v.name + "' needs a type argument here",
            "write e.g. " + v.name.substr(v.name.find('.') + 1) + "[FLOAT]");
      return std::nullopt;
    case SVal::Kind::kForeign:
      // A type from another library (torch_lib's TFloat, ...): a tensor of any type.
      return tensor_info(ir::DataType::Undefined);
    case SVal::Kind::kPy:
      if (v.py.kind == PyValue::Kind::kNone) {
        TypeInfo t;
        t.kind = TypeInfo::Kind::kOptional;
        return t;
      }
      if (v.py.kind == PyValue::Kind::kStr) return TypeInfo{};  // a forward reference: unknown
      break;
    default:
      break;
  }
  error(code::kBadAnnotation, span, v.describe() + " is not a type",
        "annotate tensors with FLOAT, FLOAT[N, 3], INT64[...] and attributes with int, float, "
        "str or Sequence[int]");
  return std::nullopt;
}

SVal FunctionConverter::type_union(const SVal& a, const SVal& b, Span span) {
  auto ta = c_.type_of(a, span);
  auto tb = c_.type_of(b, span);
  if (!ta || !tb) return SVal::poison();
  using K = TypeInfo::Kind;
  auto is_none = [](const TypeInfo& t) { return t.kind == K::kOptional && t.items.empty(); };
  if (is_none(*ta) || is_none(*tb)) {
    const TypeInfo& inner = is_none(*ta) ? *tb : *ta;
    TypeInfo t;
    t.kind = K::kOptional;
    if (!is_none(inner))
      t.items.push_back(inner.kind == K::kOptional && !inner.items.empty() ? inner.items[0]
                                                                           : inner);
    return type_value(std::move(t), "Optional");
  }
  if (ta->kind == K::kTensor && tb->kind == K::kTensor) {
    TypeInfo t = tensor_info(ta->dtype == tb->dtype ? ta->dtype : ir::DataType::Undefined);
    t.attr = ta->attr != ir::AttrType::Undefined ? ta->attr : tb->attr;
    return type_value(std::move(t), "Union");
  }
  if (ta->kind == K::kAttr && tb->kind == K::kAttr) {
    TypeInfo t = *ta;
    if (ta->attr != tb->attr) {
      // int | float: a float attribute accepts both.
      bool numeric = (ta->attr == ir::AttrType::Int || ta->attr == ir::AttrType::Float) &&
                     (tb->attr == ir::AttrType::Int || tb->attr == ir::AttrType::Float);
      if (!numeric) {
        error(code::kBadAnnotation, span,
              "a union of " + ta->describe() + " and " + tb->describe() +
                  " cannot be one ONNX attribute",
              "use one attribute type");
        return SVal::poison();
      }
      t.attr = ir::AttrType::Float;
    }
    return type_value(std::move(t), "Union");
  }
  if ((ta->kind == K::kTensor && tb->kind == K::kAttr) ||
      (ta->kind == K::kAttr && tb->kind == K::kTensor)) {
    // FLOAT | float: an attribute when a Python default is given, else a tensor.
    TypeInfo t = ta->kind == K::kTensor ? *ta : *tb;
    t.attr = ta->kind == K::kAttr ? ta->attr : tb->attr;
    return type_value(std::move(t), "Union");
  }
  if (ta->kind == K::kAny || tb->kind == K::kAny) return type_value(TypeInfo{}, "Any");
  if (ta->kind == tb->kind) return type_value(*ta, "Union");
  error(code::kBadAnnotation, span,
        "a union of " + ta->describe() + " and " + tb->describe() + " has no ONNX type",
        "use a union of tensor types (FLOAT | DOUBLE) or of Python scalars");
  return SVal::poison();
}

SVal FunctionConverter::type_subscript(const SVal& base, const Subscript& e) {
  using K = TypeInfo::Kind;
  std::vector<const Expr*> args;
  if (const auto* t = e.slice->dyn<Tuple>(); t && !t->parenthesized) {
    for (const Expr* x : t->elts) args.push_back(x);
  } else {
    args.push_back(e.slice);
  }
  const std::string& g = base.name;
  if (base.type && base.type->kind == K::kTensor) {
    // FLOAT[...], FLOAT[64, 128], FLOAT["N", 3], FLOAT[None], TensorType[T, ...]
    TypeInfo t = *base.type;
    if (g == "TensorType") return base;  // TensorType[...] stays generic
    if (args.size() == 1 && args[0]->kind == ExprKind::kConstant &&
        args[0]->as<Constant>().value_kind == ConstantKind::kEllipsis) {
      t.shape.reset();
      return type_value(std::move(t), g);
    }
    // FLOAT[()] is a scalar (rank 0), as x[()] indexes no axis in Python.
    if (const auto* empty = e.slice->dyn<Tuple>(); empty && empty->elts.empty()) {
      t.shape = ir::Shape(std::vector<ir::Dim>{});
      return type_value(std::move(t), g);
    }
    std::vector<ir::Dim> dims;
    for (const Expr* a : args) {
      const auto* k = a->dyn<Constant>();
      if (k && k->value_kind == ConstantKind::kInt && k->int_value >= 0) {
        dims.push_back(ir::Dim::known(k->int_value));
      } else if (k && k->value_kind == ConstantKind::kStr) {
        dims.push_back(ir::Dim::symbolic(k->str_value));
      } else if (k && k->value_kind == ConstantKind::kNone) {
        dims.push_back(ir::Dim::unknown());
      } else {
        SVal d = eval(*a);
        if (d.kind == SVal::Kind::kPy && d.py.kind == PyValue::Kind::kInt && d.py.i >= 0) {
          dims.push_back(ir::Dim::known(d.py.i));
        } else if (d.kind == SVal::Kind::kPy && d.py.kind == PyValue::Kind::kStr) {
          dims.push_back(ir::Dim::symbolic(d.py.s));
        } else {
          if (!d.is_poison()) {
            error(code::kBadAnnotation, a->span,
                  "a dimension must be a size, a name or None, not " + d.describe(),
                  "write e.g. FLOAT[64, 128], FLOAT[\"N\", 3] or FLOAT[...]");
          }
          return SVal::poison();
        }
      }
    }
    t.shape = ir::Shape(std::move(dims));
    return type_value(std::move(t), g);
  }
  if (base.kind != SVal::Kind::kType || base.type) {
    error(code::kBadAnnotation, e.span, base.describe() + " cannot be subscripted in a type",
          "annotate with FLOAT[...], Optional[T], Sequence[T]");
    return SVal::poison();
  }
  // typing generics
  if (g == "typing.Annotated") return eval(*args[0]);  // the metadata is for Python only
  std::vector<TypeInfo> ts;
  bool ellipsis = false;
  for (const Expr* a : args) {
    if (a->kind == ExprKind::kConstant && a->as<Constant>().value_kind == ConstantKind::kEllipsis) {
      ellipsis = true;
      continue;
    }
    auto t = c_.type_of(eval(*a), a->span);
    if (!t) return SVal::poison();
    ts.push_back(std::move(*t));
  }
  if (ts.empty()) {
    error(code::kBadAnnotation, e.span, g + " needs a type argument");
    return SVal::poison();
  }
  if (g == "typing.Optional") {
    TypeInfo t;
    t.kind = K::kOptional;
    t.items.push_back(ts[0]);
    return type_value(std::move(t), "Optional");
  }
  if (g == "typing.Union") {
    SVal acc = type_value(ts[0], "Union");
    for (size_t k = 1; k < ts.size(); ++k) {
      acc = type_union(acc, type_value(ts[k], "Union"), e.span);
      if (acc.is_poison()) return acc;
    }
    return acc;
  }
  if (g == "typing.Sequence" || g == "typing.List" || g == "typing.Iterable" ||
      (g == "typing.Tuple" && ellipsis)) {
    const TypeInfo& el = ts[0];
    if (el.kind == K::kAttr) {
      ir::AttrType l = list_attr(el.attr);
      if (l == ir::AttrType::Undefined) {
        error(code::kBadAnnotation, e.span, "a list of " + el.describe() + "s is not an attribute",
              "use Sequence[int], Sequence[float] or Sequence[str]");
        return SVal::poison();
      }
      TypeInfo t;
      t.kind = K::kAttr;
      t.attr = l;
      return type_value(std::move(t), "Sequence");
    }
    TypeInfo t;
    t.kind = K::kSequence;
    t.items.push_back(el);
    return type_value(std::move(t), "Sequence");
  }
  if (g == "typing.Tuple") {
    TypeInfo t;
    t.kind = K::kTuple;
    t.items = std::move(ts);
    return type_value(std::move(t), "Tuple");
  }
  error(code::kBadAnnotation, e.span, "'" + g + "' has no ONNX meaning in an annotation",
        "annotate with FLOAT[...], Optional[T], Sequence[T], int, float, str");
  return SVal::poison();
}

Signature& Compiler::signature(ScriptFn& fn) {
  if (fn.sig_ready) return fn.sig;
  fn.sig_ready = true;
  Signature& sig = fn.sig;
  const FunctionDef& def = *fn.def;
  FunctionConverter fc(*this, nullptr, nullptr, FunctionConverter::Mode::kStatic);
  for (const Param& p : def.params) {
    ParamInfo info;
    info.name = p.name;
    info.span = p.span;
    if (p.kind == ParamKind::kVarArgs || p.kind == ParamKind::kVarKeywords) {
      error(code::kUnsupportedFeature, p.span,
            std::string(p.kind == ParamKind::kVarArgs ? "*" : "**") + p.name +
                " has no ONNX meaning: a function has a fixed list of inputs and attributes",
            "list the inputs one by one (use Sequence[FLOAT] for a variable number of tensors)");
      sig.ok = false;
      continue;
    }
    std::optional<TypeInfo> ann;
    if (p.annotation) {
      info.annotation = p.annotation->span;
      SVal a = fc.eval(*p.annotation);
      info.is_bool = a.kind == SVal::Kind::kType && a.name == "bool";
      ann = type_of(a, p.annotation->span);
      if (!ann) sig.ok = false;
      info.annotated = ann.has_value();
    }
    std::optional<PyValue> def_value;
    if (p.default_value) {
      info.has_default = true;
      SVal d = fc.eval(*p.default_value);
      if (d.kind == SVal::Kind::kPy) {
        def_value = d.py;
      } else if (!d.is_poison()) {
        error(code::kBadConstant, p.default_value->span,
              "the default of '" + p.name + "' must be a Python constant, not " + d.describe(),
              "write a number, a string, a list of numbers or None");
        sig.ok = false;
      } else {
        sig.ok = false;
      }
    }
    bool default_none = def_value && def_value->kind == PyValue::Kind::kNone;
    using K = TypeInfo::Kind;
    if (ann && ann->kind == K::kOptional && !ann->items.empty()) {
      info.optional = true;
      TypeInfo inner = ann->items[0];
      ann = inner;
    }
    if (default_none) info.optional = true;
    if (ann && ann->kind == K::kAttr) {
      info.is_attr = true;
      info.attr_type = ann->attr;
    } else if (ann && ann->kind == K::kTensor && ann->attr != ir::AttrType::Undefined &&
               def_value && !default_none) {
      info.is_attr = true;  // FLOAT | float = 0.01
      info.attr_type = ann->attr;
    } else if (!ann && def_value && !default_none) {
      info.is_attr = true;  // unannotated with a Python default: an attribute of its type
      info.attr_type = attr_type_of(*def_value);
      info.is_bool = def_value->kind == PyValue::Kind::kBool;
      if (info.attr_type == ir::AttrType::Undefined) {
        error(code::kBadConstant, p.default_value->span,
              "the default " + def_value->repr() + " of '" + p.name + "' is not an attribute value",
              "annotate the parameter");
        sig.ok = false;
      }
    }
    if (info.is_attr) {
      if (def_value && !default_none) {
        if (!default_fits(info.attr_type, *def_value)) {
          error(code::kAttributeTypeMismatch, p.default_value->span,
                "the default " + def_value->repr() + " does not fit the " +
                    ir::attr_type_name(info.attr_type) + " attribute '" + p.name + "'",
                "give a default of the annotated type");
          sig.ok = false;
        } else {
          info.default_value = def_value;
        }
      }
    } else {
      if (ann) info.type = *ann;
      if (def_value && !default_none) {
        error(
            code::kBadConstant, p.default_value->span,
            "tensor input '" + p.name + "' cannot have a default value",
            "make it an attribute (annotate it with int, float, ...) or give it the default None");
        sig.ok = false;
      }
    }
    sig.params.push_back(std::move(info));
  }
  if (def.returns) {
    SVal r = fc.eval(*def.returns);
    if (auto t = type_of(r, def.returns->span)) {
      sig.returns = std::move(*t);
    } else {
      sig.ok = false;
    }
  }
  return sig;
}

}  // namespace oxs::script
