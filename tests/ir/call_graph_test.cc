// Recursion among model-local functions is found (self-calls, cycles, calls
// hidden in subgraphs), named in the verifier's message, and deep chains are
// measured without recursion of our own.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "oxs/ir/call_graph.h"
#include "oxs/ir/error.h"
#include "oxs/ir/model.h"
#include "oxs/ir/verifier.h"

namespace oxs::ir {
namespace {

// Adds function `name` in domain "local" whose body applies each op of
// `callees` in turn (a local function's name calls that function).
Function& add_function(Model& m, const std::string& name, const std::vector<std::string>& callees) {
  auto f = std::make_unique<Function>("local", name);
  Value* v = f->body->add_input("x");
  for (const std::string& op : callees) {
    Value* in[] = {v};
    v = f->body->create_node(op, in, 1, "local")->output(0);
  }
  f->body->add_output(v);
  return m.functions.push_back(std::move(f));
}

std::string joined(const std::vector<VerifyIssue>& issues) {
  std::string s;
  for (const auto& i : issues) s += i.where + ": " + i.message + "\n";
  return s;
}

TEST(CallGraph, NoFunctionsMeansDepthZero) {
  Model m;
  CallGraphSummary s = analyze_calls(m);
  EXPECT_TRUE(s.cycles.empty());
  EXPECT_EQ(s.max_depth, 0u);
}

TEST(CallGraph, FindsAFunctionThatCallsItself) {
  Model m;
  add_function(m, "f", {"f"});
  CallGraphSummary s = analyze_calls(m);
  ASSERT_EQ(s.cycles.size(), 1u);
  EXPECT_EQ(cycle_text(s.cycles[0]), "local.f -> local.f");
  std::string text = joined(verify(m));
  EXPECT_NE(text.find("function 'local.f': calls itself (local.f -> local.f)"), std::string::npos)
      << text;
  EXPECT_THROW(verify_or_throw(m), Error);
}

TEST(CallGraph, NamesEveryFunctionOfACycle) {
  Model m;
  add_function(m, "a", {"b"});
  add_function(m, "b", {"c"});
  add_function(m, "c", {"a"});
  add_function(m, "unrelated", {});
  CallGraphSummary s = analyze_calls(m);
  ASSERT_EQ(s.cycles.size(), 1u);
  EXPECT_EQ(cycle_text(s.cycles[0]), "local.a -> local.b -> local.c -> local.a");
  std::string text = joined(verify(m));
  EXPECT_NE(text.find("is part of a cycle of calls (local.a -> local.b -> local.c -> local.a)"),
            std::string::npos)
      << text;
}

TEST(CallGraph, FindsACallInsideASubgraph) {
  Model m;
  Function& f = add_function(m, "f", {});
  // f's body: If(cond) whose then-branch calls f again.
  Value* cond = f.body->add_input("cond");
  auto then_g = f.body->make_subgraph("then");
  Value* in[] = {cond};
  Node* call = then_g->create_node("f", in, 1, "local");
  then_g->add_output(call->output(0));
  auto else_g = f.body->make_subgraph("else");
  else_g->add_output(else_g->create_node("Identity", in)->output(0));
  Node* if_node = f.body->create_node("If", in);
  if_node->set_attr(Attr::of_graph("then_branch", std::move(then_g)));
  if_node->set_attr(Attr::of_graph("else_branch", std::move(else_g)));
  CallGraphSummary s = analyze_calls(m);
  ASSERT_EQ(s.cycles.size(), 1u);
  EXPECT_EQ(cycle_text(s.cycles[0]), "local.f -> local.f");
}

TEST(CallGraph, AnOpOfAnotherDomainWithTheSameNameIsNoCall) {
  Model m;
  auto f = std::make_unique<Function>("local", "Relu");
  Value* x = f->body->add_input("x");
  Value* in[] = {x};
  f->body->add_output(f->body->create_node("Relu", in)->output(0));  // ai.onnx's Relu
  m.functions.push_back(std::move(f));
  CallGraphSummary s = analyze_calls(m);
  EXPECT_TRUE(s.cycles.empty());
  EXPECT_EQ(s.max_depth, 1u);
}

TEST(CallGraph, ADiamondIsNoCycle) {
  Model m;
  add_function(m, "top", {"left", "right"});
  add_function(m, "left", {"bottom"});
  add_function(m, "right", {"bottom"});
  add_function(m, "bottom", {});
  CallGraphSummary s = analyze_calls(m);
  EXPECT_TRUE(s.cycles.empty());
  EXPECT_EQ(s.max_depth, 3u);
  ASSERT_EQ(s.deepest_chain.size(), 3u);
  EXPECT_EQ(s.deepest_chain.front()->name, "top");
  EXPECT_EQ(s.deepest_chain.back()->name, "bottom");
  EXPECT_EQ(joined(verify(m)), "");
}

// 100,000 nested calls: a recursive walk would overflow the stack here.
TEST(CallGraph, MeasuresAVeryDeepChainIteratively) {
  constexpr int kDepth = 100000;
  Model m;
  for (int i = 0; i < kDepth; ++i) {
    add_function(m, "f" + std::to_string(i),
                 i + 1 < kDepth ? std::vector<std::string>{"f" + std::to_string(i + 1)}
                                : std::vector<std::string>{});
  }
  CallGraphSummary s = analyze_calls(m);
  EXPECT_TRUE(s.cycles.empty());
  EXPECT_EQ(s.max_depth, size_t(kDepth));
  EXPECT_EQ(s.deepest_chain.size(), size_t(kDepth));
  // Closing the chain into a loop makes it a cycle of every function.
  Node* last = m.functions.back()->body->first_node();
  ASSERT_EQ(last, nullptr);
  add_function(m, "closer", {"f0"});
  Value* in[] = {m.functions[kDepth - 1]->body->inputs()[0]};
  m.functions[kDepth - 1]->body->create_node("closer", in, 1, "local");
  s = analyze_calls(m);
  ASSERT_EQ(s.cycles.size(), 1u);
  EXPECT_EQ(s.cycles[0].size(), size_t(kDepth + 1));
}

}  // namespace
}  // namespace oxs::ir
