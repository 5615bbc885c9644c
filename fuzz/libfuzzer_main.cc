// libFuzzer's entry for one harness, chosen at build time with
// -DOXS_FUZZ_ENTRY=<name from harness.h> (see fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>

#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oxs::fuzz::OXS_FUZZ_ENTRY(data, size);
  return 0;
}
