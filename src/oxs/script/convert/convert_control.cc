// Control flow: `if` on a tensor becomes an If node whose outputs are the
// variables assigned in a branch and live after it (or, when a branch may
// return/break, the outputs of the whole function or loop body); `for i in
// range(...)` and `while` become Loop nodes whose carried values are the
// variables the body assigns and needs later; nested defs become graph
// attributes (Loop/Scan/If bodies) that read the enclosing scope.
#include <cmath>

#include "oxs/schema/registry.h"
#include "oxs/script/convert/compiler.h"
#include "oxs/script/convert/convert_codes.h"

namespace oxs::script {

using builder::Var;

namespace {

ir::Type elem_only(const ir::Type& t) {
  if (t.is_tensor() && t.elem_type() != ir::DataType::Undefined) {
    return ir::Type::tensor(t.elem_type());
  }
  return {};
}

ir::Type scalar(ir::DataType dt) {
  return ir::Type::tensor(dt, ir::Shape(std::vector<ir::Dim>{}));
}

// Both branches of an If produce the same types. Where one branch's output
// type is known and the other's is not (an untyped function input passed
// through), the unknown one is that type: say so, so that inference does not
// see a typed and an untyped output and call them mismatched.
void unify_branch_types(ir::Graph& a, ir::Graph& b) {
  size_t n = std::min(a.outputs().size(), b.outputs().size());
  for (size_t k = 0; k < n; ++k) {
    ir::Value* x = a.outputs()[k];
    ir::Value* y = b.outputs()[k];
    if (x->type().is_none() && !y->type().is_none()) {
      x->set_type(y->type().is_tensor() ? elem_only(y->type()) : y->type());
    } else if (y->type().is_none() && !x->type().is_none()) {
      y->set_type(x->type().is_tensor() ? elem_only(x->type()) : x->type());
    }
  }
}

constexpr int kMaxGraphDepth = 31;

// The element type the ops reading `v` give it through their type
// constraints (Add(acc, x) with a float x: float), as onnxscript's autocast
// binds a literal; Undefined when no reader says.
ir::DataType partner_dtype(const ir::Value* v, int64_t opset) {
  for (const ir::Use& u : v->uses()) {
    const ir::Node* n = u.user;
    const schema::OpSignature* sig = schema::lookup(n->domain(), n->op_type(), opset);
    if (!sig || sig->inputs.empty()) continue;
    auto constraint = [&](size_t i) {
      return sig->inputs[std::min(i, sig->inputs.size() - 1)].type_constraint;
    };
    std::string tc = constraint(u.index);
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      const ir::Value* o = n->input(i);
      if (i == u.index || !o || constraint(i) != tc || !o->type().is_tensor()) continue;
      ir::DataType dt = o->type().elem_type();
      if (dt != ir::DataType::Undefined) return dt;
    }
  }
  return ir::DataType::Undefined;
}

}  // namespace

bool FunctionConverter::too_deep(Span span) {
  if (depth_ < kMaxGraphDepth) return false;
  if (!depth_reported_) {
    depth_reported_ = true;
    error(code::kTooComplex, span,
          "control flow nests more than " + std::to_string(kMaxGraphDepth) +
              " graphs deep here; an ONNX file cannot hold deeper nesting (protobuf reads at "
              "most 100 nested messages)",
          "flatten it: compute the conditions first and combine the results with op.Where, or "
          "move inner branches into a @script() function (function bodies start a new level)");
  }
  return true;
}

