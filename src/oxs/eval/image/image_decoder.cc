// ImageDecoder (20): decodes the bytes of an encoded image (JPEG, PNG,
// WebP, TIFF, JPEG 2000, BMP, PNM; see decode/codecs.h) to a uint8 tensor
// [H, W, 3] in RGB or BGR order, or [H, W, 1] for Grayscale, whose luma is
// (19595 R + 38470 G + 7471 B + 2^15) >> 16 of the decoded RGB pixels (the
// ITU-R 601-2 weights in 16-bit fixed point).
#include <span>
#include <stdexcept>
#include <string>

#include "oxs/eval/common/modern_kernels.h"
#include "oxs/eval/image/decode/codecs.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

void image_decoder_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.dtype() != DataType::Uint8 || x.rank() != 1) {
    ctx.fail("encoded_stream must be a 1-D uint8 tensor, got " +
             std::string(ir::dtype_name(x.dtype())) + " " + dims_to_string(x.dims()));
  }
  const std::string pixel_format = ctx.attr_string("pixel_format", "RGB");
  if (pixel_format != "RGB" && pixel_format != "BGR" && pixel_format != "Grayscale") {
    ctx.fail("pixel_format '" + pixel_format + "' is not RGB, BGR or Grayscale");
  }
  std::span<const uint8_t> bytes(static_cast<const uint8_t*>(x.raw()), size_t(x.numel()));
  const std::string format = image::sniff_format(bytes);
  if (format.empty()) {
    ctx.fail(
        "encoded_stream is not an image in a known format (JPEG, PNG, WebP, TIFF, "
        "JPEG 2000, BMP, PNM)");
  }
  image::RgbImage img;
  try {
    img = image::decode(format, bytes);
  } catch (const std::runtime_error& e) {
    ctx.fail(std::string("cannot decode the image: ") + e.what());
  }
  const int64_t h = img.height, w = img.width;
  const uint8_t* in = img.pixels.data();
  if (pixel_format == "Grayscale") {
    Tensor y(DataType::Uint8, {h, w, 1});
    auto* out = static_cast<uint8_t*>(y.mutable_raw());
    for (int64_t i = 0; i < h * w; ++i) {
      const uint32_t l = 19595u * in[3 * i] + 38470u * in[3 * i + 1] + 7471u * in[3 * i + 2];
      out[i] = uint8_t((l + 0x8000u) >> 16);
    }
    ctx.set_output(0, y);
    return;
  }
  Tensor y(DataType::Uint8, {h, w, 3});
  auto* out = static_cast<uint8_t*>(y.mutable_raw());
  const bool bgr = pixel_format == "BGR";
  for (int64_t i = 0; i < h * w; ++i) {
    out[3 * i] = in[3 * i + (bgr ? 2 : 0)];
    out[3 * i + 1] = in[3 * i + 1];
    out[3 * i + 2] = in[3 * i + (bgr ? 0 : 2)];
  }
  ctx.set_output(0, y);
}

}  // namespace

void register_image_decoder_kernels(KernelRegistry& r) {
  r.add("", "ImageDecoder", 20, image_decoder_k);
}

}  // namespace oxs::eval
