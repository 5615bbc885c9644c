// OpCounts (the pass manager's per-op-type node counts, by which a rule-set
// pass whose op types are absent is skipped): what they count, and that a
// pass still sees nodes of its op types that an earlier pass created.
#include "oxs/rewrite/core/op_counts.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace oxs::rewrite {
namespace {

using testing::ops;
using testing::optimize;
using testing::parse_model;

TEST(OpCounts, CountsGraphSubgraphsAndFunctionBodies) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17, "lib" : 1]>
    g (bool c, float[2] x) => (float[2] y) {
      t = lib.twice(x)
      y = If(c) <then_branch = th () => (float[2] a) { a = Neg(t) },
                 else_branch = el () => (float[2] b) { b = Identity(t) }>
    }
    <domain: "lib", opset_import: ["" : 17]>
    twice (v) => (r) { r = Add(v, v) })");
  OpCounts counts(m);
  EXPECT_EQ(counts.initial_total(), 5u);  // twice, If, Neg, Identity, Add
  for (const char* op : {"If", "Neg", "Identity", "Add"}) {
    EXPECT_TRUE(counts.may_have("", op)) << op;
    EXPECT_TRUE(counts.may_have("ai.onnx", op)) << op;
  }
  EXPECT_TRUE(counts.may_have("lib", "twice"));
  EXPECT_FALSE(counts.may_have("", "twice"));
  EXPECT_FALSE(counts.may_have("", "Mul"));
  // Taking the If away takes its branches' nodes too.
  ir::Node* if_node = m.graph->last_node();
  counts.add(*if_node, -1);
  EXPECT_FALSE(counts.may_have("", "If"));
  EXPECT_FALSE(counts.may_have("", "Neg"));
  EXPECT_TRUE(counts.may_have("", "Add"));
  // One more removal than there were nodes: nothing is ruled out any more.
  counts.add(*if_node, -1);
  EXPECT_TRUE(counts.may_have("", "Mul"));
}

TEST(OpCounts, APassSeesNodesAnEarlierPassCreated) {
  // No Mul in the graph until inline brings the function's body in; the
  // algebraic pass after it must not be skipped.
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17, "lib" : 1]>
    g (float[2] x) => (float[2] y) { t = lib.scale(x)  y = Relu(t) }
    <domain: "lib", opset_import: ["" : 17]>
    scale (v) => (r) { one = Constant<value_float = 1.0>()  r = Mul(v, one) })");
  optimize(m, {"inline", "fold", "algebraic", "dce"});
  EXPECT_EQ(ops(m), "Relu");
}

}  // namespace
}  // namespace oxs::rewrite
