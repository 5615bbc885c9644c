// Semantics of GridSample-20 (n-d), RegexFullMatch, ImageDecoder and DFT-20
// that the ONNX 1.23 backend tests leave open or cover thinly: whole-string
// matching, volumetric corners, every pixel format, the inverse real DFT as
// the inverse of the one-sided DFT.
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "one_op.h"

namespace oxs::eval {
namespace {

Tensor floats(Dims dims, std::vector<float> v) {
  return Tensor::of<float>(DataType::Float, std::move(dims), std::span<const float>(v));
}

TEST(RegexFullMatch, MatchesTheWholeStringOnly) {
  Tensor x(DataType::String, {4});
  x.mutable_strings() = {"b", "abc", "", "bbb"};
  Value y = run_one_op(
      "RegexFullMatch", {x}, [](ir::Node* n) { n->set_attr(ir::Attr::of_string("pattern", "b+")); },
      20);
  ASSERT_EQ(y.tensor().dtype(), DataType::Bool);
  const auto* p = static_cast<const uint8_t*>(y.tensor().raw());
  EXPECT_EQ(std::vector<int>(p, p + 4), (std::vector<int>{1, 0, 0, 1}));
}

TEST(GridSample, VolumetricCornersReadTheCornerElements) {
  // X [1, 1, 2, 2, 2] = 0..7; grid points at the eight corners (x, y, z).
  std::vector<float> xs(8), grid;
  for (int i = 0; i < 8; ++i) xs[size_t(i)] = float(i);
  for (int z : {-1, 1}) {
    for (int y : {-1, 1}) {
      for (int x : {-1, 1}) grid.insert(grid.end(), {float(x), float(y), float(z)});
    }
  }
  for (const char* mode : {"linear", "nearest"}) {
    Value out = run_one_op(
        "GridSample", {floats({1, 1, 2, 2, 2}, xs), floats({1, 2, 2, 2, 3}, grid)},
        [mode](ir::Node* n) {
          n->set_attr(ir::Attr::of_string("mode", mode));
          n->set_attr(ir::Attr::of_int("align_corners", 1));
        },
        20);
    ASSERT_EQ(out.tensor().dims(), (Dims{1, 1, 2, 2, 2})) << mode;
    for (int i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(out.tensor().data<float>()[i], float(i)) << mode;
  }
}

TEST(GridSample, VolumetricCentreAveragesEveryElement) {
  std::vector<float> xs = {0, 1, 2, 3, 4, 5, 6, 7};
  Value out = run_one_op(
      "GridSample", {floats({1, 1, 2, 2, 2}, xs), floats({1, 1, 1, 1, 3}, {0, 0, 0})}, nullptr, 22);
  EXPECT_FLOAT_EQ(out.tensor().data<float>()[0], 3.5f);
}

TEST(ImageDecoder, PixelFormatsOfABinaryPnm) {
  // 2x1 image: pure red, then (10, 20, 30).
  std::string pnm = "P6\n2 1\n255\n";
  pnm += std::string("\xff\x00\x00\x0a\x14\x1e", 6);
  Tensor x(DataType::Uint8, {int64_t(pnm.size())});
  for (size_t i = 0; i < pnm.size(); ++i)
    static_cast<uint8_t*>(x.mutable_raw())[i] = uint8_t(pnm[i]);
  auto decode = [&](const char* format) {
    Value y = run_one_op(
        "ImageDecoder", {x},
        [format](ir::Node* n) { n->set_attr(ir::Attr::of_string("pixel_format", format)); }, 20);
    const auto* p = static_cast<const uint8_t*>(y.tensor().raw());
    return std::pair{y.tensor().dims(), std::vector<int>(p, p + y.tensor().numel())};
  };
  EXPECT_EQ(decode("RGB"), std::pair(Dims{1, 2, 3}, std::vector<int>{255, 0, 0, 10, 20, 30}));
  EXPECT_EQ(decode("BGR"), std::pair(Dims{1, 2, 3}, std::vector<int>{0, 0, 255, 30, 20, 10}));
  // Luma (0.299, 0.587, 0.114) rounded: 255 * 0.299 = 76.2; 18.1.
  EXPECT_EQ(decode("Grayscale"), std::pair(Dims{1, 2, 1}, std::vector<int>{76, 18}));
}

// (The axis is DFT-20's default, -2: the signal axis of [1, 8, 1].)
TEST(Dft, InverseRealDftUndoesTheOneSidedDft) {
  const std::vector<float> signal = {1, -2, 3.5f, 0, 4, 2, -1, 0.5f};
  Value spectrum = run_one_op(
      "DFT", {floats({1, 8, 1}, signal)},
      [](ir::Node* n) { n->set_attr(ir::Attr::of_int("onesided", 1)); }, 20);
  ASSERT_EQ(spectrum.tensor().dims(), (Dims{1, 5, 2}));
  Value back = run_one_op(
      "DFT", {spectrum.tensor()},
      [](ir::Node* n) {
        n->set_attr(ir::Attr::of_int("onesided", 1));
        n->set_attr(ir::Attr::of_int("inverse", 1));
      },
      20);
  ASSERT_EQ(back.tensor().dims(), (Dims{1, 8, 1}));
  for (size_t i = 0; i < signal.size(); ++i) {
    EXPECT_NEAR(back.tensor().data<float>()[i], signal[i], 1e-5) << i;
  }
}

}  // namespace
}  // namespace oxs::eval
