// Hostile input, class 4: the memory limit covers everything a run holds,
// one test per kind of growth: scan outputs a Loop or Scan collects (even of
// empty or shared tensors), sequences grown in a loop (and grown in place,
// not copied each trip), ConcatFromSequence of such a sequence, the text of
// strings, and the buffer pool's cache. Each run must stop at the limit
// with an oxs::Error naming the node and the size it would reach. Values
// cannot nest one level deeper every trip (optionals of optionals,
// sequences of sequences collected by an inner Loop).
#include "hostile_util.h"
#include "oxs/eval/buffer_pool.h"

namespace oxs::eval::hostile {
namespace {

ir::Value* constant(ir::Graph& g, const std::string& name, const Tensor& t) {
  return g.add_initializer(name, std::make_shared<ir::Tensor>(t.to_ir()));
}

// A Loop body taking (i, c, carried...) and returning c first; the test
// adds the carried and scan outputs.
std::unique_ptr<ir::Graph> loop_body(const std::vector<ir::Type>& carried,
                                     std::vector<ir::Value*>& carried_inputs) {
  auto body = std::make_unique<ir::Graph>("body");
  body->add_input("i", ir::Type::tensor(DataType::Int64, ir::Shape{}));
  ir::Value* c = body->add_input("c", ir::Type::tensor(DataType::Bool, ir::Shape{}));
  for (size_t k = 0; k < carried.size(); ++k) {
    carried_inputs.push_back(body->add_input("v" + std::to_string(k), carried[k]));
  }
  body->add_output(c);
  return body;
}

// Loop "grow" (M = trips, cond = true) over `carried` in `g`, running `body`;
// every output of the Loop is an output of `g`. Returns the node.
ir::Node* add_loop(ir::Graph& g, int64_t trips, std::vector<ir::Value*> carried,
                   std::unique_ptr<ir::Graph> body) {
  Tensor t(DataType::Bool, {});
  t.mutable_data<bool>()[0] = true;
  std::vector<ir::Value*> ins = {constant(g, "trips", i64({}, {trips})), constant(g, "cond", t)};
  ins.insert(ins.end(), carried.begin(), carried.end());
  const size_t outs = body->outputs().size() - 1;
  ir::Node* loop = g.create_node("Loop", ins, outs);
  loop->set_name("grow");
  loop->set_attr(ir::Attr::of_graph("body", std::move(body)));
  for (size_t i = 0; i < outs; ++i) g.add_output(loop->output(i));
  return loop;
}

ir::Value* identity(ir::Graph& g, ir::Value* v) {
  ir::Value* in[] = {v};
  return g.create_node("Identity", in)->output(0);
}

SessionOptions limited(int64_t bytes) {
  SessionOptions o;
  o.max_live_bytes = bytes;
  o.max_seconds = 60;  // a backstop: each test must end at the memory limit long before
  return o;
}

// Loop(2^62) whose only output is a scan output: every trip the outer
// tensor `part` (shared, never copied: no buffer of its own).
ir::Model loop_collecting(const Tensor& part) {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  ir::Value* outer = constant(g, "part", part);
  std::vector<ir::Value*> carried;
  auto body = loop_body({}, carried);
  body->add_output(identity(*body, outer));
  add_loop(g, int64_t{1} << 62, {}, std::move(body));
  return m;
}

TEST(HostileMemory, LoopCollectingAnEmptyScanOutputEveryTripStopsAtTheLimit) {
  // An empty tensor costs no buffer, but 2^62 of them cost the machine: the
  // bookkeeping of each collected part counts.
  expect_error(loop_collecting(Tensor(DataType::Float, {0})),
               {"'grow'", "Loop: scan output", "iterations",
                "would take the memory held by this run to", "over the limit of 16777216 bytes"},
               limited(16 << 20));
}

TEST(HostileMemory, LoopCollectingASharedTensorCountsWhatTheStackedOutputWillTake) {
  // 64 KiB shared every trip: the stacked output would take 64 KiB a trip,
  // so the run stops after about 256 trips at 16 MiB, not at 2^62.
  expect_error(loop_collecting(ones({16384})),
               {"'grow'", "Loop: scan output", "each part float[16384]",
                "would take the memory held by this run to", "over the limit of 16777216 bytes"},
               limited(16 << 20));
}

TEST(HostileMemory, ScanOutputsOfScanCountAgainstTheLimit) {
  // Scan over 100,000 rows, each step returning a shared 64 KiB tensor: 6.4
  // GB stacked, stopped at 16 MiB.
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  ir::Value* big = constant(g, "big", ones({16384}));
  ir::Value* xs = constant(g, "xs", Tensor(DataType::Float, {100000, 1}));
  auto body = std::make_unique<ir::Graph>("body");
  body->add_input("x", ir::Type::tensor(DataType::Float, ir::Shape{1}));
  body->add_output(identity(*body, big));
  ir::Value* ins[] = {xs};
  ir::Node* scan = g.create_node("Scan", ins, 1);
  scan->set_name("steps");
  scan->set_attr(ir::Attr::of_int("num_scan_inputs", 1));
  scan->set_attr(ir::Attr::of_graph("body", std::move(body)));
  g.add_output(scan->output(0));
  expect_error(m,
               {"'steps'", "Scan: scan output", "would take the memory held by this run to",
                "over the limit of 16777216 bytes"},
               limited(16 << 20));
}

// Loop(trips) growing a sequence by SequenceInsert of `part` (an outer
// tensor, shared) every trip; the sequence is the Loop's output.
ir::Model loop_growing_a_sequence(int64_t trips, const Tensor& part) {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  ir::Value* outer = constant(g, "part", part);
  ir::Node* empty = g.create_node("SequenceEmpty", std::span<ir::Value* const>{}, 1);
  empty->set_attr(ir::Attr::of_int("dtype", int64_t(DataType::Float)));
  std::vector<ir::Value*> carried;
  auto body = loop_body({ir::Type::sequence(ir::Type::tensor(DataType::Float))}, carried);
  ir::Value* ins[] = {carried[0], identity(*body, outer)};
  ir::Node* insert = body->create_node("SequenceInsert", ins);
  insert->set_name("append");
  body->add_output(insert->output(0));
  add_loop(g, trips, {empty->output(0)}, std::move(body));
  return m;
}

TEST(HostileMemory, SequenceGrownInALoopStopsAtTheLimit) {
  expect_error(loop_growing_a_sequence(int64_t{1} << 62, Tensor(DataType::Float, {1})),
               {"'append'", "SequenceInsert", "a sequence of",
                "would take the memory held by this run to", "over the limit of 16777216 bytes"},
               limited(16 << 20));
}

TEST(HostileMemory, SequenceInsertInALoopAppendsInPlace) {
  // A sequence held by the loop alone grows in place: the run holds one copy
  // of its elements, so elements worth 60% of the limit fit. Copied every
  // trip (quadratic time), the old and the new sequence would be alive at
  // once, 120% of the limit: this run would fail.
  const int64_t limit = 8 << 20;
  const int64_t each = held_overhead(Value(Tensor(DataType::Float, {1})));
  const int64_t trips = limit * 6 / 10 / each;
  ir::Model m = loop_growing_a_sequence(trips, Tensor(DataType::Float, {1}));
  Session s(m, limited(limit));
  std::vector<Value> out = s.run({});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].is_sequence());
  EXPECT_EQ(int64_t(out[0].items().size()), trips);
}

