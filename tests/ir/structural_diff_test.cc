// Structural comparison ignores names and free node order, and names the
// nodes where two graphs really differ.
#include <gtest/gtest.h>

#include "oxs/ir/structural_diff.h"

namespace oxs::ir {
namespace {

// y = Relu(x * w) + Neg(x), built with the given names and node order.
std::unique_ptr<Graph> sample(const std::string& prefix, bool swap_order, float alpha = 1.0f,
                              bool weight_as_constant = false) {
  auto g = std::make_unique<Graph>(prefix + "g");
  Value* x = g->add_input(prefix + "x", Type::tensor(DataType::Float, Shape{2}));
  float wv[] = {1.5f, -2.0f};
  auto wt = std::make_shared<Tensor>(Tensor::from<float>(DataType::Float, {2}, wv));
  Value* w;
  if (weight_as_constant) {
    Node* c = g->create_node("Constant", {});
    c->set_attr(Attr::of_tensor("value", wt));
    w = c->output(0);
  } else {
    w = g->add_initializer(prefix + "w", wt);
  }
  Value* xin[] = {x};
  Node* neg = nullptr;
  if (swap_order) neg = g->create_node("Neg", xin);
  Value* mul_in[] = {x, w};
  Node* mul = g->create_node("Mul", mul_in);
  Value* relu_in[] = {mul->output(0)};
  Node* relu = g->create_node("LeakyRelu", relu_in);
  relu->set_attr(Attr::of_float("alpha", alpha));
  if (!swap_order) neg = g->create_node("Neg", xin);
  Value* add_in[] = {relu->output(0), neg->output(0)};
  Node* add = g->create_node("Add", add_in);
  add->output(0)->set_type(Type::tensor(DataType::Float, Shape{2}));
  g->add_output(add->output(0));
  return g;
}

TEST(StructuralDiff, IgnoresNamesAndFreeOrder) {
  auto a = sample("a_", false);
  auto b = sample("b_", true);
  auto r = diff(*a, *b);
  EXPECT_TRUE(r.equivalent()) << r.to_string();
  EXPECT_EQ(r.to_string(), "equivalent\n");
}

TEST(StructuralDiff, ConstantNodeEqualsInitializer) {
  auto a = sample("", false, 1.0f, false);
  auto b = sample("", false, 1.0f, true);
  auto r = diff(*a, *b);
  EXPECT_TRUE(r.equivalent()) << r.to_string();
}

TEST(StructuralDiff, NamesTheNodesWhereAttributesDiffer) {
  auto a = sample("", false, 1.0f);
  auto b = sample("", false, 1.001f);
  auto r = diff(*a, *b);
  ASSERT_FALSE(r.equivalent());
  EXPECT_NE(r.differences[0].message.find("attribute 'alpha' values differ"), std::string::npos)
      << r.to_string();
  EXPECT_NE(r.differences[0].where_a.find("LeakyRelu"), std::string::npos);
  DiffOptions loose;
  loose.rtol = 1e-2;
  EXPECT_TRUE(diff(*a, *b, loose).equivalent()) << diff(*a, *b, loose).to_string();
}

TEST(StructuralDiff, ReportsDifferentOperatorsAndDeadNodes) {
  auto a = sample("", false);
  auto b = sample("", false);
  for (Node* n : b->nodes()) {
    if (n->op_type() == "Neg") n->set_op_type("Abs");
  }
  auto r = diff(*a, *b);
  ASSERT_FALSE(r.equivalent());
  EXPECT_EQ(r.differences[0].message, "operators differ: Neg vs Abs") << r.to_string();

  auto c = sample("", false);
  Value* in[] = {c->inputs()[0]};
  c->create_node("Sqrt", in);  // feeds nothing
  DiffOptions no_dead;
  no_dead.compare_dead_nodes = false;
  EXPECT_TRUE(diff(*a, *c, no_dead).equivalent());
  auto r2 = diff(*a, *c);
  ASSERT_FALSE(r2.equivalent());
  EXPECT_NE(
      r2.differences[0].message.find("0 node(s) only in the first graph and 1 only in the second"),
      std::string::npos)
      << r2.to_string();
}

TEST(StructuralDiff, ComparesConstantsByValue) {
  auto a = sample("", false);
  auto b = sample("", false);
  float other[] = {1.5f, -2.5f};
  b->initializers()[0]->set_const_value(
      std::make_shared<Tensor>(Tensor::from<float>(DataType::Float, {2}, other)));
  auto r = diff(*a, *b);
  ASSERT_FALSE(r.equivalent());
  EXPECT_NE(r.differences[0].message.find("constants differ"), std::string::npos) << r.to_string();
}

TEST(StructuralDiff, ComparesSubgraphsAndIoTypes) {
  auto make = [](const char* inner_op, DataType out_type) {
    auto g = std::make_unique<Graph>("g");
    Value* c = g->add_input("c", Type::tensor(DataType::Bool, Shape{}));
    Value* x = g->add_input("x", Type::tensor(DataType::Float));
    auto then_g = g->make_subgraph("then");
    Value* xin[] = {x};
    then_g->add_output(then_g->create_node(inner_op, xin)->output(0));
    auto else_g = g->make_subgraph("else");
    else_g->add_output(else_g->create_node("Neg", xin)->output(0));
    Value* cin[] = {c};
    Node* n = g->create_node("If", cin);
    n->set_attr(Attr::of_graph("then_branch", std::move(then_g)));
    n->set_attr(Attr::of_graph("else_branch", std::move(else_g)));
    n->output(0)->set_type(Type::tensor(out_type));
    g->add_output(n->output(0));
    return g;
  };
  EXPECT_TRUE(diff(*make("Relu", DataType::Float), *make("Relu", DataType::Float)).equivalent());
  auto r = diff(*make("Relu", DataType::Float), *make("Abs", DataType::Float));
  ASSERT_FALSE(r.equivalent());
  EXPECT_EQ(r.differences[0].message, "operators differ: Relu vs Abs") << r.to_string();
  {
    auto a = make("Relu", DataType::Float);
    auto b = make("Relu", DataType::Float);
    b->outputs()[0]->set_type(Type::tensor(DataType::Float, Shape{4}));
    EXPECT_FALSE(diff(*a, *b).equivalent());
    DiffOptions refined;
    refined.allow_refined_output_types = true;
    EXPECT_TRUE(diff(*a, *b, refined).equivalent());
    EXPECT_FALSE(diff(*b, *a, refined).equivalent());  // less precise is no refinement
  }
  auto r2 = diff(*make("Relu", DataType::Float), *make("Relu", DataType::Double));
  ASSERT_FALSE(r2.equivalent());
  EXPECT_NE(r2.differences[0].message.find("output types differ: float vs double"),
            std::string::npos)
      << r2.to_string();
}

TEST(StructuralDiff, AttributeOrderAndIdentityNormalization) {
  auto a = sample("", false);
  auto b = sample("", false);
  // Reorder attributes: add a second one to both, in opposite orders.
  for (auto* g : {a.get(), b.get()}) {
    for (Node* n : g->nodes()) {
      if (n->op_type() != "LeakyRelu") continue;
      if (g == a.get()) {
        n->set_attr(Attr::of_int("k", 1));
      } else {
        Attr alpha = n->attr("alpha")->clone();
        n->remove_attr("alpha");
        n->set_attr(Attr::of_int("k", 1));
        n->set_attr(std::move(alpha));
      }
    }
  }
  EXPECT_TRUE(diff(*a, *b).equivalent()) << diff(*a, *b).to_string();
  // An Identity in front of the output is a difference, unless normalized.
  Value* out = b->outputs()[0];
  Value* in[] = {out};
  Node* id = b->create_node("Identity", in);
  id->output(0)->set_type(out->type());
  b->set_output(0, id->output(0));
  EXPECT_FALSE(diff(*a, *b).equivalent());
  DiffOptions o;
  o.look_through_identity = true;
  EXPECT_TRUE(diff(*a, *b, o).equivalent()) << diff(*a, *b, o).to_string();
}

TEST(StructuralDiff, TrailingOmittedInputsAreAbsentInputs) {
  auto a = sample("", false);
  auto b = sample("", false);
  for (Node* n : b->nodes()) {
    if (n->op_type() == "LeakyRelu") n->append_input(nullptr);
  }
  EXPECT_TRUE(diff(*a, *b).equivalent()) << diff(*a, *b).to_string();
  for (Node* n : b->nodes()) {
    if (n->op_type() == "LeakyRelu") n->append_input(b->inputs()[0]);
  }
  auto r = diff(*a, *b);
  ASSERT_FALSE(r.equivalent());
  EXPECT_EQ(r.differences[0].message, "input or output counts differ") << r.to_string();
}

TEST(StructuralDiff, HandlesLongChainsWithoutRecursion) {
  auto chain = [](int n, int changed_at) {
    auto g = std::make_unique<Graph>("g");
    Value* v = g->add_input("x", Type::tensor(DataType::Float));
    for (int i = 0; i < n; ++i) {
      Value* in[] = {v};
      v = g->create_node(i == changed_at ? "Abs" : "Relu", in)->output(0);
    }
    g->add_output(v);
    return g;
  };
  const int n = 200000;
  EXPECT_TRUE(diff(*chain(n, -1), *chain(n, -1)).equivalent());
  auto r = diff(*chain(n, -1), *chain(n, 7));
  ASSERT_FALSE(r.equivalent());
  EXPECT_EQ(r.differences[0].message, "operators differ: Relu vs Abs");
  EXPECT_NE(r.differences[0].where_a.find("Relu_7"), std::string::npos) << r.to_string();
}

TEST(StructuralDiff, ModelsCompareFunctionsAndOpsets) {
  Model a, b;
  a.opset_imports = {{"", 17}};
  b.opset_imports = {{"ai.onnx", 17}};
  a.graph = sample("", false);
  b.graph = sample("", true);
  EXPECT_TRUE(diff(a, b).equivalent()) << diff(a, b).to_string();
  // An import no node uses changes nothing; a used one at another version does.
  b.opset_imports.push_back({"com.unused", 3});
  EXPECT_TRUE(diff(a, b).equivalent()) << diff(a, b).to_string();
  b.opset_imports[0].version = 16;
  auto r0 = diff(a, b);
  ASSERT_FALSE(r0.equivalent());
  EXPECT_EQ(r0.differences[0].message,
            "opset imports differ: domain 'ai.onnx' is imported at 17 vs 16");
  b.opset_imports[0].version = 17;
  auto f = std::make_unique<Function>("local", "f");
  b.functions.push_back(std::move(f));
  auto r = diff(a, b);
  ASSERT_FALSE(r.equivalent());
  EXPECT_EQ(r.differences[0].message, "function only in the second model");
  // Functions match by (domain, name, overload): another overload is another function.
  auto g = std::make_unique<Function>("local", "f");
  g->overload = "v2";
  a.functions.push_back(std::move(g));
  auto r2 = diff(a, b);
  ASSERT_EQ(r2.differences.size(), 2u) << r2.to_string();
  EXPECT_EQ(r2.differences[0].where_a, "function 'local.f:v2'");
  EXPECT_EQ(r2.differences[0].message, "function only in the first model");
  EXPECT_EQ(r2.differences[1].where_b, "function 'local.f'");
}

}  // namespace
}  // namespace oxs::ir
