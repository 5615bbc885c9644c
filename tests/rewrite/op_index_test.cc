// OpIndex (the pass manager's per-op-type node index, by which a rule-set
// pass whose op types are absent is skipped): what they count, and that a
// pass still sees nodes of its op types that an earlier pass created.
#include "oxs/rewrite/core/op_index.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace oxs::rewrite {
namespace {

using testing::ops;
using testing::optimize;
using testing::parse_model;

TEST(OpIndex, CountsGraphSubgraphsAndFunctionBodies) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17, "lib" : 1]>
    g (bool c, float[2] x) => (float[2] y) {
      t = lib.twice(x)
      y = If(c) <then_branch = th () => (float[2] a) { a = Neg(t) },
                 else_branch = el () => (float[2] b) { b = Identity(t) }>
    }
    <domain: "lib", opset_import: ["" : 17]>
    twice (v) => (r) { r = Add(v, v) })");
  OpIndex index(m);
  EXPECT_EQ(index.initial_total(), 5u);  // twice, If, Neg, Identity, Add
  for (const char* op : {"If", "Neg", "Identity", "Add"}) {
    EXPECT_TRUE(index.may_have("", op)) << op;
    EXPECT_TRUE(index.may_have("ai.onnx", op)) << op;
  }
  EXPECT_TRUE(index.may_have("lib", "twice"));
  EXPECT_FALSE(index.may_have("", "twice"));
  EXPECT_FALSE(index.may_have("", "Mul"));
  // Nodes in the order of the walk (a subgraph's after its owner, function
  // bodies last), whatever order the op types are asked in.
  auto listed = index.nodes_of({{"", "Add"}, {"ai.onnx", "Neg"}, {"", "Mul"}});
  ASSERT_TRUE(listed.has_value());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0]->op_type(), "Neg");
  EXPECT_EQ((*listed)[1]->op_type(), "Add");
  // Taking the If away takes its branches' nodes too, which the lists
  // cannot follow: they are given up.
  ir::Node* if_node = m.graph->last_node();
  index.erased(*if_node);
  EXPECT_FALSE(index.may_have("", "If"));
  EXPECT_FALSE(index.may_have("", "Neg"));
  EXPECT_TRUE(index.may_have("", "Add"));
  EXPECT_FALSE(index.nodes_of({{"", "Add"}}).has_value());
  // One more removal than there were nodes: nothing is ruled out any more.
  index.erased(*if_node);
  EXPECT_TRUE(index.may_have("", "Mul"));
}

TEST(OpIndex, ErasedNodesLeaveTheLists) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x) => (float[2] y) { a = Neg(x)  b = Neg(a)  y = Relu(b) })");
  OpIndex index(m);
  ir::Node* second = m.graph->first_node()->next();
  second->output(0)->replace_all_uses_with(second->input(0));
  index.erased(*second);
  m.graph->remove(second);
  EXPECT_EQ(index.nodes_of({{"", "Neg"}})->size(), 1u);  // erased, not yet freed
  index.drop_erased();
  m.graph->collect_garbage();
  EXPECT_EQ(index.nodes_of({{"", "Neg"}})->size(), 1u);
  EXPECT_TRUE(index.may_have("", "Neg"));
  EXPECT_EQ(index.total(), 2u);
}

TEST(OpIndex, APassSeesNodesAnEarlierPassCreated) {
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