FunctionConverter::PathEnd FunctionConverter::convert_if_exit(const If& s, const SVal& cond,
                                                              const Cont* rest) {
  PathEnd failed;
  failed.failed = true;
  if (too_deep(s.test->span)) return failed;
  auto c = to_condition(cond, s.test->span);
  if (!c) return failed;
  builder::Builder* outer = b_;
  Env saved = env_;
  auto saved_deleted = deleted_;
  std::vector<Var> outs[2];
  std::unique_ptr<ir::Graph> graphs[2];
  ++depth_;
  for (int k = 0; k < 2; ++k) {
    builder::Builder sub = outer->subgraph(k == 0 ? "then_branch" : "else_branch");
    b_ = &sub;
    Cont cont{k == 0 ? &s.body : &s.orelse, 0, rest};
    PathEnd end = run(&cont);
    outs[k] = finish_path(std::move(end), ctx_.span);
    bool ok = !outs[k].empty();
    for (const Var& v : outs[k]) {
      if (!ok) break;
      try {
        sub.output(v);
      } catch (const Error& e) {
        error(code::kInvalidNode, s.span, e.message());
        ok = false;
      }
    }
    b_ = outer;
    env_ = saved;
    deleted_ = saved_deleted;
    graphs[k] = take_body(sub, ok);
  }
  --depth_;
  if (!graphs[0] || !graphs[1]) return failed;
  unify_branch_types(*graphs[0], *graphs[1]);
  if (outs[0].size() != outs[1].size()) {
    error(code::kUnpackMismatch, s.span,
          std::string(ctx_.is_loop ? "this loop body" : "'" + ctx_.name + "'") + " produces " +
              std::to_string(outs[0].size()) + " value(s) when the condition holds and " +
              std::to_string(outs[1].size()) + " otherwise",
          "return the same number of values on every path");
    return failed;
  }
  std::vector<ir::Attr> attrs;
  attrs.push_back(ir::Attr::of_graph("then_branch", std::move(graphs[0])));
  attrs.push_back(ir::Attr::of_graph("else_branch", std::move(graphs[1])));
  auto res = emit("If", {*c}, std::move(attrs), s.test->span, "", outs[0].size());
  if (res.empty()) return failed;
  PathEnd done;
  done.kind = EndKind::kDone;
  done.span = s.span;
  for (const Var& v : res) done.values.push_back(SVal::tensor(v));
  return done;
}

void FunctionConverter::convert_if_plain(const If& s, const SVal& cond) {
  std::vector<std::string> names;
  NameSet seen;
  assigned_names(s.body, names, seen);
  assigned_names(s.orelse, names, seen);
  const NameSet& live = c_.liveness.live_out(&s);
  std::vector<std::string> live_names;
  for (auto& n : names) {
    if (live.count(n)) live_names.push_back(n);
  }
  auto c = too_deep(s.test->span) ? std::nullopt : to_condition(cond, s.test->span);
  if (!c) {
    poison_assigned(s.body);
    poison_assigned(s.orelse);
    return;
  }
  builder::Builder* outer = b_;
  Env saved = env_;
  auto saved_deleted = deleted_;
  builder::Builder then_b = outer->subgraph("then_branch");
  builder::Builder else_b = outer->subgraph("else_branch");
  builder::Builder* subs[2] = {&then_b, &else_b};
  Env envs[2];
  bool ok = true;
  ++depth_;
  for (int k = 0; k < 2; ++k) {
    b_ = subs[k];
    Cont cont{k == 0 ? &s.body : &s.orelse, 0, nullptr};
    PathEnd end = run(&cont);
    if (end.failed) ok = false;
    if (end.kind == EndKind::kReturn && ctx_.is_loop) {
      error(code::kUnsupportedFeature, end.span, "return inside a loop is not supported",
            "assign the result to a variable, break, and return it after the loop");
      ok = false;
    }
    envs[k] = std::move(env_);
    env_ = saved;
    deleted_ = saved_deleted;
  }
  --depth_;
  b_ = outer;
  std::vector<std::string> out_names;
  std::vector<Var> branch_outs[2];
  for (const std::string& n : live_names) {
    auto t = envs[0].find(n);
    auto e = envs[1].find(n);
    bool in_t = t != envs[0].end(), in_e = e != envs[1].end();
    if (!in_t || !in_e) {
      if (!in_t && !in_e) {
        env_.erase(n);
        continue;
      }
      error(code::kUndefinedOnSomePath, s.span,
            "'" + n + "' is assigned in the " + (in_t ? "if" : "else") +
                " branch but has no value when the " + (in_t ? "else" : "if") +
                " branch runs, and it is used after the if",
            "assign '" + n + "' before the if, or in both branches");
      env_[n] = SVal::poison();
      ok = false;
      continue;
    }
    const SVal& tv = t->second;
    const SVal& ev = e->second;
    if (tv.is_poison() || ev.is_poison()) {
      env_[n] = SVal::poison();
      ok = false;
      continue;
    }
    if (tv.kind == SVal::Kind::kPy && ev.kind == SVal::Kind::kPy && py_equal(tv.py, ev.py)) {
      env_[n] = tv;  // the same Python value either way: no output needed
      continue;
    }
    if (tv.kind == SVal::Kind::kTensor && ev.kind == SVal::Kind::kTensor && tv.var.same(ev.var)) {
      env_[n] = tv;
      continue;
    }
    auto is_none = [](const SVal& v) {
      return v.kind == SVal::Kind::kPy && v.py.kind == PyValue::Kind::kNone;
    };
    if (is_none(tv) != is_none(ev)) {
      error(code::kUndefinedOnSomePath, s.span,
            "'" + n + "' is None when the " + (is_none(tv) ? "if" : "else") +
                " branch runs and a value otherwise, and it is used after the if",
            "ONNX's If gives each output one type in both branches (then_branch and "
            "else_branch must produce the same output types), so a value cannot be absent on one "
            "path: assign a tensor in both branches, or make both optional with op.Optional");
      env_[n] = SVal::poison();
      ok = false;
      continue;
    }
    // Literals take the element type of the other branch's tensor.
    b_ = &then_b;
    auto ot = to_tensor(tv, s.span, Var(),
                        ev.kind == SVal::Kind::kTensor ? ev.var.dtype() : ir::DataType::Undefined);
    b_ = &else_b;
    auto oe = to_tensor(ev, s.span, Var(), ot ? ot->dtype() : ir::DataType::Undefined);
    b_ = outer;
    if (!ot || !oe) {
      env_[n] = SVal::poison();
      ok = false;
      continue;
    }
    out_names.push_back(n);
    branch_outs[0].push_back(*ot);
    branch_outs[1].push_back(*oe);
  }
  for (int k = 0; k < 2 && ok; ++k) {
    for (const Var& v : branch_outs[k]) {
      try {
        subs[k]->output(v);
      } catch (const Error& ex) {
        error(code::kInvalidNode, s.span, ex.message());
        ok = false;
        break;
      }
    }
  }
  bool keep = ok && !out_names.empty();
  auto g0 = take_body(then_b, keep);
  auto g1 = take_body(else_b, keep);
  if (g0 && g1) unify_branch_types(*g0, *g1);
  if (!keep) {
    for (auto& n : out_names) env_[n] = ok ? env_[n] : SVal::poison();
    if (!ok) {
      for (auto& n : out_names) env_[n] = SVal::poison();
    }
    return;
  }
  std::vector<ir::Attr> attrs;
  attrs.push_back(ir::Attr::of_graph("then_branch", std::move(g0)));
  attrs.push_back(ir::Attr::of_graph("else_branch", std::move(g1)));
  auto res = emit("If", {*c}, std::move(attrs), s.test->span,
                  out_names.size() == 1 ? out_names[0] : "", out_names.size(), "", out_names);
  for (size_t k = 0; k < out_names.size(); ++k) {
    env_[out_names[k]] = res.empty() ? SVal::poison() : SVal::tensor(res[k]);
  }
}

