// Hostile input found by fuzzing single_op with sequence, optional and map
// inputs and graph bodies (the campaign of 2026-11-26, docs/hostile-input.md):
// each model here crashed the evaluator before its fix and must now end in
// an oxs::Error naming the node and what is wrong. The fuzzer's inputs are
// in fuzz/corpus/single_op/mutate-*.bin.
#include <cmath>

#include "hostile_util.h"

namespace oxs::eval::hostile {
namespace {

// Node "hostile" of `op` reading one graph input "s" of type `in_type`.
ir::Model one_input_model(const std::string& op, ir::Type in_type, std::vector<ir::Attr> as,
                          int64_t opset = 17) {
  ir::Model m;
  m.opset_imports = {{"", opset}};
  ir::Graph& g = *m.graph;
  ir::Value* ins[] = {g.add_input("s", std::move(in_type))};
  ir::Node* n = g.create_node(op, ins);
  n->set_name("hostile");
  for (ir::Attr& a : as) n->set_attr(std::move(a));
  g.add_output(n->output(0));
  return m;
}

// Node "hostile" of `op` reading untyped graph inputs x0, x1, ... (fed by
// the test), with `outputs` outputs.
ir::Model inputs_model(const std::string& op, size_t inputs, size_t outputs,
                       std::vector<ir::Attr> as, int64_t opset) {
  ir::Model m;
  m.opset_imports = {{"", opset}};
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> ins;
  for (size_t i = 0; i < inputs; ++i) {
    ins.push_back(g.add_input("x" + std::to_string(i)));
  }
  ir::Node* n = g.create_node(op, ins, outputs);
  n->set_name("hostile");
  for (ir::Attr& a : as) n->set_attr(std::move(a));
  for (size_t i = 0; i < outputs; ++i) g.add_output(n->output(i));
  return m;
}

void expect_run_error(const ir::Model& m, const std::map<std::string, Value>& feeds,
                      std::initializer_list<std::string> parts) {
  const std::string text = run_error(m, {}, feeds);
  ASSERT_FALSE(text.empty()) << "the model ran without an error";
  for (const std::string& p : parts) {
    EXPECT_NE(text.find(p), std::string::npos) << "'" << p << "' not in: " << text;
  }
}

using i64s = std::vector<int64_t>;

const ir::Type kFloatSeq = ir::Type::sequence(ir::Type::tensor(DataType::Float));

// new_axis placed the axis by element 0's rank; a lower-rank element got a
// dim inserted past its end (out-of-bounds write, SIGSEGV in the copy).
TEST(HostileFuzzFindings, ConcatFromSequenceNewAxisOverElementsOfDifferentRanks) {
  ir::Model m = one_input_model("ConcatFromSequence", kFloatSeq,
                                attrs(a_int("axis", 2), a_int("new_axis", 1)));
  std::map<std::string, Value> feeds{{"s", Value::sequence({ones({2, 3}), ones({3})})}};
  expect_run_error(m, feeds, {"hostile", "element 1 has shape [3]", "one rank"});
}

TEST(HostileFuzzFindings, ConcatFromSequenceOfElementsOfDifferentRanks) {
  ir::Model m = one_input_model("ConcatFromSequence", kFloatSeq, attrs(a_int("axis", 0)));
  std::map<std::string, Value> feeds{{"s", Value::sequence({ones({2}), ones({2, 2})})}};
  expect_run_error(m, feeds, {"hostile", "element 1 has shape [2,2]", "one rank"});
}

TEST(HostileFuzzFindings, ConcatFromSequenceOfOneRankStillConcatenates) {
  ir::Model m = one_input_model("ConcatFromSequence", kFloatSeq,
                                attrs(a_int("axis", -1), a_int("new_axis", 1)));
  Session s(m);
  std::vector<Value> out = s.run({{"s", Value::sequence({ones({2}), ones({2}), ones({2})})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().dims(), (Dims{2, 3}));
}

constexpr int64_t kHuge = int64_t{1} << 31;

// Sets the process-wide allocation limit for one test.
class AllocationLimit {
 public:
  explicit AllocationLimit(int64_t bytes) : old_(allocation_limit()) {
    set_allocation_limit(bytes);
  }
  ~AllocationLimit() { set_allocation_limit(old_); }

 private:
  int64_t old_;
};

// C = 0 lets any num_groups divide it, and the kernel looped over N x
// num_groups (2^40 here) before looking at the element count: a hang.
TEST(HostileFuzzFindings, GroupNormalizationOfAnEmptyXWithHugeNumGroupsIsEmpty) {
  ir::Model m =
      inputs_model("GroupNormalization", 3, 1, attrs(a_int("num_groups", int64_t{1} << 40)), 21);
  Session s(m);
  std::vector<Value> out = s.run({{"x0", Tensor(DataType::Float, {2, 0, 3})},
                                  {"x1", Tensor(DataType::Float, {0})},
                                  {"x2", Tensor(DataType::Float, {0})}});
  EXPECT_EQ(out[0].tensor().dims(), (Dims{2, 0, 3}));
}

// An empty X with 2^62 rows: the kernel sized its statistics as
// std::vectors by the row count (std::length_error escaped) and looped
// over them. Y is empty; Mean and InvStdDev would have 2^62 elements, which
// the allocation limit refuses with a clear error.
TEST(HostileFuzzFindings, LayerNormalizationOfAnEmptyXWithHugeOuterDims) {
  const Tensor x(DataType::Float, {kHuge, kHuge, 0});
  ir::Model y_only = inputs_model("LayerNormalization", 2, 1, {}, 17);
  Session s(y_only);
  std::vector<Value> out = s.run({{"x0", x}, {"x1", Tensor(DataType::Float, {0})}});
  EXPECT_EQ(out[0].tensor().dims(), (Dims{kHuge, kHuge, 0}));

  ir::Model with_stats = inputs_model("LayerNormalization", 2, 3, {}, 17);
  expect_run_error(with_stats, {{"x0", x}, {"x1", Tensor(DataType::Float, {0})}},
                   {"hostile", "limit"});
}

TEST(HostileFuzzFindings, LayerNormalizationStatisticsOfEmptyRowsAreNaN) {
  ir::Model m = inputs_model("LayerNormalization", 2, 3, {}, 17);
  Session s(m);
  std::vector<Value> out =
      s.run({{"x0", Tensor(DataType::Float, {2, 3, 0})}, {"x1", Tensor(DataType::Float, {0})}});
  EXPECT_EQ(out[0].tensor().dims(), (Dims{2, 3, 0}));
  ASSERT_EQ(out[1].tensor().dims(), (Dims{2, 3, 1}));
  for (int64_t i = 0; i < 6; ++i) EXPECT_TRUE(std::isnan(out[1].tensor().data<float>()[i]));
}

TEST(HostileFuzzFindings, RmsNormalizationOfAnEmptyXWithHugeOuterDims) {
  ir::Model m = inputs_model("RMSNormalization", 2, 1, {}, 23);
  Session s(m);
  std::vector<Value> out = s.run(
      {{"x0", Tensor(DataType::Float, {kHuge, kHuge, 0})}, {"x1", Tensor(DataType::Float, {0})}});
  EXPECT_EQ(out[0].tensor().numel(), 0);
}

// An empty [2^40, 0] input: the kernel walked its 2^40 rows looking for the
// diagonal (found as a 4 s run at 2^31 rows).
TEST(HostileFuzzFindings, EyeLikeOfAnEmptyInputWithHugeRowsIsEmpty) {
  ir::Model m = inputs_model("EyeLike", 1, 1, {}, 22);
  Session s(m);
  std::vector<Value> out = s.run({{"x0", Tensor(DataType::Float, {int64_t{1} << 40, 0})}});
  EXPECT_EQ(out[0].tensor().dims(), (Dims{int64_t{1} << 40, 0}));
}

// MeanVarianceNormalization of [1, 2^40, 1, 0] sized its per-slot sums by
// the kept dims (2^40 slots: the campaign's memset of gigabytes).
TEST(HostileFuzzFindings, MeanVarianceNormalizationOfAnEmptyXIsEmpty) {
  ir::Model m = inputs_model("MeanVarianceNormalization", 1, 1, {}, 13);
  Session s(m);
  std::vector<Value> out = s.run({{"x0", Tensor(DataType::Float, {1, int64_t{1} << 40, 1, 0})}});
  EXPECT_EQ(out[0].tensor().numel(), 0);
}

// An empty axis: the kernel looped over outer x inner (2^62 here).
TEST(HostileFuzzFindings, LpNormalizationOverAnEmptyAxisIsEmpty) {
  ir::Model m = inputs_model("LpNormalization", 1, 1, attrs(a_int("axis", 1)), 22);
  Session s(m);
  std::vector<Value> out = s.run({{"x0", Tensor(DataType::Float, {kHuge, 0, kHuge})}});
  EXPECT_EQ(out[0].tensor().numel(), 0);
}

// An empty X of [0, 2^40]: splitting its long axis made 2^40 empty tensors
// (a hang, then memory without bound: no byte budget counts empty tensors).
TEST(HostileFuzzFindings, SplitToSequenceIntoMoreTensorsThanFitIsAnError) {
  const Tensor x(DataType::Float, {0, int64_t{1} << 40});
  ir::Model whole = inputs_model("SplitToSequence", 1, 1, attrs(a_int("axis", 1)), 24);
  expect_run_error(whole, {{"x0", x}}, {"hostile", "1099511627776 tensors", "allocation limit"});
  ir::Model chunks = inputs_model("SplitToSequence", 2, 1, attrs(a_int("axis", 1)), 24);
  expect_run_error(chunks, {{"x0", x}, {"x1", Tensor::of<int64_t>(DataType::Int64, {}, i64s{2})}},
                   {"hostile", "549755813888 tensors"});
}

TEST(HostileFuzzFindings, SplitToSequenceOfAnOrdinaryAxisStillSplits) {
  ir::Model m = inputs_model("SplitToSequence", 1, 1, attrs(a_int("axis", 0)), 24);
  Session s(m);
  std::vector<Value> out = s.run({{"x0", ones({3, 2})}});
  EXPECT_EQ(out[0].items().size(), 3u);
}

// Kernels whose loops ran over outer x inner (or outer x indices) of an
// empty tensor: 2^60 iterations of nothing here (Softmax-13 of bfloat16
// [2^31, 0] took 6 s in the campaign). Each must return its empty result at
// once.
TEST(HostileFuzzFindings, AxisKernelsOfEmptyTensorsWithHugeDimsReturnAtOnce) {
  const Tensor x(DataType::Float, {int64_t{1} << 40, 0, int64_t{1} << 20});
  const Tensor axis1 = Tensor::of<int64_t>(DataType::Int64, {}, i64s{1});
  struct Case {
    const char* op;
    int64_t opset;
    std::vector<Value> inputs;
    std::vector<ir::Attr> as;
  };
  std::vector<Case> cases;
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    cases.push_back({op, 13, {x}, attrs(a_int("axis", 1))});
  }
  cases.push_back({"CumSum", 14, {x, axis1}, {}});
  cases.push_back({"Concat", 13, {x, x}, attrs(a_int("axis", 1))});
  cases.push_back({"CumProd", 26, {x, axis1}, {}});
  // Nothing gathered, kept or selected along the empty axis.
  // 2^40 batch entries of [0, 2] x [2, 4]: as many empty GEMMs (QLinearMatMul-21 of a
  // [2^31, 1, 0] operand in the campaign).
  cases.push_back(
      {"MatMul", 13, {Tensor(DataType::Float, {int64_t{1} << 40, 0, 2}), ones({1, 2, 4})}, {}});
  cases.push_back({"Gather", 13, {x, Tensor(DataType::Int64, {0})}, attrs(a_int("axis", 1))});
  cases.push_back({"Compress", 11, {x, Tensor(DataType::Bool, {0})}, attrs(a_int("axis", 1))});
  cases.push_back({"TopK",
                   11,
                   {x, Tensor::of<int64_t>(DataType::Int64, {1}, i64s{0})},
                   attrs(a_int("axis", 1))});
  for (Case& c : cases) {
    SCOPED_TRACE(c.op);
    ir::Model m = inputs_model(c.op, c.inputs.size(), c.op == std::string("TopK") ? 2 : 1,
                               std::move(c.as), c.opset);
    std::map<std::string, Value> feeds;
    for (size_t i = 0; i < c.inputs.size(); ++i) feeds["x" + std::to_string(i)] = c.inputs[i];
    SessionOptions o;
    o.max_seconds = 30;  // (kernels that poll stop there rather than at the suite's timeout)
    Session s(m, o);
    std::vector<Value> out = s.run(feeds);
    EXPECT_EQ(out[0].tensor().numel(), 0);
  }
}

// A frame_length of 2^31 - 1 past a one-sample signal: the kernel filled a
// 2^31-sample window (16 GB) and frame buffers before finding no frame.
TEST(HostileFuzzFindings, StftWithAFrameLongerThanTheSignalHasNoFrames) {
  ir::Model m = inputs_model("STFT", 4, 1, {}, 17);
  m.graph->first_node()->set_input(2, nullptr);  // no window
  m.graph->remove_input(2);
  Session s(m);
  std::vector<Value> out =
      s.run({{"x0", ones({1, 1, 1})},
             {"x1", Tensor::of<int64_t>(DataType::Int64, {}, i64s{1})},
             {"x3", Tensor::of<int64_t>(DataType::Int64, {}, i64s{(int64_t{1} << 31) - 1})}});
  EXPECT_EQ(out[0].tensor().dims(), (Dims{1, 0, int64_t{1} << 30, 2}));
}

// The same for DFT: an empty batch and a dft_length of 2^40 sized the
// result buffer by the length alone.
TEST(HostileFuzzFindings, DftOfAnEmptyBatchWithAHugeLengthIsEmpty) {
  ir::Model m = inputs_model("DFT", 2, 1, {}, 20);
  Session s(m);
  std::vector<Value> out =
      s.run({{"x0", Tensor(DataType::Float, {0, 4, 1})},
             {"x1", Tensor::of<int64_t>(DataType::Int64, {}, i64s{int64_t{1} << 40})}});
  EXPECT_EQ(out[0].tensor().dims(), (Dims{0, int64_t{1} << 40, 2}));
}

// Unique along the empty axis of [2^40, 0] walked the 2^40 rows to copy
// nothing (2.6 s at 2^31 in the campaign); along the long axis it sized
// per-slice buffers by 2^40.
TEST(HostileFuzzFindings, UniqueOfAnEmptyTensorWithAHugeDim) {
  const Tensor x(DataType::Float, {int64_t{1} << 40, 0});
  ir::Model along_empty = inputs_model("Unique", 1, 1, attrs(a_int("axis", 1)), 11);
  Session s(along_empty);
  std::vector<Value> out = s.run({{"x0", x}});
  EXPECT_EQ(out[0].tensor().dims(), (Dims{int64_t{1} << 40, 0}));
  ir::Model along_long = inputs_model("Unique", 1, 1, attrs(a_int("axis", 0)), 11);
  expect_run_error(along_long, {{"x0", x}}, {"hostile", "the slices of 1099511627776 values"});
  // An empty X with a few slices: one group of equal (empty) slices.
  ir::Model few = inputs_model("Unique", 1, 4, attrs(a_int("axis", 0)), 11);
  Session s2(few);
  std::vector<Value> out2 = s2.run({{"x0", Tensor(DataType::Float, {3, 0})}});
  EXPECT_EQ(out2[0].tensor().dims(), (Dims{1, 0}));
  EXPECT_EQ(out2[3].tensor().data<int64_t>()[0], 3);
}

// Multinomial of [2^40, 0] with sample_size 0 walked the batch (7 s at
// 2^31 in the campaign); with samples to draw and no classes it returned
// class -1.
TEST(HostileFuzzFindings, MultinomialWithoutSamplesOrClasses) {
  ir::Model none = inputs_model("Multinomial", 1, 1, attrs(a_int("sample_size", 0)), 22);
  Session s(none);
  std::vector<Value> out = s.run({{"x0", Tensor(DataType::Float, {int64_t{1} << 40, 0})}});
  EXPECT_EQ(out[0].tensor().dims(), (Dims{int64_t{1} << 40, 0}));
  ir::Model some = inputs_model("Multinomial", 1, 1, attrs(a_int("sample_size", 2)), 22);
  expect_run_error(some, {{"x0", Tensor(DataType::Float, {3, 0})}}, {"hostile", "no classes"});
}

// TensorScatter of an empty [2^40, 1, 0, 1] cache sized its write indices
// by the batch (a memset of terabytes in the campaign, at 2^31).
TEST(HostileFuzzFindings, TensorScatterOfAnEmptyCacheIsTheCache) {
  ir::Model m = inputs_model("TensorScatter", 2, 1, {}, 24);
  const Tensor cache(DataType::Float, {int64_t{1} << 40, 1, 0, 1});
  Session s(m);
  std::vector<Value> out = s.run({{"x0", cache}, {"x1", cache}});
  EXPECT_EQ(out[0].tensor().dims(), cache.dims());
}

// GRU with X of [1, 2^31, 0] and no hidden units: the recurrence walked the
// 2^31 batch entries for nothing (it polls the time limit by work done,
// which was 0). Now sequence_lens' per-batch buffer meets the allocation
// limit, and a hidden size of 0 skips the recurrence.
TEST(HostileFuzzFindings, RecurrentOpsWithNoHiddenUnitsDoNotWalkTheBatch) {
  ir::Model m = inputs_model("GRU", 3, 1, {}, 22);
  Session s(m);
  const int64_t batch = int64_t{1} << 20;
  std::vector<Value> out = s.run({{"x0", Tensor(DataType::Float, {1, batch, 0})},
                                  {"x1", Tensor(DataType::Float, {1, 0, 0})},
                                  {"x2", Tensor(DataType::Float, {1, 0, 0})}});
  EXPECT_EQ(out[0].tensor().dims(), (Dims{1, 1, batch, 0}));
  AllocationLimit limit(int64_t{64} << 20);
  expect_run_error(m,
                   {{"x0", Tensor(DataType::Float, {1, kHuge, 0})},
                    {"x1", Tensor(DataType::Float, {1, 0, 0})},
                    {"x2", Tensor(DataType::Float, {1, 0, 0})}},
                   {"hostile", "sequence_lens of 2147483648 values", "allocation limit"});
}

// X of [2^31, 0] int64: LinearRegressor sized its scores (N x targets) as a
// std::vector, outside the allocation limit: 8 GB taken and filled, then a
// 2^31-row loop (the campaign's hang, with a 64 MiB limit in force).
TEST(HostileFuzzFindings, ScratchBuffersSizedByAnEmptyInputMeetTheAllocationLimit) {
  AllocationLimit limit(int64_t{64} << 20);
  ir::Model m = inputs_model("LinearRegressor", 1, 1, {}, 1);
  m.opset_imports = {{"", 17}, {"ai.onnx.ml", 1}};
  m.graph->first_node()->set_domain("ai.onnx.ml");
  expect_run_error(m, {{"x0", Tensor(DataType::Int64, {kHuge, 0})}},
                   {"hostile", "the scores of 2147483648 x 1 values", "allocation limit"});
}

// The same with targets = 2^40 (found by oxs_fuzz_mutate single_op, seed 5,
// 2026-11-27): 2^31 x 2^40 wraps int64 to 0, which checked_buffer took for
// an empty buffer; the loop then wrote 2^71 scores into it (SIGSEGV).
TEST(HostileFuzzFindings, ScratchBufferWhoseSizeWrapsToZeroIsRefused) {
  ir::Model m = inputs_model("LinearRegressor", 1, 1, attrs(a_int("targets", int64_t{1} << 40)), 1);
  m.opset_imports = {{"", 17}, {"ai.onnx.ml", 1}};
  m.graph->first_node()->set_domain("ai.onnx.ml");
  expect_run_error(
      m, {{"x0", Tensor(DataType::Int64, {kHuge, 0})}},
      {"hostile", "the scores of 2147483648 x 1099511627776 values", "allocation limit"});
}

}  // namespace
}  // namespace oxs::eval::hostile
