// Harness (e): the YAML pass configuration of `oxs opt -c FILE`, parsed as
// the command parses it. Bad configurations must end in an oxs::Error
// naming file:line:col.
#include <string>

#include "fuzz/harness.h"
#include "oxs/ir/error.h"
#include "oxs/rewrite/config/config.h"

namespace oxs::fuzz {

void opt_config(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)rewrite::parse_config("fuzz.yaml", text);
  } catch (const Error&) {
  }
}

}  // namespace oxs::fuzz
