#include "oxs/eval/image/decode/libraries.h"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

// The sonames come from CMake (src/oxs/eval/CMakeLists.txt): the libraries
// the link would have named.
#if !defined(OXS_LIBJPEG) || !defined(OXS_LIBPNG) || !defined(OXS_LIBWEBP) || \
    !defined(OXS_LIBTIFF) || !defined(OXS_LIBOPENJP2)
#error "the image libraries' sonames are not defined"
#endif

namespace oxs::eval::image {
namespace {

void* open_library(const char* soname) {
  void* lib = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    throw std::runtime_error(std::string("cannot load ") + soname + ": " +
                             (why ? why : "unknown error"));
  }
  return lib;  // stays loaded until exit
}

}  // namespace

const ImageLibraries& image_libraries() {
  static const ImageLibraries loaded = [] {
    void* jpeg = open_library(OXS_LIBJPEG);
    void* png = open_library(OXS_LIBPNG);
    void* webp = open_library(OXS_LIBWEBP);
    void* tiff = open_library(OXS_LIBTIFF);
    void* openjp2 = open_library(OXS_LIBOPENJP2);
    ImageLibraries l;
#define OXS_IMAGE_LOOKUP(lib, fn)                              \
  l.fn = reinterpret_cast<decltype(&::fn)>(::dlsym(lib, #fn)); \
  if (!l.fn) throw std::runtime_error("the image library has no " + std::string(#fn));
    OXS_IMAGE_FUNCTIONS(OXS_IMAGE_LOOKUP)
#undef OXS_IMAGE_LOOKUP
    return l;
  }();
  return loaded;
}

}  // namespace oxs::eval::image