TEST(HostileMemory, ConcatFromSequenceOfAGrownSequenceIsChargedWhole) {
  // 1000 references to one 1 MiB tensor cost little as a sequence; their
  // concatenation would take 1000 MiB and stops at the limit, named.
  ir::Model m = loop_growing_a_sequence(1000, ones({262144}));
  ir::Graph& g = *m.graph;
  ir::Value* seq[] = {g.outputs()[0]};
  ir::Node* concat = g.create_node("ConcatFromSequence", seq);
  concat->set_name("join");
  concat->set_attr(ir::Attr::of_int("axis", 0));
  g.add_output(concat->output(0));
  expect_error(m,
               {"'join'", "ConcatFromSequence", "float tensor of shape [262144000]",
                "would take the memory held by this run to", "over the limit of 67108864 bytes"},
               limited(64 << 20));
}

TEST(HostileMemory, StringsDoubledInALoopStopAtTheLimit) {
  // StringConcat(s, s) every trip: 2^k bytes of text after k trips, held in
  // the strings' heap, not in a tensor buffer.
  ir::Model m;
  m.opset_imports = {{"", 20}};
  ir::Graph& g = *m.graph;
  Tensor s0(DataType::String, {});
  s0.mutable_strings()[0] = "0123456789abcdef";
  std::vector<ir::Value*> carried;
  auto body = loop_body({ir::Type::tensor(DataType::String, ir::Shape{})}, carried);
  ir::Value* ins[] = {carried[0], carried[0]};
  ir::Node* concat = body->create_node("StringConcat", ins);
  concat->set_name("double");
  body->add_output(concat->output(0));
  add_loop(g, int64_t{1} << 62, {constant(g, "s0", s0)}, std::move(body));
  expect_error(m,
               {"'double'", "StringConcat", "the text of a string tensor",
                "would take the memory held by this run to", "over the limit of 67108864 bytes"},
               limited(64 << 20));
}

