// Transposes folded into MatMul (session.cc's Plan::fold, matmul.cc's
// strided operands): a Transpose that feeds only a MatMul and keeps the last
// axis among the last two is not run; the MatMul reads its input in place.
// Each test compares with the same model run with folding off (the Transpose
// kernel, then MatMul) and checks the count of folded Transposes, including
// the cases that must not fold.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "oxs/eval/session.h"

namespace oxs::eval {
namespace {

template <class T>
Tensor random_tensor(DataType dt, Dims dims, unsigned seed) {
  Tensor t(dt, std::move(dims));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-9, 9);
  for (int64_t i = 0; i < t.numel(); ++i) {
    // Floats not exactly representable, so that a sum in another order shows.
    if constexpr (std::is_floating_point_v<T>) {
      t.mutable_data<T>()[i] = T(d(rng)) / T(7.3);
    } else {
      t.mutable_data<T>()[i] = T(d(rng));
    }
  }
  return t;
}

Tensor floats(Dims dims, unsigned seed) {
  return random_tensor<float>(DataType::Float, std::move(dims), seed);
}

struct Net {
  ir::Model m;
  ir::Graph& g;
  Net() : g(*m.graph) { m.opset_imports = {{"", 17}}; }
  ir::Value* input(const std::string& name, DataType dt = DataType::Float) {
    return g.add_input(name, ir::Type::tensor(dt));
  }
  ir::Value* transpose(ir::Value* x, std::vector<int64_t> perm) {
    ir::Node* n = g.create_node("Transpose", std::vector<ir::Value*>{x});
    n->set_attr(ir::Attr::of_ints("perm", std::move(perm)));
    return n->output(0);
  }
  ir::Value* matmul(ir::Value* a, ir::Value* b) {
    return g.create_node("MatMul", std::vector<ir::Value*>{a, b})->output(0);
  }
};

struct Runs {
  std::vector<Value> folded, plain;
  int64_t count = 0;
};

Runs run_both(const ir::Model& m, const std::map<std::string, Value>& feeds) {
  Runs r;
  SessionOptions off;
  off.fold_transposes = false;
  Session s0(m, off);
  r.plain = s0.run(feeds);
  EXPECT_EQ(s0.transposes_folded(), 0);
  Session s1(m);
  r.folded = s1.run(feeds);
  r.count = s1.transposes_folded();
  return r;
}

// Same dims and bits: folding must not change results (the rewriter's
// verification compares runs for equality).
void expect_same(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dims(), want.dims());
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(std::memcmp(got.raw(), want.raw(), got.nbytes()), 0);
}

TEST(MatMulFold, LastTwoAxesSwapOnTheRight) {
  // scores = Q [2,3,6,5] x K^T, K [2,3,4,5] -> perm [0,1,3,2].
  Net n;
  ir::Value* k = n.transpose(n.input("k"), {0, 1, 3, 2});
  n.g.add_output(n.matmul(n.input("q"), k));
  Runs r = run_both(n.m, {{"q", floats({2, 3, 6, 5}, 1)}, {"k", floats({2, 3, 4, 5}, 2)}});
  EXPECT_EQ(r.count, 1);
  expect_same(r.folded[0].tensor(), r.plain[0].tensor());
}

TEST(MatMulFold, FewRowsAndDoublesStayBitIdentical) {
  // q [2,1,5] x (k [2,4,5] -> [0,2,1]): one row per GEMM (the small-m dot
  // products), and the same in double (OpenBLAS).
  for (DataType dt : {DataType::Float, DataType::Double}) {
    Net n;
    ir::Value* k = n.transpose(n.input("k", dt), {0, 2, 1});
    n.g.add_output(n.matmul(n.input("q", dt), k));
    auto make = [&](Dims d, unsigned seed) {
      return dt == DataType::Float ? floats(std::move(d), seed)
                                   : random_tensor<double>(dt, std::move(d), seed);
    };
    Runs r = run_both(n.m, {{"q", make({2, 1, 5}, 1)}, {"k", make({2, 4, 5}, 2)}});
    EXPECT_EQ(r.count, 1);
    expect_same(r.folded[0].tensor(), r.plain[0].tensor());
  }
}

