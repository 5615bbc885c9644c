// IR mutation API: use lists, node list under mutation, subgraphs, clone.
#include <gtest/gtest.h>

#include <algorithm>

#include "oxs/ir/error.h"
#include "oxs/ir/graph.h"
#include "oxs/ir/model.h"
#include "oxs/ir/verifier.h"

namespace oxs::ir {
namespace {

bool has_use(const Value* v, const Node* n, uint32_t index) {
  const auto& u = v->uses();
  return std::find(u.begin(), u.end(), Use{const_cast<Node*>(n), index}) != u.end();
}

std::vector<std::string> op_types(const Graph& g) {
  std::vector<std::string> out;
  for (Node* n : g.nodes()) out.push_back(n->op_type());
  return out;
}

TEST(Graph, UseListsFollowEveryEdgeChange) {
  Graph g("g");
  Value* x = g.add_input("x", Type::tensor(DataType::Float, Shape{2}));
  Value* y = g.add_input("y");
  Value* in[] = {x, x};
  Node* add = g.create_node("Add", in);
  EXPECT_EQ(x->uses().size(), 2u);
  EXPECT_TRUE(has_use(x, add, 0));
  EXPECT_TRUE(has_use(x, add, 1));
  add->set_input(0, y);
  EXPECT_EQ(x->uses().size(), 1u);
  EXPECT_TRUE(has_use(x, add, 1));
  EXPECT_TRUE(has_use(y, add, 0));
  add->set_input(1, nullptr);
  EXPECT_FALSE(x->has_uses());
  add->append_input(x);
  EXPECT_TRUE(has_use(x, add, 2));
  add->remove_input(1);  // shifts x from 2 to 1
  EXPECT_TRUE(has_use(x, add, 1));
  EXPECT_EQ(add->num_inputs(), 2u);
  EXPECT_EQ(x->uses().size(), 1u);
}

TEST(Graph, SwapRemoveKeepsBackIndicesRight) {
  Graph g;
  Value* x = g.add_input("x");
  std::vector<Node*> users;
  for (int i = 0; i < 50; ++i) {
    Value* in[] = {x};
    users.push_back(g.create_node("Relu", in));
  }
  // Remove uses from the middle, then check every remaining one is exact.
  for (int i = 0; i < 50; i += 3) users[static_cast<size_t>(i)]->set_input(0, nullptr);
  for (int i = 0; i < 50; ++i) {
    bool expect = i % 3 != 0;
    EXPECT_EQ(has_use(x, users[static_cast<size_t>(i)], 0), expect) << i;
  }
  EXPECT_TRUE(verify(g).empty());
  for (Node* n : users) n->set_input(0, nullptr);
  EXPECT_FALSE(x->has_uses());
}

TEST(Graph, ReplaceAllUsesWith) {
  Graph g;
  Value* a = g.add_input("a");
  Value* b = g.add_input("b");
  Value* in1[] = {a, a};
  Node* n1 = g.create_node("Mul", in1);
  Value* in2[] = {a};
  Node* n2 = g.create_node("Neg", in2);
  g.add_output(a);
  a->replace_all_uses_with(b);
  EXPECT_FALSE(a->has_uses());
  EXPECT_EQ(n1->input(0), b);
  EXPECT_EQ(n1->input(1), b);
  EXPECT_EQ(n2->input(0), b);
  EXPECT_EQ(b->uses().size(), 3u);
  EXPECT_EQ(g.outputs()[0], a);  // graph outputs only on request
  a->replace_all_uses_with(b, /*include_graph_outputs=*/true);
  EXPECT_EQ(g.outputs()[0], b);
  EXPECT_FALSE(a->is_graph_output());
  EXPECT_TRUE(b->is_graph_output());
}

TEST(Graph, ReplaceAllUsesWithReachesSubgraphs) {
  Graph g;
  Value* cond = g.add_input("cond");
  Value* x = g.add_input("x");
  Value* y = g.add_input("y");
  auto then_g = g.make_subgraph("then");
  Value* in[] = {x};
  Node* inner = then_g->create_node("Relu", in);
  then_g->add_output(inner->output(0));
  auto else_g = g.make_subgraph("else");
  Node* inner2 = else_g->create_node("Neg", in);
  else_g->add_output(inner2->output(0));
  Value* cin[] = {cond};
  Node* if_node = g.create_node("If", cin);
  if_node->set_attr(Attr::of_graph("then_branch", std::move(then_g)));
  if_node->set_attr(Attr::of_graph("else_branch", std::move(else_g)));
  g.add_output(if_node->output(0));
  ASSERT_TRUE(verify(g).empty());
  EXPECT_EQ(if_node->subgraphs()[0]->parent(), &g);
  x->replace_all_uses_with(y);
  EXPECT_EQ(inner->input(0), y);
  EXPECT_EQ(inner2->input(0), y);
  EXPECT_FALSE(x->has_uses());
  EXPECT_TRUE(verify(g).empty());
}

TEST(Graph, RemoveDuringIterationVisitsEveryLiveNode) {
  Graph g;
  Value* x = g.add_input("x");
  for (int i = 0; i < 10; ++i) {
    Value* in[] = {x};
    g.create_node("Op" + std::to_string(i), in);
  }
  std::vector<std::string> visited;
  for (Node* n : g.nodes()) {
    visited.push_back(n->op_type());
    if (n->op_type() == "Op2" || n->op_type() == "Op3") g.remove(n);
    // Remove a node ahead of us too: it must not be visited.
    if (n->op_type() == "Op5") g.remove(n->next());
  }
  EXPECT_EQ(visited, (std::vector<std::string>{"Op0", "Op1", "Op2", "Op3", "Op4", "Op5", "Op7",
                                               "Op8", "Op9"}));
  EXPECT_EQ(g.num_nodes(), 7u);
  EXPECT_EQ(op_types(g),
            (std::vector<std::string>{"Op0", "Op1", "Op4", "Op5", "Op7", "Op8", "Op9"}));
  EXPECT_EQ(x->uses().size(), 7u);
  g.collect_garbage();
  EXPECT_TRUE(verify(g).empty());
}

TEST(Graph, InsertDuringIterationIsVisitedWhenAhead) {
  Graph g;
  Value* x = g.add_input("x");
  Value* in[] = {x};
  g.create_node("A", in);
  g.create_node("B", in);
  std::vector<std::string> visited;
  for (Node* n : g.nodes()) {
    visited.push_back(n->op_type());
    if (n->op_type() == "A") {
      g.insert_after(n, std::make_unique<Node>("A2", std::span<Value* const>(in), 1));
      g.insert_before(n, std::make_unique<Node>("A0", std::span<Value* const>(in), 1));
    }
  }
  EXPECT_EQ(visited, (std::vector<std::string>{"A", "A2", "B"}));
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"A0", "A", "A2", "B"}));
}

