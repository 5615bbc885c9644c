// Hostile input, classes 4 and 5: resource bombs (run time, memory held by
// a run, interrupts) and Range's edge cases. A run must stop with an
// oxs::Error; it must not run for ever or allocate without bound.
#include <cmath>
#include <limits>

#include "hostile_util.h"
#include "oxs/eval/validate/run_limits.h"

namespace oxs::eval::hostile {
namespace {

// Loop(M = trip, cond = true) with one carried float[n] value; the body
// returns cond, v and (if `scan`) a fresh v + v as a scan output.
ir::Model loop_model(int64_t trip, int64_t n, bool scan) {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  auto body = std::make_unique<ir::Graph>();
  body->add_input("i", ir::Type::tensor(DataType::Int64, ir::Shape{}));
  ir::Value* cond = body->add_input("c", ir::Type::tensor(DataType::Bool, ir::Shape{}));
  ir::Value* v = body->add_input("v", ir::Type::tensor(DataType::Float, ir::Shape{n}));
  body->add_output(cond);
  body->add_output(v);
  if (scan) {
    ir::Value* vv[] = {v, v};
    body->add_output(body->create_node("Add", vv)->output(0));
  }
  Tensor t(DataType::Bool, {});
  t.mutable_data<bool>()[0] = true;
  ir::Value* ins[] = {
      g.add_initializer("trip", std::make_shared<ir::Tensor>(i64({}, {trip}).to_ir())),
      g.add_initializer("cond", std::make_shared<ir::Tensor>(t.to_ir())),
      g.add_initializer("v0", std::make_shared<ir::Tensor>(ones({n}).to_ir()))};
  ir::Node* loop = g.create_node("Loop", ins, scan ? 2 : 1);
  loop->set_name("bomb");
  loop->set_attr(ir::Attr::of_graph("body", std::move(body)));
  g.add_output(loop->output(0));
  if (scan) g.add_output(loop->output(1));
  return m;
}

TEST(HostileLimits, LoopWithTwoToThe62TripsStopsAtTheTimeLimit) {
  SessionOptions o;
  o.max_seconds = 0.2;
  expect_error(loop_model(int64_t{1} << 62, 1, false), {"time limit", "--max-seconds"}, o);
}

TEST(HostileLimits, InterruptStopsTheRun) {
  SessionOptions o;
  int nodes = 0;
  o.trace = [&](const TraceEvent&) {
    if (++nodes == 50) request_interrupt();
  };
  std::string text = run_error(loop_model(int64_t{1} << 62, 1, true), o);
  clear_interrupt();
  EXPECT_NE(text.find("interrupted"), std::string::npos) << text;
  // The flag is cleared: the next run finishes.
  EXPECT_EQ(run_error(loop_model(3, 1, true)), "");
}

TEST(HostileLimits, ScanOutputsOfALoopCountAgainstTheRunsMemory) {
  // 1000 iterations of a fresh 1 MiB tensor: 1 GiB kept for the scan output.
  SessionOptions o;
  o.max_live_bytes = int64_t{64} << 20;
  expect_error(loop_model(1000, int64_t{1} << 18, true),
               {"would take the memory held by this run", "over the limit of 67108864 bytes"}, o);
  // Within the budget it runs.
  EXPECT_EQ(run_error(loop_model(10, 1024, true), o), "");
}

TEST(HostileLimits, DefaultLimitsFollowPhysicalMemory) {
  int64_t phys = physical_memory_bytes();
  ASSERT_GT(phys, 0);
  EXPECT_LE(allocation_limit(), phys / 2);
  EXPECT_EQ(live_bytes_limit(SessionOptions{}), phys / 4 * 3);
}

OpCase range(Tensor start, Tensor limit, Tensor delta) {
  return OpCase{"Range", {std::move(start), std::move(limit), std::move(delta)}};
}

TEST(HostileLimits, RangeWithATinyStepIsRefused) {
  expect_error(one_op_model(range(f32({}, {0}), f32({}, {1}), f32({}, {1e-30f}))),
               {"hostile", "allocation limit"});
}

TEST(HostileLimits, RangeWithInfiniteOrNaNArguments) {
  float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  expect_error(one_op_model(range(f32({}, {0}), f32({}, {inf}), f32({}, {1}))),
               {"hostile", "must be finite", "inf"});
  expect_error(one_op_model(range(f32({}, {0}), f32({}, {5}), f32({}, {nan}))),
               {"hostile", "must be finite", "nan"});
  expect_error(one_op_model(range(f32({}, {0}), f32({}, {5}), f32({}, {0}))),
               {"hostile", "delta must not be zero"});
}

TEST(HostileLimits, RangeOverTheWholeInt64Line) {
  int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  expect_error(one_op_model(range(i64({}, {lo}), i64({}, {hi}), i64({}, {1}))),
               {"hostile", "allocation limit"});
  // With a step of 2^62 the spec's answer has 4 elements.
  ir::Model s_model =
      one_op_model(range(i64({}, {lo}), i64({}, {hi}), i64({}, {int64_t{1} << 62})));
  Session s(s_model);
  auto out = s.run({});
  const Tensor& t = out[0].tensor();
  ASSERT_EQ(t.numel(), 4);
  EXPECT_EQ(t.data<int64_t>()[0], lo);
  EXPECT_EQ(t.data<int64_t>()[2], 0);
  EXPECT_EQ(t.data<int64_t>()[3], int64_t{1} << 62);
}

TEST(HostileLimits, RangeStillComputesTheSpecsResults) {
  ir::Model s_model = one_op_model(range(f32({}, {1}), f32({}, {2}), f32({}, {0.25f})));
  Session s(s_model);
  auto out = s.run({});
  ASSERT_EQ(out[0].tensor().numel(), 4);
  EXPECT_EQ(out[0].tensor().data<float>()[3], 1.75f);
  ir::Model e_model = one_op_model(range(i64({}, {5}), i64({}, {1}), i64({}, {1})));
  Session e(e_model);
  EXPECT_EQ(e.run({})[0].tensor().numel(), 0);  // the spec's empty range
  ir::Model d_model = one_op_model(range(i64({}, {10}), i64({}, {1}), i64({}, {-4})));
  Session d(d_model);
  auto down = d.run({});
  ASSERT_EQ(down[0].tensor().numel(), 3);  // 10, 6, 2
  EXPECT_EQ(down[0].tensor().data<int64_t>()[2], 2);
}

TEST(HostileLimits, WindowFunctionOfHugeSizeIsRefused) {
  // The size 2^50 must be an error naming the node, not a giant allocation.
  expect_error(one_op_model(OpCase{"HammingWindow", {i64({}, {int64_t{1} << 50})}}),
               {"allocation limit", "HammingWindow", "'hostile'"});
}

}  // namespace
}  // namespace oxs::eval::hostile
