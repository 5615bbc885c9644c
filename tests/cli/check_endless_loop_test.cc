// `oxs check` warns about a Loop that no machine could finish: a constant
// trip count of 2^40 or more with a condition that stays true. The model is
// valid (exit 0, "ok:"); the warning names the node and what stops a run.
// Loops that may end (fewer trips, a computed condition, a trip count the
// caller can feed) get no warning.
#include <gtest/gtest.h>

#include "oxs/eval/tensor.h"
#include "oxs/ir/model.h"
#include "oxs/onnx/model_io.h"
#include "run_oxs.h"

namespace oxs::testing {
namespace {

using ir::DataType;

struct LoopShape {
  int64_t trips = int64_t{1} << 62;
  bool trips_by_constant_node = false;  // a Constant node, not an initializer
  bool trips_overridable = false;       // the initializer is also a graph input
  bool cond_given = true;               // else the Loop's cond input is omitted
  bool cond_value = true;
  bool cond_computed_in_body = false;  // the body returns Less(i, 10)
};

std::shared_ptr<ir::Tensor> scalar_tensor(DataType dt, int64_t v) {
  eval::Tensor t(dt, {});
  if (dt == DataType::Bool) {
    t.mutable_data<bool>()[0] = v != 0;
  } else {
    t.mutable_data<int64_t>()[0] = v;
  }
  return std::make_shared<ir::Tensor>(t.to_ir());
}

// y = Loop(M, cond, x) with x float[2] carried through Neg.
ir::Model loop_model(const LoopShape& s) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  g.set_name("main");
  auto float2 = ir::Type::tensor(DataType::Float, ir::Shape({ir::Dim::known(2)}));
  ir::Value* x = g.add_input("x", float2);
  ir::Value* trips = nullptr;
  if (s.trips_by_constant_node) {
    ir::Node* c = g.create_node("Constant", std::span<ir::Value* const>{}, 1);
    c->set_attr(ir::Attr::of_tensor("value", scalar_tensor(DataType::Int64, s.trips)));
    trips = c->output(0);
  } else if (s.trips_overridable) {
    trips = g.add_input("M", ir::Type::tensor(DataType::Int64, ir::Shape{}));
    g.set_input_initializer(trips, scalar_tensor(DataType::Int64, s.trips));
  } else {
    trips = g.add_initializer("M", scalar_tensor(DataType::Int64, s.trips));
  }
  ir::Value* cond = s.cond_given
                        ? g.add_initializer("cond", scalar_tensor(DataType::Bool, s.cond_value))
                        : nullptr;
  auto body = std::make_unique<ir::Graph>("body");
  ir::Value* i = body->add_input("i", ir::Type::tensor(DataType::Int64, ir::Shape{}));
  ir::Value* c = body->add_input("c", ir::Type::tensor(DataType::Bool, ir::Shape{}));
  ir::Value* v = body->add_input("v", float2);
  if (s.cond_computed_in_body) {
    ir::Value* ten = body->add_initializer("ten", scalar_tensor(DataType::Int64, 10));
    ir::Value* lt[] = {i, ten};
    body->add_output(body->create_node("Less", lt)->output(0));
  } else {
    ir::Value* cc[] = {c};
    body->add_output(body->create_node("Identity", cc)->output(0));
  }
  ir::Value* vv[] = {v};
  body->add_output(body->create_node("Neg", vv)->output(0));
  ir::Value* ins[] = {trips, cond, x};
  ir::Node* loop = g.create_node("Loop", ins, 1);
  loop->set_name("spin");
  loop->set_attr(ir::Attr::of_graph("body", std::move(body)));
  loop->output(0)->set_name("y");
  loop->output(0)->set_type(float2);
  g.add_output(loop->output(0));
  return m;
}

RunResult check(const ir::Model& m, std::vector<std::string> extra = {}) {
  TempDir dir;
  const std::string path = dir.file("loop.onnx");
  onnx::save(m, path);
  std::vector<std::string> args{"check", path};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_oxs(args);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CheckEndlessLoop, TwoToThe62TripsWithATrueConditionIsAWarning) {
  RunResult r = check(loop_model({}));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "ok:")) << r.out;
  EXPECT_TRUE(contains(r.err, "oxs: warning:")) << r.err;
  EXPECT_TRUE(contains(r.err, "run time: node 'spin' (Loop) runs 4611686018427387904 trips (2^62"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "--max-seconds")) << r.err;
}

TEST(CheckEndlessLoop, TheBoundIsTwoToThe40Trips) {
  LoopShape at;
  at.trips = int64_t{1} << 40;
  at.trips_by_constant_node = true;
  LoopShape below = at;
  below.trips = (int64_t{1} << 40) - 1;
  RunResult r = check(loop_model(at));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "runs 1099511627776 trips (2^40")) << r.err;
  r = check(loop_model(below));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "warning")) << r.err;
}

TEST(CheckEndlessLoop, LoopsThatMayEndAreNotWarnedAbout) {
  LoopShape computed;
  computed.cond_computed_in_body = true;
  LoopShape starts_false;
  starts_false.cond_value = false;
  LoopShape fed;
  fed.trips_overridable = true;
  LoopShape no_cond;  // an omitted condition is true: still endless
  no_cond.cond_given = false;
  for (const LoopShape* s : {&computed, &starts_false, &fed}) {
    RunResult r = check(loop_model(*s));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(contains(r.err, "warning")) << r.err;
  }
  RunResult r = check(loop_model(no_cond));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "node 'spin' (Loop) runs")) << r.err;
}

TEST(CheckEndlessLoop, JsonReportsAWarningAndAValidModel) {
  RunResult r = check(loop_model({}), {"--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"valid\": true") || contains(r.out, "\"valid\":true")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"severity\": \"warning\"") ||
              contains(r.out, "\"severity\":\"warning\""))
      << r.out;
  EXPECT_TRUE(contains(r.out, "\"problems\": 0") || contains(r.out, "\"problems\":0")) << r.out;
}

}  // namespace
}  // namespace oxs::testing
