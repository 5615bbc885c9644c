// Harness (c): ONNX Script source through the compiler, as a model and as
// a function library.
#include <string>

#include "fuzz/harness.h"
#include "oxs/ir/error.h"
#include "oxs/script/compile.h"

namespace oxs::fuzz {

void compile_script(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  script::SourceFile source("fuzz.py", text);
  for (bool functions_only : {false, true}) {
    try {
      script::CompileOptions options;
      options.functions_only = functions_only;
      (void)script::compile_source(source, options);
    } catch (const Error&) {
    }
  }
}

}  // namespace oxs::fuzz