void FunctionConverter::convert_for(const For& s) {
  auto fail = [&] { poison_assigned(s.body); };
  const auto* target = s.target->dyn<Name>();
  if (!target) {
    error(code::kUnsupportedFeature, s.target->span, "a for loop needs a single name as its target",
          "write `for i in range(n):`");
    return fail();
  }
  if (!s.orelse.empty()) {
    error(code::kUnsupportedFeature, s.span, "for ... else is not supported",
          "use a flag variable set before break");
    return fail();
  }
  const auto* call = s.iter->dyn<Call>();
  SVal fn = call ? eval(*call->func) : SVal::poison();
  if (!call || fn.kind != SVal::Kind::kBuiltin || fn.name != "range" || call->args.empty() ||
      call->args.size() > 3 || !call->keywords.empty()) {
    if (!call || !fn.is_poison()) {
      error(code::kUnsupportedFeature, s.iter->span,
            "a for loop in a script iterates over range(stop) or range(start, stop[, step])",
            "ONNX Loop needs a trip count: write `for i in range(n):` and index tensors with i");
    }
    return fail();
  }
  std::vector<SVal> args;
  for (const Expr* a : call->args) args.push_back(eval(*a));
  for (auto& a : args) {
    if (a.is_poison()) return fail();
  }
  SVal start = args.size() >= 2 ? args[0] : SVal::of(PyValue::of_int(0));
  SVal stop = args.size() >= 2 ? args[1] : args[0];
  int64_t step = 1;
  if (args.size() == 3) {
    if (args[2].kind != SVal::Kind::kPy || args[2].py.kind != PyValue::Kind::kInt ||
        args[2].py.i == 0) {
      error(code::kUnsupportedFeature, call->args[2]->span,
            "the step of range() must be a nonzero int known while compiling",
            "write e.g. range(0, n, 2)");
      return fail();
    }
    step = args[2].py.i;
  }
  for (const SVal* v : {&start, &stop}) {
    bool ok = v->kind == SVal::Kind::kTensor || v->kind == SVal::Kind::kAttrRef ||
              (v->kind == SVal::Kind::kPy && v->py.kind == PyValue::Kind::kInt);
    if (!ok) {
      error(code::kWrongKindOfValue, s.iter->span,
            "range() takes ints or integer tensors, not " + v->describe());
      return fail();
    }
  }
  std::optional<Var> trip;
  std::optional<PyValue> last_static;
  if (start.kind == SVal::Kind::kPy && stop.kind == SVal::Kind::kPy) {
    // In long double: start, stop and step may each be near the int64 limits.
    long double a = static_cast<long double>(start.py.i), b = static_cast<long double>(stop.py.i);
    long double st = static_cast<long double>(step);
    long double n = st > 0 ? std::ceil((b - a) / st) : std::ceil((a - b) / -st);
    if (n < 0) n = 0;
    if (n > 9.2e18L) n = 9.2e18L;
    trip = constant(PyValue::of_int(static_cast<int64_t>(n)), ir::DataType::Int64, s.iter->span);
    if (n > 0) {
      // As in Python, the variable keeps its last value after the loop.
      long double last = a + (n - 1) * st;
      last_static = PyValue::of_int(static_cast<int64_t>(last));
    }
  } else {
    auto sa = to_tensor(start, s.iter->span, {}, ir::DataType::Int64);
    auto sb = to_tensor(stop, s.iter->span, {}, ir::DataType::Int64);
    if (!sa || !sb) return fail();
    Var a = *sa, b = *sb;
    Var n;
    if (step > 0) {
      Var d = (start.kind == SVal::Kind::kPy && start.py.i == 0)
                  ? b
                  : emit1("Sub", {b, a}, {}, s.iter->span);
      if (d && step != 1) {
        Var p = emit1("Add",
                      {d, constant(PyValue::of_int(step - 1), ir::DataType::Int64, s.iter->span)},
                      {}, s.iter->span);
        n = p ? emit1("Div",
                      {p, constant(PyValue::of_int(step), ir::DataType::Int64, s.iter->span)}, {},
                      s.iter->span)
              : Var();
      } else {
        n = d;
      }
    } else {
      Var d = emit1("Sub", {a, b}, {}, s.iter->span);
      Var p =
          d ? emit1("Add",
                    {d, constant(PyValue::of_int(-step - 1), ir::DataType::Int64, s.iter->span)},
                    {}, s.iter->span)
            : Var();
      n = p ? emit1("Div", {p, constant(PyValue::of_int(-step), ir::DataType::Int64, s.iter->span)},
                    {}, s.iter->span)
            : Var();
    }
    if (!n) return fail();
    trip = n;
  }
  if (!trip || !*trip) return fail();
  convert_loop(s, s.body, trip, nullptr, target->id, start, step, last_static.has_value());
  if (last_static) assign_name(target->id, SVal::of(*last_static));
}

