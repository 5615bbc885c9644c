#include "oxs/eval/image/decode/codecs.h"

#include <algorithm>
#include <cctype>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <jpeglib.h>
#include <openjpeg.h>
#include <png.h>
#include <tiffio.h>
#include <webp/decode.h>

#include "oxs/eval/image/decode/libraries.h"

// The libraries' functions by their usual names, through the pointers that
// image_libraries() loads on first use (libraries.h).
#define function image_libraries().function
#define jpeg_std_error image_libraries().jpeg_std_error
#define jpeg_CreateDecompress image_libraries().jpeg_CreateDecompress
#define jpeg_destroy_decompress image_libraries().jpeg_destroy_decompress
#define jpeg_finish_decompress image_libraries().jpeg_finish_decompress
#define jpeg_mem_src image_libraries().jpeg_mem_src
#define jpeg_read_header image_libraries().jpeg_read_header
#define jpeg_read_scanlines image_libraries().jpeg_read_scanlines
#define jpeg_start_decompress image_libraries().jpeg_start_decompress
#define png_image_begin_read_from_memory image_libraries().png_image_begin_read_from_memory
#define png_image_finish_read image_libraries().png_image_finish_read
#define png_image_free image_libraries().png_image_free
#define WebPDecodeRGBInto image_libraries().WebPDecodeRGBInto
#define WebPGetInfo image_libraries().WebPGetInfo
#define TIFFClientOpen image_libraries().TIFFClientOpen
#define TIFFClose image_libraries().TIFFClose
#define TIFFGetField image_libraries().TIFFGetField
#define TIFFReadRGBAImageOriented image_libraries().TIFFReadRGBAImageOriented
#define TIFFSetErrorHandler image_libraries().TIFFSetErrorHandler
#define TIFFSetWarningHandler image_libraries().TIFFSetWarningHandler
#define opj_create_decompress image_libraries().opj_create_decompress
#define opj_decode image_libraries().opj_decode
#define opj_destroy_codec image_libraries().opj_destroy_codec
#define opj_end_decompress image_libraries().opj_end_decompress
#define opj_image_destroy image_libraries().opj_image_destroy
#define opj_read_header image_libraries().opj_read_header
#define opj_set_default_decoder_parameters image_libraries().opj_set_default_decoder_parameters
#define opj_setup_decoder image_libraries().opj_setup_decoder
#define opj_stream_default_create image_libraries().opj_stream_default_create
#define opj_stream_destroy image_libraries().opj_stream_destroy
#define opj_stream_set_read_function image_libraries().opj_stream_set_read_function
#define opj_stream_set_seek_function image_libraries().opj_stream_set_seek_function
#define opj_stream_set_skip_function image_libraries().opj_stream_set_skip_function
#define opj_stream_set_user_data image_libraries().opj_stream_set_user_data
#define opj_stream_set_user_data_length image_libraries().opj_stream_set_user_data_length

