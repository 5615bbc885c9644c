// Statements of a script function: parameters, assignments (SSA: every
// assignment binds the name to a new value), tuple unpacking, augmented and
// annotated assignment, del, docstrings, nested defs, and the walk over a
// body with its continuation (the statements that follow the current block),
// which is how `return` anywhere, `break` and `continue` are lowered: an `if`
// that may leave its block takes the rest of the block into its branches, so
// that every path ends by producing the outputs of its function or loop body.
#include <algorithm>

#include "oxs/infer/infer.h"
#include "oxs/script/convert/compiler.h"
#include "oxs/script/convert/convert_codes.h"

namespace oxs::script {

using builder::Var;

Var FunctionConverter::add_input(builder::Builder& b, const std::string& base, ir::Type type) {
  auto& names = b.graph().names();
  if (!names.has_value(base)) return b.input(base, std::move(type));
  Var v = b.input("", std::move(type));
  v.value()->set_name(names.unique_value(base));
  return v;
}

std::unique_ptr<ir::Graph> FunctionConverter::take_body(builder::Builder& sub, bool keep) {
  std::unique_ptr<ir::Graph> g = sub.take_graph();
  if (keep) return g;
  // The inferencer keys its facts by value address: forget them before the
  // values die, so that a later value at the same address starts clean.
  auto& inf = sub.inferencer();
  for (ir::Value* v : g->inputs()) inf.forget(v);
  g->for_each_node_recursive([&](ir::Node* n) {
    for (size_t k = 0; k < n->num_outputs(); ++k) {
      if (n->output(k)) inf.forget(n->output(k));
    }
  });
  return nullptr;
}

void FunctionConverter::poison_assigned(const Body& body) {
  std::vector<std::string> names;
  NameSet seen;
  assigned_names(body, names, seen);
  for (auto& n : names) env_[n] = SVal::poison();
}

bool FunctionConverter::convert() {
  const FunctionDef& def = *fn_->def;
  c_.liveness.analyze(def);
  Signature& sig = c_.signature(*fn_);
  size_t errors_before = c_.diags.error_count();
  if (!sig.ok) return false;
  for (const ParamInfo& p : sig.params) {
    if (p.is_attr) {
      if (mode_ == Mode::kFunction) {
        env_[p.name] = SVal::attr_ref(p.name, p.attr_type);
        env_[p.name].attr_bool = p.is_bool;
      } else if (p.default_value) {
        env_[p.name] = SVal::of(*p.default_value);
      } else if (p.optional) {
        env_[p.name] = SVal::of(PyValue::none());
      } else {
        error(code::kBadEntry, p.span,
              "attribute parameter '" + p.name + "' of the model's entry '" + def.name +
                  "' has no default",
              "give it a default (" + p.name + ": int = 0), or compile a function that calls '" +
                  def.name + "' with a value");
        env_[p.name] = SVal::poison();
      }
      continue;
    }
    if (std::find(omitted_inputs.begin(), omitted_inputs.end(), p.name) != omitted_inputs.end()) {
      env_[p.name] = SVal::of(PyValue::none());  // this variant's callers omit it
      continue;
    }
    ir::Type type;
    if (mode_ == Mode::kMain) {
      type = p.type.to_ir();
      if (type.is_none() || (type.is_tensor() && type.elem_type() == ir::DataType::Undefined)) {
        error(code::kBadEntry, p.span, "input '" + p.name + "' of the model needs a type",
              "annotate it, e.g. " + p.name + ": FLOAT[\"N\", 3]");
        env_[p.name] = SVal::poison();
        continue;
      }
      if (type.is_tensor() && !type.shape()) {
        // The checker requires a shape (a rank) on the inputs of a model's graph.
        error(code::kBadEntry, p.annotation_span(),
              "input '" + p.name + "' of the model needs a rank: " + p.type.describe() +
                  " leaves it unknown, which functions allow but a model's graph does not",
              "give the dims, e.g. " + std::string(ir::dtype_script_name(type.elem_type())) +
                  "[\"N\"] or " + std::string(ir::dtype_script_name(type.elem_type())) +
                  "[\"N\", 3]; or call '" + def.name + "' from a model whose inputs have shapes");
        env_[p.name] = SVal::poison();
        continue;
      }
    } else if (p.type.kind == TypeInfo::Kind::kTensor && p.type.dtype != ir::DataType::Undefined) {
      // Function inputs keep only the element type: callers bring the shape.
      type = ir::Type::tensor(p.type.dtype);
    } else if (p.type.kind == TypeInfo::Kind::kSequence && p.type.items.size() == 1 &&
               p.type.items[0].kind == TypeInfo::Kind::kTensor) {
      // A sequence input stays a sequence (an eager call takes a list of
      // arrays for it); its elements keep only their element type.
      type = ir::Type::sequence(ir::Type::tensor(p.type.items[0].dtype));
    }
    std::string onnx_name = p.name;
    if (mode_ == Mode::kMain) {
      if (auto it = fn_->io_names.find(p.name); it != fn_->io_names.end()) onnx_name = it->second;
    }
    env_[p.name] = SVal::tensor(add_input(*b_, onnx_name, std::move(type)));
  }
  ctx_ = Context{};
  ctx_.span = def.name_span;
  ctx_.name = def.name;
  Cont top{&def.body, 0, nullptr};
  PathEnd end = run(&top);
  std::vector<Var> outs = finish_function(std::move(end), def.name_span);
  if (c_.diags.error_count() != errors_before || outs.empty()) return false;

  // Outputs, typed from the return annotation in the model's graph.
  std::vector<TypeInfo> ret_types;
  if (sig.returns) {
    if (sig.returns->kind == TypeInfo::Kind::kTuple) {
      ret_types = sig.returns->items;
    } else {
      ret_types.push_back(*sig.returns);
    }
    if (ret_types.size() != outs.size() && sig.returns->kind == TypeInfo::Kind::kTuple) {
      error(code::kBadAnnotation, def.returns->span,
            "the return annotation names " + std::to_string(ret_types.size()) + " values, but '" +
                def.name + "' returns " + std::to_string(outs.size()));
      return false;
    }
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    std::string oname = k < output_names_.size() ? output_names_[k] : "";
    if (mode_ == Mode::kMain) {
      if (auto it = fn_->io_names.find(oname); it != fn_->io_names.end()) oname = it->second;
    }
    // An input returned as is, or a value returned twice, is copied
    // (onnxscript does the same): a graph output needs its own name.
    bool repeated = false;
    for (size_t j = 0; j < k; ++j) repeated = repeated || outs[j].same(outs[k]);
    if (repeated || !outs[k].value()->producer()) {
      Var copy = emit1("Identity", {outs[k]}, {}, def.name_span,
                       oname.empty() || oname == outs[k].name() ? "" : oname);
      if (!copy) return false;
      outs[k] = copy;
      if (oname == outs[k].name()) oname.clear();
    }
    try {
      const bool taken =
          !oname.empty() && outs[k].name() != oname && b_->graph().names().has_value(oname);
      b_->output(outs[k], taken ? "" : oname);
    } catch (const Error& e) {
      error(code::kInvalidNode, def.name_span, e.message());
      return false;
    }
    ir::Value* out = b_->graph().outputs().back();
    if (k < ret_types.size() &&
        (mode_ == Mode::kMain || ret_types[k].dtype != ir::DataType::Undefined)) {
      ir::Type want = ret_types[k].to_ir();
      if (mode_ == Mode::kFunction && want.is_tensor()) want = ir::Type::tensor(want.elem_type());
      if (!want.is_none()) {
        try {
          out->set_type(infer::merge_types(want, out->type(), "output '" + out->name() + "'"));
        } catch (const Error& e) {
          error(code::kBadAnnotation, def.returns ? def.returns->span : def.name_span,
                "the return annotation does not match the value returned: " + e.message());
          return false;
        }
      }
    }
    if (mode_ == Mode::kMain &&
        (out->type().is_none() ||
         (out->type().is_tensor() &&
          (out->type().elem_type() == ir::DataType::Undefined || !out->type().shape())))) {
      error(code::kBadEntry, def.returns ? def.returns->span : def.name_span,
            "the type (with rank) of output " + std::to_string(k) + " of the model is not known",
            "annotate the return type with its dims, e.g. -> FLOAT[\"N\"]");
      return false;
    }
  }
  return true;
}

std::vector<Var> FunctionConverter::finish_function(PathEnd end, Span span) {
  if (end.failed) return {};
  switch (end.kind) {
    case EndKind::kDone: {
      std::vector<Var> out;
      for (const SVal& v : end.values) out.push_back(v.var);
      return out;
    }
    case EndKind::kReturn: {
      if (end.values.empty()) {
        error(code::kMissingReturn, end.span, "'" + ctx_.name + "' returns no value",
              "an ONNX function needs at least one output: return a tensor");
        return {};
      }
      std::vector<Var> out;
      bool ok = true;
      for (const SVal& v : end.values) {
        auto t = to_tensor(v, end.span);
        if (!t) {
          ok = false;
          continue;
        }
        out.push_back(*t);
      }
      if (!ok) return {};
      return out;
    }
    case EndKind::kFallThrough:
      if (!c_.budget_reported) {
        error(code::kMissingReturn, span,
              "'" + ctx_.name + "' does not return a value on every path",
              "add a return at the end of the function (or in the branch that lacks one)");
      }
      return {};
    default:
      return {};  // break/continue outside a loop: reported where they are
  }
}

std::vector<Var> FunctionConverter::finish_path(PathEnd end, Span span) {
  if (!ctx_.is_loop) return finish_function(std::move(end), span);
  if (end.failed) return {};
  if (end.kind == EndKind::kDone) {
    std::vector<Var> out;
    for (const SVal& v : end.values) out.push_back(v.var);
    return out;
  }
  if (end.kind == EndKind::kReturn) {
    error(code::kUnsupportedFeature, end.span, "return inside a loop is not supported",
          "assign the result to a variable, break, and return it after the loop");
    return {};
  }
  std::vector<Var> out;
  std::optional<Var> cond;
  if (end.kind == EndKind::kBreak) {
    cond = constant(PyValue::of_bool(false), ir::DataType::Bool, end.span);
  } else if (ctx_.is_while) {
    SVal t = eval(*ctx_.while_test);
    if (t.kind == SVal::Kind::kPy) {
      cond = constant(PyValue::of_bool(t.py.truthy()), ir::DataType::Bool, ctx_.while_test->span);
    } else {
      cond = to_condition(t, ctx_.while_test->span);
    }
  } else {
    cond = constant(PyValue::of_bool(true), ir::DataType::Bool, span);
  }
  if (!cond || !*cond) return {};
  out.push_back(*cond);
  for (const std::string& n : ctx_.carried) {
    auto it = env_.find(n);
    if (it == env_.end()) {
      error(code::kUndefinedOnSomePath, span,
            "'" + n + "' has no value at the end of this loop iteration (it was deleted)");
      return {};
    }
    auto t = to_tensor(it->second, span);
    if (!t) return {};
    out.push_back(*t);
  }
  return out;
}

FunctionConverter::PathEnd FunctionConverter::run(const Cont* start) {
  const Body* body = start->body;
  size_t i = start->index;
  const Cont* next = start->next;
  while (true) {
    if (i >= body->size()) {
      if (!next) return PathEnd{};
      body = next->body;
      i = next->index;
      next = next->next;
      continue;
    }
    const Stmt& s = *(*body)[i];
    ++i;
    if (!c_.spend(s.span, 1)) {
      PathEnd p;
      p.failed = true;
      return p;
    }
    switch (s.kind) {
      case StmtKind::kReturn: {
        PathEnd p;
        p.kind = EndKind::kReturn;
        p.span = s.span;
        const Expr* v = s.as<Return>().value;
        if (v) {
          SVal r = eval(*v, 0, "");
          if (r.is_poison()) {
            p.failed = true;
            return p;
          }
          if (r.kind == SVal::Kind::kTuple) {
            p.values = r.items;
          } else if (r.kind == SVal::Kind::kPy && r.py.kind == PyValue::Kind::kTuple) {
            for (auto& x : r.py.items) p.values.push_back(SVal::of(x));
          } else {
            p.values.push_back(r);
          }
          // Output names: the returned variables' names.
          if (!ctx_.is_loop && depth_ == 0 && output_names_.empty()) {
            std::vector<const Expr*> es;
            if (const auto* t = v->dyn<Tuple>()) {
              for (const Expr* x : t->elts) es.push_back(x);
            } else {
              es.push_back(v);
            }
            for (const Expr* x : es) {
              const auto* n = x->dyn<Name>();
              output_names_.push_back(n ? n->id : "");
            }
          }
        }
        return p;
      }
      case StmtKind::kBreak:
      case StmtKind::kContinue: {
        if (!ctx_.is_loop) {
          error(code::kUnsupportedFeature, s.span,
                std::string("'") + (s.kind == StmtKind::kBreak ? "break" : "continue") +
                    "' outside a loop");
          continue;
        }
        PathEnd p;
        p.kind = s.kind == StmtKind::kBreak ? EndKind::kBreak : EndKind::kContinue;
        p.span = s.span;
        return p;
      }
      case StmtKind::kIf: {
        const auto& f = s.as<If>();
        SVal cond = eval(*f.test);
        if (cond.is_poison()) {
          poison_assigned(f.body);
          poison_assigned(f.orelse);
          if (c_.liveness.may_return(s) && !ctx_.is_loop) {
            PathEnd p;
            p.failed = true;
            return p;
          }
          continue;
        }
        if (cond.kind == SVal::Kind::kPy) {
          // Known while compiling: only the branch taken exists.
          const Body& chosen = cond.py.truthy() ? f.body : f.orelse;
          const Cont& rest = conts_.emplace_back(Cont{body, i, next});
          body = &chosen;
          i = 0;
          next = &rest;
          continue;
        }
        bool exits = ctx_.is_loop ? c_.liveness.may_break(s) : c_.liveness.may_return(s);
        if (exits) {
          const Cont& rest = conts_.emplace_back(Cont{body, i, next});
          return convert_if_exit(f, cond, &rest);
        }
        convert_if_plain(f, cond);
        continue;
      }
      case StmtKind::kFor:
        convert_for(s.as<For>());
        continue;
      case StmtKind::kWhile:
        convert_while(s.as<While>());
        continue;
      case StmtKind::kFunctionDef: {
        const auto& d = s.as<FunctionDef>();
        SVal v = SVal::named(SVal::Kind::kFunction, d.name);
        v.def = &d;
        env_[d.name] = v;
        continue;
      }
      case StmtKind::kPass:
        continue;
      default:
        convert_simple(s);
        continue;
    }
  }
}

void FunctionConverter::assign_name(const std::string& name, SVal v) {
  deleted_.erase(name);
  env_[name] = std::move(v);
}

void FunctionConverter::assign(const Expr& target, SVal v, Span span) {
  switch (target.kind) {
    case ExprKind::kName:
      assign_name(target.as<Name>().id, std::move(v));
      return;
    case ExprKind::kTuple:
    case ExprKind::kList: {
      const auto& elts =
          target.kind == ExprKind::kTuple ? target.as<Tuple>().elts : target.as<List>().elts;
      if (v.is_poison()) {
        for (const Expr* t : elts) assign(*t, SVal::poison(), span);
        return;
      }
      std::vector<SVal> items;
      if (v.kind == SVal::Kind::kTuple) {
        items = v.items;
      } else if (v.kind == SVal::Kind::kPy && v.py.is_sequence()) {
        for (auto& x : v.py.items) items.push_back(SVal::of(x));
      } else {
        error(code::kUnpackMismatch, span,
              "cannot unpack " + v.describe() + " into " + std::to_string(elts.size()) + " names",
              "only multi-output ops, script functions returning several values and tuples unpack");
        for (const Expr* t : elts) assign(*t, SVal::poison(), span);
        return;
      }
      if (items.size() != elts.size()) {
        error(code::kUnpackMismatch, span,
              "cannot unpack " + std::to_string(items.size()) + " values into " +
                  std::to_string(elts.size()) + " names");
        for (const Expr* t : elts) assign(*t, SVal::poison(), span);
        return;
      }
      for (size_t k = 0; k < elts.size(); ++k) assign(*elts[k], std::move(items[k]), span);
      return;
    }
    case ExprKind::kSubscript:
      error(code::kUnsupportedFeature, target.span,
            "assigning to a subscript has no ONNX meaning: tensors are immutable",
            "build a new tensor, e.g. x = op.ScatterND(x, indices, updates) or op.Concat");
      return;
    case ExprKind::kAttribute:
      error(code::kNoOnnxMeaning, target.span, "assigning to an attribute has no ONNX meaning",
            "assign to a plain name");
      return;
    default:
      error(code::kUnsupportedFeature, target.span, "this assignment target is not supported",
            "assign to a name or a tuple of names");
      return;
  }
}

void FunctionConverter::convert_simple(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::kAssign: {
      const auto& a = s.as<Assign>();
      size_t nout = 0;
      std::string name;
      if (a.targets.size() == 1) {
        const Expr* t = a.targets[0];
        if (const auto* tu = t->dyn<Tuple>()) nout = tu->elts.size();
        if (const auto* li = t->dyn<List>()) nout = li->elts.size();
        if (const auto* n = t->dyn<Name>()) name = n->id;
      }
      SVal v = eval(*a.value, nout, name);
      // Multi-output values are named after their targets.
      for (const Expr* t : a.targets) assign(*t, v, s.span);
      return;
    }
    case StmtKind::kAugAssign: {
      const auto& a = s.as<AugAssign>();
      const auto* n = a.target->dyn<Name>();
      if (!n) {
        error(code::kUnsupportedFeature, a.target->span,
              "augmented assignment to this target is not supported: tensors are immutable",
              "write name = name + value");
        return;
      }
      SVal cur = eval_name(*n);
      SVal rhs = eval(*a.value);
      assign_name(n->id, binop(a.op, cur, rhs, s.span, s.span, n->id));
      return;
    }
    case StmtKind::kAnnAssign: {
      const auto& a = s.as<AnnAssign>();
      if (!a.value) return;  // a declaration only
      std::string name = a.target->kind == ExprKind::kName ? a.target->as<Name>().id : "";
      assign(*a.target, eval(*a.value, 0, name), s.span);
      return;
    }
    case StmtKind::kExpr: {
      const Expr* v = s.as<ExprStmt>().value;
      if (const auto* k = v->dyn<Constant>(); k && k->value_kind == ConstantKind::kStr) return;
      if (const auto* k = v->dyn<Constant>(); k && k->value_kind == ConstantKind::kEllipsis) return;
      eval(*v);
      return;
    }
    case StmtKind::kDelete:
      for (const Expr* t : s.as<Delete>().targets) {
        const auto* n = t->dyn<Name>();
        if (!n) {
          error(code::kUnsupportedFeature, t->span, "only names can be deleted in a script",
                "del a name: del x");
          continue;
        }
        if (!env_.count(n->id)) {
          eval_name(*n);  // reports the unbound name
          continue;
        }
        env_.erase(n->id);
        deleted_[n->id] = t->span;
      }
      return;
    case StmtKind::kAssert:
      error(code::kNoOnnxMeaning, s.span, "assert has no ONNX meaning: a graph cannot fail",
            "remove it (check inputs before running the model)");
      return;
    case StmtKind::kRaise:
      error(code::kNoOnnxMeaning, s.span, "raise has no ONNX meaning: a graph cannot fail",
            "remove it; handle the case with an if that returns a value");
      return;
    case StmtKind::kTry:
      error(code::kNoOnnxMeaning, s.span, "try/except has no ONNX meaning: a graph cannot fail",
            "remove the try and keep its body");
      return;
    case StmtKind::kWith:
      error(code::kNoOnnxMeaning, s.span, "with has no ONNX meaning in a script",
            "remove it and keep its body");
      return;
    case StmtKind::kImport:
    case StmtKind::kImportFrom:
      error(code::kUnsupportedFeature, s.span, "imports inside a script function are not supported",
            "move the import to the top of the file");
      return;
    case StmtKind::kGlobal:
    case StmtKind::kNonlocal:
      error(code::kNoOnnxMeaning, s.span,
            "global/nonlocal has no ONNX meaning: a script cannot change outer names",
            "return the value instead");
      return;
    case StmtKind::kClassDef:
      error(code::kNoOnnxMeaning, s.span, "a class inside a script has no ONNX meaning",
            "define classes outside script functions");
      return;
    default:
      error(code::kUnsupportedFeature, s.span,
            std::string("'") + stmt_kind_name(s.kind) + "' is not supported in a script");
      return;
  }
}

}  // namespace oxs::script