TEST(MatMulFold, HeadSplitPermsOfASequenceFirstModel) {
  // As torch's MultiheadAttention exports: q [S,H,D] -> [1,0,2] (A side),
  // k [S,H,D] -> [1,2,0] (B side, transposed), and a second MatMul with
  // v [S,H,D] -> [1,0,2] on the right. Sizes over the small-GEMM limit too.
  Net n;
  ir::Value* q = n.transpose(n.input("q"), {1, 0, 2});
  ir::Value* k = n.transpose(n.input("k"), {1, 2, 0});
  ir::Value* s = n.matmul(q, k);
  ir::Value* v = n.transpose(n.input("v"), {1, 0, 2});
  n.g.add_output(n.matmul(s, v));
  Runs r = run_both(n.m, {{"q", floats({37, 3, 16}, 1)},
                          {"k", floats({37, 3, 16}, 2)},
                          {"v", floats({37, 3, 16}, 3)}});
  EXPECT_EQ(r.count, 3);
  expect_same(r.folded[0].tensor(), r.plain[0].tensor());
}

TEST(MatMulFold, LeftOperandTransposedAndBatchBroadcast) {
  // A = a [1,5,4] -> perm [0,2,1] -> [1,4,5] (matrices read transposed),
  // broadcast over B's batch of 3.
  Net n;
  ir::Value* a = n.transpose(n.input("a"), {0, 2, 1});
  n.g.add_output(n.matmul(a, n.input("b")));
  Runs r = run_both(n.m, {{"a", floats({1, 5, 4}, 1)}, {"b", floats({3, 5, 6}, 2)}});
  EXPECT_EQ(r.count, 1);
  expect_same(r.folded[0].tensor(), r.plain[0].tensor());
  EXPECT_EQ(r.folded[0].tensor().dims(), (Dims{3, 4, 6}));
}

TEST(MatMulFold, PermutedInputTimesAWeightMatrix) {
  // x [1,S,E] -> perm [1,0,2] (only a size-1 dim moves: a reshape) and
  // x [3,S,E] -> perm [1,0,2] (transposed first, then one GEMM against the
  // initializer W, packed once) times W [E,F].
  for (int64_t batch : {1, 3}) {
    Net n;
    Tensor w = floats({5, 7}, 3);
    ir::Value* t = n.transpose(n.input("x"), {1, 0, 2});
    n.g.add_output(n.matmul(t, n.g.add_initializer("w", std::make_shared<ir::Tensor>(w.to_ir()))));
    Runs r = run_both(n.m, {{"x", floats({batch, 6, 5}, 1)}});
    EXPECT_EQ(r.count, 1) << batch;
    expect_same(r.folded[0].tensor(), r.plain[0].tensor());
    EXPECT_EQ(r.folded[0].tensor().dims(), (Dims{6, batch, 7}));
  }
}

TEST(MatMulFold, MatrixTimesVector) {
  // W^T x v with W [7, 9]: the 1-D right operand is promoted as usual.
  Net n;
  ir::Value* w = n.transpose(n.input("w"), {1, 0});
  n.g.add_output(n.matmul(w, n.input("v")));
  Runs r = run_both(n.m, {{"w", floats({7, 9}, 1)}, {"v", floats({7}, 2)}});
  EXPECT_EQ(r.count, 1);
  expect_same(r.folded[0].tensor(), r.plain[0].tensor());
  EXPECT_EQ(r.folded[0].tensor().dims(), (Dims{9}));
}

