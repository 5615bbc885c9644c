// Expressions: names, operators (+ - * / @ ** % // and comparisons become
// ONNX ops on tensors and are folded on Python values), and/or/not,
// conditional expressions, literals, and the helpers that turn values into
// tensors (literals become typed constants next to a tensor of known element
// type, else CastLike; attribute parameters become Constant nodes that
// reference the attribute).
#include "oxs/ir/dtype.h"
#include "oxs/schema/suggest.h"
#include "oxs/script/convert/compiler.h"
#include "oxs/script/convert/convert_codes.h"
#include "oxs/script/convert/fold.h"
#include "oxs/script/environment.h"

namespace oxs::script {

using builder::Var;

FunctionConverter::FunctionConverter(Compiler& c, ScriptFn* fn, builder::Builder* b, Mode mode)
    : c_(c), fn_(fn), b_(b), root_(b), mode_(mode), op_(c.default_opset(fn)) {}

Diagnostic& FunctionConverter::error(std::string_view code, Span span, std::string message,
                                     std::string hint) {
  return c_.error(code, span, std::move(message), std::move(hint));
}

bool FunctionConverter::can_emit(Span span) {
  if (b_) return true;
  error(code::kBadConstant, span,
        "this needs a graph: module-level names and annotations must be Python constants",
        "compute tensors inside a @script() function");
  return false;
}

namespace {

// "in function 'f3' called by ...: in function 'f2' called by ...: ..." from
// deeply nested calls: the outermost call, a count, and the innermost cause.
std::string shorten_call_chain(const std::string& m) {
  const std::string marker = "in function '";
  std::vector<size_t> at;
  for (size_t p = m.find(marker); p != std::string::npos; p = m.find(marker, p + 1)) {
    at.push_back(p);
  }
  if (at.size() <= 4) return m;
  size_t first_end = m.find(": ", at[0]);
  size_t last_end = m.find(": ", at.back());
  if (first_end == std::string::npos || last_end == std::string::npos) return m;
  return m.substr(0, first_end) + ": ... (" + std::to_string(at.size() - 2) +
         " nested calls) ...: " + m.substr(at.back());
}

}  // namespace

std::vector<Var> FunctionConverter::emit(const std::string& op, std::vector<Var> inputs,
                                         std::vector<ir::Attr> attrs, Span span,
                                         const std::string& name, size_t nout,
                                         const std::string& domain,
                                         std::vector<std::string> output_names) {
  if (!can_emit(span)) return {};
  try {
    std::vector<Var> outs = b_->make_node(op, std::move(inputs), std::move(attrs),
                                          {.domain = domain,
                                           .name = name,
                                           .output_names = std::move(output_names),
                                           .num_outputs = nout});
    // A host (environment.h) maps nodes back to script lines for eager errors.
    if (c_.options.environment && !outs.empty() && outs[0] && outs[0].value()->producer()) {
      c_.options.environment->record_node(outs[0].value()->producer(), span);
    }
    return outs;
  } catch (const Error& e) {
    // The builder's message: the problem, then the inputs, then its state.
    const std::string& m = e.message();
    size_t nl = m.find('\n');
    Diagnostic& d = error(code::kInvalidNode, span, shorten_call_chain(m.substr(0, nl)),
                          "check the inputs' types and the op's signature");
    if (nl != std::string::npos) {
      // Keep the lines about the inputs; drop the builder dump.
      size_t pos = nl + 1;
      int kept = 0;
      while (pos < m.size() && kept < 6) {
        size_t end = m.find('\n', pos);
        std::string line = m.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        if (line.rfind("  while creating", 0) == 0 || line.rfind("    ", 0) == 0) {
          size_t first = line.find_first_not_of(' ');
          d.notes.push_back(first == std::string::npos ? line : line.substr(first));
          ++kept;
        } else {
          break;
        }
        if (end == std::string::npos) break;
        pos = end + 1;
      }
    }
    return {};
  }
}

Var FunctionConverter::emit1(const std::string& op, std::vector<Var> inputs,
                             std::vector<ir::Attr> attrs, Span span, const std::string& name) {
  auto out = emit(op, std::move(inputs), std::move(attrs), span, name, 1);
  return out.empty() ? Var() : out[0];
}

Var FunctionConverter::constant(const PyValue& v, ir::DataType dtype, Span span) {
  std::string why;
  auto t = py_to_tensor(v, dtype, &why);
  if (!t) {
    error(code::kBadConstant, span, v.repr() + " cannot become a tensor: " + why,
          "write a number, a string or a rectangular list of numbers");
    return {};
  }
  if (!can_emit(span)) return {};
  try {
    return root_->constant(std::move(*t));
  } catch (const Error& e) {
    error(code::kBadConstant, span, e.message());
    return {};
  }
}

Var FunctionConverter::i64s(const std::vector<int64_t>& xs, Span span) {
  std::vector<PyValue> items;
  for (int64_t x : xs) items.push_back(PyValue::of_int(x));
  return constant(PyValue::of_list(std::move(items)), ir::DataType::Int64, span);
}

namespace {

ir::DataType attr_natural_dtype(ir::AttrType t) {
  switch (t) {
    case ir::AttrType::Int:
    case ir::AttrType::Ints:
      return ir::DataType::Int64;
    case ir::AttrType::Float:
    case ir::AttrType::Floats:
      return ir::DataType::Float;
    case ir::AttrType::String:
    case ir::AttrType::Strings:
      return ir::DataType::String;
    default:
      return ir::DataType::Undefined;
  }
}

const char* constant_field(ir::AttrType t) {
  switch (t) {
    case ir::AttrType::Int:
      return "value_int";
    case ir::AttrType::Float:
      return "value_float";
    case ir::AttrType::String:
      return "value_string";
    case ir::AttrType::Ints:
      return "value_ints";
    case ir::AttrType::Floats:
      return "value_floats";
    case ir::AttrType::Strings:
      return "value_strings";
    case ir::AttrType::Tensor:
      return "value";
    default:
      return nullptr;
  }
}

bool numeric_or_bool(ir::DataType t) {
  return t != ir::DataType::Undefined && t != ir::DataType::String &&
         t != ir::DataType::Complex64 && t != ir::DataType::Complex128;
}

}  // namespace

ir::DataType FunctionConverter::dtype_of(const SVal& v) const {
  switch (v.kind) {
    case SVal::Kind::kTensor:
      return v.var.dtype();
    case SVal::Kind::kAttrRef:
      return v.attr_bool ? ir::DataType::Bool : attr_natural_dtype(v.attr_type);
    case SVal::Kind::kPy:
      return natural_dtype(v.py);
    default:
      return ir::DataType::Undefined;
  }
}

std::optional<Var> FunctionConverter::to_tensor(const SVal& v, Span span, Var like,
                                                ir::DataType want) {
  switch (v.kind) {
    case SVal::Kind::kPoison:
      return std::nullopt;
    case SVal::Kind::kTensor:
      return v.var;
    case SVal::Kind::kPy: {
      if (v.py.kind == PyValue::Kind::kNone) {
        error(code::kWrongKindOfValue, span, "None is not a tensor here",
              "None only stands for an omitted optional input of an op");
        return std::nullopt;
      }
      ir::DataType nat = natural_dtype(v.py);
      ir::DataType dt = want;
      bool cast_like = false;
      if (dt == ir::DataType::Undefined && like && nat != ir::DataType::String &&
          v.py.kind != PyValue::Kind::kTensor) {
        ir::DataType ld = like.dtype();
        if (numeric_or_bool(ld)) {
          dt = ld;
        } else if (ld == ir::DataType::Undefined) {
          cast_like = true;
          // Floats go through double, so a double partner keeps every digit
          // (onnxscript's float32 constant would round 0.1 first).
          if (nat == ir::DataType::Float) dt = ir::DataType::Double;
        }
      }
      Var c = constant(v.py, dt, span);
      if (!c) return std::nullopt;
      if (v.py.kind == PyValue::Kind::kTensor && like && numeric_or_bool(like.dtype()) &&
          numeric_or_bool(c.dtype()) && like.dtype() != c.dtype()) {
        // A typed constant (np.array, make_tensor) next to a tensor of another
        // type is cast to it, as onnxscript's CastLike of constants does.
        Var r = emit1("Cast", {c},
                      attrs_of(ir::Attr::of_int("to", static_cast<int64_t>(like.dtype()))), span);
        if (!r) return std::nullopt;
        return r;
      }
      if (cast_like) {
        Var r = emit1("CastLike", {c, like}, {}, span);
        if (!r) return std::nullopt;
        return r;
      }
      return c;
    }
    case SVal::Kind::kAttrRef: {
      const char* field = constant_field(v.attr_type);
      if (!field) {
        error(code::kWrongKindOfValue, span,
              "the " + std::string(ir::attr_type_name(v.attr_type)) + " attribute '" + v.name +
                  "' cannot be used as a tensor");
        return std::nullopt;
      }
      if (!can_emit(span)) return std::nullopt;
      Var c;
      auto it = attr_consts_.find(v.name);
      if (it != attr_consts_.end()) {
        c = it->second;
      } else {
        // In the function's own graph, so that every If/Loop body may read it.
        builder::Builder* saved = b_;
        b_ = root_;
        c = emit1("Constant", {}, attrs_of(ir::Attr::reference(field, v.attr_type, v.name)), span,
                  v.name);
        b_ = saved;
        if (!c) return std::nullopt;
        // The value's type follows from the attribute's: say so, so that
        // inference (and literals next to it) know it.
        ir::DataType nat = attr_natural_dtype(v.attr_type);
        if (nat != ir::DataType::Undefined && c.value()->type().is_none()) {
          bool scalar = v.attr_type == ir::AttrType::Int || v.attr_type == ir::AttrType::Float ||
                        v.attr_type == ir::AttrType::String;
          c.value()->set_type(
              scalar ? ir::Type::tensor(nat, ir::Shape(std::vector<ir::Dim>{}))
                     : ir::Type::tensor(nat, ir::Shape(std::vector<ir::Dim>{ir::Dim::unknown()})));
        }
        if (v.attr_bool) {
          // ONNX stores a bool attribute as an int; as a tensor it is BOOL (onnxscript).
          builder::Builder* saved2 = b_;
          b_ = root_;
          c = emit1("Cast", {c},
                    attrs_of(ir::Attr::of_int("to", static_cast<int64_t>(ir::DataType::Bool))),
                    span, v.name + "_as_bool");
          b_ = saved2;
          if (!c) return std::nullopt;
        }
        attr_consts_[v.name] = c;
      }
      ir::DataType nat = v.attr_bool ? ir::DataType::Bool : attr_natural_dtype(v.attr_type);
      if (like && nat != ir::DataType::String) {
        ir::DataType ld = like.dtype();
        if (ld == nat) return c;
        if (numeric_or_bool(ld)) {
          Var r =
              emit1("Cast", {c}, attrs_of(ir::Attr::of_int("to", static_cast<int64_t>(ld))), span);
          return r ? std::optional<Var>(r) : std::nullopt;
        }
        if (ld == ir::DataType::Undefined) {
          Var r = emit1("CastLike", {c, like}, {}, span);
          return r ? std::optional<Var>(r) : std::nullopt;
        }
      }
      return c;
    }
    case SVal::Kind::kTuple:
      error(code::kWrongKindOfValue, span,
            "a tuple of " + std::to_string(v.items.size()) + " values is not a tensor",
            "unpack it (a, b = ...) or combine the tensors with op.Concat");
      return std::nullopt;
    default:
      error(code::kWrongKindOfValue, span, v.describe() + " is not a tensor",
            v.kind == SVal::Kind::kForeign
                ? "only ONNX ops compute values in a script; use op.Constant(value=...) for data"
                : "");
      return std::nullopt;
  }
}

std::optional<Var> FunctionConverter::to_condition(const SVal& v, Span span) {
  auto t = to_tensor(v, span);
  if (!t) return std::nullopt;
  ir::DataType dt = t->dtype();
  if (dt == ir::DataType::Bool || dt == ir::DataType::Undefined) return t;
  Var b = emit1("Cast", {*t},
                attrs_of(ir::Attr::of_int("to", static_cast<int64_t>(ir::DataType::Bool))), span);
  if (!b) return std::nullopt;
  return b;
}

SVal FunctionConverter::eval(const Expr& e, size_t nout, const std::string& name) {
  if (!c_.spend(e.span)) return SVal::poison();
  switch (e.kind) {
    case ExprKind::kConstant: {
      const auto& k = e.as<Constant>();
      switch (k.value_kind) {
        case ConstantKind::kNone:
          return SVal::of(PyValue::none());
        case ConstantKind::kBool:
          return SVal::of(PyValue::of_bool(k.bool_value));
        case ConstantKind::kInt:
          return SVal::of(PyValue::of_int(k.int_value));
        case ConstantKind::kFloat:
          return SVal::of(PyValue::of_float(k.float_value));
        case ConstantKind::kStr:
          return SVal::of(PyValue::of_str(k.str_value));
        case ConstantKind::kBytes:
          error(code::kNoOnnxMeaning, e.span, "bytes literals have no ONNX meaning",
                "use a str literal");
          return SVal::poison();
        case ConstantKind::kEllipsis:
          error(code::kNoOnnxMeaning, e.span, "'...' means something only inside [] here",
                "use it in a subscript (x[..., 0]) or a type (FLOAT[...])");
          return SVal::poison();
      }
      return SVal::poison();
    }
    case ExprKind::kName:
      return eval_name(e.as<Name>());
    case ExprKind::kAttribute: {
      const auto& a = e.as<Attribute>();
      SVal base = eval(*a.value);
      if (base.is_poison()) return base;
      return c_.member(base, a.attr, a.attr_span);
    }
    case ExprKind::kBinOp:
      return eval_binop(e.as<BinOp>(), name);
    case ExprKind::kUnaryOp:
      return eval_unary(e.as<UnaryOp>(), name);
    case ExprKind::kCompare:
      return eval_compare(e.as<Compare>(), name);
    case ExprKind::kBoolOp:
      return eval_boolop(e.as<BoolOp>(), name);
    case ExprKind::kIfExp:
      return eval_ifexp(e.as<IfExp>(), name);
    case ExprKind::kCall:
      return eval_call(e.as<Call>(), nout, name);
    case ExprKind::kSubscript:
      return eval_subscript(e.as<Subscript>(), name);
    case ExprKind::kList:
      return eval_sequence(e.as<List>().elts, false, e.span);
    case ExprKind::kTuple:
      return eval_sequence(e.as<Tuple>().elts, true, e.span);
    default:
      return unsupported_expr(e);
  }
}

SVal FunctionConverter::unsupported_expr(const Expr& e) {
  std::string what, hint;
  switch (e.kind) {
    case ExprKind::kLambda:
      what = "a lambda";
      hint = "define a nested function with def and pass it as a graph attribute (body=f)";
      break;
    case ExprKind::kListComp:
    case ExprKind::kSetComp:
    case ExprKind::kDictComp:
    case ExprKind::kGeneratorExp:
      what = "a comprehension";
      hint = "write the list out, or use a for loop over range(...) that builds tensors";
      break;
    case ExprKind::kDict:
    case ExprKind::kSet:
      what = e.kind == ExprKind::kDict ? "a dict" : "a set";
      hint = "ONNX values are tensors, sequences and optionals; use a list or op.Concat";
      break;
    case ExprKind::kNamedExpr:
      what = "an assignment expression (:=)";
      hint = "assign on its own line first";
      break;
    case ExprKind::kAwait:
    case ExprKind::kYield:
    case ExprKind::kYieldFrom:
      what = "await/yield";
      hint = "a script is a dataflow graph; return the values instead";
      break;
    case ExprKind::kStarred:
      what = "a starred expression";
      hint = "pass the values one by one";
      break;
    case ExprKind::kSlice:
      what = "a slice outside []";
      hint = "slices only appear in subscripts: x[1:3]";
      break;
    default:
      what = std::string("'") + expr_kind_name(e.kind) + "'";
      break;
  }
  error(code::kUnsupportedFeature, e.span, what + " is not supported in ONNX Script", hint);
  return SVal::poison();
}

SVal FunctionConverter::eval_name(const Name& e) {
  auto it = env_.find(e.id);
  if (it != env_.end()) return it->second;
  if (auto g = c_.lookup_global(e.id, e.span)) return *g;
  auto del = deleted_.find(e.id);
  if (del != deleted_.end()) {
    error(code::kUnboundName, e.span, "'" + e.id + "' is used after `del " + e.id + "`",
          "remove the del, or do not use the name after it")
        .notes.push_back("deleted at line " +
                         std::to_string(c_.file.line_col(del->second.begin).line));
    return SVal::poison();
  }
  std::vector<std::string> candidates;
  for (const auto& [k, v] : env_) candidates.push_back(k);
  for (auto& g : c_.global_names()) candidates.push_back(std::move(g));
  auto close = schema::closest_names(e.id, candidates, 3);
  // A suggestion that rewrites the whole name is noise (x -> y).
  std::erase_if(
      close, [&](const std::string& s) { return schema::edit_distance(e.id, s) >= e.id.size(); });
  std::string hint =
      close.empty() ? "define it before this line, or import it" : "did you mean " + [&] {
        std::string s;
        for (size_t k = 0; k < close.size(); ++k) {
          s += (k ? " or '" : "'") + close[k] + "'";
        }
        return s;
      }() + "?";
  error(code::kUnboundName, e.span, "name '" + e.id + "' is not defined", hint);
  return SVal::poison();
}

SVal FunctionConverter::eval_sequence(const std::vector<Expr*>& elts, bool tuple, Span span) {
  std::vector<SVal> vals;
  bool all_py = true, poison = false;
  for (const Expr* x : elts) {
    if (x->kind == ExprKind::kStarred) {
      unsupported_expr(*x);
      poison = true;
      continue;
    }
    vals.push_back(eval(*x));
    if (vals.back().is_poison()) poison = true;
    if (vals.back().kind != SVal::Kind::kPy) all_py = false;
  }
  if (poison) return SVal::poison();
  if (all_py) {
    std::vector<PyValue> items;
    for (auto& v : vals) items.push_back(std::move(v.py));
    return SVal::of(PyValue::of_list(std::move(items), tuple));
  }
  return SVal::tuple(std::move(vals));
}

// ---- operators ----

namespace {

const char* onnx_binop(BinOpKind op) {
  switch (op) {
    case BinOpKind::kAdd:
      return "Add";
    case BinOpKind::kSub:
      return "Sub";
    case BinOpKind::kMult:
      return "Mul";
    case BinOpKind::kDiv:
      return "Div";
    case BinOpKind::kMatMult:
      return "MatMul";
    case BinOpKind::kPow:
      return "Pow";
    case BinOpKind::kMod:
      return "Mod";
    default:
      return nullptr;
  }
}

}  // namespace

SVal FunctionConverter::eval_binop(const BinOp& e, const std::string& name) {
  SVal l = eval(*e.left);
  SVal r = eval(*e.right);
  return binop(e.op, l, r, e.span, e.op_span, name);
}

SVal FunctionConverter::binop(BinOpKind op, const SVal& l, const SVal& r, Span span, Span op_span,
                              const std::string& name) {
  if (l.is_poison() || r.is_poison()) return SVal::poison();
  if (l.kind == SVal::Kind::kPy && r.kind == SVal::Kind::kPy) {
    std::string why;
    if (auto v = fold_binop(op, l.py, r.py, &why)) return SVal::of(std::move(*v));
    error(
        code::kBadConstant, span,
        "cannot compute " + l.py.repr() + " " + binop_symbol(op) + " " + r.py.repr() + ": " + why);
    return SVal::poison();
  }
  if (op == BinOpKind::kBitOr &&
      (l.kind == SVal::Kind::kType || r.kind == SVal::Kind::kType ||
       l.kind == SVal::Kind::kForeign || r.kind == SVal::Kind::kForeign ||
       (l.kind == SVal::Kind::kPy && l.py.kind == PyValue::Kind::kNone) ||
       (r.kind == SVal::Kind::kPy && r.py.kind == PyValue::Kind::kNone))) {
    return type_union(l, r, span);
  }
  auto tensorish = [](const SVal& v) {
    return v.kind == SVal::Kind::kTensor || v.kind == SVal::Kind::kAttrRef ||
           v.kind == SVal::Kind::kPy;
  };
  if (!tensorish(l) || !tensorish(r)) {
    const SVal& bad = tensorish(l) ? r : l;
    error(code::kWrongKindOfValue, span,
          std::string("'") + binop_symbol(op) + "' cannot be applied to " + bad.describe(),
          bad.kind == SVal::Kind::kForeign ? "only ONNX ops and Python constants have a value here"
                                           : "");
    return SVal::poison();
  }
  // The tensor side decides the element type of a literal on the other side.
  std::optional<Var> a, b;
  if (l.kind == SVal::Kind::kTensor) {
    a = l.var;
    b = to_tensor(r, span, l.var);
  } else if (r.kind == SVal::Kind::kTensor) {
    b = r.var;
    a = to_tensor(l, span, r.var);
  } else if (l.kind == SVal::Kind::kAttrRef) {
    a = to_tensor(l, span);
    if (a) b = to_tensor(r, span, *a);
  } else {
    b = to_tensor(r, span);
    if (b) a = to_tensor(l, span, *b);
  }
  if (!a || !b) return SVal::poison();
  ir::DataType dt = a->dtype() != ir::DataType::Undefined ? a->dtype() : b->dtype();
  bool floating = ir::is_floating(dt);
  switch (op) {
    case BinOpKind::kMod: {
      std::vector<ir::Attr> attrs;
      if (floating) attrs.push_back(ir::Attr::of_int("fmod", 1));
      Var v = emit1("Mod", {*a, *b}, std::move(attrs), span, name);
      return v ? SVal::tensor(v) : SVal::poison();
    }
    case BinOpKind::kFloorDiv: {
      if (floating) {
        Var q = emit1("Div", {*a, *b}, {}, span);
        if (!q) return SVal::poison();
        Var v = emit1("Floor", {q}, {}, span, name);
        return v ? SVal::tensor(v) : SVal::poison();
      }
      // Python rounds toward -inf: (a - a mod b) / b is exact, with Mod's
      // sign-of-divisor rule (fmod=0) matching Python's %.
      Var m = emit1("Mod", {*a, *b}, {}, span);
      if (!m) return SVal::poison();
      Var d = emit1("Sub", {*a, m}, {}, span);
      if (!d) return SVal::poison();
      Var v = emit1("Div", {d, *b}, {}, span, name);
      return v ? SVal::tensor(v) : SVal::poison();
    }
    case BinOpKind::kBitAnd:
    case BinOpKind::kBitOr:
    case BinOpKind::kBitXor: {
      if (dt == ir::DataType::Bool) {
        const char* o = op == BinOpKind::kBitAnd ? "And" : op == BinOpKind::kBitOr ? "Or" : "Xor";
        Var v = emit1(o, {*a, *b}, {}, span, name);
        return v ? SVal::tensor(v) : SVal::poison();
      }
      error(code::kUnsupportedFeature, op_span,
            std::string("'") + binop_symbol(op) + "' on tensors needs boolean tensors here",
            "bitwise ops on integers (BitwiseAnd, ...) need opset 18; for booleans use "
            "op.And/op.Or/op.Xor");
      return SVal::poison();
    }
    case BinOpKind::kLShift:
    case BinOpKind::kRShift: {
      Var v = emit1(
          "BitShift", {*a, *b},
          attrs_of(ir::Attr::of_string("direction", op == BinOpKind::kLShift ? "LEFT" : "RIGHT")),
          span, name);
      return v ? SVal::tensor(v) : SVal::poison();
    }
    default: {
      Var v = emit1(onnx_binop(op), {*a, *b}, {}, span, name);
      return v ? SVal::tensor(v) : SVal::poison();
    }
  }
}

SVal FunctionConverter::eval_unary(const UnaryOp& e, const std::string& name) {
  SVal v = eval(*e.operand);
  if (v.is_poison()) return v;
  if (v.kind == SVal::Kind::kPy) {
    std::string why;
    if (auto r = fold_unary(e.op, v.py, &why)) return SVal::of(std::move(*r));
    error(code::kBadConstant, e.span,
          "cannot compute " + std::string(unaryop_symbol(e.op)) + " " + v.py.repr() + ": " + why);
    return SVal::poison();
  }
  if (e.op == UnaryOpKind::kUAdd) return v;
  auto t =
      e.op == UnaryOpKind::kNot ? to_condition(v, e.operand->span) : to_tensor(v, e.operand->span);
  if (!t) return SVal::poison();
  const char* op = nullptr;
  switch (e.op) {
    case UnaryOpKind::kUSub:
      op = "Neg";
      break;
    case UnaryOpKind::kNot:
      op = "Not";
      break;
    case UnaryOpKind::kInvert:
      if (t->dtype() == ir::DataType::Bool) {
        op = "Not";
        break;
      }
      error(code::kUnsupportedFeature, e.span, "'~' on a tensor needs a boolean tensor here",
            "BitwiseNot needs opset 18; for booleans use op.Not(x)");
      return SVal::poison();
    default:
      break;
  }
  Var r = emit1(op, {*t}, {}, e.span, name);
  return r ? SVal::tensor(r) : SVal::poison();
}

SVal FunctionConverter::compare(CmpOpKind op, const SVal& l, const SVal& r, Span span,
                                const std::string& name) {
  if (l.is_poison() || r.is_poison()) return SVal::poison();
  if (l.kind == SVal::Kind::kPy && r.kind == SVal::Kind::kPy) {
    std::string why;
    if (auto v = fold_compare(op, l.py, r.py, &why)) return SVal::of(PyValue::of_bool(*v));
    error(
        code::kBadConstant, span,
        "cannot compare " + l.py.repr() + " " + cmpop_symbol(op) + " " + r.py.repr() + ": " + why);
    return SVal::poison();
  }
  if (op == CmpOpKind::kIs || op == CmpOpKind::kIsNot) {
    // `x is None` on an optional input: a tensor that was passed is never
    // None (a call that omits it compiles a variant where it is None).
    const SVal* other = l.kind == SVal::Kind::kPy && l.py.kind == PyValue::Kind::kNone   ? &r
                        : r.kind == SVal::Kind::kPy && r.py.kind == PyValue::Kind::kNone ? &l
                                                                                         : nullptr;
    if (other && other->kind == SVal::Kind::kTensor) {
      return SVal::of(PyValue::of_bool(op == CmpOpKind::kIsNot));
    }
    if (other && other->kind == SVal::Kind::kAttrRef) {
      error(code::kNoOnnxMeaning, span,
            "whether attribute '" + other->name +
                "' was given is not known inside an ONNX "
                "function",
            "give the attribute a default value instead of None");
      return SVal::poison();
    }
  }
  if (op == CmpOpKind::kIs || op == CmpOpKind::kIsNot || op == CmpOpKind::kIn ||
      op == CmpOpKind::kNotIn) {
    error(code::kNoOnnxMeaning, span,
          std::string("'") + cmpop_symbol(op) + "' on tensors has no ONNX meaning",
          op == CmpOpKind::kIs || op == CmpOpKind::kIsNot
              ? "compare values with == / != (op.Equal), or test an optional with "
                "op.OptionalHasElement"
              : "compare with op.Equal and reduce, e.g. op.ReduceMax(op.Cast(op.Equal(x, v), "
                "to=INT64.dtype))");
    return SVal::poison();
  }
  // A string attribute against a literal: Equal has no string support before
  // opset 19, so match it with ai.onnx.ml's LabelEncoder.
  const SVal* attr = l.kind == SVal::Kind::kAttrRef   ? &l
                     : r.kind == SVal::Kind::kAttrRef ? &r
                                                      : nullptr;
  const SVal* lit = l.kind == SVal::Kind::kPy ? &l : r.kind == SVal::Kind::kPy ? &r : nullptr;
  if (attr && lit && attr->attr_type == ir::AttrType::String &&
      lit->py.kind == PyValue::Kind::kStr && (op == CmpOpKind::kEq || op == CmpOpKind::kNotEq)) {
    auto s = to_tensor(*attr, span);
    if (!s) return SVal::poison();
    auto encv = emit(
        "LabelEncoder", {*s},
        attrs_of(ir::Attr::of_strings("keys_strings", {lit->py.s}),
                 ir::Attr::of_ints("values_int64s", {1}), ir::Attr::of_int("default_int64", 0)),
        span, "", 1, "ai.onnx.ml");
    Var enc = encv.empty() ? Var() : encv[0];
    if (!enc) return SVal::poison();
    Var eq = emit1("Cast", {enc},
                   attrs_of(ir::Attr::of_int("to", static_cast<int64_t>(ir::DataType::Bool))), span,
                   op == CmpOpKind::kEq ? name : "");
    if (!eq) return SVal::poison();
    if (op == CmpOpKind::kEq) return SVal::tensor(eq);
    Var ne = emit1("Not", {eq}, {}, span, name);
    return ne ? SVal::tensor(ne) : SVal::poison();
  }
  std::optional<Var> a, b;
  if (l.kind == SVal::Kind::kTensor) {
    a = l.var;
    b = to_tensor(r, span, l.var);
  } else if (r.kind == SVal::Kind::kTensor) {
    b = r.var;
    a = to_tensor(l, span, r.var);
  } else if (l.kind == SVal::Kind::kAttrRef) {
    a = to_tensor(l, span);
    if (a) b = to_tensor(r, span, *a);
  } else {
    b = to_tensor(r, span);
    if (b) a = to_tensor(l, span, *b);
  }
  if (!a || !b) return SVal::poison();
  const char* o = nullptr;
  bool negate = false;
  switch (op) {
    case CmpOpKind::kEq:
      o = "Equal";
      break;
    case CmpOpKind::kNotEq:
      o = "Equal";
      negate = true;
      break;
    case CmpOpKind::kLt:
      o = "Less";
      break;
    case CmpOpKind::kLtE:
      o = "LessOrEqual";
      break;
    case CmpOpKind::kGt:
      o = "Greater";
      break;
    case CmpOpKind::kGtE:
      o = "GreaterOrEqual";
      break;
    default:
      break;
  }
  Var v = emit1(o, {*a, *b}, {}, span, negate ? "" : name);
  if (!v) return SVal::poison();
  if (!negate) return SVal::tensor(v);
  Var n = emit1("Not", {v}, {}, span, name);
  return n ? SVal::tensor(n) : SVal::poison();
}

SVal FunctionConverter::eval_compare(const Compare& e, const std::string& name) {
  // a < b < c is (a < b) and (b < c), with b evaluated once.
  SVal left = eval(*e.left);
  SVal acc;
  bool have = false;
  for (size_t k = 0; k < e.ops.size(); ++k) {
    SVal right = eval(*e.comparators[k]);
    Span span =
        Span::cover(k == 0 ? e.left->span : e.comparators[k - 1]->span, e.comparators[k]->span);
    bool last = k + 1 == e.ops.size();
    SVal c = compare(e.ops[k], left, right, span, last && !have ? name : "");
    if (c.is_poison()) return c;
    if (!have) {
      acc = std::move(c);
      have = true;
    } else if (acc.kind == SVal::Kind::kPy && c.kind == SVal::Kind::kPy) {
      acc = SVal::of(PyValue::of_bool(acc.py.truthy() && c.py.truthy()));
    } else if (acc.kind == SVal::Kind::kPy) {
      if (!acc.py.truthy()) return acc;  // False and x is False
      acc = std::move(c);
    } else if (c.kind == SVal::Kind::kPy) {
      if (!c.py.truthy()) acc = std::move(c);
    } else {
      Var v = emit1("And", {acc.var, c.var}, {}, e.span, last ? name : "");
      if (!v) return SVal::poison();
      acc = SVal::tensor(v);
    }
    left = std::move(right);
  }
  return acc;
}

SVal FunctionConverter::eval_boolop(const BoolOp& e, const std::string& name) {
  // On Python values, Python's rules (short-circuit, operand values); on
  // tensors, And/Or of every operand (ONNX evaluates both sides).
  const bool is_and = e.op == BoolOpKind::kAnd;
  SVal acc;
  bool have = false;
  for (size_t k = 0; k < e.values.size(); ++k) {
    SVal v = eval(*e.values[k]);
    if (v.is_poison()) return v;
    if (!have) {
      acc = std::move(v);
      have = true;
      if (acc.kind == SVal::Kind::kPy && (acc.py.truthy() != is_and)) return acc;
      continue;
    }
    if (acc.kind == SVal::Kind::kPy) {  // truthy for and, falsy for or: the result is v
      acc = std::move(v);
      if (acc.kind == SVal::Kind::kPy && (acc.py.truthy() != is_and)) return acc;
      continue;
    }
    if (v.kind == SVal::Kind::kPy) {
      if (v.py.truthy() != is_and) return v;  // x and False -> False; x or True -> True
      continue;                               // x and True -> x
    }
    auto a = to_condition(acc, e.values[k - 1]->span);
    auto b = to_condition(v, e.values[k]->span);
    if (!a || !b) return SVal::poison();
    Var r =
        emit1(is_and ? "And" : "Or", {*a, *b}, {}, e.span, k + 1 == e.values.size() ? name : "");
    if (!r) return SVal::poison();
    acc = SVal::tensor(r);
  }
  return acc;
}

SVal FunctionConverter::eval_ifexp(const IfExp& e, const std::string& name) {
  SVal c = eval(*e.test);
  if (c.is_poison()) return c;
  if (c.kind == SVal::Kind::kPy) return eval(c.py.truthy() ? *e.body : *e.orelse, 0, name);
  auto cond = to_condition(c, e.test->span);
  SVal a = eval(*e.body);
  SVal b = eval(*e.orelse);
  if (!cond || a.is_poison() || b.is_poison()) return SVal::poison();
  std::optional<Var> ta, tb;
  if (a.kind == SVal::Kind::kTensor) {
    ta = a.var;
    tb = to_tensor(b, e.orelse->span, a.var);
  } else {
    tb = to_tensor(b, e.orelse->span);
    if (tb) ta = to_tensor(a, e.body->span, *tb);
  }
  if (!ta || !tb) return SVal::poison();
  Var r = emit1("Where", {*cond, *ta, *tb}, {}, e.span, name);
  return r ? SVal::tensor(r) : SVal::poison();
}

}  // namespace oxs::script