TEST(HostileMemory, OptionalOfAnOptionalIsRefusedSoLoopsCannotNestValues) {
  // Optional(v) of the carried optional v every trip nested it one level
  // deeper each time; freeing a million levels overflowed the stack
  // (SIGSEGV once the time limit stopped the run).
  ir::Model m;
  m.opset_imports = {{"", 18}};
  ir::Graph& g = *m.graph;
  ir::Value* x[] = {constant(g, "x", ones({2}))};
  ir::Value* start = g.create_node("Optional", x)->output(0);
  std::vector<ir::Value*> carried;
  auto body = loop_body({ir::Type::optional(ir::Type::tensor(DataType::Float))}, carried);
  ir::Value* ins[] = {carried[0]};
  ir::Node* wrap = body->create_node("Optional", ins);
  wrap->set_name("wrap");
  body->add_output(wrap->output(0));
  add_loop(g, int64_t{1} << 62, {start}, std::move(body));
  expect_error(m, {"'wrap'", "Optional", "optional types do not nest"}, limited(16 << 20));
}

TEST(HostileMemory, ALoopCannotNestItsCarriedSequenceThroughAnInnerLoopsScanOutput) {
  // The inner Loop collects the outer Loop's carried value as a scan output
  // (a sequence of it): carried back, it would be one level deeper every
  // trip. A scan output may be a sequence of tensors, not of sequences.
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  ir::Node* empty = g.create_node("SequenceEmpty", std::span<ir::Value* const>{}, 1);
  std::vector<ir::Value*> outer_carried;
  auto outer = loop_body({ir::Type::sequence(ir::Type::tensor(DataType::Float))}, outer_carried);
  std::vector<ir::Value*> none;
  auto inner = loop_body({}, none);
  inner->add_output(identity(*inner, outer_carried[0]));
  Tensor t(DataType::Bool, {});
  t.mutable_data<bool>()[0] = true;
  ir::Value* inner_ins[] = {constant(g, "one", i64({}, {1})), constant(g, "yes", t)};
  ir::Node* nest = outer->create_node("Loop", inner_ins, 1);
  nest->set_name("nest");
  nest->set_attr(ir::Attr::of_graph("body", std::move(inner)));
  outer->add_output(nest->output(0));
  add_loop(g, int64_t{1} << 62, {empty->output(0)}, std::move(outer));
  expect_error(m, {"'nest'", "holds more than tensors", "a sequence of tensors"},
               limited(16 << 20));
}

TEST(HostileMemory, ARunWithALimitTrimsTheBufferPool) {
  // Freed buffers cached by the pool are memory the process holds: a run
  // with a limit keeps its live and cached bytes within it.
  const size_t capacity = pool_capacity();
  set_pool_capacity(size_t{256} << 20);
  {
    std::vector<Tensor> big;
    for (int i = 0; i < 8; ++i) big.emplace_back(DataType::Float, Dims{int64_t{2} << 20});
  }  // 64 MiB back in the pool
  EXPECT_GE(pool_cached_bytes(), size_t{64} << 20);
  ir::Model m = one_op_model(OpCase{"Relu", {ones({4})}});
  Session s(m, limited(16 << 20));
  s.run({});
  EXPECT_LE(pool_cached_bytes(), size_t{16} << 20);
  set_pool_capacity(capacity);
}

}  // namespace
}  // namespace oxs::eval::hostile