TEST(MatMulFold, IntegerMatMulExactly) {
  Net n;
  ir::Value* b = n.transpose(n.input("b", DataType::Int32), {1, 0});
  n.g.add_output(n.matmul(n.input("a", DataType::Int32), b));
  Runs r = run_both(n.m, {{"a", random_tensor<int32_t>(DataType::Int32, {6, 5}, 1)},
                          {"b", random_tensor<int32_t>(DataType::Int32, {4, 5}, 2)}});
  EXPECT_EQ(r.count, 1);
  ASSERT_EQ(r.folded[0].tensor().dims(), r.plain[0].tensor().dims());
  for (int64_t i = 0; i < r.plain[0].tensor().numel(); ++i) {
    ASSERT_EQ(r.folded[0].tensor().data<int32_t>()[i], r.plain[0].tensor().data<int32_t>()[i]);
  }
}

TEST(MatMulFold, NotWhenThePermMovesTheLastAxisOutOfTheMatrices) {
  // [2,0,1] puts the stored last axis first: no unit-stride matrix axis.
  Net n;
  ir::Value* a = n.transpose(n.input("a"), {2, 0, 1});
  n.g.add_output(n.matmul(a, n.input("b")));
  Runs r = run_both(n.m, {{"a", floats({3, 4, 2}, 1)}, {"b", floats({4, 5}, 2)}});
  EXPECT_EQ(r.count, 0);
  expect_same(r.folded[0].tensor(), r.plain[0].tensor());
}

TEST(MatMulFold, NotWhenTheTransposeHasAnotherReader) {
  Net n;
  ir::Value* t = n.transpose(n.input("a"), {1, 0});
  n.g.add_output(n.matmul(t, n.input("b")));
  n.g.add_output(n.g.create_node("Relu", std::vector<ir::Value*>{t})->output(0));
  Runs r = run_both(n.m, {{"a", floats({5, 4}, 1)}, {"b", floats({5, 3}, 2)}});
  EXPECT_EQ(r.count, 0);
  expect_same(r.folded[0].tensor(), r.plain[0].tensor());
  expect_same(r.folded[1].tensor(), r.plain[1].tensor());
}

TEST(MatMulFold, NotWhenTheTransposeIsAGraphOutput) {
  Net n;
  ir::Value* t = n.transpose(n.input("a"), {1, 0});
  n.g.add_output(n.matmul(t, n.input("b")));
  n.g.add_output(t);
  Runs r = run_both(n.m, {{"a", floats({5, 4}, 1)}, {"b", floats({5, 3}, 2)}});
  EXPECT_EQ(r.count, 0);
  expect_same(r.folded[1].tensor(), r.plain[1].tensor());
  EXPECT_EQ(r.folded[1].tensor().dims(), (Dims{4, 5}));
}

TEST(MatMulFold, NotWhileATraceHookWatches) {
  Net n;
  ir::Value* t = n.transpose(n.input("a"), {1, 0});
  n.g.add_output(n.matmul(t, n.input("b")));
  std::vector<std::string> seen;
  SessionOptions o;
  o.trace = [&](const TraceEvent& e) { seen.push_back(e.outputs[0].describe()); };
  Session s(n.m, o);
  s.run({{"a", floats({5, 4}, 1)}, {"b", floats({5, 3}, 2)}});
  EXPECT_EQ(s.transposes_folded(), 0);
  EXPECT_EQ(seen, (std::vector<std::string>{"float[4,5]", "float[4,3]"}));
}

TEST(MatMulFold, AWrongRankRunsTheTransposeAndReportsIt) {
  // perm of rank 3 on a rank-2 input: the Transpose kernel's error, not a
  // misread MatMul.
  Net n;
  ir::Value* t = n.transpose(n.input("a"), {0, 2, 1});
  n.g.add_output(n.matmul(t, n.input("b")));
  Session s(n.m);
  EXPECT_THROW(s.run({{"a", floats({5, 4}, 1)}, {"b", floats({5, 3}, 2)}}), Error);
  EXPECT_EQ(s.transposes_folded(), 0);
}

}  // namespace
}  // namespace oxs::eval