void FunctionConverter::convert_while(const While& s) {
  if (!s.orelse.empty()) {
    error(code::kUnsupportedFeature, s.span, "while ... else is not supported",
          "use a flag variable set before break");
    poison_assigned(s.body);
    return;
  }
  SVal cond = eval(*s.test);
  if (cond.is_poison()) {
    poison_assigned(s.body);
    return;
  }
  if (cond.kind == SVal::Kind::kPy && !cond.py.truthy()) return;  // never runs
  convert_loop(s, s.body, std::nullopt, &cond, "", SVal::of(PyValue::of_int(0)), 1, true);
}

void FunctionConverter::convert_loop(const Stmt& s, const Body& body, std::optional<Var> trip,
                                     const SVal* cond, const std::string& target, const SVal& start,
                                     int64_t step, bool target_known_after) {
  const bool is_while = cond != nullptr;
  std::vector<std::string> names;
  NameSet seen;
  assigned_names(body, names, seen);
  const NameSet& in_body = c_.liveness.live_in_body(&s);
  const NameSet& after = c_.liveness.live_out(&s);
  std::vector<std::string> carried;
  for (auto& n : names) {
    if (n == target) continue;
    if (in_body.count(n) || after.count(n)) carried.push_back(n);
  }
  if (!target.empty() && !target_known_after && after.count(target)) {
    // The variable is read after the loop: carry its last value out (when
    // the loop runs zero times it keeps its value from before, or `start`).
    carried.push_back(target);
    if (!env_.count(target) || env_[target].is_poison()) env_[target] = start;
  }
  bool ok = true;
  std::vector<Var> inits;
  // Carried Python numbers take the type the body gives them (acc = 0 then
  // acc = acc + x): their constants are made after the body is converted.
  std::vector<std::optional<PyValue>> deferred(carried.size());
  size_t slot = 0;
  for (auto& n : carried) {
    size_t k = slot++;
    auto it = env_.find(n);
    if (it == env_.end()) {
      error(code::kUndefinedOnSomePath, s.span,
            "'" + n + "' is assigned in this loop but has no value before it",
            "initialize it before the loop (the loop may run zero times), e.g. " + n +
                " = op.Constant(value_float=0.0)");
      ok = false;
      continue;
    }
    if (it->second.is_poison()) {
      ok = false;
      continue;
    }
    if (it->second.kind == SVal::Kind::kPy &&
        (it->second.py.is_number() || it->second.py.is_sequence())) {
      deferred[k] = it->second.py;
      inits.emplace_back();
      continue;
    }
    auto t = to_tensor(it->second, s.span);
    if (!t) {
      ok = false;
      continue;
    }
    inits.push_back(*t);
  }
  if (!ok || too_deep(s.span)) {
    poison_assigned(body);
    return;
  }
  bool breaks = false;
  for (const Stmt* x : body) breaks = breaks || c_.liveness.may_break(*x);
  std::optional<Var> cond_init;
  if (is_while) {
    cond_init = cond->kind == SVal::Kind::kPy
                    ? constant(PyValue::of_bool(true), ir::DataType::Bool, s.span)
                    : to_condition(*cond, s.span);
    if (!cond_init || !*cond_init) {
      poison_assigned(body);
      return;
    }
  } else if (breaks) {
    cond_init = constant(PyValue::of_bool(true), ir::DataType::Bool, s.span);
  }

  builder::Builder* outer = b_;
  Env saved = env_;
  auto saved_deleted = deleted_;
  Context saved_ctx = ctx_;
  builder::Builder sub = outer->subgraph("loop_body");
  b_ = &sub;
  Var iter =
      add_input(sub, target.empty() ? "iter" : target + "_iter", scalar(ir::DataType::Int64));
  add_input(sub, "cond_in", scalar(ir::DataType::Bool));
  std::vector<Var> body_inputs;
  for (size_t k = 0; k < carried.size(); ++k) {
    body_inputs.push_back(
        add_input(sub, carried[k], deferred[k] ? ir::Type() : elem_only(inits[k].type())));
    env_[carried[k]] = SVal::tensor(body_inputs.back());
  }
  if (!target.empty()) {
    SVal iv = SVal::tensor(iter);
    if (step != 1) {
      iv = binop(BinOpKind::kMult, iv, SVal::of(PyValue::of_int(step)), s.span, s.span, "");
    }
    if (!(start.kind == SVal::Kind::kPy && start.py.i == 0)) {
      iv = binop(BinOpKind::kAdd, iv, start, s.span, s.span, target);
    }
    env_[target] = iv;
  }
  ctx_ = Context{};
  ctx_.is_loop = true;
  ctx_.is_while = is_while;
  ctx_.while_test = is_while ? s.as<While>().test : nullptr;
  ctx_.carried = carried;
  ctx_.span = s.span;
  ctx_.name = saved_ctx.name;
  ++depth_;
  Cont cont{&body, 0, nullptr};
  PathEnd end = run(&cont);
  std::vector<Var> outs = finish_path(std::move(end), s.span);
  --depth_;
  ctx_ = saved_ctx;
  env_ = saved;
  deleted_ = saved_deleted;
  b_ = outer;
  bool keep = !outs.empty();
  for (const Var& v : outs) {
    if (!keep) break;
    try {
      sub.output(v);
    } catch (const Error& e) {
      error(code::kInvalidNode, s.span, e.message());
      keep = false;
    }
  }
  keep = keep && !carried.empty();
  for (size_t k = 0; k < carried.size() && keep; ++k) {
    if (!deferred[k]) continue;
    ir::DataType dt = outs[k + 1].dtype();
    if (dt == ir::DataType::Undefined) dt = partner_dtype(body_inputs[k].value(), op_.version);
    bool numeric = dt != ir::DataType::Undefined && dt != ir::DataType::String;
    inits[k] = constant(*deferred[k], numeric ? dt : ir::DataType::Undefined, s.span);
    if (!inits[k]) {
      keep = false;
      break;
    }
    body_inputs[k].value()->set_type(elem_only(inits[k].type()));
  }
  auto g = take_body(sub, keep);
  if (!g) {
    if (outs.empty()) poison_assigned(body);
    return;  // a loop whose values nobody reads has no effect
  }
  std::vector<Var> inputs;
  inputs.push_back(trip ? *trip : Var());
  inputs.push_back(cond_init ? *cond_init : Var());
  for (auto& v : inits) inputs.push_back(v);
  std::vector<ir::Attr> attrs;
  attrs.push_back(ir::Attr::of_graph("body", std::move(g)));
  auto res = emit("Loop", std::move(inputs), std::move(attrs), s.span,
                  carried.size() == 1 ? carried[0] : "", carried.size(), "", carried);
  for (size_t k = 0; k < carried.size(); ++k) {
    env_[carried[k]] = res.empty() ? SVal::poison() : SVal::tensor(res[k]);
  }
}

