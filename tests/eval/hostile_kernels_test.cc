// Hostile input, class 1: kernels must check ranks, sizes and attribute
// ranges before touching memory (each of these models read or wrote out of
// bounds, overflowed int64 or divided by zero before the checks existed).
// Every case expects an oxs::Error naming the node ("hostile") and what is
// wrong.
#include <cmath>

#include "hostile_util.h"

namespace oxs::eval::hostile {
namespace {

constexpr int64_t kBig = int64_t{1} << 40;

TEST(HostileKernels, MatMulIntegerZeroPointOfHigherRank) {
  OpCase c{"MatMulInteger",
           {u8({2, 3}, {1, 2, 3, 4, 5, 6}), u8({3, 2}, {1, 2, 3, 4, 5, 6}),
            u8({4, 2, 1}, {0, 0, 0, 0, 0, 0, 0, 0})}};
  expect_error(one_op_model(std::move(c)), {"hostile", "zero point", "row of A"});
}

TEST(HostileKernels, QLinearMatMulZeroPointOfHigherRank) {
  Tensor s = f32({}, {0.5f});
  OpCase c{"QLinearMatMul",
           {u8({2, 2}, {1, 2, 3, 4}), s, u8({}, {0}), u8({2, 2}, {1, 2, 3, 4}), s,
            u8({3, 1, 2}, {0, 0, 0, 0, 0, 0}), s, u8({}, {0})}};
  expect_error(one_op_model(std::move(c)), {"hostile", "zero point", "column of B"});
}

TEST(HostileKernels, QLinearMatMulEmptyScale) {
  OpCase c{"QLinearMatMul",
           {u8({1, 1}, {1}), f32({0}, {}), u8({}, {0}), u8({1, 1}, {1}), f32({}, {1}), u8({}, {0}),
            f32({}, {1}), u8({}, {0})}};
  expect_error(one_op_model(std::move(c)), {"hostile", "a_scale", "1 element"});
}

OpCase tfidf(std::vector<int64_t> counts, std::vector<int64_t> indexes,
             std::vector<float> weights = {}) {
  OpCase c{"TfIdfVectorizer", {i64({4}, {1, 2, 3, 1})}};
  c.attrs.push_back(a_int("min_gram_length", 1));
  c.attrs.push_back(a_int("max_gram_length", 2));
  c.attrs.push_back(a_int("max_skip_count", 0));
  c.attrs.push_back(ir::Attr::of_string("mode", weights.empty() ? "TF" : "TFIDF"));
  c.attrs.push_back(a_ints("ngram_counts", std::move(counts)));
  c.attrs.push_back(a_ints("ngram_indexes", std::move(indexes)));
  c.attrs.push_back(a_ints("pool_int64s", {1, 2, 3, 1, 2}));
  if (!weights.empty()) c.attrs.push_back(ir::Attr::of_floats("weights", std::move(weights)));
  c.opset = 9;
  return c;
}

TEST(HostileKernels, TfIdfNegativeNgramIndex) {
  expect_error(one_op_model(tfidf({0, 3}, {0, 1, -5, 3})), {"hostile", "ngram_indexes", "-5"});
}

TEST(HostileKernels, TfIdfNgramCountBeyondThePool) {
  expect_error(one_op_model(tfidf({0, 99}, {0, 1, 2, 3})), {"hostile", "ngram_counts", "99"});
  expect_error(one_op_model(tfidf({-3, 1}, {0, 1, 2, 3})), {"hostile", "ngram_counts"});
}

TEST(HostileKernels, TfIdfHugeIndexIsRefusedNotAllocated) {
  expect_error(one_op_model(tfidf({0, 3}, {0, 1, 2, int64_t{1} << 60})), {"hostile"});
  expect_error(one_op_model(tfidf({0, 3}, {0, 1, 2, INT64_MAX})), {"hostile", "overflows"});
}

TEST(HostileKernels, TfIdfShortWeightsAreNotReadPastTheirEnd) {
  // One weight for four n-grams: outputs without a weight get 0, none reads past.
  ir::Model s_model = one_op_model(tfidf({0, 3}, {0, 1, 2, 3}, {2.0f}));
  Session s(s_model);
  auto out = s.run({});
  const Tensor& t = out[0].tensor();
  ASSERT_EQ(t.numel(), 4);
  EXPECT_EQ(t.data<float>()[0], 4.0f);  // "1" twice, weight 2
  EXPECT_EQ(t.data<float>()[1], 0.0f);
}

OpCase scatter_nd(Tensor indices, Tensor updates) {
  return OpCase{"ScatterND", {f32({2, 2}, {1, 2, 3, 4}), std::move(indices), std::move(updates)}};
}

TEST(HostileKernels, ScatterNDIndexTupleLongerThanTheRank) {
  expect_error(one_op_model(scatter_nd(i64({1, 3}, {0, 0, 0}), f32({1}, {9}))),
               {"hostile", "last dimension is 3", "rank 2"});
}

TEST(HostileKernels, ScatterNDShortUpdates) {
  expect_error(one_op_model(scatter_nd(i64({2, 1}, {0, 1}), f32({1, 2}, {9, 9}))),
               {"hostile", "updates have shape [1,2]", "[2,2]"});
}

TEST(HostileKernels, ScatterNDRankZeroIndices) {
  expect_error(one_op_model(scatter_nd(i64({}, {0}), f32({}, {9}))),
               {"hostile", "indices must have rank >= 1"});
}

TEST(HostileKernels, GatherNDBatchDimsOutOfRange) {
  OpCase c{
      "GatherND", {f32({2, 2}, {1, 2, 3, 4}), i64({2, 1}, {0, 1})}, attrs(a_int("batch_dims", 5))};
  c.opset = 12;
  expect_error(one_op_model(std::move(c)), {"hostile", "batch_dims is 5"});
}

TEST(HostileKernels, GatherNDSizesThatOverflowAreRefused) {
  // data [0, 2^40, 2^40]: no elements, but the slice size 2^80 overflows.
  OpCase c{"GatherND", {f32({0, kBig, kBig}, {}), i64({0, 1}, {})}};
  c.opset = 12;
  expect_error(one_op_model(std::move(c)), {"hostile", "slice size", "overflows"});
}

TEST(HostileKernels, AdamWithMismatchedShapes) {
  OpCase c{"Adam",
           {f32({}, {0.1f}), i64({}, {1}), f32({2}, {1, 2}), f32({3}, {1, 2, 3}), f32({2}, {0, 0}),
            f32({2}, {0, 0})},
           {},
           3,
           "ai.onnx.preview.training",
           1};
  expect_error(one_op_model(std::move(c)), {"hostile", "X [2]", "[3]", "same shape"});
}

TEST(HostileKernels, AdamWithInputsNotInGroupsOfFour) {
  OpCase c{"Adam",
           {f32({}, {0.1f}), i64({}, {1}), f32({2}, {1, 2}), f32({2}, {1, 2}), f32({2}, {0, 0})},
           {},
           1,
           "ai.onnx.preview.training",
           1};
  expect_error(one_op_model(std::move(c)), {"hostile", "equally long lists"});
}

TEST(HostileKernels, QLinearConvScaleSizesDoNotDivideByZero) {
  // w_scale with 3 values for 1 output channel (per = numel / 3 was 0).
  Tensor x = u8({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor w = u8({1, 1, 1, 1}, {1});
  OpCase c{"QLinearConv",
           {x, f32({}, {1}), u8({}, {0}), w, f32({3}, {1, 1, 1}), u8({}, {0}), f32({}, {1}),
            u8({}, {0})}};
  expect_error(one_op_model(std::move(c)), {"hostile", "w_scale has 3 values"});
}

TEST(HostileKernels, QLinearConvZeroOutputScale) {
  Tensor x = u8({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor w = u8({1, 1, 1, 1}, {1});
  OpCase c{"QLinearConv",
           {x, f32({}, {1}), u8({}, {0}), w, f32({}, {1}), u8({}, {0}), f32({}, {0}), u8({}, {0})}};
  expect_error(one_op_model(std::move(c)), {"hostile", "y_scale"});
}

TEST(HostileKernels, LrnOfRankOne) {
  OpCase c{"LRN", {f32({3}, {1, 2, 3})}, attrs(a_int("size", 3))};
  expect_error(one_op_model(std::move(c)), {"hostile", "X must have rank >= 2"});
}

TEST(HostileKernels, LrnSizeZero) {
  OpCase c{"LRN", {ones({1, 2, 2, 2})}, attrs(a_int("size", 0))};
  expect_error(one_op_model(std::move(c)), {"hostile", "size must be positive"});
}

TEST(HostileKernels, MaxUnpoolKernelRankMismatch) {
  OpCase c{"MaxUnpool",
           {ones({1, 1, 2, 2}), i64({1, 1, 2, 2}, {0, 1, 2, 3})},
           attrs(a_ints("kernel_shape", {2}))};
  c.opset = 11;
  expect_error(one_op_model(std::move(c)), {"hostile", "kernel_shape has 1 values", "2 spatial"});
}

TEST(HostileKernels, MaxUnpoolIndexOutsideTheOutput) {
  OpCase c{"MaxUnpool",
           {ones({1, 1, 1, 1}), i64({1, 1, 1, 1}, {99})},
           attrs(a_ints("kernel_shape", {2, 2}))};
  c.opset = 11;
  expect_error(one_op_model(std::move(c)), {"hostile", "index out of range"});
}

TEST(HostileKernels, TileOverflowAndNegativeRepeats) {
  OpCase big{"Tile", {f32({2, 1}, {1, 2}), i64({2}, {INT64_MAX, 4})}};
  expect_error(one_op_model(std::move(big)), {"hostile", "tiled size", "overflows"});
  OpCase neg{"Tile", {f32({1, 1}, {1}), i64({2}, {-1, 1})}};
  expect_error(one_op_model(std::move(neg)), {"hostile", "repeats must not be negative"});
}

TEST(HostileKernels, ReshapeShapeProductOverflows) {
  OpCase c{"Reshape", {f32({0}, {}), i64({3}, {kBig, kBig, 0})}};
  c.attrs.push_back(a_int("allowzero", 1));
  c.opset = 14;
  expect_error(one_op_model(std::move(c)), {"hostile", "element count", "overflows"});
}

TEST(HostileKernels, DepthToSpaceBlocksizeOverflows) {
  OpCase c{"DepthToSpace", {ones({1, 4, 1, 1})}, attrs(a_int("blocksize", int64_t{1} << 33))};
  expect_error(one_op_model(std::move(c)), {"hostile", "blocksize^2", "overflows"});
}

TEST(HostileKernels, PoolWindowArithmeticOverflows) {
  OpCase c{
      "MaxPool", {ones({1, 1, 4})}, attrs(a_ints("kernel_shape", {2}), a_ints("pads", {0, 0}))};
  c.attrs.push_back(a_ints("dilations", {INT64_MAX}));
  c.opset = 12;
  expect_error(one_op_model(std::move(c)), {"hostile", "kernel extent", "overflows"});
}

TEST(HostileKernels, PoolWithHugeKernelIsRefusedUpFront) {
  // A 2^40 window over 2^40 padding: the answer is cheap to state, slow to compute.
  OpCase c{"AveragePool",
           {ones({1, 1, 4})},
           attrs(a_ints("kernel_shape", {kBig}), a_ints("pads", {kBig, 0}))};
  c.opset = 11;
  expect_error(one_op_model(std::move(c)), {"hostile", "pooling needs", "limit"});
}

TEST(HostileKernels, ConvTransposeOutputShapeShorterThanTheSpatialRank) {
  // Found by the fuzzer under ASan: output_shape[1] was read past its end.
  OpCase c{"ConvTranspose",
           {ones({1, 1, 2, 2}), ones({1, 1, 2, 2})},
           attrs(a_ints("output_shape", {4}))};
  expect_error(one_op_model(std::move(c)), {"hostile", "output_shape has 1 values"});
}

TEST(HostileKernels, RoiAlignWithANaNRoi) {
  // Found by the fuzzer under UBSan: int64 of a NaN coordinate, then an overflow.
  float nan = std::nanf("");
  OpCase c{"RoiAlign", {ones({1, 1, 4, 4}), f32({1, 4}, {0, 0, nan, 2}), i64({1}, {0})}};
  c.opset = 16;
  expect_error(one_op_model(std::move(c)), {"hostile", "roi 0", "not finite"});
}

TEST(HostileKernels, EyeLikeWithAnExtremeDiagonal) {
  // Found by the fuzzer under UBSan (OXS_FUZZ_SEED=7): i + k overflowed.
  OpCase c{"EyeLike", {ones({2, 2})}, attrs(a_int("k", INT64_MAX))};
  ir::Model m = one_op_model(std::move(c));
  Session s(m);
  auto out = s.run({});
  EXPECT_EQ(out[0].tensor().data<float>()[1], 0.0f);  // no element on that diagonal
}

TEST(HostileKernels, ConvWithNegativeKernelSize) {
  OpCase c{"AveragePool", {ones({1, 1, 4})}, attrs(a_ints("kernel_shape", {-3}))};
  c.opset = 11;
  expect_error(one_op_model(std::move(c)), {"hostile", "kernel sizes must be positive"});
}

// A bool tensor whose bytes are 2 and 0 (raw data of a hostile model).
Tensor odd_bools() {
  Tensor t(DataType::Uint8, {2});
  t.mutable_data<uint8_t>()[0] = 2;
  return t.bitcast(DataType::Bool);
}

TEST(HostileKernels, BoolBytesOtherThanZeroAndOneReadAsTrue) {
  // Where, Compress and Dropout's training_mode read such bytes as true
  // (a byte of 2 loaded as a C++ bool is undefined behaviour).
  OpCase where{"Where", {odd_bools(), f32({2}, {1, 2}), f32({2}, {5, 6})}};
  ir::Model s1_model = one_op_model(std::move(where));
  Session s1(s1_model);
  auto o1 = s1.run({});
  EXPECT_EQ(o1[0].tensor().data<float>()[0], 1.0f);
  EXPECT_EQ(o1[0].tensor().data<float>()[1], 6.0f);
  OpCase compress{"Compress", {f32({2}, {1, 2}), odd_bools()}};
  ir::Model s2_model = one_op_model(std::move(compress));
  Session s2(s2_model);
  auto o2 = s2.run({});
  ASSERT_EQ(o2[0].tensor().numel(), 1);
  EXPECT_EQ(o2[0].tensor().data<float>()[0], 1.0f);
  Tensor on(DataType::Uint8, {});
  on.mutable_data<uint8_t>()[0] = 7;
  OpCase dropout{"Dropout", {f32({2}, {1, 2}), f32({}, {0.0f}), on.bitcast(DataType::Bool)}};
  ir::Model s3_model = one_op_model(std::move(dropout));
  Session s3(s3_model);
  EXPECT_EQ(s3.run({})[0].tensor().data<float>()[1], 2.0f);
}

TEST(HostileKernels, DropoutTrainingModeMustBeAScalar) {
  OpCase c{"Dropout", {f32({2}, {1, 2}), f32({}, {0.5f}), odd_bools()}};
  expect_error(one_op_model(std::move(c)), {"hostile", "training_mode must have 1 element"});
}

TEST(HostileKernels, InputOfATypeTheSchemaRejects) {
  // Where's condition must be bool; an int64 condition was read as bools.
  OpCase c{"Where", {i64({2}, {0, 300}), f32({2}, {1, 2}), f32({2}, {5, 6})}};
  expect_error(one_op_model(std::move(c)),
               {"hostile", "input 0 ('condition') must be a tensor of bool", "got int64"});
}

TEST(HostileKernels, InputsOfOneTypeVariableWithDifferentTypes) {
  OpCase c{"Add", {f32({2}, {1, 2}), i64({2}, {1, 2})}};
  expect_error(one_op_model(std::move(c)), {"hostile", "same element type", "float", "int64"});
}

TEST(HostileKernels, EinsumWithMoreLettersThanDims) {
  OpCase c{"Einsum", {ones({2})}, attrs(ir::Attr::of_string("equation", "...ij->i"))};
  expect_error(one_op_model(std::move(c)), {"hostile", "does not match operand 0"});
}

TEST(HostileKernels, SliceWithExtremeStepsIsCorrect) {
  OpCase c{"Slice",
           {f32({4}, {1, 2, 3, 4}), i64({1}, {-1}), i64({1}, {INT64_MIN}), i64({1}, {0}),
            i64({1}, {INT64_MIN})}};
  ir::Model s_model = one_op_model(std::move(c));
  Session s(s_model);
  auto out = s.run({});
  ASSERT_EQ(out[0].tensor().numel(), 1);  // only the start element
  EXPECT_EQ(out[0].tensor().data<float>()[0], 4.0f);
}

TEST(HostileKernels, NonMaxSuppressionWithMismatchedShapes) {
  OpCase c{"NonMaxSuppression", {ones({1, 2, 4}), ones({1, 1, 5}), i64({1}, {3})}};
  expect_error(one_op_model(std::move(c)), {"hostile", "[batch, classes, boxes]"});
}

TEST(HostileKernels, QuantizeZeroPointOfTheWrongLength) {
  OpCase c{"DequantizeLinear",
           {u8({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3}, {1, 1, 1}), u8({2}, {0, 0})}};
  c.attrs.push_back(a_int("axis", 1));
  c.opset = 13;
  expect_error(one_op_model(std::move(c)), {"hostile", "zero point's shape [2] differs"});
}

}  // namespace
}  // namespace oxs::eval::hostile
