// fuse-gemm: Add(MatMul(a, b), c) -> Gemm(a, b, c) when a and b are 2-D,
// the element type is one Gemm takes, and c broadcasts to the product's
// [M, N] without growing it (rank <= 2, each dim 1 or the product's).
#include "oxs/ir/printer.h"
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

Verdict gemm_compatible(const Match& m, Rewriter&) {
  const ir::Value* a = m.var("a");
  const ir::Value* b = m.var("b");
  const ir::Value* c = m.var("c");
  for (const ir::Value* v : {a, b}) {
    const auto& s = v->type().shape();
    if (!s || s->rank() != 2) return Verdict::no(ir::value_ref(v) + " is not known to be 2-D");
  }
  ir::DataType t = a->type().elem_type();
  if (t != ir::DataType::Float && t != ir::DataType::Double && t != ir::DataType::Float16) {
    return Verdict::no("element type is not float, double or float16");
  }
  const auto& cs = c->type().shape();
  if (!cs || cs->rank() > 2) return Verdict::no("the bias's rank is unknown or above 2");
  const ir::Dim out[2] = {(*a->type().shape())[0], (*b->type().shape())[1]};
  for (size_t i = 0; i < cs->rank(); ++i) {
    const ir::Dim& d = (*cs)[i];
    const ir::Dim& o = out[2 - cs->rank() + i];
    bool ok = (d.is_known() && d.value() == 1) || (d.is_known() && o.is_known() && d == o) ||
              (d.is_symbolic() && d == o);
    if (!ok) return Verdict::no("the bias does not broadcast to the product's shape");
  }
  return Verdict::yes();
}

}  // namespace

std::unique_ptr<Pass> make_fuse_gemm_pass(const PassOptions& o) {
  check_options("fuse-gemm", o, {});
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(make_rule(
      "fuse-gemm.MatMulAdd",
      [](Pattern& p, OpBuilder& op) -> std::vector<PVal> {
        return {op.Add(op.MatMul(p.var("a"), p.var("b")), p.var("c"))};
      },
      gemm_compatible,
      [](RewriteContext& ctx) {
        const Match& m = ctx.match();
        return std::vector<ir::Value*>{ctx.op("Gemm", {m.var("a"), m.var("b"), m.var("c")})};
      }));
  return std::make_unique<RuleSetPass>("fuse-gemm", "MatMul+Add to Gemm", std::move(rules));
}

}  // namespace oxs::rewrite
