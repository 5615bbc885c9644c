// Hostile input for data propagation: known values libonnx 1.12's
// propagators cannot take. Found by fuzzing decompile_roundtrip (campaign of
// 2026-11-26, docs/hostile-input.md): Shape(x, start past x's rank) is an
// empty known value, and Sub of it and [1] made MathOpDataPropagator read
// element 0 of nothing (SIGSEGV in `oxs check` and `oxs compile`); oxs's own
// Div propagation read past the empty side the same way.
#include <gtest/gtest.h>

#include "oxs/infer/infer.h"

namespace oxs::infer {
namespace {

using ir::DataType;
using ir::Shape;
using ir::Type;

ir::Value* ints(ir::Graph& g, const std::string& name, std::vector<int64_t> v) {
  return g.add_initializer(name,
                           std::make_shared<ir::Tensor>(ir::Tensor::from<int64_t>(
                               DataType::Int64, {int64_t(v.size())}, std::span<const int64_t>(v))));
}

TEST(HostilePropagation, ArithmeticOfAnEmptyKnownValueAndOneElementIsEmptyNotACrash) {
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (bool empty_first : {true, false}) {
      SCOPED_TRACE(std::string(op) + (empty_first ? " [] op [1]" : " [1] op []"));
      ir::Model m;
      m.opset_imports = {{"", 17}};
      ir::Graph& g = *m.graph;
      ir::Value* x = g.add_input("x", Type::tensor(DataType::Float, Shape{2, 3}));
      ir::Value* xs[] = {x};
      ir::Node* shape = g.create_node("Shape", xs);
      shape->set_attr(ir::Attr::of_int("start", 2));  // past the rank: []
      ir::Value* one = ints(g, "one", {1});
      ir::Value* e = shape->output(0);
      ir::Value* ab[] = {empty_first ? e : one, empty_first ? one : e};
      ir::Node* n = g.create_node(op, ab);
      g.add_output(n->output(0));
      Inferencer inf(m);
      inf.infer_graph(g);
      EXPECT_EQ(Shape(*inf.known_value(shape->output(0))).rank(), 0u);
      // Unknown, or [] (one element against none broadcasts to none).
      if (auto kv = inf.known_value(n->output(0))) {
        EXPECT_EQ(Shape(*kv).to_string(), "[]");
      }
    }
  }
}

// Non-empty known values still propagate through the same ops.
TEST(HostilePropagation, ArithmeticOfKnownValuesStillPropagates) {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", Type::tensor(DataType::Float, Shape{2, 3}));
  ir::Value* xs[] = {x};
  ir::Node* shape = g.create_node("Shape", xs);
  ir::Value* ab[] = {shape->output(0), ints(g, "one", {1})};
  ir::Node* sub = g.create_node("Sub", ab);
  Inferencer inf(m);
  inf.infer_graph(g);
  auto kv = inf.known_value(sub->output(0));
  ASSERT_TRUE(kv);
  EXPECT_EQ(Shape(*kv).to_string(), "[1,2]");
}

}  // namespace
}  // namespace oxs::infer
