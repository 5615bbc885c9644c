// Hostile input for the kernels of GridSample-20 (n-d), DeformConv,
// RegexFullMatch, ImageDecoder, DFT-20 and ai.onnx.ml TreeEnsemble-5: each
// bad model ends in an oxs::Error naming the node and what is wrong, before
// any memory is touched. (Their results are checked by the ONNX 1.23
// backend tests, eval_conformance_1_23.)
#include <cmath>

#include "hostile_util.h"

namespace oxs::eval::hostile {
namespace {

Tensor strings(Dims dims, std::vector<std::string> v) {
  Tensor t(DataType::String, std::move(dims));
  for (size_t i = 0; i < v.size(); ++i) t.mutable_strings()[i] = v[i];
  return t;
}

TEST(HostileModernOps, GridSampleGridOfTheWrongRank) {
  OpCase c{"GridSample", {ones({1, 1, 2, 2, 2}), ones({1, 2, 2, 2})}};
  c.opset = 20;
  expect_error(one_op_model(std::move(c)), {"hostile", "grid", "[N, O1..O3, 3]"});
}

TEST(HostileModernOps, GridSampleUnknownModeNamesTheVersionsModes) {
  OpCase c{"GridSample", {ones({1, 1, 2, 2}), ones({1, 2, 2, 2})}};
  c.opset = 20;
  c.attrs.push_back(ir::Attr::of_string("mode", "bilinear"));
  expect_error(one_op_model(std::move(c)), {"hostile", "bilinear", "linear, nearest, cubic"});
}

TEST(HostileModernOps, GridSampleCubicNeedsTwoSpatialAxes) {
  OpCase c{"GridSample", {ones({1, 1, 2, 2, 2}), ones({1, 2, 2, 2, 3})}};
  c.opset = 20;
  c.attrs.push_back(ir::Attr::of_string("mode", "cubic"));
  expect_error(one_op_model(std::move(c)), {"hostile", "cubic", "2-D"});
}

TEST(HostileModernOps, DeformConvOffsetOfTheWrongShape) {
  // 3x3 input, 2x2 kernel: output 2x2, offset needs [1, 8, 2, 2].
  OpCase c{"DeformConv", {ones({1, 1, 3, 3}), ones({1, 1, 2, 2}), ones({1, 8, 2, 1})}};
  c.opset = 19;
  expect_error(one_op_model(std::move(c)), {"hostile", "offset", "[1,8,2,2]"});
}

TEST(HostileModernOps, DeformConvGroupThatDoesNotDivideTheChannels) {
  OpCase c{"DeformConv", {ones({1, 3, 3, 3}), ones({2, 1, 2, 2}), ones({1, 8, 2, 2})}};
  c.opset = 19;
  c.attrs.push_back(a_int("group", 2));
  expect_error(one_op_model(std::move(c)), {"hostile", "group 2"});
}

TEST(HostileModernOps, RegexFullMatchInvalidPattern) {
  OpCase c{"RegexFullMatch", {strings({1}, {"abc"})}};
  c.opset = 20;
  c.attrs.push_back(ir::Attr::of_string("pattern", "a(b"));
  expect_error(one_op_model(std::move(c)), {"hostile", "a(b", "not a valid RE2 regex"});
}

TEST(HostileModernOps, ImageDecoderUnknownFormat) {
  OpCase c{"ImageDecoder", {u8({4}, {1, 2, 3, 4})}};
  c.opset = 20;
  expect_error(one_op_model(std::move(c)), {"hostile", "not an image in a known format"});
}

TEST(HostileModernOps, ImageDecoderTruncatedBmp) {
  // A BMP header that promises 32x32 pixels, and no pixels.
  std::vector<uint8_t> b(54, 0);
  b[0] = 'B';
  b[1] = 'M';
  b[10] = 54;
  b[14] = 40;
  b[18] = 32;
  b[22] = 32;
  b[26] = 1;
  b[28] = 24;
  OpCase c{"ImageDecoder", {u8({54}, b)}};
  c.opset = 20;
  expect_error(one_op_model(std::move(c)), {"hostile", "BMP", "truncated"});
}

TEST(HostileModernOps, ImageDecoderTruncatedPngAndJpeg) {
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
  OpCase p{"ImageDecoder", {u8({int64_t(png.size())}, png)}};
  p.opset = 20;
  expect_error(one_op_model(std::move(p)), {"hostile", "PNG"});
  std::vector<uint8_t> jpeg = {0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F'};
  OpCase j{"ImageDecoder", {u8({int64_t(jpeg.size())}, jpeg)}};
  j.opset = 20;
  expect_error(one_op_model(std::move(j)), {"hostile", "JPEG"});
}

TEST(HostileModernOps, ImageDecoderUnknownPixelFormat) {
  OpCase c{"ImageDecoder", {u8({2}, {'P', '6'})}};
  c.opset = 20;
  c.attrs.push_back(ir::Attr::of_string("pixel_format", "CMYK"));
  expect_error(one_op_model(std::move(c)), {"hostile", "pixel_format", "CMYK"});
}

TEST(HostileModernOps, DftAxisOutOfRange) {
  OpCase c{"DFT", {ones({1, 4, 1}), std::nullopt, i64({}, {5})}};
  c.opset = 20;
  expect_error(one_op_model(std::move(c)), {"hostile", "axis", "out of range"});
}

// A one-tree ensemble over one feature whose nodes are given.
OpCase tree(std::vector<int64_t> true_ids, std::vector<int64_t> true_leafs,
            std::vector<int64_t> leaf_targets = {0}) {
  const size_t nodes = true_ids.size();
  OpCase c{"TreeEnsemble", {ones({2, 1})}};
  c.domain = "ai.onnx.ml";
  c.opset = 5;
  c.attrs.push_back(a_ints("nodes_featureids", std::vector<int64_t>(nodes, 0)));
  c.attrs.push_back(a_ints("nodes_truenodeids", true_ids));
  c.attrs.push_back(a_ints("nodes_trueleafs", true_leafs));
  c.attrs.push_back(a_ints("nodes_falsenodeids", std::vector<int64_t>(nodes, 0)));
  c.attrs.push_back(a_ints("nodes_falseleafs", std::vector<int64_t>(nodes, 1)));
  auto f =
      std::make_shared<ir::Tensor>(f32({int64_t(nodes)}, std::vector<float>(nodes, 2)).to_ir());
  c.attrs.push_back(ir::Attr::of_tensor("nodes_splits", f));
  auto m =
      std::make_shared<ir::Tensor>(u8({int64_t(nodes)}, std::vector<uint8_t>(nodes, 0)).to_ir());
  c.attrs.push_back(ir::Attr::of_tensor("nodes_modes", m));
  c.attrs.push_back(a_ints("tree_roots", {0}));
  c.attrs.push_back(a_ints("leaf_targetids", leaf_targets));
  auto w = std::make_shared<ir::Tensor>(
      f32({int64_t(leaf_targets.size())}, std::vector<float>(leaf_targets.size(), 1)).to_ir());
  c.attrs.push_back(ir::Attr::of_tensor("leaf_weights", w));
  c.attrs.push_back(a_int("n_targets", 1));
  return c;
}

TEST(HostileModernOps, TreeEnsembleCycleIsAnErrorNotALoop) {
  // 1 <= 2 always goes true: node 0 -> node 1 -> node 0 ...
  expect_error(one_op_model(tree({1, 0}, {0, 0})), {"hostile", "cycle"});
}

TEST(HostileModernOps, TreeEnsembleBranchToAMissingLeaf) {
  expect_error(one_op_model(tree({7}, {1})), {"hostile", "leaf", "(7)"});
}

TEST(HostileModernOps, TreeEnsembleLeafTargetOutOfRange) {
  expect_error(one_op_model(tree({0}, {1}, {3})), {"hostile", "leaf_targetids"});
}

}  // namespace
}  // namespace oxs::eval::hostile
