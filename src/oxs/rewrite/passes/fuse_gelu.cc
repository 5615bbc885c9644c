// fuse-gelu: the two GELU decompositions exporters emit,
//   erf:  0.5 * x * (1 + Erf(x / sqrt(2)))         (or x * 0.7071...)
//   tanh: 0.5 * x * (1 + Tanh(0.79788 * (x + 0.044715 * x^3)))
// in any of the three ways of associating the outer products, become one
// Gelu node when the model imports ai.onnx >= 20 (approximate "none" or
// "tanh"), else a call of the model-local function oxs.fused.Gelu /
// GeluTanh (float only), created once. Constants match within 1e-4.
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

constexpr const char* kDomain = "oxs.fused";
constexpr double kTol = 1e-4;

enum class Form { ErfDiv, ErfMul, Tanh };
enum class Assoc { XB_Half, X_BHalf, XHalf_B };

// 1 + erf(...) or 1 + tanh(...)
PVal inner(Pattern& p, OpBuilder& op, PVal x, Form f) {
  PVal core;
  if (f == Form::ErfDiv) core = op.Erf(op.Div(x, p.constant(1.4142135623730951, kTol)));
  if (f == Form::ErfMul) core = op.Erf(op.Mul(x, p.constant(0.7071067811865476, kTol)));
  if (f == Form::Tanh) {
    PVal cube = op.Mul(op.Pow(x, p.constant(3.0)), p.constant(0.044715, kTol));
    core = op.Tanh(op.Mul(op.Add(x, cube), p.constant(0.7978845608028654, kTol)));
  }
  return op.Add(core, p.constant(1.0));
}

// A function body computing GELU of X with float constants.
std::unique_ptr<ir::Function> gelu_function(const std::string& name, bool tanh) {
  auto f = std::make_unique<ir::Function>(kDomain, name);
  f->opset_imports.push_back({"", 17});
  ir::Graph& g = *f->body;
  ir::Value* x = g.add_input("X");
  auto c = [&](float v) {
    ir::Node* n = g.create_node("Constant", {});
    n->set_attr(
        ir::Attr::of_tensor("value", std::make_shared<ir::Tensor>(ir::Tensor::scalar_float(v))));
    return n->output(0);
  };
  auto op = [&](const char* type, std::vector<ir::Value*> in) {
    return g.create_node(type, in)->output(0);
  };
  ir::Value* core;
  if (tanh) {
    ir::Value* cube = op("Mul", {op("Mul", {op("Mul", {x, x}), x}), c(0.044715f)});
    core = op("Tanh", {op("Mul", {op("Add", {x, cube}), c(0.7978845608f)})});
  } else {
    core = op("Erf", {op("Div", {x, c(1.4142135623730951f)})});
  }
  ir::Value* y = op("Mul", {op("Mul", {x, op("Add", {core, c(1.0f)})}), c(0.5f)});
  g.add_output(y);
  return f;
}

std::unique_ptr<Rule> gelu_rule(Form form, Assoc assoc, const std::string& name) {
  return make_rule(
      name,
      [form, assoc](Pattern& p, OpBuilder& op) -> std::vector<PVal> {
        PVal x = p.var("x");
        PVal b = inner(p, op, x, form);
        PVal half = p.constant(0.5);
        if (assoc == Assoc::XB_Half) return {op.Mul(op.Mul(x, b), half)};
        if (assoc == Assoc::X_BHalf) return {op.Mul(x, op.Mul(b, half))};
        return {op.Mul(op.Mul(x, half), b)};
      },
      [](const Match& m, Rewriter& rw) {
        if (rw.opset(*m.root()->graph()) >= 20) return Verdict::yes();
        if (rw.model().ir_version < 8) return Verdict::no("IR < 8 has no model-local functions");
        if (m.var("x")->type().elem_type() != ir::DataType::Float) {
          return Verdict::no("x is not known to be float (the local function is float only)");
        }
        return Verdict::yes();
      },
      [form](RewriteContext& ctx) {
        ir::Value* x = ctx.match().var("x");
        bool tanh = form == Form::Tanh;
        if (ctx.opset() >= 20) {
          std::vector<ir::Attr> a;
          if (tanh) a.push_back(ir::Attr::of_string("approximate", "tanh"));
          return std::vector<ir::Value*>{ctx.op("Gelu", {x}, std::move(a))};
        }
        std::string fn = tanh ? "GeluTanh" : "Gelu";
        ctx.rewriter().ensure_function(kDomain, fn, [&] { return gelu_function(fn, tanh); });
        return std::vector<ir::Value*>{ctx.op(fn, {x}, {}, kDomain)};
      });
}

}  // namespace

std::unique_ptr<Pass> make_fuse_gelu_pass(const PassOptions& o) {
  check_options("fuse-gelu", o, {});
  std::vector<std::unique_ptr<Rule>> rules;
  const std::pair<Form, const char*> forms[] = {
      {Form::ErfDiv, "ErfDiv"}, {Form::ErfMul, "ErfMul"}, {Form::Tanh, "Tanh"}};
  const std::pair<Assoc, const char*> assocs[] = {
      {Assoc::XB_Half, "1"}, {Assoc::X_BHalf, "2"}, {Assoc::XHalf_B, "3"}};
  for (const auto& [f, fname] : forms) {
    for (const auto& [a, aname] : assocs) {
      rules.push_back(gelu_rule(f, a, std::string("fuse-gelu.") + fname + aname));
    }
  }
  return std::make_unique<RuleSetPass>("fuse-gelu", "GELU fusion", std::move(rules));
}

}  // namespace oxs::rewrite
