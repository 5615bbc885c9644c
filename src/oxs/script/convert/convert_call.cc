// Calls: op.X(...) of an opset (inputs positional or by name, attributes by
// keyword, validated against the op's schema at compile time), calls of other
// script functions (model-local functions, attribute parameters forwarded and
// defaults filled in), and the dispatch to Python builtins with a
// compile-time meaning (convert_builtins.cc).
#include <climits>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "oxs/ir/dtype.h"
#include "oxs/schema/registry.h"
#include "oxs/schema/suggest.h"
#include "oxs/script/convert/compiler.h"
#include "oxs/script/convert/convert_codes.h"

namespace oxs::script {

using builder::Var;

namespace {

std::string quoted_list(const std::vector<std::string>& xs) {
  std::string s;
  for (size_t k = 0; k < xs.size(); ++k) s += (k ? ", " : "") + xs[k];
  return s;
}

std::string formal_list(const schema::OpSignature& sig) {
  std::vector<std::string> names;
  for (const auto& f : sig.inputs) {
    std::string s = f.name;
    if (f.option == schema::ParamOption::Optional) s += "?";
    if (f.option == schema::ParamOption::Variadic) s += "...";
    names.push_back(s);
  }
  return quoted_list(names);
}

const char* attr_kind_phrase(ir::AttrType t) {
  switch (t) {
    case ir::AttrType::Int:
      return "an int";
    case ir::AttrType::Float:
      return "a float";
    case ir::AttrType::String:
      return "a str";
    case ir::AttrType::Ints:
      return "a list of ints";
    case ir::AttrType::Floats:
      return "a list of floats";
    case ir::AttrType::Strings:
      return "a list of strs";
    case ir::AttrType::Tensor:
      return "a tensor";
    case ir::AttrType::Graph:
      return "a graph (a nested def)";
    default:
      return ir::attr_type_name(t);
  }
}

// Python's float(str) for decimal numbers, "nan", "inf" and "infinity"
// (signed, any case, blanks around); nullopt otherwise.
std::optional<double> parse_python_float(const std::string& text) {
  const size_t b = text.find_first_not_of(" \t\n");
  const size_t e = text.find_last_not_of(" \t\n");
  if (b == std::string::npos) return std::nullopt;
  const std::string s = text.substr(b, e - b + 1);
  if (s.find_first_of("xX(") != std::string::npos) return std::nullopt;  // no hex, no nan(...)
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

std::string domain_label(const std::string& d) {
  return d.empty() ? "ai.onnx" : d;
}

}  // namespace

SVal FunctionConverter::eval_call(const Call& e, size_t nout, const std::string& name) {
  SVal f = eval(*e.func);
  switch (f.kind) {
    case SVal::Kind::kPoison:
      // Still look at the arguments: their errors are independent.
      for (const Expr* a : e.args) eval(*a);
      return f;
    case SVal::Kind::kBuiltin:
      if (f.name.rfind("op:", 0) == 0) return call_op(f.opset, f.name.substr(3), e, nout, name);
      return call_builtin(f.name, e, nout);
    case SVal::Kind::kFunction:
      if (f.fn && f.fn->is_script) return call_script(*f.fn, e, nout, name);
      if (f.fn && !f.fn->is_graph) {
        error(code::kBadCall, e.func->span,
              "'" + f.name + "' is not a script function, so it is not compiled",
              "decorate it with @script() to call it from a script");
        return SVal::poison();
      }
      error(code::kBadCall, e.func->span,
            "'" + f.name + "' is a graph body; ONNX has no calls of local graphs",
            "pass it to an op as a graph attribute, e.g. op.Loop(..., body=" + f.name +
                "), or make it a @script() function");
      return SVal::poison();
    case SVal::Kind::kType:
      if (f.type && f.type->kind == TypeInfo::Kind::kAttr && e.args.size() == 1 &&
          e.keywords.empty()) {
        SVal a = eval(*e.args[0]);
        if (a.kind == SVal::Kind::kPy && a.py.is_number()) {
          switch (f.type->attr) {
            case ir::AttrType::Float:
              return SVal::of(PyValue::of_float(a.py.as_double()));
            case ir::AttrType::Int:
              if (f.name == "bool") return SVal::of(PyValue::of_bool(a.py.truthy()));
              if (a.py.kind == PyValue::Kind::kFloat) {
                if (!std::isfinite(a.py.f) || std::fabs(a.py.f) >= 9.2e18) break;
                return SVal::of(PyValue::of_int(static_cast<int64_t>(a.py.f)));
              }
              return SVal::of(PyValue::of_int(a.py.kind == PyValue::Kind::kBool ? a.py.b : a.py.i));
            default:
              break;
          }
        }
        if (f.type->attr == ir::AttrType::Float && a.kind == SVal::Kind::kPy &&
            a.py.kind == PyValue::Kind::kStr) {
          // float('nan'), float('inf'), float('-inf'): how decompiled source
          // writes the non-finite values of tensors and attributes.
          if (std::optional<double> v = parse_python_float(a.py.s)) {
            return SVal::of(PyValue::of_float(*v));
          }
          error(code::kBadCall, e.span, "float() of '" + a.py.s + "' is not a number",
                "write float('nan'), float('inf'), float('-inf') or a number");
          return SVal::poison();
        }
        if (a.is_poison()) return a;
        if (a.kind == SVal::Kind::kTensor || a.kind == SVal::Kind::kAttrRef) {
          error(code::kNoOnnxMeaning, e.span,
                f.name + "() of a tensor has no value while the graph is built",
                "convert element types with op.Cast(x, to=INT64.dtype)");
          return SVal::poison();
        }
      }
      error(code::kNoOnnxMeaning, e.span, "calling " + f.describe() + " has no ONNX meaning here",
            "use op.Cast(x, to=FLOAT.dtype) to change element types");
      return SVal::poison();
    case SVal::Kind::kForeign:
      error(code::kNoOnnxMeaning, e.func->span, "'" + f.name + "' has no ONNX meaning in a script",
            "only ONNX ops (op.X), script functions and Python constants compute values; "
            "use op.Constant(value=...) for data");
      return SVal::poison();
    default:
      error(code::kWrongKindOfValue, e.func->span, f.describe() + " is not callable");
      return SVal::poison();
  }
}

std::optional<ir::Attr> FunctionConverter::make_attr(const std::string& attr_name,
                                                     ir::AttrType want, const SVal& v,
                                                     const Expr& value_expr,
                                                     const std::string& what) {
  using K = ir::AttrType;
  auto mismatch = [&](const std::string& got, const std::string& hint) -> std::optional<ir::Attr> {
    error(code::kAttributeTypeMismatch, value_expr.span,
          "attribute '" + attr_name + "' of " + what + " takes " + attr_kind_phrase(want) +
              ", got " + got,
          hint);
    return std::nullopt;
  };
  switch (v.kind) {
    case SVal::Kind::kPoison:
      return std::nullopt;
    case SVal::Kind::kAttrRef:
      if (v.attr_type == want) return ir::Attr::reference(attr_name, want, v.name);
      return mismatch(v.describe(), "declare the parameter with the attribute's type (" +
                                        std::string(ir::attr_type_name(want)) + ")");
    case SVal::Kind::kTensor:
      // "takes a tensor, got a tensor" (a TENSOR attribute given a graph value)
      // would say nothing: name what is wrong, the value is computed.
      return mismatch("a value computed in the graph",
                      "attributes are fixed when the graph is built: pass a Python constant or an "
                      "attribute parameter; tensors go in inputs");
    case SVal::Kind::kType:
      if (want == K::Int && v.type && v.type->kind == TypeInfo::Kind::kTensor &&
          v.type->dtype != ir::DataType::Undefined) {
        return ir::Attr::of_int(attr_name, static_cast<int64_t>(v.type->dtype));
      }
      return mismatch(v.describe(), "");
    case SVal::Kind::kPy:
      break;
    default:
      return mismatch(v.describe(), "");
  }
  const PyValue& p = v.py;
  if (auto a = py_to_attr(attr_name, want, p)) return a;
  switch (want) {
    case K::Int:
      return mismatch("the Python " + std::string(p.type_name()) + " " + p.repr(),
                      p.kind == PyValue::Kind::kFloat
                          ? "write an int, e.g. " + std::to_string(static_cast<long long>(p.f))
                          : "");
    case K::Float:
    case K::String:
      return mismatch("the Python " + std::string(p.type_name()) + " " + p.repr(), "");
    case K::Ints:
    case K::Floats:
    case K::Strings:
      if (!p.is_sequence()) {
        return mismatch("the Python " + std::string(p.type_name()) + " " + p.repr(),
                        "write a list, e.g. [" + p.repr() + "]");
      }
      return mismatch("the list " + p.repr(), "");
    case K::Tensor: {
      std::string why;
      py_to_tensor(p, ir::DataType::Undefined, &why);
      return mismatch("the Python " + std::string(p.type_name()) + " " + p.repr(), why);
    }
    default:
      error(code::kUnsupportedFeature, value_expr.span,
            "attributes of type " + std::string(ir::attr_type_name(want)) +
                " cannot be written in a script yet");
      return std::nullopt;
  }
}

std::optional<ir::Attr> py_to_attr(const std::string& attr_name, ir::AttrType want,
                                   const PyValue& p) {
  using K = ir::AttrType;
  switch (want) {
    case K::Int:
      if (p.kind == PyValue::Kind::kInt) return ir::Attr::of_int(attr_name, p.i);
      if (p.kind == PyValue::Kind::kBool) return ir::Attr::of_int(attr_name, p.b ? 1 : 0);
      return std::nullopt;
    case K::Float:
      if (p.is_number()) return ir::Attr::of_float(attr_name, static_cast<float>(p.as_double()));
      return std::nullopt;
    case K::String:
      if (p.kind == PyValue::Kind::kStr) return ir::Attr::of_string(attr_name, p.s);
      return std::nullopt;
    case K::Ints:
    case K::Floats:
    case K::Strings: {
      if (!p.is_sequence() || !default_fits(want, p)) return std::nullopt;
      if (want == K::Ints) {
        std::vector<int64_t> xs;
        for (const auto& x : p.items) xs.push_back(x.kind == PyValue::Kind::kBool ? x.b : x.i);
        return ir::Attr::of_ints(attr_name, std::move(xs));
      }
      if (want == K::Floats) {
        std::vector<float> xs;
        for (const auto& x : p.items) xs.push_back(static_cast<float>(x.as_double()));
        return ir::Attr::of_floats(attr_name, std::move(xs));
      }
      std::vector<std::string> xs;
      for (const auto& x : p.items) xs.push_back(x.s);
      return ir::Attr::of_strings(attr_name, std::move(xs));
    }
    case K::Tensor: {
      std::string why;
      auto t = py_to_tensor(p, ir::DataType::Undefined, &why);
      if (!t) return std::nullopt;
      return ir::Attr::of_tensor(attr_name, std::make_shared<ir::Tensor>(std::move(*t)));
    }
    default:
      return std::nullopt;
  }
}

std::optional<ir::Attr> FunctionConverter::attr_from_value(const std::string& attr_name,
                                                           const SVal& v, const Expr& value_expr) {
  // For ops without a schema (custom domains): the value decides the type.
  if (v.kind == SVal::Kind::kAttrRef) return ir::Attr::reference(attr_name, v.attr_type, v.name);
  if (v.kind == SVal::Kind::kPy) {
    const PyValue& p = v.py;
    ir::AttrType t = ir::AttrType::Undefined;
    switch (p.kind) {
      case PyValue::Kind::kBool:
      case PyValue::Kind::kInt:
        t = ir::AttrType::Int;
        break;
      case PyValue::Kind::kFloat:
        t = ir::AttrType::Float;
        break;
      case PyValue::Kind::kStr:
        t = ir::AttrType::String;
        break;
      case PyValue::Kind::kTensor:
        t = ir::AttrType::Tensor;
        break;
      case PyValue::Kind::kList:
      case PyValue::Kind::kTuple: {
        ir::DataType d = natural_dtype(p);
        t = d == ir::DataType::Float    ? ir::AttrType::Floats
            : d == ir::DataType::String ? ir::AttrType::Strings
                                        : ir::AttrType::Ints;
        break;
      }
      default:
        break;
    }
    if (t != ir::AttrType::Undefined) return make_attr(attr_name, t, v, value_expr, "this op");
  }
  if (v.kind == SVal::Kind::kType)
    return make_attr(attr_name, ir::AttrType::Int, v, value_expr, "this op");
  if (!v.is_poison()) {
    error(code::kAttributeTypeMismatch, value_expr.span,
          "attribute '" + attr_name + "' cannot be " + v.describe(),
          "attributes are Python constants or attribute parameters");
  }
  return std::nullopt;
}

SVal FunctionConverter::call_op(const OpsetRef& opset_in, const std::string& op, const Call& e,
                                size_t nout, const std::string& name) {
  Span op_span =
      e.func->kind == ExprKind::kAttribute ? e.func->as<Attribute>().attr_span : e.func->span;
  OpsetRef opset = c_.retarget(opset_in);
  if (!c_.use_opset(opset, op_span)) {
    for (const Expr* a : e.args) eval(*a);
    return SVal::poison();
  }
  const std::string& domain = opset.domain;
  const schema::OpSignature* sig = schema::lookup(domain, op, opset.version);
  bool known_domain = schema::is_known_domain(domain);
  std::string what = op;
  if (known_domain && (!sig || sig->deprecated)) {
    auto versions = schema::op_versions(domain, op);
    if (sig && sig->deprecated) {
      error(code::kOpNotInOpset, op_span,
            op + " is deprecated in " + domain_label(domain) + " opset " +
                std::to_string(opset.version),
            "use its replacement (see the ONNX operator changelog)");
    } else if (!versions.empty() && versions.front() > opset.version) {
      error(code::kOpNotInOpset, op_span,
            op + " is not in " + domain_label(domain) + " opset " + std::to_string(opset.version) +
                ": it was introduced in opset " + std::to_string(versions.front()),
            "import opset" + std::to_string(versions.front()) + " or newer");
    } else {
      auto close = schema::suggest_ops(domain, op, opset.version, 3);
      std::string hint = close.empty() ? "see the ONNX operator list for " + domain_label(domain)
                                       : "did you mean " +
                                             [&] {
                                               std::string s;
                                               for (size_t k = 0; k < close.size(); ++k)
                                                 s += (k ? " or '" : "'") + close[k] + "'";
                                               return s;
                                             }() +
                                             "?";
      error(code::kUnknownOp, op_span,
            "unknown op '" + op + "' in " + domain_label(domain) + " opset " +
                std::to_string(opset.version),
            hint);
    }
    for (const Expr* a : e.args) eval(*a);
    for (const Keyword& k : e.keywords) eval(*k.value);
    return SVal::poison();
  }
  if (sig) what = sig->display_name();

  // Map the arguments onto formal inputs and attributes.
  const size_t nformal = sig ? sig->inputs.size() : 0;
  const bool variadic =
      sig && !sig->inputs.empty() && sig->inputs.back().option == schema::ParamOption::Variadic;
  std::vector<const Expr*> slots(sig ? nformal : 0, nullptr);
  std::vector<const Expr*> extra;  // variadic tail / inputs of schema-less ops
  std::vector<std::pair<std::string, const Keyword*>> attr_args;
  bool bad = false;
  for (size_t k = 0; k < e.args.size(); ++k) {
    const Expr* a = e.args[k];
    if (a->kind == ExprKind::kStarred) {
      unsupported_expr(*a);
      bad = true;
      continue;
    }
    if (!sig) {
      extra.push_back(a);
    } else if (variadic && k + 1 >= nformal) {
      if (k + 1 == nformal)
        slots[k] = a;
      else
        extra.push_back(a);
    } else if (k < nformal) {
      slots[k] = a;
    } else {
      error(code::kWrongInputCount, a->span,
            what + " takes at most " + std::to_string(nformal) + " input" +
                (nformal == 1 ? "" : "s") + " (" + formal_list(*sig) + "), got " +
                std::to_string(e.args.size()),
            sig->attributes.empty() ? "remove the extra arguments"
                                    : "attributes are passed by keyword, e.g. " +
                                          sig->attributes.front().name + "=...");
      bad = true;
      break;
    }
  }
  for (const Keyword& k : e.keywords) {
    if (k.arg.empty()) {
      error(code::kUnsupportedFeature, k.span, "**kwargs in an op call is not supported",
            "pass the attributes by name");
      bad = true;
      continue;
    }
    if (sig) {
      bool is_input = false;
      for (size_t j = 0; j < nformal; ++j) {
        if (sig->inputs[j].name == k.arg) {
          if (slots[j]) {
            error(code::kBadCall, k.span, "input '" + k.arg + "' of " + what + " is given twice");
            bad = true;
          }
          slots[j] = k.value;
          is_input = true;
        }
      }
      if (is_input) continue;
      if (!sig->find_attr(k.arg)) {
        auto close = schema::suggest_attrs(*sig, k.arg, 3);
        std::vector<std::string> names;
        for (const auto& a : sig->attributes) names.push_back(a.name);
        std::string hint = !close.empty()  ? "did you mean '" + close[0] + "'?"
                           : names.empty() ? what + " takes no attributes"
                                           : "its attributes are: " + quoted_list(names);
        error(code::kUnknownAttribute, k.span,
              what + " has no attribute '" + k.arg + "'" +
                  (nformal ? " (inputs: " + formal_list(*sig) + ")" : ""),
              hint);
        bad = true;
        continue;
      }
    }
    attr_args.push_back({k.arg, &k});
  }
  if (sig && !bad) {
    for (size_t j = 0; j < nformal; ++j) {
      const auto& f = sig->inputs[j];
      bool given = slots[j] != nullptr;
      if (f.option == schema::ParamOption::Single && !given) {
        error(code::kWrongInputCount, e.span,
              what + " requires input '" + f.name + "' (input " + std::to_string(j + 1) + " of " +
                  std::to_string(nformal) + ": " + formal_list(*sig) + ")",
              "pass it positionally or as " + f.name + "=...");
        bad = true;
      }
      if (f.option == schema::ParamOption::Variadic) {
        size_t have = (given ? 1 : 0) + extra.size();
        if (static_cast<int>(have) < f.min_arity) {
          error(code::kWrongInputCount, e.span,
                what + " needs at least " + std::to_string(f.min_arity) + " value(s) for " +
                    f.name + ", got " + std::to_string(have));
          bad = true;
        }
      }
    }
    for (const auto& a : sig->attributes) {
      if (!a.required) continue;
      bool given = false;
      for (auto& [n, k] : attr_args) given = given || n == a.name;
      if (!given) {
        error(code::kMissingAttribute, e.span,
              what + " requires attribute '" + a.name + "' (" + attr_kind_phrase(a.type) + ")",
              "pass it by keyword: " + a.name + "=...");
        bad = true;
      }
    }
  }

  // Inputs: evaluate in order; literals take the element type of a sibling
  // bound to the same type constraint.
  std::vector<const Expr*> in_exprs(slots.begin(), slots.end());
  in_exprs.insert(in_exprs.end(), extra.begin(), extra.end());
  while (!in_exprs.empty() && !in_exprs.back()) in_exprs.pop_back();
  std::vector<SVal> in_vals;
  for (const Expr* x : in_exprs) {
    in_vals.push_back(x ? eval(*x) : SVal::of(PyValue::none()));
    if (in_vals.back().is_poison()) bad = true;
  }
  auto constraint_of = [&](size_t j) -> std::string {
    if (!sig || sig->inputs.empty()) return "";
    const auto& f = sig->inputs[std::min(j, nformal - 1)];
    // A heterogeneous variadic binds nothing; "tensor(int64)"-style constraints are fixed types.
    if (j + 1 >= nformal && f.option == schema::ParamOption::Variadic && !f.is_homogeneous)
      return "";
    return f.type_constraint;
  };
  // As onnxscript: Python values and attribute parameters are "castable";
  // they take the type that the other inputs bind to their type constraint
  // (a typed constant when known now, else CastLike of the partner).
  auto castable = [](const SVal& v) {
    return v.kind == SVal::Kind::kPy || v.kind == SVal::Kind::kAttrRef;
  };
  std::vector<Var> inputs(in_vals.size());
  std::unordered_map<std::string, Var> bound;
  auto omitted_at = [&](size_t j) {
    const SVal& v = in_vals[j];
    return !in_exprs[j] || (v.kind == SVal::Kind::kPy && v.py.kind == PyValue::Kind::kNone);
  };
  for (size_t j = 0; j < in_vals.size() && !bad; ++j) {
    if (omitted_at(j)) {
      if (sig && j < nformal && sig->inputs[j].option == schema::ParamOption::Single) {
        error(code::kWrongInputCount, in_exprs[j] ? in_exprs[j]->span : e.span,
              "input '" + sig->inputs[j].name + "' of " + what + " is required; it cannot be None");
        bad = true;
      }
      continue;  // omitted optional input
    }
    if (castable(in_vals[j])) continue;
    auto t = to_tensor(in_vals[j], in_exprs[j]->span);
    if (!t) {
      bad = true;
      continue;
    }
    inputs[j] = *t;
    std::string tc = constraint_of(j);
    if (!tc.empty() && !bound.count(tc)) bound[tc] = *t;
  }
  // Attribute parameters before literals: with no other partner, a literal
  // takes the attribute's type (alpha * 2 with a float alpha).
  for (int pass = 0; pass < 2 && !bad; ++pass) {
    for (size_t j = 0; j < in_vals.size(); ++j) {
      const SVal& v = in_vals[j];
      if (omitted_at(j) || !castable(v)) continue;
      if ((pass == 0) != (v.kind == SVal::Kind::kAttrRef)) continue;
      std::string tc = constraint_of(j);
      auto it = tc.empty() ? bound.end() : bound.find(tc);
      Var like = it == bound.end() ? Var() : it->second;
      auto t = to_tensor(v, in_exprs[j]->span, like);
      if (!t) {
        bad = true;
        continue;
      }
      inputs[j] = *t;
      if (!tc.empty() && !bound.count(tc)) bound[tc] = *t;
    }
  }

  // Attributes (graph attributes last: their bodies may need the inputs' types).
  std::vector<ir::Attr> attrs;
  for (auto& [n, k] : attr_args) {
    const schema::AttrParam* ap = sig ? sig->find_attr(n) : nullptr;
    if (ap && ap->type == ir::AttrType::Graph) continue;
    SVal v = eval(*k->value);
    auto a = ap ? make_attr(n, ap->type, v, *k->value, what) : attr_from_value(n, v, *k->value);
    if (!a) {
      bad = true;
      continue;
    }
    attrs.push_back(std::move(*a));
  }
  if (bad) {
    for (auto& [n, k] : attr_args) {
      const schema::AttrParam* ap = sig ? sig->find_attr(n) : nullptr;
      if (ap && ap->type == ir::AttrType::Graph) eval(*k->value);
    }
    return SVal::poison();
  }
  size_t graph_outputs = 0;
  for (auto& [n, k] : attr_args) {
    const schema::AttrParam* ap = sig ? sig->find_attr(n) : nullptr;
    if (!ap || ap->type != ir::AttrType::Graph) continue;
    SVal v = eval(*k->value);
    if (v.is_poison()) return v;
    auto g = graph_attr(v, *k->value, op, n, inputs);
    if (!g) return SVal::poison();
    graph_outputs = g->outputs().size();
    attrs.push_back(ir::Attr::of_graph(n, std::move(g)));
  }

  size_t n = nout;
  if (sig) {
    if (n == 0) {
      if (op == "If" && domain.empty())
        n = graph_outputs;
      else if (op == "Loop" && domain.empty())
        n = graph_outputs > 0 ? graph_outputs - 1 : 0;
      else if (op == "Scan" && domain.empty())
        n = graph_outputs;
      else
        n = sig->min_output == sig->max_output ? static_cast<size_t>(sig->min_output)
                                               : static_cast<size_t>(std::max(1, sig->min_output));
      if (n == 0) n = 1;
    } else if (static_cast<int64_t>(n) > sig->max_output || static_cast<int>(n) < sig->min_output) {
      error(code::kUnpackMismatch, e.span,
            what + " has " +
                (sig->min_output == sig->max_output
                     ? std::to_string(sig->min_output)
                     : std::to_string(sig->min_output) + " to " +
                           (sig->max_output == INT_MAX ? std::string("any number of")
                                                       : std::to_string(sig->max_output))) +
                " outputs, but " + std::to_string(n) + " are unpacked");
      return SVal::poison();
    }
  } else if (n == 0) {
    n = 1;
  }
  auto outs =
      emit(op, std::move(inputs), std::move(attrs), e.span, name.empty() ? "" : name, n, domain);
  if (outs.empty()) return SVal::poison();
  if (outs.size() == 1) return SVal::tensor(outs[0]);
  std::vector<SVal> items;
  for (auto& o : outs) items.push_back(SVal::tensor(o));
  return SVal::tuple(std::move(items));
}

SVal FunctionConverter::call_script(ScriptFn& fn, const Call& e, size_t nout,
                                    const std::string& name) {
  Signature& sig = c_.signature(fn);
  const std::string& fname = fn.def->name;
  bool bad = !sig.ok;
  std::vector<const Expr*> given(sig.params.size(), nullptr);
  for (size_t k = 0; k < e.args.size(); ++k) {
    if (e.args[k]->kind == ExprKind::kStarred) {
      unsupported_expr(*e.args[k]);
      bad = true;
    } else if (k < given.size()) {
      given[k] = e.args[k];
    } else {
      error(code::kWrongInputCount, e.args[k]->span,
            "'" + fname + "' takes " + std::to_string(sig.params.size()) + " parameter" +
                (sig.params.size() == 1 ? "" : "s") + ", got " + std::to_string(e.args.size()));
      bad = true;
      break;
    }
  }
  for (const Keyword& k : e.keywords) {
    size_t j = 0;
    while (j < sig.params.size() && sig.params[j].name != k.arg) ++j;
    if (j == sig.params.size()) {
      std::vector<std::string> names;
      for (auto& p : sig.params) names.push_back(p.name);
      auto close = schema::closest_names(k.arg, names, 1);
      error(code::kUnknownAttribute, k.span, "'" + fname + "' has no parameter '" + k.arg + "'",
            close.empty() ? "its parameters are: " + quoted_list(names)
                          : "did you mean '" + close[0] + "'?");
      bad = true;
      continue;
    }
    if (given[j]) {
      error(code::kBadCall, k.span, "parameter '" + k.arg + "' of '" + fname + "' is given twice");
      bad = true;
    }
    given[j] = k.value;
  }
  std::vector<Var> inputs;
  std::vector<ir::Attr> attrs;
  std::vector<std::string> omitted;  // optional inputs not given: a variant without them
  std::vector<const ParamInfo*> missing_attrs;
  for (size_t j = 0; j < sig.params.size(); ++j) {
    const ParamInfo& p = sig.params[j];
    if (p.is_attr) {
      if (given[j]) {
        SVal v = eval(*given[j]);
        if (v.kind == SVal::Kind::kPy && v.py.kind == PyValue::Kind::kNone && p.optional) continue;
        auto a = make_attr(p.name, p.attr_type, v, *given[j], "'" + fname + "'");
        if (!a)
          bad = true;
        else
          attrs.push_back(std::move(*a));
      } else if (p.default_value) {
        // FunctionProto (IR 8) has no attribute defaults: pass them at every call.
        auto a = make_attr(p.name, p.attr_type, SVal::of(*p.default_value), e, "'" + fname + "'");
        if (!a)
          bad = true;
        else
          attrs.push_back(std::move(*a));
      } else if (!p.optional) {
        missing_attrs.push_back(&p);  // an error only if the body reads it
      }
      continue;
    }
    if (!given[j]) {
      if (!p.optional) {
        error(code::kWrongInputCount, e.span, "'" + fname + "' requires input '" + p.name + "'",
              "pass it positionally or by name");
        bad = true;
      }
      omitted.push_back(p.name);
      continue;
    }
    SVal v = eval(*given[j]);
    if (v.kind == SVal::Kind::kPy && v.py.kind == PyValue::Kind::kNone && p.optional) {
      omitted.push_back(p.name);
      continue;
    }
    auto t =
        to_tensor(v, given[j]->span, {},
                  p.type.kind == TypeInfo::Kind::kTensor ? p.type.dtype : ir::DataType::Undefined);
    if (!t) {
      bad = true;
      inputs.emplace_back();
      continue;
    }
    inputs.push_back(*t);
  }
  if (bad) return SVal::poison();
  const ir::Function* f = c_.function_of(fn, e.func->span, omitted);
  if (!f) return SVal::poison();
  // ONNX lets a call leave out an attribute; one the body reads has no value
  // then, which is an error here (a parameter without a default must be given).
  for (const ParamInfo* p : missing_attrs) {
    bool read = false;
    f->body->for_each_node_recursive([&](ir::Node* n) {
      for (const ir::Attr& a : n->attrs()) read = read || a.ref_attr_name == p->name;
    });
    if (read) {
      error(code::kMissingAttribute, e.span,
            "'" + fname + "' requires attribute '" + p->name + "' (" +
                attr_kind_phrase(p->attr_type) + ")",
            "pass it by keyword: " + p->name + "=...");
      bad = true;
    }
  }
  if (bad) return SVal::poison();
  size_t n = f->body->outputs().size();
  if (nout && nout != n) {
    error(code::kUnpackMismatch, e.span,
          "'" + fname + "' returns " + std::to_string(n) + " value" + (n == 1 ? "" : "s") +
              ", but " + std::to_string(nout) + " are unpacked");
    return SVal::poison();
  }
  auto outs = emit(f->name, std::move(inputs), std::move(attrs), e.span, name, n, f->domain);
  if (outs.empty()) return SVal::poison();
  if (outs.size() == 1) return SVal::tensor(outs[0]);
  std::vector<SVal> items;
  for (auto& o : outs) items.push_back(SVal::tensor(o));
  return SVal::tuple(std::move(items));
}

}  // namespace oxs::script