TEST(Graph, RemoveRefusesNodeWithUsedOutputs) {
  Graph g;
  Value* x = g.add_input("x");
  Value* in[] = {x};
  Node* a = g.create_node("Relu", in);
  Value* in2[] = {a->output(0)};
  g.create_node("Neg", in2);
  EXPECT_THROW(g.remove(a), Error);
  EXPECT_EQ(g.num_nodes(), 2u);
}

TEST(Graph, RemovingANodeReleasesUsesInsideItsSubgraphs) {
  Graph g;
  Value* x = g.add_input("x");
  auto body = g.make_subgraph("body");
  Value* in[] = {x};
  Node* inner = body->create_node("Relu", in);
  body->add_output(inner->output(0));
  Node* owner = g.create_node("If", std::span<Value* const>(in));
  owner->set_attr(Attr::of_graph("then_branch", std::move(body)));
  EXPECT_EQ(x->uses().size(), 2u);
  g.remove(owner);
  EXPECT_FALSE(x->has_uses());
  g.collect_garbage();
}

TEST(Graph, CloneIsDeepAndKeepsOuterReferences) {
  Graph outer;
  Value* captured = outer.add_input("captured");
  auto g = outer.make_subgraph("inner");
  Value* a = g->add_input("a", Type::tensor(DataType::Float));
  Value* in[] = {a, captured};
  Node* n = g->create_node("Add", in);
  n->set_attr(Attr::of_int("k", 3));
  g->add_output(n->output(0));
  auto copy = g->clone();
  ASSERT_EQ(copy->num_nodes(), 1u);
  Node* cn = copy->first_node();
  EXPECT_NE(cn, n);
  EXPECT_EQ(cn->input(0), copy->inputs()[0]);
  EXPECT_EQ(cn->input(1), captured);  // outer value shared, not copied
  EXPECT_EQ(cn->attr("k")->i, 3);
  EXPECT_EQ(copy->outputs()[0], cn->output(0));
  EXPECT_EQ(captured->uses().size(), 2u);
}

TEST(Graph, DemoteInputToInitializerKeepsUses) {
  Graph g;
  Value* x = g.add_input("x");
  Value* w = g.add_input("w");
  g.set_input_initializer(w, std::make_shared<Tensor>(Tensor::scalar_float(3)));
  Value* in[] = {x, w};
  Node* n = g.create_node("Mul", in);
  EXPECT_THROW(g.demote_input_to_initializer(0), Error);  // x has no initializer
  g.demote_input_to_initializer(1);
  ASSERT_EQ(g.inputs().size(), 1u);
  EXPECT_FALSE(w->is_graph_input());
  EXPECT_TRUE(w->is_initializer());
  EXPECT_EQ(n->input(1), w);
  EXPECT_EQ(g.initializers().size(), 1u);
  g.add_output(n->output(0));
  EXPECT_TRUE(verify(g).empty());
}

TEST(Graph, TypesPrintReadably) {
  Type t = Type::tensor(DataType::Float, Shape({Dim::symbolic("N"), Dim::known(3), Dim()}));
  EXPECT_EQ(t.to_string(), "float[N,3,?]");
  EXPECT_EQ(Type::sequence(Type::tensor(DataType::Int64)).to_string(), "seq(int64)");
  EXPECT_EQ(Type::map(DataType::String, Type::tensor(DataType::Float, Shape{})).to_string(),
            "map(string,float[])");
  Type copy = Type::optional(t);
  EXPECT_EQ(copy, Type::optional(t));
  EXPECT_NE(copy, Type::optional(Type::tensor(DataType::Double)));
}

}  // namespace
}  // namespace oxs::ir
