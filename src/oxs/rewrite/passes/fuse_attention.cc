// fuse-attention: scaled dot-product attention,
//   MatMul(Softmax(Mul(MatMul(q, kt), scale), axis=-1), v)   (or Div by scale)
// becomes one call of the model-local function
// oxs.fused.ScaledDotProductAttention(q, kt, v, scale) (…Div for the Div
// form), created once, so that the attention block reads as one step (and a
// runtime with a fused kernel can map the function). Softmax must be over
// the last axis (opset >= 13); scale a one-element constant. Not in the
// default pipeline: it hides four ops behind a call.
#include "oxs/rewrite/core/constants.h"
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

constexpr const char* kDomain = "oxs.fused";

std::unique_ptr<ir::Function> attention_function(const std::string& name, const char* scale_op,
                                                 int64_t opset) {
  auto f = std::make_unique<ir::Function>(kDomain, name);
  f->opset_imports.push_back({"", opset});
  ir::Graph& g = *f->body;
  ir::Value* q = g.add_input("Q");
  ir::Value* kt = g.add_input("KT");
  ir::Value* v = g.add_input("V");
  ir::Value* scale = g.add_input("scale");
  ir::Value* s =
      g.create_node(scale_op, {{g.create_node("MatMul", {{q, kt}})->output(0), scale}})->output(0);
  ir::Node* sm = g.create_node("Softmax", {{s}});
  sm->set_attr(ir::Attr::of_int("axis", -1));
  g.add_output(g.create_node("MatMul", {{sm->output(0), v}})->output(0));
  return f;
}

std::unique_ptr<Rule> attention_rule(const char* scale_op, const std::string& fn) {
  return make_rule(
      std::string("fuse-attention.") + scale_op,
      [scale_op](Pattern& p, OpBuilder& op) -> std::vector<PVal> {
        PVal scores = op.call(scale_op, {op.MatMul(p.var("q"), p.var("kt")), p.var("scale")});
        PVal probs = op.call("Softmax", {scores}, {AttrPattern::int_or_default("axis", -1)});
        return {op.MatMul(probs, p.var("v"))};
      },
      [](const Match& m, Rewriter& rw) {
        if (rw.opset(*m.root()->graph()) < 13)
          return Verdict::no("Softmax before opset 13 flattens");
        if (rw.model().ir_version < 8) return Verdict::no("IR < 8 has no model-local functions");
        auto s = constant_of(m.var("scale"));
        if (!s || s->numel() != 1) return Verdict::no("scale is not a one-element constant");
        return Verdict::yes();
      },
      [scale_op, fn](RewriteContext& ctx) {
        const Match& m = ctx.match();
        int64_t opset = ctx.opset();
        ctx.rewriter().ensure_function(kDomain, fn,
                                       [&] { return attention_function(fn, scale_op, opset); });
        return std::vector<ir::Value*>{
            ctx.op(fn, {m.var("q"), m.var("kt"), m.var("v"), m.var("scale")}, {}, kDomain)};
      });
}

}  // namespace

std::unique_ptr<Pass> make_fuse_attention_pass(const PassOptions& o) {
  check_options("fuse-attention", o, {});
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(attention_rule("Mul", "ScaledDotProductAttention"));
  rules.push_back(attention_rule("Div", "ScaledDotProductAttentionDiv"));
  return std::make_unique<RuleSetPass>("fuse-attention", "attention to a local function",
                                       std::move(rules));
}

}  // namespace oxs::rewrite
