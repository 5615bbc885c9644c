// Decoders of encoded images (the input of ImageDecoder) into 8-bit
// interleaved RGB pixels, row by row from the top: JPEG (libjpeg-turbo),
// PNG (libpng), WebP (libwebp), TIFF (libtiff), JPEG 2000 (openjpeg), all
// Debian libraries, and BMP and binary PNM read here. Each decoder throws
// std::runtime_error with what is wrong; the kernel turns that into an error
// naming the node. No decoder reads past the encoded bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace oxs::eval::image {

struct RgbImage {
  int64_t height = 0, width = 0;
  std::vector<uint8_t> pixels;  // height * width * 3
};

// The format's name ("jpeg", "png", ...) from its signature, or "" if unknown.
std::string sniff_format(std::span<const uint8_t> bytes);

// Decodes `bytes` of the named format (see sniff_format).
RgbImage decode(const std::string& format, std::span<const uint8_t> bytes);

// Images larger than this (pixels) are refused before any is allocated.
inline constexpr int64_t kMaxImagePixels = int64_t{1} << 28;

}  // namespace oxs::eval::image
