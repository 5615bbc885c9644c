// The verifier's complete output, word for word and in order, for models
// that break its rules in several ways at once (scopes, siblings, functions,
// training graphs, use lists). verifier_test.cc checks each rule; this file
// pins the exact diagnostics so a faster implementation cannot change them.
#include <gtest/gtest.h>

#include "oxs/ir/model.h"
#include "oxs/ir/verifier.h"

namespace oxs::ir {
namespace {

std::string joined(const std::vector<VerifyIssue>& issues) {
  std::string s;
  for (const auto& i : issues) s += i.where + ": " + i.message + "\n";
  return s;
}

std::shared_ptr<Tensor> one() {
  return std::make_shared<Tensor>(Tensor::scalar_float(1));
}

// Sibling branches may reuse a name; a nested graph may not redefine an
// outer one; a branch cannot read its sibling's values; names are free again
// after their scope ends.
TEST(VerifierMessages, ScopesAndSiblings) {
  Graph g("main");
  Value* c = g.add_input("c");
  Value* cin[] = {c};
  auto then_g = g.make_subgraph("then");
  Node* t = then_g->create_node("Not", cin);
  t->output(0)->set_name("t");
  then_g->add_output(t->output(0));
  auto else_g = g.make_subgraph("else");
  Node* e = else_g->create_node("Not", cin);
  e->output(0)->set_name("t");  // same name as the then branch's: fine
  Value* leak[] = {t->output(0)};
  Node* e2 = else_g->create_node("Identity", leak);  // the sibling's value
  e2->output(0)->set_name("c");                      // redefines the outer input
  else_g->add_output(e->output(0));
  Node* if_node = g.create_node("If", cin);
  if_node->set_name("branch");
  if_node->set_attr(Attr::of_graph("then_branch", std::move(then_g)));
  if_node->set_attr(Attr::of_graph("else_branch", std::move(else_g)));
  Node* after = g.create_node("Not", cin);
  after->output(0)->set_name("t");  // the branches' "t" are out of scope now
  g.add_output(after->output(0));
  g.add_output(if_node->output(0));
  EXPECT_EQ(joined(verify(g)),
            "node 'Identity' (Identity): input 0 't' is not defined in this graph or an "
            "enclosing one\n"
            "node 'Identity' (Identity): value name 'c' is defined twice (SSA requires one "
            "definition)\n");
}

// Empty names, a value listed twice, an initializer without a tensor, a null
// and an undefined output, a hand-built subgraph attribute without its owner,
// and a use from a node outside the verified graph.
TEST(VerifierMessages, ValuesOutputsOwnersAndUses) {
  Graph g("main");
  Value* x = g.add_input("x");
  g.add_input("");  // empty name
  Value* w = g.add_initializer("w", nullptr);
  Value* xin[] = {x, w};
  Node* add = g.create_node("Add", xin);
  add->set_name("sum");
  add->output(0)->set_name("");
  auto body = g.make_subgraph("body");
  Value* bin[] = {add->output(0)};
  Node* inner = body->create_node("Neg", bin);
  inner->output(0)->set_name("w");  // redefines the outer initializer
  body->add_output(inner->output(0));
  Node* loop = g.create_node("Loop", std::vector<Value*>{});
  loop->mutable_attrs().push_back(Attr::of_graph("body", std::move(body)));  // no adopt
  Graph other("other");
  Value* oin[] = {x};
  other.create_node("Relu", oin);  // reads x from outside `g`: a use no input of g explains
  g.add_output(add->output(0));
  g.add_output(add->output(0));
  g.add_output(other.first_node()->output(0));
  EXPECT_EQ(joined(verify(g)),
            "graph 'main' input: defines a value with an empty name\n"
            "graph 'main': initializer 'w' has no tensor\n"
            "node 'sum' (Add): defines a value with an empty name\n"
            "node 'Loop' (Loop): attribute 'body' subgraph has a wrong owner\n"
            "node 'Neg' (Neg): value name 'w' is defined twice (SSA requires one definition)\n"
            "graph 'body' (attribute 'body' of node 'Loop' (Loop)): output 'w' is not defined\n"
            "graph 'main': output '" +
                other.first_node()->output(0)->name() +
                "' is not defined\n"
                "value 'x': use list has 2 entries but 1 node inputs read the value\n");
}

// Functions see neither the main graph nor each other and may reuse its
// names; training graphs see the main graph and may not redefine its names.
TEST(VerifierMessages, FunctionsAndTrainingGraphs) {
  Model m;
  Value* w = m.graph->add_initializer("w", one());
  Value* win[] = {w};
  Node* neg = m.graph->create_node("Neg", win);
  neg->output(0)->set_name("y");
  m.graph->add_output(neg->output(0));
  for (const char* name : {"f", "g"}) {
    auto f = std::make_unique<Function>("local", name);
    Value* fx = f->body->add_input("x");
    Value* fin[] = {fx, w};  // w is the main graph's
    Node* n = f->body->create_node("Add", fin);
    n->output(0)->set_name("y");  // the main graph's name: fine
    n->set_attr(Attr::reference("alpha", AttrType::Float, "alpha"));
    f->body->add_output(n->output(0));
    m.functions.push_back(std::move(f));
  }
  m.functions[1]->attributes = {"alpha"};
  TrainingInfo t;
  t.algorithm = std::make_unique<Graph>("algo");
  Node* step = t.algorithm->create_node("Relu", win);  // reads main's w: fine
  step->output(0)->set_name("y");                      // redefines main's y
  t.algorithm->add_output(step->output(0));
  m.training_info.push_back(std::move(t));
  EXPECT_EQ(joined(verify(m)),
            "node 'Add' (Add): input 1 'w' is not defined in this graph or an enclosing one\n"
            "node 'Add' in function 'f': attribute 'alpha' refers to 'alpha', which is not an "
            "attribute parameter of the function\n"
            "node 'Add' (Add): input 1 'w' is not defined in this graph or an enclosing one\n"
            "node 'Relu' (Relu): value name 'y' is defined twice (SSA requires one definition)\n"
            "graph 'algo' (training algorithm): output 'y' is not defined\n");
}

}  // namespace
}  // namespace oxs::ir
