#include "oxs/script/convert/liveness.h"

namespace oxs::script {

namespace {

void used_in_body(const Body& body, NameSet& out);

void used_in_stmt(const Stmt& s, NameSet& out) {
  // Every name read anywhere in `s` (used for the free names of nested defs).
  switch (s.kind) {
    case StmtKind::kFunctionDef: {
      const auto& f = s.as<FunctionDef>();
      for (const Param& p : f.params) {
        if (p.default_value) used_names(*p.default_value, out);
      }
      used_in_body(f.body, out);
      break;
    }
    case StmtKind::kReturn:
      if (s.as<Return>().value) used_names(*s.as<Return>().value, out);
      break;
    case StmtKind::kAssign:
      for (const Expr* t : s.as<Assign>().targets) used_names(*t, out);
      used_names(*s.as<Assign>().value, out);
      break;
    case StmtKind::kAugAssign:
      used_names(*s.as<AugAssign>().target, out);
      used_names(*s.as<AugAssign>().value, out);
      break;
    case StmtKind::kAnnAssign:
      if (s.as<AnnAssign>().value) used_names(*s.as<AnnAssign>().value, out);
      break;
    case StmtKind::kExpr:
      used_names(*s.as<ExprStmt>().value, out);
      break;
    case StmtKind::kIf:
      used_names(*s.as<If>().test, out);
      used_in_body(s.as<If>().body, out);
      used_in_body(s.as<If>().orelse, out);
      break;
    case StmtKind::kFor:
      used_names(*s.as<For>().iter, out);
      used_in_body(s.as<For>().body, out);
      used_in_body(s.as<For>().orelse, out);
      break;
    case StmtKind::kWhile:
      used_names(*s.as<While>().test, out);
      used_in_body(s.as<While>().body, out);
      used_in_body(s.as<While>().orelse, out);
      break;
    default:
      break;
  }
}

void used_in_body(const Body& body, NameSet& out) {
  for (const Stmt* s : body) used_in_stmt(*s, out);
}

void remove_targets(const Expr& target, NameSet& live) {
  std::vector<std::string> names;
  target_names(target, names);
  for (const auto& n : names) live.erase(n);
}

// Names read by a target (subscripts and attributes: `x[i] = v` reads x, i).
void target_uses(const Expr& target, NameSet& out) {
  switch (target.kind) {
    case ExprKind::kName:
      break;
    case ExprKind::kTuple:
      for (const Expr* e : target.as<Tuple>().elts) target_uses(*e, out);
      break;
    case ExprKind::kList:
      for (const Expr* e : target.as<List>().elts) target_uses(*e, out);
      break;
    case ExprKind::kStarred:
      target_uses(*target.as<Starred>().value, out);
      break;
    default:
      used_names(target, out);
  }
}

}  // namespace

void used_names(const Expr& e, NameSet& out) {
  switch (e.kind) {
    case ExprKind::kName:
      out.insert(e.as<Name>().id);
      return;
    case ExprKind::kBoolOp:
      for (const Expr* x : e.as<BoolOp>().values) used_names(*x, out);
      return;
    case ExprKind::kNamedExpr:
      used_names(*e.as<NamedExpr>().value, out);
      return;
    case ExprKind::kBinOp:
      used_names(*e.as<BinOp>().left, out);
      used_names(*e.as<BinOp>().right, out);
      return;
    case ExprKind::kUnaryOp:
      used_names(*e.as<UnaryOp>().operand, out);
      return;
    case ExprKind::kLambda:
      used_names(*e.as<Lambda>().body, out);
      return;
    case ExprKind::kIfExp:
      used_names(*e.as<IfExp>().test, out);
      used_names(*e.as<IfExp>().body, out);
      used_names(*e.as<IfExp>().orelse, out);
      return;
    case ExprKind::kDict:
      for (const Expr* x : e.as<Dict>().keys) {
        if (x) used_names(*x, out);
      }
      for (const Expr* x : e.as<Dict>().values) used_names(*x, out);
      return;
    case ExprKind::kSet:
      for (const Expr* x : e.as<Set>().elts) used_names(*x, out);
      return;
    case ExprKind::kListComp:
    case ExprKind::kSetComp:
    case ExprKind::kDictComp:
    case ExprKind::kGeneratorExp: {
      const auto& c = static_cast<const Comp&>(e);
      if (c.elt) used_names(*c.elt, out);
      if (c.value) used_names(*c.value, out);
      for (const auto& g : c.generators) {
        used_names(*g.iter, out);
        for (const Expr* x : g.ifs) used_names(*x, out);
      }
      return;
    }
    case ExprKind::kAwait:
      used_names(*e.as<Await>().value, out);
      return;
    case ExprKind::kYield:
    case ExprKind::kYieldFrom:
      if (static_cast<const Yield&>(e).value) used_names(*static_cast<const Yield&>(e).value, out);
      return;
    case ExprKind::kCompare:
      used_names(*e.as<Compare>().left, out);
      for (const Expr* x : e.as<Compare>().comparators) used_names(*x, out);
      return;
    case ExprKind::kCall:
      used_names(*e.as<Call>().func, out);
      for (const Expr* x : e.as<Call>().args) used_names(*x, out);
      for (const Keyword& k : e.as<Call>().keywords) used_names(*k.value, out);
      return;
    case ExprKind::kConstant:
      return;
    case ExprKind::kAttribute:
      used_names(*e.as<Attribute>().value, out);
      return;
    case ExprKind::kSubscript:
      used_names(*e.as<Subscript>().value, out);
      used_names(*e.as<Subscript>().slice, out);
      return;
    case ExprKind::kStarred:
      used_names(*e.as<Starred>().value, out);
      return;
    case ExprKind::kList:
      for (const Expr* x : e.as<List>().elts) used_names(*x, out);
      return;
    case ExprKind::kTuple:
      for (const Expr* x : e.as<Tuple>().elts) used_names(*x, out);
      return;
    case ExprKind::kSlice:
      if (e.as<Slice>().lower) used_names(*e.as<Slice>().lower, out);
      if (e.as<Slice>().upper) used_names(*e.as<Slice>().upper, out);
      if (e.as<Slice>().step) used_names(*e.as<Slice>().step, out);
      return;
  }
}

void target_names(const Expr& target, std::vector<std::string>& out) {
  switch (target.kind) {
    case ExprKind::kName:
      out.push_back(target.as<Name>().id);
      break;
    case ExprKind::kTuple:
      for (const Expr* e : target.as<Tuple>().elts) target_names(*e, out);
      break;
    case ExprKind::kList:
      for (const Expr* e : target.as<List>().elts) target_names(*e, out);
      break;
    case ExprKind::kStarred:
      target_names(*target.as<Starred>().value, out);
      break;
    default:
      break;
  }
}

void assigned_names(const Body& body, std::vector<std::string>& out, NameSet& seen) {
  auto add = [&](const Expr& t) {
    std::vector<std::string> names;
    target_names(t, names);
    for (auto& n : names) {
      if (seen.insert(n).second) out.push_back(n);
    }
  };
  for (const Stmt* s : body) {
    switch (s->kind) {
      case StmtKind::kAssign:
        for (const Expr* t : s->as<Assign>().targets) add(*t);
        break;
      case StmtKind::kAugAssign:
        add(*s->as<AugAssign>().target);
        break;
      case StmtKind::kAnnAssign:
        if (s->as<AnnAssign>().value) add(*s->as<AnnAssign>().target);
        break;
      case StmtKind::kFunctionDef:
        if (seen.insert(s->as<FunctionDef>().name).second) out.push_back(s->as<FunctionDef>().name);
        break;
      case StmtKind::kIf:
        assigned_names(s->as<If>().body, out, seen);
        assigned_names(s->as<If>().orelse, out, seen);
        break;
      case StmtKind::kFor:
        add(*s->as<For>().target);
        assigned_names(s->as<For>().body, out, seen);
        break;
      case StmtKind::kWhile:
        assigned_names(s->as<While>().body, out, seen);
        break;
      default:
        break;
    }
  }
}

void Liveness::analyze(const FunctionDef& f) {
  if (!done_.emplace(&f, true).second) return;
  block(f.body, {}, nullptr);
}

const NameSet& Liveness::live_out(const Stmt* s) const {
  auto it = live_out_.find(s);
  return it == live_out_.end() ? empty_ : it->second;
}

const NameSet& Liveness::live_in_body(const Stmt* s) const {
  auto it = live_in_body_.find(s);
  return it == live_in_body_.end() ? empty_ : it->second;
}

NameSet Liveness::block(const Body& body, NameSet live, const LoopFrame* loop) {
  for (size_t i = body.size(); i-- > 0;) live = stmt(*body[i], std::move(live), loop);
  return live;
}

NameSet Liveness::stmt(const Stmt& s, NameSet live, const LoopFrame* loop) {
  switch (s.kind) {
    case StmtKind::kAssign: {
      const auto& a = s.as<Assign>();
      for (const Expr* t : a.targets) remove_targets(*t, live);
      for (const Expr* t : a.targets) target_uses(*t, live);
      used_names(*a.value, live);
      return live;
    }
    case StmtKind::kAugAssign:
      used_names(*s.as<AugAssign>().target, live);
      used_names(*s.as<AugAssign>().value, live);
      return live;
    case StmtKind::kAnnAssign: {
      const auto& a = s.as<AnnAssign>();
      if (a.value) {
        remove_targets(*a.target, live);
        used_names(*a.value, live);
      }
      return live;
    }
    case StmtKind::kExpr:
      used_names(*s.as<ExprStmt>().value, live);
      return live;
    case StmtKind::kReturn: {
      NameSet out;
      if (s.as<Return>().value) used_names(*s.as<Return>().value, out);
      return out;
    }
    case StmtKind::kDelete:
      for (const Expr* t : s.as<Delete>().targets) remove_targets(*t, live);
      return live;
    case StmtKind::kBreak:
      return loop ? *loop->after : live;
    case StmtKind::kContinue:
      return loop ? *loop->head : live;
    case StmtKind::kFunctionDef: {
      live.erase(s.as<FunctionDef>().name);
      used_in_stmt(s, live);  // a nested def captures what it reads
      return live;
    }
    case StmtKind::kIf: {
      const auto& i = s.as<If>();
      live_out_[&s].insert(live.begin(), live.end());
      NameSet a = block(i.body, live, loop);
      NameSet b = block(i.orelse, std::move(live), loop);
      a.insert(b.begin(), b.end());
      used_names(*i.test, a);
      return a;
    }
    case StmtKind::kFor:
    case StmtKind::kWhile: {
      const bool is_for = s.kind == StmtKind::kFor;
      const Body& body = is_for ? s.as<For>().body : s.as<While>().body;
      live_out_[&s].insert(live.begin(), live.end());
      NameSet after = live;
      NameSet head = live;
      if (!is_for) used_names(*s.as<While>().test, head);
      NameSet in_body;
      // Iterate to a fixed point: what the body needs at its start is live at
      // the loop head on the next iteration. Sets only grow, so this ends.
      for (int round = 0; round < 64; ++round) {
        LoopFrame frame{&after, &head};
        in_body = block(body, head, &frame);
        NameSet next = after;
        if (!is_for) used_names(*s.as<While>().test, next);
        NameSet body_needs = in_body;
        if (is_for) remove_targets(*s.as<For>().target, body_needs);
        next.insert(body_needs.begin(), body_needs.end());
        if (next == head) break;
        head = std::move(next);
      }
      live_in_body_[&s].insert(in_body.begin(), in_body.end());
      NameSet before = head;
      if (is_for) {
        used_names(*s.as<For>().iter, before);
        before = block(s.as<For>().orelse, std::move(before), loop);
      }
      return before;
    }
    default:
      return live;
  }
}

bool Liveness::may_return(const Stmt& s) {
  auto it = may_return_.find(&s);
  if (it != may_return_.end()) return it->second;
  bool r = false;
  auto any = [&](const Body& b) {
    for (const Stmt* x : b) {
      if (may_return(*x)) return true;
    }
    return false;
  };
  switch (s.kind) {
    case StmtKind::kReturn:
      r = true;
      break;
    case StmtKind::kIf:
      r = any(s.as<If>().body) || any(s.as<If>().orelse);
      break;
    case StmtKind::kFor:
      r = any(s.as<For>().body) || any(s.as<For>().orelse);
      break;
    case StmtKind::kWhile:
      r = any(s.as<While>().body) || any(s.as<While>().orelse);
      break;
    case StmtKind::kWith:
      r = any(s.as<With>().body);
      break;
    default:
      break;
  }
  may_return_[&s] = r;
  return r;
}

bool Liveness::may_break(const Stmt& s) {
  auto it = may_break_.find(&s);
  if (it != may_break_.end()) return it->second;
  bool r = false;
  switch (s.kind) {
    case StmtKind::kBreak:
    case StmtKind::kContinue:
      r = true;
      break;
    case StmtKind::kIf:
      for (const Stmt* x : s.as<If>().body) r = r || may_break(*x);
      for (const Stmt* x : s.as<If>().orelse) r = r || may_break(*x);
      break;
    default:
      break;
  }
  may_break_[&s] = r;
  return r;
}

}  // namespace oxs::script
