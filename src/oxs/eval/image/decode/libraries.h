// The image libraries the decoders call (libjpeg, libpng, libwebp, libtiff,
// openjpeg), loaded with dlopen by their sonames on the first image decoded
// rather than linked: linked, their loading and relocation cost every oxs
// process about half a millisecond at start-up, and few decode images.
// codecs.cc calls them by their usual names (see the macros there).
#pragma once

// jpeglib.h needs size_t and FILE declared first.
#include <cstddef>
#include <cstdio>

#include <jpeglib.h>
#include <openjpeg.h>
#include <png.h>
#include <tiffio.h>
#include <webp/decode.h>

namespace oxs::eval::image {

// X(library, function) for every function the decoders call.
#define OXS_IMAGE_FUNCTIONS(X)                   \
  X(jpeg, jpeg_std_error)                        \
  X(jpeg, jpeg_CreateDecompress)                 \
  X(jpeg, jpeg_destroy_decompress)               \
  X(jpeg, jpeg_finish_decompress)                \
  X(jpeg, jpeg_mem_src)                          \
  X(jpeg, jpeg_read_header)                      \
  X(jpeg, jpeg_read_scanlines)                   \
  X(jpeg, jpeg_start_decompress)                 \
  X(png, png_image_begin_read_from_memory)       \
  X(png, png_image_finish_read)                  \
  X(png, png_image_free)                         \
  X(webp, WebPDecodeRGBInto)                     \
  X(webp, WebPGetInfo)                           \
  X(tiff, TIFFClientOpen)                        \
  X(tiff, TIFFClose)                             \
  X(tiff, TIFFGetField)                          \
  X(tiff, TIFFReadRGBAImageOriented)             \
  X(tiff, TIFFSetErrorHandler)                   \
  X(tiff, TIFFSetWarningHandler)                 \
  X(openjp2, opj_create_decompress)              \
  X(openjp2, opj_decode)                         \
  X(openjp2, opj_destroy_codec)                  \
  X(openjp2, opj_end_decompress)                 \
  X(openjp2, opj_image_destroy)                  \
  X(openjp2, opj_read_header)                    \
  X(openjp2, opj_set_default_decoder_parameters) \
  X(openjp2, opj_setup_decoder)                  \
  X(openjp2, opj_stream_default_create)          \
  X(openjp2, opj_stream_destroy)                 \
  X(openjp2, opj_stream_set_read_function)       \
  X(openjp2, opj_stream_set_seek_function)       \
  X(openjp2, opj_stream_set_skip_function)       \
  X(openjp2, opj_stream_set_user_data)           \
  X(openjp2, opj_stream_set_user_data_length)

struct ImageLibraries {
#define OXS_IMAGE_POINTER(lib, fn) decltype(&::fn) fn = nullptr;
  OXS_IMAGE_FUNCTIONS(OXS_IMAGE_POINTER)
#undef OXS_IMAGE_POINTER
};

// Every library loaded and every function found, the first time (thread-
// safe); throws std::runtime_error naming a library that cannot be loaded.
const ImageLibraries& image_libraries();

}  // namespace oxs::eval::image
