// The verifier catches each kind of structural breakage, with a message that
// names the place.
#include <gtest/gtest.h>

#include "oxs/ir/error.h"
#include "oxs/ir/model.h"
#include "oxs/ir/name_authority.h"
#include "oxs/ir/topo_sort.h"
#include "oxs/ir/verifier.h"

namespace oxs::ir {
namespace {

std::string joined(const std::vector<VerifyIssue>& issues) {
  std::string s;
  for (const auto& i : issues) s += i.where + ": " + i.message + "\n";
  return s;
}

TEST(Verifier, AcceptsAValidGraph) {
  Graph g("main");
  Value* x = g.add_input("x");
  Value* w = g.add_initializer("w", std::make_shared<Tensor>(Tensor::scalar_float(2)));
  Value* in[] = {x, w};
  Node* n = g.create_node("Mul", in);
  g.add_output(n->output(0));
  EXPECT_EQ(joined(verify(g)), "");
}

TEST(Verifier, ReportsDuplicateNames) {
  Graph g("main");
  Value* x = g.add_input("x");
  Value* in[] = {x};
  Node* a = g.create_node("Relu", in);
  Node* b = g.create_node("Neg", in);
  b->output(0)->set_name(a->output(0)->name());
  g.add_output(b->output(0));
  auto text = joined(verify(g));
  EXPECT_NE(text.find("is defined twice"), std::string::npos) << text;
  EXPECT_NE(text.find("Neg"), std::string::npos) << text;
}

TEST(Verifier, ReportsUseBeforeDefinitionAndUndefinedValues) {
  Graph g("main");
  Value* x = g.add_input("x");
  Value* in[] = {x};
  Node* a = g.create_node("Relu", in);
  Node* b = g.create_node("Neg", in);
  a->set_input(0, b->output(0));  // a now reads a value produced after it
  Graph other;
  Value* stray = other.add_input("stray");
  b->set_input(0, stray);  // not visible from g
  g.add_output(a->output(0));
  auto text = joined(verify(g));
  EXPECT_NE(text.find("used before the node that produces it"), std::string::npos) << text;
  EXPECT_NE(text.find("'stray' is not defined in this graph or an enclosing one"),
            std::string::npos)
      << text;
  // Topological sort repairs the first problem.
  b->set_input(0, x);
  topological_sort(g);
  EXPECT_EQ(joined(verify(g)), "");
  EXPECT_EQ(g.first_node(), b);
}

TEST(Verifier, ReportsUndefinedGraphOutputAndSubgraphSiblingLeak) {
  Graph g("main");
  Value* c = g.add_input("c");
  auto then_g = g.make_subgraph("then");
  Value* cin[] = {c};
  Node* inner = then_g->create_node("Not", cin);
  then_g->add_output(inner->output(0));
  auto else_g = g.make_subgraph("else");
  // The else branch reads a value defined only inside the then branch.
  Value* leak[] = {inner->output(0)};
  Node* inner2 = else_g->create_node("Not", leak);
  else_g->add_output(inner2->output(0));
  Node* if_node = g.create_node("If", cin);
  if_node->set_attr(Attr::of_graph("then_branch", std::move(then_g)));
  if_node->set_attr(Attr::of_graph("else_branch", std::move(else_g)));
  Graph elsewhere;
  Value* in[] = {elsewhere.add_input("q")};
  Node* detached = elsewhere.create_node("Relu", in);
  g.add_output(detached->output(0));
  auto text = joined(verify(g));
  EXPECT_NE(text.find("not defined in this graph or an enclosing one"), std::string::npos) << text;
  EXPECT_NE(text.find("output '" + detached->output(0)->name() + "' is not defined"),
            std::string::npos)
      << text;
}

TEST(Verifier, ReportsCycles) {
  Graph g("main");
  Value* x = g.add_input("x");
  Value* in[] = {x, x};
  Node* a = g.create_node("Add", in);
  Node* b = g.create_node("Add", in);
  a->set_input(1, b->output(0));
  b->set_input(1, a->output(0));
  EXPECT_THROW(topological_order(g), Error);
  try {
    topological_order(g);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos);
  }
}

TEST(Verifier, ReportsUnknownAttributeReferenceInFunction) {
  Model m;
  auto f = std::make_unique<Function>("custom", "f");
  f->attributes = {"alpha"};
  Value* x = f->body->add_input("x");
  Value* in[] = {x};
  Node* n = f->body->create_node("LeakyRelu", in);
  n->set_attr(Attr::reference("alpha", AttrType::Float, "alpah"));
  f->body->add_output(n->output(0));
  m.functions.push_back(std::move(f));
  auto text = joined(verify(m));
  EXPECT_NE(text.find("refers to 'alpah', which is not an attribute parameter"), std::string::npos)
      << text;
  EXPECT_THROW(verify_or_throw(m), Error);
}

TEST(Verifier, TrainingGraphsSeeTheMainGraphButFunctionsDoNot) {
  Model m;
  Value* w = m.graph->add_initializer("w", std::make_shared<Tensor>(Tensor::scalar_float(1)));
  Value* in[] = {w};
  m.graph->add_output(m.graph->create_node("Neg", in)->output(0));
  TrainingInfo t;
  t.algorithm = std::make_unique<Graph>("algo");
  Node* step = t.algorithm->create_node("Relu", in);  // reads the main graph's w
  t.algorithm->add_output(step->output(0));
  m.training_info.push_back(std::move(t));
  auto f = std::make_unique<Function>("local", "f");
  Node* leak = f->body->create_node("Abs", in);  // functions cannot see w
  f->body->add_output(leak->output(0));
  m.functions.push_back(std::move(f));
  auto text = joined(verify(m));
  EXPECT_EQ(text.find("Relu"), std::string::npos) << text;
  EXPECT_NE(text.find("(Abs): input 0 'w' is not defined"), std::string::npos) << text;
}

TEST(NameAuthority, UniqueNamesInConstantTime) {
  NameAuthority names;
  EXPECT_TRUE(names.claim_value("x"));
  EXPECT_FALSE(names.claim_value("x"));
  EXPECT_EQ(names.unique_value("x"), "x_1");
  EXPECT_TRUE(names.claim_value("x_2"));
  EXPECT_EQ(names.unique_value("x"), "x_3");
  EXPECT_EQ(names.unique_value("y"), "y");
  EXPECT_EQ(names.unique_node("y"), "y");  // nodes have their own namespace
  // Many requests for one base stay cheap: each suffix is tried once.
  for (int i = 0; i < 100000; ++i) names.unique_value("t");
  EXPECT_TRUE(names.has_value("t_99999"));
}

TEST(NameAuthority, SubgraphsShareTheirParentsNames) {
  Graph g;
  Value* x = g.add_input("x");
  g.names().claim_value("x");
  auto sub = g.make_subgraph();
  Value* in[] = {x};
  Node* n = sub->create_node("Relu", in);
  Node* m = g.create_node("Relu", in);
  EXPECT_NE(n->output(0)->name(), m->output(0)->name());
  EXPECT_EQ(&sub->names(), &g.names());
}

}  // namespace
}  // namespace oxs::ir
