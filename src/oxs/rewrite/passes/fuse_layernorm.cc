// fuse-layernorm: the decomposed layer normalization exporters emit,
//   mean = ReduceMean(x, axes=[-1]); d = Sub(x, mean); var = ReduceMean(Pow(d, 2), axes=[-1])
//   y = Add(Mul(Div(d, Sqrt(Add(var, eps))), scale), bias)
// becomes LayerNormalization(x, scale, bias, axis=-1, epsilon=eps) when the
// model imports ai.onnx >= 17, the reductions are over the last axis only
// (ReduceMean's axes attribute: opset < 18), eps is a scalar constant and
// scale and bias are 1-D over that axis.
#include "oxs/ir/printer.h"
#include "oxs/rewrite/core/constants.h"
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

// axes == [-1] or [rank-1].
std::string last_axis(const ir::Node& reduce, const ir::Value& x) {
  const ir::Attr* axes = reduce.attr("axes");
  if (!axes || axes->ints.size() != 1) return "does not reduce exactly one axis (attribute)";
  int64_t a = axes->ints[0];
  if (a == -1) return "";
  const auto& s = x.type().shape();
  if (s && int64_t(s->rank()) == a + 1) return "";
  return "does not reduce the last axis";
}

Verdict layernorm_ok(const Match& m, Rewriter& rw) {
  const ir::Node* root = m.root();
  if (rw.opset(*root->graph()) < 17)
    return Verdict::no("ai.onnx opset < 17 has no LayerNormalization");
  const ir::Value* x = m.var("x");
  for (const ir::Node* n : m.nodes) {
    if (n->op_type() != "ReduceMean") continue;
    std::string r = last_axis(*n, *x);
    if (!r.empty()) return Verdict::no("ReduceMean " + r);
  }
  auto eps = constant_of(m.var("eps"));
  auto e = eps ? tensor_doubles(*eps, 1) : std::nullopt;
  if (!e || e->size() != 1) return Verdict::no("epsilon is not a one-element constant");
  ir::DataType dt = x->type().elem_type();
  if (dt != ir::DataType::Float && dt != ir::DataType::Double && dt != ir::DataType::Float16) {
    return Verdict::no("x is not a known float type");
  }
  for (const char* name : {"scale", "bias"}) {
    const ir::Value* v = m.var(name);
    const auto& s = v->type().shape();
    if (!s || s->rank() != 1) return Verdict::no(std::string(name) + " is not known to be 1-D");
    const auto& xs = x->type().shape();
    if (!xs || xs->rank() == 0) return Verdict::no("x's rank is unknown");
    const ir::Dim& last = (*xs)[xs->rank() - 1];
    if (!((*s)[0] == last) || (*s)[0].is_unknown()) {
      return Verdict::no(std::string(name) + "'s length is not x's last dim");
    }
  }
  return Verdict::yes();
}

}  // namespace

std::unique_ptr<Pass> make_fuse_layernorm_pass(const PassOptions& o) {
  check_options("fuse-layernorm", o, {});
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(make_rule(
      "fuse-layernorm.LayerNormalization",
      [](Pattern& p, OpBuilder& op) -> std::vector<PVal> {
        PVal x = p.var("x");
        auto keep = AttrPattern::int_or_default("keepdims", 1);
        PVal mean = op.call("ReduceMean", {x}, {AttrPattern::present("axes"), keep});
        PVal d = op.Sub(x, mean);
        PVal var = op.call("ReduceMean", {op.Pow(d, p.constant(2.0))},
                           {AttrPattern::present("axes"), keep});
        PVal norm = op.Div(d, op.Sqrt(op.Add(var, p.var("eps"))));
        return {op.Add(op.Mul(norm, p.var("scale")), p.var("bias"))};
      },
      layernorm_ok,
      [](RewriteContext& ctx) {
        const Match& m = ctx.match();
        auto eps = tensor_doubles(*constant_of(m.var("eps")), 1);
        std::vector<ir::Attr> attrs;
        attrs.push_back(ir::Attr::of_int("axis", -1));
        attrs.push_back(ir::Attr::of_float("epsilon", float((*eps)[0])));
        return std::vector<ir::Value*>{ctx.op(
            "LayerNormalization", {m.var("x"), m.var("scale"), m.var("bias")}, std::move(attrs))};
      }));
  return std::make_unique<RuleSetPass>("fuse-layernorm", "LayerNormalization fusion",
                                       std::move(rules));
}

}  // namespace oxs::rewrite
