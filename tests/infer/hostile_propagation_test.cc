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

// x: float[2, 3], its Shape (from `start`), and `op`(shape, [1]) or
// `op`([1], shape).
struct ShapeArithmetic {
  ir::Model m;
  ir::Node* shape = nullptr;
  ir::Node* op = nullptr;
  ShapeArithmetic(const char* op_type, int64_t start, bool shape_first) {
    m.opset_imports = {{"", 17}};
    ir::Graph& g = *m.graph;
    ir::Value* xs[] = {g.add_input("x", Type::tensor(DataType::Float, Shape{2, 3}))};
    shape = g.create_node("Shape", xs);
    shape->set_attr(ir::Attr::of_int("start", start));
    std::vector<int64_t> one{1};
    ir::Value* c =
        g.add_initializer("one", std::make_shared<ir::Tensor>(ir::Tensor::from<int64_t>(
                                     DataType::Int64, {1}, std::span<const int64_t>(one))));
    ir::Value* ab[] = {shape_first ? shape->output(0) : c, shape_first ? c : shape->output(0)};
    op = g.create_node(op_type, ab);
    g.add_output(op->output(0));
  }
};

TEST(HostilePropagation, ArithmeticOfAnEmptyKnownValueAndOneElementIsEmptyNotACrash) {
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (bool empty_first : {true, false}) {
      SCOPED_TRACE(std::string(op) + (empty_first ? " [] op [1]" : " [1] op []"));
      ShapeArithmetic sa(op, 2, empty_first);  // start 2 of a rank-2 x: []
      Inferencer inf(sa.m);
      inf.infer_graph(*sa.m.graph);
      EXPECT_EQ(Shape(*inf.known_value(sa.shape->output(0))).rank(), 0u);
      // Unknown, or [] (one element against none broadcasts to none).
      if (auto kv = inf.known_value(sa.op->output(0))) {
        EXPECT_EQ(Shape(*kv).to_string(), "[]");
      }
    }
  }
}

// Non-empty known values still propagate through the same ops.
TEST(HostilePropagation, ArithmeticOfKnownValuesStillPropagates) {
  ShapeArithmetic sa("Sub", 0, true);
  Inferencer inf(sa.m);
  inf.infer_graph(*sa.m.graph);
  auto kv = inf.known_value(sa.op->output(0));
  ASSERT_TRUE(kv);
  EXPECT_EQ(Shape(*kv).to_string(), "[1,2]");
}

}  // namespace
}  // namespace oxs::infer
