// Shapes (not only element types) inferred for the new image, signal,
// convolution, attention and ML ops of opsets 18-26 (infer/modern_shapes.cc).
#include <gtest/gtest.h>

#include <span>

#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"

namespace oxs::infer {
namespace {

using ir::DataType;
using ir::Dim;
using ir::Shape;
using ir::Type;

// A model importing ai.onnx `opset` (and ai.onnx.ml 5, ai.onnx.preview 1)
// with one node under test.
struct OneNode {
  ir::Model m;
  ir::Graph& g;
  explicit OneNode(int64_t opset) : g(*m.graph) {
    m.opset_imports = {{"", opset}, {"ai.onnx.ml", 5}, {"ai.onnx.preview", 1}};
  }
  ir::Value* in(const std::string& name, DataType t, std::vector<int64_t> dims) {
    return g.add_input(name, Type::tensor(t, Shape::of(dims)));
  }
  template <class T>
  ir::Value* constant(const std::string& name, DataType t, std::vector<T> v, bool scalar = false) {
    std::vector<int64_t> dims;
    if (!scalar) dims.push_back(int64_t(v.size()));
    return g.add_initializer(
        name, std::make_shared<ir::Tensor>(ir::Tensor::from<T>(t, dims, std::span<const T>(v))));
  }
  ir::Value* ints(const std::string& name, std::vector<int64_t> v, bool scalar = false) {
    return constant<int64_t>(name, DataType::Int64, std::move(v), scalar);
  }
  // Runs inference; the node's first output type as text.
  std::string infer(const std::string& op, std::vector<ir::Value*> ins,
                    std::vector<ir::Attr> attrs = {}, const std::string& domain = "") {
    ir::Node* n = g.create_node(op, ins, 1, domain);
    n->set_name("under_test");
    for (ir::Attr& a : attrs) n->set_attr(std::move(a));
    g.add_output(n->output(0));
    run(m);
    return n->output(0)->type().to_string();
  }
};

template <class... A>
std::vector<ir::Attr> attrs(A&&... a) {
  std::vector<ir::Attr> v;
  (v.push_back(std::forward<A>(a)), ...);
  return v;
}

TEST(ModernShapes, GridSampleVolumetricTakesTheGridsOutputDims) {
  OneNode t(20);
  auto* x = t.in("X", DataType::Float, {2, 3, 4, 5, 6});
  auto* grid = t.in("grid", DataType::Float, {2, 7, 8, 9, 3});
  EXPECT_EQ(t.infer("GridSample", {x, grid}), "float[2,3,7,8,9]");
}

TEST(ModernShapes, GridSampleRankMismatchNamesTheNode) {
  OneNode t(20);
  auto* x = t.in("X", DataType::Float, {2, 3, 4, 5});
  auto* grid = t.in("grid", DataType::Float, {2, 7, 8, 9, 3});
  try {
    t.infer("GridSample", {x, grid});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("under_test"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("same rank"), std::string::npos) << e.message();
  }
}

TEST(ModernShapes, AffineGridFromAKnownSize) {
  OneNode t(20);
  auto* theta = t.in("theta", DataType::Float, {2, 3, 4});
  EXPECT_EQ(t.infer("AffineGrid", {theta, t.ints("size", {2, 1, 5, 6, 7})}), "float[2,5,6,7,3]");
}

TEST(ModernShapes, AffineGridOfAnUnknownSizeStillHasItsRank) {
  OneNode t(20);
  auto* theta = t.in("theta", DataType::Float, {2, 2, 3});
  auto* size = t.in("size", DataType::Int64, {4});
  EXPECT_EQ(t.infer("AffineGrid", {theta, size}), "float[2,?,?,2]");
}

TEST(ModernShapes, CenterCropPadOnSomeAxes) {
  OneNode t(18);
  auto* x = t.in("X", DataType::Float, {10, 8, 3});
  EXPECT_EQ(t.infer("CenterCropPad", {x, t.ints("shape", {5, 12})},
                    attrs(ir::Attr::of_ints("axes", {0, -2}))),
            "float[5,12,3]");
}

TEST(ModernShapes, Col2ImSplitsTheChannelsByTheBlock) {
  OneNode t(18);
  auto* x = t.in("X", DataType::Float, {1, 12, 9});
  EXPECT_EQ(t.infer("Col2Im", {x, t.ints("image", {5, 5}), t.ints("block", {2, 2})}),
            "float[1,3,5,5]");
}

TEST(ModernShapes, DeformConvLikeConv) {
  OneNode t(19);
  auto* x = t.in("X", DataType::Float, {1, 4, 10, 9});
  auto* w = t.in("W", DataType::Float, {6, 4, 3, 3});
  auto* off = t.in("offset", DataType::Float, {1, 18, 5, 5});
  EXPECT_EQ(
      t.infer("DeformConv", {x, w, off},
              attrs(ir::Attr::of_ints("strides", {2, 2}), ir::Attr::of_ints("pads", {1, 1, 1, 1}))),
      "float[1,6,5,5]");
}

TEST(ModernShapes, DftAxisInputAndInverseRealDft) {
  OneNode t(20);
  auto* x = t.in("x", DataType::Float, {1, 6, 10, 2});
  EXPECT_EQ(t.infer("DFT", {x, nullptr, t.ints("axis", {1}, true)},
                    attrs(ir::Attr::of_int("inverse", 1), ir::Attr::of_int("onesided", 1))),
            "float[1,10,10,1]");
  OneNode u(20);
  auto* y = u.in("x", DataType::Float, {1, 10, 10, 1});
  EXPECT_EQ(u.infer("DFT", {y, u.ints("len", {16}, true)}, attrs(ir::Attr::of_int("onesided", 1))),
            "float[1,10,9,2]");
}

TEST(ModernShapes, ResizeWithAxesScalesOnlyThoseAxes) {
  OneNode t(18);
  auto* x = t.in("X", DataType::Float, {1, 3, 8, 8});
  auto* scales = t.constant<float>("scales", DataType::Float, {0.5f, 2.0f});
  EXPECT_EQ(t.infer("Resize", {x, nullptr, scales}, attrs(ir::Attr::of_ints("axes", {2, 3}))),
            "float[1,3,4,16]");
}

TEST(ModernShapes, ResizeNotLargerKeepsTheAspectRatio) {
  OneNode t(18);
  auto* x = t.in("X", DataType::Float, {1, 3, 20, 10});
  EXPECT_EQ(t.infer("Resize", {x, nullptr, nullptr, t.ints("sizes", {10, 10})},
                    attrs(ir::Attr::of_ints("axes", {2, 3}),
                          ir::Attr::of_string("keep_aspect_ratio_policy", "not_larger"))),
            "float[1,3,10,5]");
}

TEST(ModernShapes, ImageDecoderChannelsFollowThePixelFormat) {
  OneNode t(20);
  auto* b = t.in("bytes", DataType::Uint8, {100});
  EXPECT_EQ(t.infer("ImageDecoder", {b}, attrs(ir::Attr::of_string("pixel_format", "Grayscale"))),
            "uint8[?,?,1]");
}

TEST(ModernShapes, FlexAttentionTakesTheValueHeadSize) {
  OneNode t(26);
  auto* q = t.in("Q", DataType::Float, {2, 8, 4, 16});
  auto* k = t.in("K", DataType::Float, {2, 2, 6, 16});
  auto* v = t.in("V", DataType::Float, {2, 2, 6, 32});
  EXPECT_EQ(t.infer("FlexAttention", {q, k, v}, {}, "ai.onnx.preview"), "float[2,8,4,32]");
}

TEST(ModernShapes, TreeEnsembleHasOneColumnPerTarget) {
  OneNode t(20);
  auto* x = t.in("X", DataType::Double, {7, 3});
  auto splits = std::make_shared<ir::Tensor>(ir::Tensor::from<double>(
      DataType::Double, {1}, std::span<const double>(std::vector<double>{0.5})));
  auto weights = std::make_shared<ir::Tensor>(ir::Tensor::from<double>(
      DataType::Double, {2}, std::span<const double>(std::vector<double>{1, 2})));
  auto modes = std::make_shared<ir::Tensor>(ir::Tensor::from<uint8_t>(
      DataType::Uint8, {1}, std::span<const uint8_t>(std::vector<uint8_t>{0})));
  EXPECT_EQ(t.infer("TreeEnsemble", {x},
                    attrs(ir::Attr::of_int("n_targets", 4), ir::Attr::of_ints("tree_roots", {0}),
                          ir::Attr::of_ints("nodes_featureids", {0}),
                          ir::Attr::of_ints("nodes_truenodeids", {0}),
                          ir::Attr::of_ints("nodes_falsenodeids", {1}),
                          ir::Attr::of_ints("nodes_trueleafs", {1}),
                          ir::Attr::of_ints("nodes_falseleafs", {1}),
                          ir::Attr::of_ints("leaf_targetids", {0, 3}),
                          ir::Attr::of_tensor("nodes_splits", splits),
                          ir::Attr::of_tensor("nodes_modes", modes),
                          ir::Attr::of_tensor("leaf_weights", weights)),
                    "ai.onnx.ml"),
            "double[7,4]");
}

// infer/pool_shapes.cc: with ceil_mode, a last window that would start in
// the end padding is dropped; dilations widen the window.
TEST(ModernShapes, PoolCeilModeDropsAWindowStartingInTheEndPadding) {
  {
    OneNode t(19);
    auto* x = t.in("X", DataType::Float, {1, 1, 2, 2});
    EXPECT_EQ(
        t.infer(
            "AveragePool", {x},
            attrs(ir::Attr::of_ints("kernel_shape", {2, 2}), ir::Attr::of_ints("strides", {2, 2}),
                  ir::Attr::of_ints("pads", {0, 0, 1, 1}), ir::Attr::of_int("ceil_mode", 1))),
        "float[1,1,1,1]");
  }
  {
    OneNode t(19);
    auto* x = t.in("X", DataType::Float, {1, 1, 5, 5});
    EXPECT_EQ(
        t.infer(
            "AveragePool", {x},
            attrs(ir::Attr::of_ints("kernel_shape", {3, 3}), ir::Attr::of_ints("strides", {2, 2}),
                  ir::Attr::of_ints("pads", {0, 0, 1, 1}), ir::Attr::of_int("ceil_mode", 1))),
        "float[1,1,3,3]");
  }
  {
    OneNode t(22);
    auto* x = t.in("X", DataType::Float, {1, 2, 4, 6});
    EXPECT_EQ(t.infer("MaxPool", {x},
                      attrs(ir::Attr::of_ints("kernel_shape", {2, 2}),
                            ir::Attr::of_ints("dilations", {2, 2}))),
              "float[1,2,2,4]");
  }
}

// infer/value_propagation.cc: shape arithmetic through integer Div and
// Concat (libonnx 1.12 propagates neither) reaches Reshape.
TEST(ModernShapes, ShapeArithmeticThroughDivAndConcatReachesReshape) {
  OneNode t(21);
  auto* x = t.in("X", DataType::Float, {3, 8});
  ir::Value* one[] = {x};
  ir::Node* batch = t.g.create_node("Shape", one);
  batch->set_attr(ir::Attr::of_int("end", 1));
  ir::Node* width = t.g.create_node("Shape", one);
  width->set_attr(ir::Attr::of_int("start", 1));
  ir::Value* halve_in[] = {width->output(0), t.ints("two", {2})};
  ir::Node* half = t.g.create_node("Div", halve_in);
  ir::Value* parts[] = {batch->output(0), half->output(0), t.ints("pair", {2})};
  ir::Node* shape = t.g.create_node("Concat", parts);
  shape->set_attr(ir::Attr::of_int("axis", 0));
  EXPECT_EQ(t.infer("Reshape", {x, shape->output(0)}), "float[3,4,2]");
}

}  // namespace
}  // namespace oxs::infer
