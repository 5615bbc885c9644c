// Hostile input, classes 2 and 3: node signatures, subgraph signatures and
// recursion. These used to end in exit 3 (internal error) or a stack
// overflow; they must be clear oxs::Errors, the structural ones when the
// Session is built (before anything runs).
#include <cstdio>

#include "hostile_util.h"

namespace oxs::eval::hostile {
namespace {

// The error of building a Session for `m` ("" if it builds).
std::string build_error(const ir::Model& m) {
  try {
    Session s(m);
  } catch (const Error& e) {
    EXPECT_NE(e.kind(), ErrorKind::Internal) << e.describe();
    return e.describe();
  }
  return "";
}

void expect_build_error(const ir::Model& m, std::initializer_list<std::string> parts) {
  std::string text = build_error(m);
  ASSERT_FALSE(text.empty()) << "the session was built without an error";
  for (const std::string& p : parts) {
    EXPECT_NE(text.find(p), std::string::npos) << "'" << p << "' not in: " << text;
  }
}

TEST(HostileGraph, NodeWithMoreOutputsThanItsOpProduces) {
  OpCase c{"Relu", {f32({2}, {1, -1})}, {}, 3};
  expect_build_error(one_op_model(std::move(c)),
                     {"hostile", "has 3 outputs", "Relu", "produces 1"});
}

TEST(HostileGraph, NodeWithTooFewInputs) {
  OpCase c{"Add", {f32({2}, {1, -1})}};
  expect_build_error(one_op_model(std::move(c)), {"hostile", "has 1 input", "takes 2"});
}

TEST(HostileGraph, AttributeOfTheWrongType) {
  OpCase c{"Transpose", {f32({2}, {1, -1})}, attrs(ir::Attr::of_string("perm", "0"))};
  expect_build_error(one_op_model(std::move(c)), {"hostile", "'perm'", "string", "ints"});
}

// Loop (max trip count 3, cond true) with one carried value `v`, whose body
// returns `body_outputs` values (cond, v, ...).
ir::Model loop_model(size_t body_outputs, size_t node_outputs) {
  ir::Model m = one_op_model(OpCase{"Identity", {f32({1}, {1})}});
  ir::Graph& g = *m.graph;
  auto body = std::make_unique<ir::Graph>();
  body->add_input("i", ir::Type::tensor(DataType::Int64, ir::Shape{}));
  ir::Value* cond = body->add_input("c", ir::Type::tensor(DataType::Bool, ir::Shape{}));
  ir::Value* v = body->add_input("v", ir::Type::tensor(DataType::Float, ir::Shape{1}));
  std::vector<ir::Value*> outs{cond, v, v};
  for (size_t i = 0; i < body_outputs; ++i) body->add_output(outs[i % 3]);
  ir::Value* trip = g.add_initializer("trip", std::make_shared<ir::Tensor>(i64({}, {3}).to_ir()));
  ir::Value* ins[] = {trip, nullptr, g.first_node()->output(0)};
  ir::Node* loop = g.create_node("Loop", ins, node_outputs);
  loop->set_name("the_loop");
  loop->set_attr(ir::Attr::of_graph("body", std::move(body)));
  for (size_t i = 0; i < node_outputs; ++i) g.add_output(loop->output(i));
  return m;
}

TEST(HostileGraph, LoopBodyWithTooFewOutputs) {
  expect_build_error(loop_model(1, 1), {"the_loop", "body returns 1 output", "condition"});
  expect_build_error(loop_model(2, 2), {"the_loop", "body returns 2 outputs"});
}

TEST(HostileGraph, LoopThatIsWellFormedRuns) {
  EXPECT_EQ(run_error(loop_model(3, 2)), "");
}

// Scan with `inputs` scan inputs of shape [2], body Identity per input.
ir::Model scan_model(int64_t num_scan_inputs, std::vector<int64_t> input_axes = {}) {
  ir::Model m;
  m.opset_imports = {{"", 16}};
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_initializer("x", std::make_shared<ir::Tensor>(f32({2}, {1, 2}).to_ir()));
  auto body = std::make_unique<ir::Graph>();
  ir::Value* e = body->add_input("e", ir::Type::tensor(DataType::Float, ir::Shape{}));
  body->add_output(e);
  ir::Value* ins[] = {x};
  ir::Node* scan = g.create_node("Scan", ins, 1);
  scan->set_name("the_scan");
  scan->set_attr(ir::Attr::of_graph("body", std::move(body)));
  scan->set_attr(a_int("num_scan_inputs", num_scan_inputs));
  if (!input_axes.empty()) scan->set_attr(a_ints("scan_input_axes", std::move(input_axes)));
  g.add_output(scan->output(0));
  return m;
}

TEST(HostileGraph, ScanNumScanInputsOutOfRange) {
  expect_build_error(scan_model(0), {"the_scan", "num_scan_inputs is 0"});
  expect_build_error(scan_model(5), {"the_scan", "num_scan_inputs is 5"});
  expect_build_error(scan_model(-7), {"the_scan", "num_scan_inputs is -7"});
  EXPECT_EQ(run_error(scan_model(1)), "");
}

TEST(HostileGraph, ScanAxesListLongerOrShorterThanItsInputs) {
  expect_build_error(scan_model(1, {0, 0, 0}), {"the_scan", "scan_input_axes", "3 values"});
}

TEST(HostileGraph, IfBranchWithTooFewOutputs) {
  ir::Model m = one_op_model(OpCase{"Identity", {f32({1}, {1})}});
  ir::Graph& g = *m.graph;
  Tensor t(DataType::Bool, {});
  ir::Value* c = g.add_initializer("c", std::make_shared<ir::Tensor>(t.to_ir()));
  auto then_g = std::make_unique<ir::Graph>();
  auto else_g = std::make_unique<ir::Graph>();
  ir::Value* outer = g.first_node()->output(0);
  then_g->add_output(outer);
  ir::Value* ins[] = {c};
  ir::Node* n = g.create_node("If", ins, 2);
  n->set_name("the_if");
  n->set_attr(ir::Attr::of_graph("then_branch", std::move(then_g)));
  n->set_attr(ir::Attr::of_graph("else_branch", std::move(else_g)));
  g.add_output(n->output(0));
  g.add_output(n->output(1));
  expect_build_error(m, {"the_if", "then_branch has 1 output", "2 outputs"});
}

// A model calling local.F0, where F<i> calls F<calls[i]> (or Relu for -1).
ir::Model function_model(const std::vector<int>& calls) {
  ir::Model m;
  m.opset_imports = {{"", 17}, {"local", 1}};
  for (size_t i = 0; i < calls.size(); ++i) {
    auto f = std::make_unique<ir::Function>("local", "F" + std::to_string(i));
    f->opset_imports = {{"", 17}, {"local", 1}};
    ir::Value* x = f->body->add_input("X");
    ir::Value* xs[] = {x};
    ir::Node* n = calls[i] < 0
                      ? f->body->create_node("Relu", xs)
                      : f->body->create_node("F" + std::to_string(calls[i]), xs, 1, "local");
    f->body->add_output(n->output(0));
    m.functions.push_back(std::move(f));
  }
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", ir::Type::tensor(DataType::Float, ir::Shape{2}));
  ir::Value* xs[] = {x};
  g.add_output(g.create_node("F0", xs, 1, "local")->output(0));
  return m;
}

TEST(HostileGraph, FunctionThatCallsItself) {
  expect_build_error(function_model({0}), {"'F0' calls itself", "'F0' -> 'F0'"});
}

TEST(HostileGraph, CycleOfFunctions) {
  expect_build_error(function_model({1, 2, 0}), {"cycle", "'F0' -> 'F1' -> 'F2' -> 'F0'"});
  // A cycle not reachable from F0 is still an error.
  expect_build_error(function_model({-1, 2, 1}), {"cycle", "'F1' -> 'F2' -> 'F1'"});
}

TEST(HostileGraph, DeepChainOfFunctionCallsWorksOrStopsCleanly) {
  std::vector<int> calls;
  const int depth = 10000;
  for (int i = 0; i + 1 < depth; ++i) calls.push_back(i + 1);
  calls.push_back(-1);
  ir::Model m = function_model(calls);
  Session s(m);
  try {
    auto out = s.run({{"x", f32({2}, {-1, 3})}});
    EXPECT_EQ(out[0].tensor().data<float>()[1], 3.0f);
    std::printf("%d nested calls ran\n", depth);
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("nested too deeply"), std::string::npos) << e.describe();
    std::printf("%d nested calls: %s\n", depth, e.message().substr(0, 200).c_str());
  }
  // A chain of 100 is well within the stack.
  std::vector<int> short_calls;
  for (int i = 0; i + 1 < 100; ++i) short_calls.push_back(i + 1);
  short_calls.push_back(-1);
  ir::Model m2 = function_model(short_calls);
  Session s2(m2);
  auto out = s2.run({{"x", f32({2}, {-1, 3})}});
  EXPECT_EQ(out[0].tensor().data<float>()[0], 0.0f);
}

TEST(HostileGraph, CallWithMoreInputsThanTheFunctionTakes) {
  ir::Model m = function_model({-1});
  ir::Graph& g = *m.graph;
  ir::Node* call = g.first_node();
  call->append_input(g.inputs()[0]);
  call->set_name("the_call");
  expect_build_error(m, {"the_call", "calls function 'F0' with 2 inputs", "takes 1 input"});
}

TEST(HostileGraph, GradientOfAValueThatDependsOnItself) {
  // z = Add(dx, x) where dx = Gradient(xs = [x], y = z): differentiating z
  // re-ran the Gradient node inside itself until the stack ran out.
  ir::Model m;
  m.opset_imports = {{"", 17}, {"ai.onnx.preview.training", 1}};
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", ir::Type::tensor(DataType::Float, ir::Shape{2}));
  ir::Value* xs[] = {x};
  ir::Node* grad = g.create_node("Gradient", xs, 1, "ai.onnx.preview.training");
  grad->set_name("the_gradient");
  grad->set_attr(ir::Attr::of_strings("xs", {"x"}));
  grad->set_attr(ir::Attr::of_string("y", "z"));
  ir::Value* add_in[] = {grad->output(0), x};
  ir::Node* add = g.create_node("Add", add_in);
  add->output(0)->set_name("z");
  g.add_output(add->output(0));
  std::string text = run_error(m, {}, {{"x", f32({2}, {1, 2})}});
  EXPECT_NE(text.find("the_gradient"), std::string::npos) << text;
  EXPECT_NE(text.find("depends on this node's own outputs"), std::string::npos) << text;
}

}  // namespace
}  // namespace oxs::eval::hostile