namespace oxs::eval::image {

namespace {

[[noreturn]] void bad(const std::string& what) {
  throw std::runtime_error(what);
}

RgbImage sized(int64_t h, int64_t w, const char* format) {
  if (h <= 0 || w <= 0 || h > kMaxImagePixels / w) {
    bad(std::string(format) + " image of " + std::to_string(h) + "x" + std::to_string(w) +
        " pixels is empty or too large");
  }
  RgbImage img;
  img.height = h;
  img.width = w;
  img.pixels.resize(size_t(h * w * 3));
  return img;
}

// ---- JPEG: libjpeg with its errors turned into a longjmp back here ----
struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_fail(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

RgbImage decode_jpeg(std::span<const uint8_t> bytes) {
  jpeg_decompress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpeg_fail;
  // libjpeg errors longjmp back to the setjmp below (only C frames are skipped).
  RgbImage img;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    bad(std::string("JPEG: ") + err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  const int64_t h = cinfo.output_height, w = cinfo.output_width;
  if (h <= 0 || w <= 0 || h > kMaxImagePixels / w) {
    jpeg_destroy_decompress(&cinfo);
    bad("JPEG image is empty or too large");
  }
  img.height = h;
  img.width = w;
  img.pixels.resize(size_t(h * w * 3));
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = img.pixels.data() + size_t(cinfo.output_scanline) * size_t(w) * 3;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return img;
}

// ---- PNG: libpng's simplified API ----
RgbImage decode_png(std::span<const uint8_t> bytes) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size())) {
    bad(std::string("PNG: ") + png.message);
  }
  png.format = PNG_FORMAT_RGB;
  RgbImage img;
  try {
    img = sized(png.height, png.width, "PNG");
  } catch (...) {
    png_image_free(&png);
    throw;
  }
  if (!png_image_finish_read(&png, nullptr, img.pixels.data(), 0, nullptr)) {
    std::string msg = png.message;
    png_image_free(&png);
    bad("PNG: " + msg);
  }
  return img;
}

// ---- WebP ----
RgbImage decode_webp(std::span<const uint8_t> bytes) {
  int w = 0, h = 0;
  if (!WebPGetInfo(bytes.data(), bytes.size(), &w, &h)) bad("WebP: not a valid WebP image");
  RgbImage img = sized(h, w, "WebP");
  if (!WebPDecodeRGBInto(bytes.data(), bytes.size(), img.pixels.data(), img.pixels.size(), w * 3)) {
    bad("WebP: the image data cannot be decoded");
  }
  return img;
}

// ---- TIFF: libtiff over the bytes in memory ----
struct MemFile {
  std::span<const uint8_t> bytes;
  uint64_t pos = 0;
};
tmsize_t mem_read(thandle_t h, void* buf, tmsize_t n) {
  auto* f = static_cast<MemFile*>(h);
  if (n < 0 || f->pos >= f->bytes.size()) return 0;
  const uint64_t k = std::min<uint64_t>(uint64_t(n), f->bytes.size() - f->pos);
  std::memcpy(buf, f->bytes.data() + f->pos, k);
  f->pos += k;
  return tmsize_t(k);
}
tmsize_t mem_write(thandle_t, void*, tmsize_t) {
  return 0;
}
toff_t mem_seek(thandle_t h, toff_t off, int whence) {
  auto* f = static_cast<MemFile*>(h);
  uint64_t base = whence == SEEK_CUR ? f->pos : whence == SEEK_END ? f->bytes.size() : 0;
  f->pos = base + off;
  return f->pos;
}
int mem_close(thandle_t) {
  return 0;
}
toff_t mem_size(thandle_t h) {
  return static_cast<MemFile*>(h)->bytes.size();
}
int mem_map(thandle_t, void**, toff_t*) {
  return 0;
}
void mem_unmap(thandle_t, void*, toff_t) {}

RgbImage decode_tiff(std::span<const uint8_t> bytes) {
  TIFFSetErrorHandler(nullptr);
  TIFFSetWarningHandler(nullptr);
  MemFile file{bytes};
  std::unique_ptr<TIFF, void (*)(TIFF*)> tif(
      TIFFClientOpen("image", "rm", &file, mem_read, mem_write, mem_seek, mem_close, mem_size,
                     mem_map, mem_unmap),
      TIFFClose);
  if (!tif) bad("TIFF: not a readable TIFF image");
  uint32_t w = 0, h = 0;
  TIFFGetField(tif.get(), TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(tif.get(), TIFFTAG_IMAGELENGTH, &h);
  RgbImage img = sized(h, w, "TIFF");
  std::vector<uint32_t> rgba(size_t(h) * w);
  if (!TIFFReadRGBAImageOriented(tif.get(), w, h, rgba.data(), ORIENTATION_TOPLEFT, 0)) {
    bad("TIFF: the image data cannot be decoded");
  }
  for (size_t i = 0; i < rgba.size(); ++i) {
    img.pixels[3 * i] = uint8_t(TIFFGetR(rgba[i]));
    img.pixels[3 * i + 1] = uint8_t(TIFFGetG(rgba[i]));
    img.pixels[3 * i + 2] = uint8_t(TIFFGetB(rgba[i]));
  }
  return img;
}

// ---- JPEG 2000: openjpeg over a memory stream ----
OPJ_SIZE_T j2k_read(void* buf, OPJ_SIZE_T n, void* h) {
  auto* f = static_cast<MemFile*>(h);
  if (f->pos >= f->bytes.size()) return OPJ_SIZE_T(-1);
  const uint64_t k = std::min<uint64_t>(n, f->bytes.size() - f->pos);
  std::memcpy(buf, f->bytes.data() + f->pos, k);
  f->pos += k;
  return OPJ_SIZE_T(k);
}
OPJ_OFF_T j2k_skip(OPJ_OFF_T n, void* h) {
  auto* f = static_cast<MemFile*>(h);
  if (n < 0 || uint64_t(n) > f->bytes.size() - f->pos) return -1;
  f->pos += uint64_t(n);
  return n;
}
OPJ_BOOL j2k_seek(OPJ_OFF_T n, void* h) {
  auto* f = static_cast<MemFile*>(h);
  if (n < 0 || uint64_t(n) > f->bytes.size()) return OPJ_FALSE;
  f->pos = uint64_t(n);
  return OPJ_TRUE;
}

RgbImage decode_jpeg2000(std::span<const uint8_t> bytes) {
  MemFile file{bytes};
  const bool codestream = bytes.size() >= 2 && bytes[0] == 0xff && bytes[1] == 0x4f;
  std::unique_ptr<opj_codec_t, void (*)(opj_codec_t*)> codec(
      opj_create_decompress(codestream ? OPJ_CODEC_J2K : OPJ_CODEC_JP2), opj_destroy_codec);
  std::unique_ptr<opj_stream_t, void (*)(opj_stream_t*)> stream(opj_stream_default_create(OPJ_TRUE),
                                                                opj_stream_destroy);
  if (!codec || !stream) bad("JPEG 2000: cannot start the decoder");
  opj_stream_set_user_data(stream.get(), &file, nullptr);
  opj_stream_set_user_data_length(stream.get(), bytes.size());
  opj_stream_set_read_function(stream.get(), j2k_read);
  opj_stream_set_skip_function(stream.get(), j2k_skip);
  opj_stream_set_seek_function(stream.get(), j2k_seek);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  if (!opj_setup_decoder(codec.get(), &params)) bad("JPEG 2000: cannot set up the decoder");
  opj_image_t* raw = nullptr;
  if (!opj_read_header(stream.get(), codec.get(), &raw)) bad("JPEG 2000: unreadable header");
  std::unique_ptr<opj_image_t, void (*)(opj_image_t*)> image(raw, opj_image_destroy);
  if (!opj_decode(codec.get(), stream.get(), image.get()) ||
      !opj_end_decompress(codec.get(), stream.get())) {
    bad("JPEG 2000: the image data cannot be decoded");
  }
  if (image->numcomps < 1) bad("JPEG 2000: no components");
  const opj_image_comp_t& c0 = image->comps[0];
  RgbImage img = sized(c0.h, c0.w, "JPEG 2000");
  const bool gray = image->numcomps < 3;
  for (unsigned k = 0; k < (gray ? 1u : 3u); ++k) {
    const opj_image_comp_t& c = image->comps[k];
    if (c.w != c0.w || c.h != c0.h || c.data == nullptr) {
      bad("JPEG 2000: subsampled components are not supported");
    }
    if (c.prec < 1 || c.prec > 16) bad("JPEG 2000: component precision out of range");
    const int shift = int(c.prec) - 8;
    const int offset = c.sgnd ? 1 << (c.prec - 1) : 0;
    for (size_t i = 0; i < size_t(img.height * img.width); ++i) {
      int v = c.data[i] + offset;
      v = shift > 0 ? v >> shift : v << -shift;
      const uint8_t b = uint8_t(std::clamp(v, 0, 255));
      if (gray) {
        img.pixels[3 * i] = img.pixels[3 * i + 1] = img.pixels[3 * i + 2] = b;
      } else {
        img.pixels[3 * i + k] = b;
      }
    }
  }
  return img;
}

// ---- BMP: uncompressed 24- and 32-bit, bottom-up or top-down ----
uint32_t le32(std::span<const uint8_t> b, size_t at) {
  if (at + 4 > b.size()) bad("BMP: truncated header");
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 |
         uint32_t(b[at + 3]) << 24;
}
uint16_t le16(std::span<const uint8_t> b, size_t at) {
  if (at + 2 > b.size()) bad("BMP: truncated header");
  return uint16_t(b[at] | b[at + 1] << 8);
}

RgbImage decode_bmp(std::span<const uint8_t> b) {
  const uint32_t data_at = le32(b, 10);
  const int64_t w = int32_t(le32(b, 18));
  const int64_t h_signed = int32_t(le32(b, 22));
  const uint16_t bpp = le16(b, 28);
  const uint32_t compression = le32(b, 30);
  if ((bpp != 24 && bpp != 32) || (compression != 0 && compression != 3)) {
    bad("BMP: only uncompressed 24- and 32-bit images are supported (this one has " +
        std::to_string(bpp) + " bits per pixel, compression " + std::to_string(compression) + ")");
  }
  const bool top_down = h_signed < 0;
  const int64_t h = top_down ? -h_signed : h_signed;
  RgbImage img = sized(h, w, "BMP");
  const int64_t bytes_pp = bpp / 8, row_bytes = (w * bytes_pp + 3) / 4 * 4;
  if (uint64_t(data_at) + uint64_t(row_bytes) * uint64_t(h) > b.size())
    bad("BMP: truncated pixels");
  for (int64_t y = 0; y < h; ++y) {
    const uint8_t* row = b.data() + data_at + (top_down ? y : h - 1 - y) * row_bytes;
    for (int64_t x = 0; x < w; ++x) {
      uint8_t* p = img.pixels.data() + (y * w + x) * 3;
      p[0] = row[x * bytes_pp + 2];
      p[1] = row[x * bytes_pp + 1];
      p[2] = row[x * bytes_pp];
    }
  }
  return img;
}

// ---- PNM: binary P5 (gray) and P6 (RGB), maxval up to 255 ----
RgbImage decode_pnm(std::span<const uint8_t> b) {
  size_t at = 2;
  auto number = [&]() -> int64_t {
    while (at < b.size()) {
      if (b[at] == '#') {
        while (at < b.size() && b[at] != '\n') ++at;
      } else if (std::isspace(b[at])) {
        ++at;
      } else {
        break;
      }
    }
    int64_t v = 0;
    size_t digits = 0;
    while (at < b.size() && b[at] >= '0' && b[at] <= '9' && digits < 12) {
      v = v * 10 + (b[at++] - '0');
      ++digits;
    }
    if (digits == 0) bad("PNM: malformed header");
    return v;
  };
  const bool rgb = b[1] == '6';
  const int64_t w = number(), h = number(), maxval = number();
  ++at;  // the one whitespace byte before the pixels
  if (maxval < 1 || maxval > 255) bad("PNM: only 8-bit images (maxval <= 255) are supported");
  RgbImage img = sized(h, w, "PNM");
  const uint64_t need = uint64_t(h * w) * (rgb ? 3 : 1);
  if (at > b.size() || b.size() - at < need) bad("PNM: truncated pixels");
  for (size_t i = 0; i < size_t(h * w); ++i) {
    for (size_t k = 0; k < 3; ++k) {
      const int v = b[at + (rgb ? 3 * i + k : i)];
      img.pixels[3 * i + k] = uint8_t(maxval == 255 ? v : (v * 255 + maxval / 2) / maxval);
    }
  }
  return img;
}

bool starts_with(std::span<const uint8_t> b, const char* sig, size_t n, size_t at = 0) {
  return b.size() >= at + n && std::memcmp(b.data() + at, sig, n) == 0;
}

}  // namespace

std::string sniff_format(std::span<const uint8_t> b) {
  if (starts_with(b, "\xff\xd8\xff", 3)) return "jpeg";
  if (starts_with(b, "\x89PNG\r\n\x1a\n", 8)) return "png";
  if (starts_with(b, "RIFF", 4) && starts_with(b, "WEBP", 4, 8)) return "webp";
  if (starts_with(b, "II*\0", 4) || starts_with(b, "MM\0*", 4)) return "tiff";
  if (starts_with(b, "\0\0\0\x0cjP  \r\n\x87\n", 12) || starts_with(b, "\xff\x4f\xff\x51", 4)) {
    return "jpeg2000";
  }
  if (starts_with(b, "BM", 2)) return "bmp";
  if (starts_with(b, "P5", 2) || starts_with(b, "P6", 2)) return "pnm";
  return {};
}

RgbImage decode(const std::string& format, std::span<const uint8_t> bytes) {
  if (format == "jpeg") return decode_jpeg(bytes);
  if (format == "png") return decode_png(bytes);
  if (format == "webp") return decode_webp(bytes);
  if (format == "tiff") return decode_tiff(bytes);
  if (format == "jpeg2000") return decode_jpeg2000(bytes);
  if (format == "bmp") return decode_bmp(bytes);
  if (format == "pnm") return decode_pnm(bytes);
  bad("unknown image format '" + format + "'");
}

}  // namespace oxs::eval::image
