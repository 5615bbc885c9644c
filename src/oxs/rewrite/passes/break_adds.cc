// break-adds: the onnx-passes README's deliberately wrong pass, kept as a
// demonstration and a test of verification: Add(x, y) with x != y becomes
// Add(x, x). `oxs opt --passes break-adds --verify equality` must reject it
// and bisect to the first Add it broke.
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {

std::unique_ptr<Pass> make_break_adds_pass(const PassOptions& o) {
  check_options("break-adds", o, {});
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(make_rule(
      "BreakAdds",
      [](Pattern& p, OpBuilder& op) -> std::vector<PVal> {
        return {op.Add(p.var("x"), p.var("y"))};
      },
      [](const Match& m, Rewriter&) {
        return m.var("x") != m.var("y") ? Verdict::yes()
                                        : Verdict::no("x and y are the same value");
      },
      [](RewriteContext& ctx) {
        ir::Value* x = ctx.match().var("x");
        return std::vector<ir::Value*>{ctx.op("Add", {x, x})};
      }));
  return std::make_unique<RuleSetPass>("break-adds", "a wrong pass", std::move(rules));
}

}  // namespace oxs::rewrite
