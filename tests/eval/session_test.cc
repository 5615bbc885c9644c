// Executor tests on hand-built graphs: order, outer scope, functions,
// attribute references, trace, release, input checks.
#include <gtest/gtest.h>

#include "oxs/eval/session.h"
#include "oxs/ir/error.h"

namespace oxs::eval {
namespace {

Tensor floats(Dims dims, std::vector<float> v) {
  return Tensor::of<float>(DataType::Float, std::move(dims), std::span<const float>(v));
}

std::vector<float> values(const Value& v) {
  const Tensor& t = v.tensor();
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

ir::Model make_model() {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  return m;
}

TEST(Session, RunsNodesInTopologicalOrder) {
  ir::Model m = make_model();
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", ir::Type::tensor(DataType::Float, ir::Shape{2}));
  ir::Value* y = g.add_input("y", ir::Type::tensor(DataType::Float, ir::Shape{2}));
  // Appended out of order: Mul reads the Add output defined after it.
  auto mul = std::make_unique<ir::Node>("Mul", std::vector<ir::Value*>{x, nullptr}, 1);
  ir::Node* mul_p = g.append(std::move(mul));
  ir::Value* xs[] = {x, y};
  ir::Node* add = g.create_node("Add", xs);
  mul_p->set_input(1, add->output(0));
  g.add_output(mul_p->output(0));
  Session s(m);
  auto out = s.run({{"x", floats({2}, {1, 2})}, {"y", floats({2}, {3, 4})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values(out[0]), (std::vector<float>{4, 12}));
}

TEST(Session, BroadcastsAndTraces) {
  ir::Model m = make_model();
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", ir::Type::tensor(DataType::Float, ir::Shape{2, 3}));
  ir::Value* b =
      g.add_initializer("b", std::make_shared<ir::Tensor>(floats({3}, {1, 2, 3}).to_ir()));
  ir::Value* xs[] = {x, b};
  ir::Node* add = g.create_node("Add", xs);
  ir::Value* r[] = {add->output(0)};
  ir::Node* relu = g.create_node("Relu", r);
  g.add_output(relu->output(0));
  std::vector<std::string> ops;
  SessionOptions o;
  o.trace = [&](const TraceEvent& e) {
    ops.push_back(e.node.op_type() + ":" + e.outputs[0].describe());
  };
  Session s(m, o);
  auto out = s.run({{"x", floats({2, 3}, {-5, 0, 1, 2, -9, 3})}});
  EXPECT_EQ(values(out[0]), (std::vector<float>{0, 2, 4, 3, 0, 6}));
  EXPECT_EQ(ops, (std::vector<std::string>{"Add:float[2,3]", "Relu:float[2,3]"}));
}

TEST(Session, ChecksInputs) {
  ir::Model m = make_model();
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", ir::Type::tensor(DataType::Float, ir::Shape{2}));
  ir::Value* xs[] = {x};
  g.add_output(g.create_node("Relu", xs)->output(0));
  Session s(m);
  EXPECT_THROW(s.run({}), Error);
  EXPECT_THROW(s.run({{"x", floats({3}, {1, 2, 3})}}), Error);
  EXPECT_THROW(s.run({{"x", Tensor(DataType::Int64, {2})}}), Error);
  EXPECT_THROW(s.run({{"x", floats({2}, {1, 2})}, {"z", floats({2}, {1, 2})}}), Error);
  try {
    s.run({{"x", Tensor(DataType::Int64, {2})}});
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("'x'"), std::string::npos) << e.message();
  }
}

TEST(Session, ModelLocalFunctionWithAttributeReference) {
  ir::Model m = make_model();
  m.opset_imports.push_back({"local", 1});
  auto f = std::make_unique<ir::Function>("local", "ScaledLeaky");
  f->attributes = {"slope"};
  f->opset_imports = {{"", 17}};
  ir::Value* fx = f->body->add_input("X");
  ir::Value* fxs[] = {fx};
  ir::Node* leaky = f->body->create_node("LeakyRelu", fxs);
  leaky->set_attr(ir::Attr::reference("alpha", ir::AttrType::Float, "slope"));
  f->body->add_output(leaky->output(0));
  m.functions.push_back(std::move(f));

  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", ir::Type::tensor(DataType::Float, ir::Shape{2}));
  ir::Value* xs[] = {x};
  ir::Node* call = g.create_node("ScaledLeaky", xs, 1, "local");
  call->set_attr(ir::Attr::of_float("slope", 0.5f));
  g.add_output(call->output(0));
  int depth_seen = -1;
  SessionOptions o;
  o.trace = [&](const TraceEvent& e) {
    if (e.node.op_type() == "LeakyRelu") depth_seen = e.depth;
  };
  Session s(m, o);
  auto out = s.run({{"x", floats({2}, {-4, 4})}});
  EXPECT_EQ(values(out[0]), (std::vector<float>{-2, 4}));
  EXPECT_EQ(depth_seen, 1);
}

TEST(Session, FunctionBodyProviderExpandsFunctionOps) {
  ir::Model m = make_model();
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", ir::Type::tensor(DataType::Float, ir::Shape{2}));
  ir::Value* xs[] = {x};
  ir::Node* n = g.create_node("MyDouble", xs, 1, "");
  g.add_output(n->output(0));
  int calls = 0;
  SessionOptions o;
  o.function_bodies = [&](const ir::Node& node, int64_t, std::span<const ir::Type> types,
                          std::span<const ir::Attr>) -> std::shared_ptr<const ir::Function> {
    ++calls;
    if (node.op_type() != "MyDouble") return nullptr;
    EXPECT_EQ(types.size(), 1u);
    EXPECT_EQ(types[0].elem_type(), DataType::Float);
    auto f = std::make_shared<ir::Function>("", "MyDouble");
    ir::Value* in = f->body->add_input("X");
    ir::Value* ins[] = {in, in};
    f->body->add_output(f->body->create_node("Add", ins)->output(0));
    return f;
  };
  Session s(m, o);
  EXPECT_EQ(values(s.run({{"x", floats({2}, {1, 2})}})[0]), (std::vector<float>{2, 4}));
  EXPECT_EQ(values(s.run({{"x", floats({2}, {3, 4})}})[0]), (std::vector<float>{6, 8}));
  EXPECT_EQ(calls, 1);  // cached per node and input types
}

TEST(Session, UnknownOpIsAClearError) {
  ir::Model m = make_model();
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", ir::Type::tensor(DataType::Float, ir::Shape{1}));
  ir::Value* xs[] = {x};
  ir::Node* n = g.create_node("NoSuchOp", xs);
  n->set_name("bad_node");
  g.add_output(n->output(0));
  Session s(m);
  try {
    s.run({{"x", floats({1}, {1})}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(e.where().node, "bad_node");
    EXPECT_NE(e.message().find("NoSuchOp"), std::string::npos);
  }
}

TEST(Tensor, AllocationLimitIsCheckedBeforeAllocating) {
  EXPECT_THROW(Tensor(DataType::Float, {int64_t{1} << 40, int64_t{1} << 40}), Error);
  EXPECT_THROW(Tensor(DataType::Float, {-1}), Error);
  int64_t old = allocation_limit();
  set_allocation_limit(1024);
  EXPECT_THROW(Tensor(DataType::Float, {1000}), Error);
  set_allocation_limit(old);
  Tensor ok(DataType::Float, {1000});
  EXPECT_EQ(ok.numel(), 1000);
}

}  // namespace
}  // namespace oxs::eval