std::unique_ptr<ir::Graph> FunctionConverter::graph_attr(const SVal& v, const Expr& value_expr,
                                                         const std::string& op,
                                                         const std::string& attr_name,
                                                         const std::vector<Var>& inputs) {
  if (v.kind != SVal::Kind::kFunction || !v.def) {
    if (!v.is_poison()) {
      error(code::kAttributeTypeMismatch, value_expr.span,
            "attribute '" + attr_name + "' of " + op + " takes a graph (a nested def), got " +
                v.describe(),
            "define the body with def inside the function and pass its name");
    }
    return nullptr;
  }
  const FunctionDef& d = *v.def;
  if (too_deep(value_expr.span)) return nullptr;
  c_.liveness.analyze(d);
  FunctionConverter stat(c_, nullptr, nullptr, Mode::kStatic);
  builder::Builder* outer = b_;
  Env saved = env_;
  auto saved_deleted = deleted_;
  Context saved_ctx = ctx_;
  auto saved_names = output_names_;
  builder::Builder sub = outer->subgraph(d.name);
  bool ok = true;
  for (size_t k = 0; k < d.params.size(); ++k) {
    const Param& p = d.params[k];
    ir::Type type;
    if (p.annotation) {
      auto t = c_.type_of(stat.eval(*p.annotation), p.annotation->span);
      if (!t)
        ok = false;
      else
        type = t->to_ir();
    } else if (op == "Loop") {
      if (k == 0)
        type = scalar(ir::DataType::Int64);
      else if (k == 1)
        type = scalar(ir::DataType::Bool);
      else if (k < inputs.size() && inputs[k])
        type = elem_only(inputs[k].type());
    } else if (op == "Scan" || op == "SequenceMap") {
      if (k < inputs.size() && inputs[k]) type = elem_only(inputs[k].type());
    }
    env_[p.name] = SVal::tensor(add_input(sub, p.name, std::move(type)));
  }
  b_ = &sub;
  ctx_ = Context{};
  ctx_.span = d.name_span;
  ctx_.name = d.name;
  ++depth_;
  std::vector<Var> outs;
  if (ok) {
    Cont cont{&d.body, 0, nullptr};
    PathEnd end = run(&cont);
    outs = finish_function(std::move(end), d.name_span);
  }
  --depth_;
  b_ = outer;
  env_ = saved;
  deleted_ = saved_deleted;
  ctx_ = saved_ctx;
  output_names_ = saved_names;
  bool keep = !outs.empty();
  for (const Var& o : outs) {
    if (!keep) break;
    try {
      sub.output(o);
    } catch (const Error& e) {
      error(code::kInvalidNode, value_expr.span, e.message());
      keep = false;
    }
  }
  return take_body(sub, keep);
}

}  // namespace oxs::script
