#include "oxs/torch/context.h"

#include <algorithm>

#include "oxs/ir/error.h"

namespace oxs::torch {

using builder::Var;

void Context::fail(const std::string& why) const {
  throw Error(ErrorKind::Unsupported,
              "export: node '" + node.name + "' (" + node.target + ") in " +
                  (node.module.empty() ? std::string("<root>") : node.module) +
                  (node.source.empty() ? std::string() : " at " + node.source) + ": " + why);
}

const Arg& Context::require(const std::string& name) const {
  const Arg* a = node.find(name);
  if (!a) fail("argument '" + name + "' is missing");
  return *a;
}

bool Context::has(const std::string& name) const {
  const Arg* a = node.find(name);
  return a && a->kind != Arg::Kind::None;
}

Var Context::tensor(const std::string& name) const {
  Var v = optional_tensor(name);
  if (!v) fail("argument '" + name + "' must be a tensor, not None");
  return v;
}

Var Context::optional_tensor(const std::string& name) const {
  const Arg* a = node.find(name);
  if (!a || a->kind == Arg::Kind::None) return {};
  ir::DataType dt = node.outputs.empty() ? ir::DataType::Float : node.outputs[0].dtype;
  switch (a->kind) {
    case Arg::Kind::Tensor:
      if (a->i < 0 || static_cast<size_t>(a->i) >= values_.size() || !values_[a->i]) {
        fail("argument '" + name + "' reads a value that was never built");
      }
      return values_[a->i];
    case Arg::Kind::Int:
      if (a->symbolic()) {
        // A size that varies with the dynamic dims, used as a number.
        Var v = b.op("Squeeze", {sym(a->syms[0]), ints({0})});
        if (dt == ir::DataType::Int64) return v;
        return b.op("Cast", {v}, attr_list(ir::Attr::of_int("to", static_cast<int64_t>(dt))));
      }
      return scalar(dt, static_cast<double>(a->i));
    case Arg::Kind::Bool:
      return scalar(dt, static_cast<double>(a->i));
    case Arg::Kind::Float:
      return scalar(dt, a->f);
    default:
      fail("argument '" + name + "' must be a tensor");
  }
}

std::vector<Var> Context::tensors(const std::string& name) const {
  const Arg& a = require(name);
  if (a.kind != Arg::Kind::TensorList) fail("argument '" + name + "' must be a list of tensors");
  std::vector<Var> out;
  for (int64_t id : a.ints) out.push_back(id >= 0 ? values_[id] : Var());
  return out;
}

int64_t Context::get_int(const std::string& name, std::optional<int64_t> dflt) const {
  const Arg* a = node.find(name);
  if (!a || a->kind == Arg::Kind::None) {
    if (!dflt) fail("argument '" + name + "' is missing");
    return *dflt;
  }
  if (a->symbolic()) {
    fail("argument '" + name + "' is a size that varies with the dynamic dims (" +
         (*exprs_)[a->syms[0]].text + "); this function needs a constant");
  }
  if (a->kind == Arg::Kind::Int || a->kind == Arg::Kind::Bool || a->kind == Arg::Kind::DType)
    return a->i;
  if (a->kind == Arg::Kind::Ints && a->ints.size() == 1) return a->ints[0];
  fail("argument '" + name + "' must be an int");
}

double Context::get_float(const std::string& name, std::optional<double> dflt) const {
  const Arg* a = node.find(name);
  if (!a || a->kind == Arg::Kind::None) {
    if (!dflt) fail("argument '" + name + "' is missing");
    return *dflt;
  }
  if (a->kind == Arg::Kind::Float) return a->f;
  if (a->kind == Arg::Kind::Int || a->kind == Arg::Kind::Bool) return static_cast<double>(a->i);
  fail("argument '" + name + "' must be a number");
}

bool Context::get_bool(const std::string& name, std::optional<bool> dflt) const {
  return get_int(name, dflt ? std::optional<int64_t>(*dflt ? 1 : 0) : std::nullopt) != 0;
}

std::vector<int64_t> Context::get_ints(const std::string& name,
                                       std::optional<std::vector<int64_t>> dflt) const {
  const Arg* a = node.find(name);
  if (!a || a->kind == Arg::Kind::None) {
    if (!dflt) fail("argument '" + name + "' is missing");
    return *dflt;
  }
  if (a->symbolic()) {
    fail("argument '" + name +
         "' holds sizes that vary with the dynamic dims; this function "
         "needs constants");
  }
  if (a->kind == Arg::Kind::Ints) return a->ints;
  if (a->kind == Arg::Kind::Int) return {a->i};
  fail("argument '" + name + "' must be a list of ints");
}

const OutMeta& Context::out(size_t i) const {
  if (i >= node.outputs.size()) fail("has no output " + std::to_string(i));
  return node.outputs[i];
}

Var Context::scalar(ir::DataType dt, double v) const {
  using D = ir::DataType;
  switch (dt) {
    case D::Float: {
      float f = static_cast<float>(v);
      return b.constant(ir::Tensor::from<float>(dt, {}, {&f, 1}));
    }
    case D::Double:
      return b.constant(ir::Tensor::from<double>(dt, {}, {&v, 1}));
    case D::Int64: {
      auto i = static_cast<int64_t>(v);
      return b.constant(ir::Tensor::from<int64_t>(dt, {}, {&i, 1}));
    }
    case D::Int32: {
      auto i = static_cast<int32_t>(v);
      return b.constant(ir::Tensor::from<int32_t>(dt, {}, {&i, 1}));
    }
    case D::Bool: {
      uint8_t i = v != 0;
      return b.constant(ir::Tensor::from<uint8_t>(dt, {}, {&i, 1}));
    }
    default: {
      float f = static_cast<float>(v);
      Var c = b.constant(ir::Tensor::from<float>(D::Float, {}, {&f, 1}));
      return b.op("Cast", {c}, attr_list(ir::Attr::of_int("to", static_cast<int64_t>(dt))));
    }
  }
}

Var Context::input_dim(int64_t example) const {
  // The expression torch traced for an output dim of that example size.
  int64_t expr = -1;
  bool ambiguous = false;
  if (exprs_ && !node.outputs.empty()) {
    const OutMeta& m = node.outputs[0];
    for (size_t i = 0; i < m.dims.size(); ++i) {
      if (!m.dim_varies(i) || m.dims[i] != example) continue;
      if (expr >= 0 && (*exprs_)[expr].text != (*exprs_)[m.syms[i]].text) ambiguous = true;
      if (expr < 0) expr = m.syms[i];
    }
  }
  if (expr >= 0 && !ambiguous) return sym(expr);
  ir::Value* found = nullptr;
  int64_t axis = -1;
  std::string symbol;
  for (ir::Value* in : b.graph().inputs()) {
    if (!in->type().is_tensor() || !in->type().shape()) continue;
    const ir::Shape& s = *in->type().shape();
    for (size_t d = 0; d < s.rank(); ++d) {
      if (!s[d].is_symbolic()) continue;
      auto it = symbols_.find(s[d].symbol());
      if (it == symbols_.end() || it->second != example) continue;
      if (found && s[d].symbol() != symbol) {
        fail("a size that varies with the dynamic dims is " + std::to_string(example) +
             " in the example, as both '" + symbol + "' and '" + s[d].symbol() +
             "' are: give the dynamic dims different example sizes");
      }
      if (!found) {
        found = in;
        axis = static_cast<int64_t>(d);
        symbol = s[d].symbol();
      }
    }
  }
  if (!found) {
    fail("a size that varies with the dynamic dims (" + std::to_string(example) +
         " in the example) is no dynamic dim of an input");
  }
  Var shape = b.op("Shape", {Var(&b, found)});
  return b.op("Gather", {shape, ints({axis})});
}

Var Context::output_shape() const {
  const OutMeta& m = out(0);
  std::vector<Var> pieces;
  std::vector<int64_t> run;
  for (size_t i = 0; i < m.dims.size(); ++i) {
    if (!m.dim_varies(i)) {
      run.push_back(m.dims[i]);
      continue;
    }
    if (!run.empty()) pieces.push_back(ints(run));
    run.clear();
    pieces.push_back(out_dim(i));
  }
  if (!run.empty() || pieces.empty()) pieces.push_back(ints(run));
  if (pieces.size() == 1) return pieces[0];
  return b.op("Concat", pieces, attr_list(ir::Attr::of_int("axis", 0)));
}

Var Context::ints(const std::vector<int64_t>& v) const {
  return b.constant(std::vector<int64_t>(v));
}

Var Context::out_dim(size_t i) const {
  const OutMeta& m = out(0);
  if (i >= m.dims.size()) fail("has no output dim " + std::to_string(i));
  if (!m.dim_varies(i)) return ints({m.dims[i]});
  if (!exprs_) return input_dim(m.dims[i]);
  return sym(m.syms[i]);
}

Var Context::sym(int64_t id) const {
  if (!exprs_ || id < 0 || static_cast<size_t>(id) >= exprs_->size()) {
    fail("a dynamic size has no expression (internal)");
  }
  auto key = std::make_pair(&b, id);
  if (sym_cache_) {
    auto it = sym_cache_->find(key);
    if (it != sym_cache_->end()) return it->second;
  }
  const SymExpr& e = (*exprs_)[id];
  using Op = SymExpr::Op;
  Var r;
  auto fold = [&](const char* op) {
    r = sym(e.args.at(0));
    for (size_t k = 1; k < e.args.size(); ++k) r = b.op(op, {r, sym(e.args[k])});
  };
  switch (e.op) {
    case Op::Const:
      r = ints({e.value});
      break;
    case Op::Symbol: {
      // The input of this graph (or function body) that has the symbol as a dim.
      for (ir::Value* in : b.graph().inputs()) {
        if (!in->type().is_tensor() || !in->type().shape()) continue;
        const ir::Shape& s = *in->type().shape();
        for (size_t d = 0; d < s.rank() && !r; ++d) {
          if (!s[d].is_symbolic() || s[d].symbol() != e.text) continue;
          auto at = static_cast<int64_t>(d);
          r = b.op("Shape", {Var(&b, in)},
                   attr_list(ir::Attr::of_int("start", at), ir::Attr::of_int("end", at + 1)));
        }
        if (r) break;
      }
      if (!r) {
        fail("the dynamic dim '" + e.text +
             "' is no dim of an input of the graph or function being built");
      }
      break;
    }
    case Op::Add:
      fold("Add");
      break;
    case Op::Mul:
      fold("Mul");
      break;
    case Op::Max:
      fold("Max");
      break;
    case Op::Min:
      fold("Min");
      break;
    case Op::FloorDiv: {
      // floor(a / b) = (a - a mod b) / b with Python's mod (ONNX Mod, fmod=0).
      Var a = sym(e.args.at(0)), d = sym(e.args.at(1));
      Var m = b.op("Mod", {a, d});
      r = b.op("Div", {b.op("Sub", {a, m}), d});
      break;
    }
    case Op::Mod:
      r = b.op("Mod", {sym(e.args.at(0)), sym(e.args.at(1))});
      break;
  }
  if (sym_cache_) sym_cache_->emplace(key, r);
  return r;
}

Var Context::reshape_shape(const Var& x) const {
  const OutMeta& m = out(0);
  std::vector<int64_t> target = m.dims;
  std::vector<size_t> left;
  for (size_t i = 0; i < target.size(); ++i) {
    if (m.dim_varies(i)) left.push_back(i);
  }
  if (left.empty()) return ints(target);
  if (!exprs_) fail("a view with dynamic dims has no size expressions (internal)");
  // A varying dim that x has in the same place: copy it (Reshape's 0).
  auto s = x.shape();
  std::vector<size_t> still;
  for (size_t i : left) {
    const std::string& text = (*exprs_)[m.syms[i]].text;
    if (s && i < s->rank() && (*s)[i].is_symbolic() && (*s)[i].symbol() == text) {
      target[i] = 0;
    } else {
      still.push_back(i);
    }
  }
  if (still.empty()) return ints(target);
  // One varying dim is Reshape's -1; the others are computed from the
  // expressions torch traced.
  target[still[0]] = -1;
  if (still.size() == 1) return ints(target);
  std::vector<Var> pieces;
  std::vector<int64_t> run;
  for (size_t i = 0; i < target.size(); ++i) {
    if (std::find(still.begin() + 1, still.end(), i) == still.end()) {
      run.push_back(target[i]);
      continue;
    }
    if (!run.empty()) pieces.push_back(ints(run));
    run.clear();
    pieces.push_back(sym(m.syms[i]));
  }
  if (!run.empty()) pieces.push_back(ints(run));
  return b.op("Concat", pieces, attr_list(ir::Attr::of_int("axis", 0)));
}

int64_t normalize_axis(const Context& cx, int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= std::max<int64_t>(rank, 1)) {
    cx.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return a;
}

}  // namespace oxs::torch
