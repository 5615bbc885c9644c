// Harness (d): a model decompiled to ONNX Script and the source compiled
// again. Only crashes are findings here: ONNX Script cannot express every
// model (decompile says so with an oxs::Error).
#include <string_view>

#include "fuzz/harness.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"
#include "oxs/script/compile.h"
#include "oxs/script/decompile/decompile.h"

namespace oxs::fuzz {

void decompile_roundtrip(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    ir::Model model = onnx::load_from_bytes(bytes, "/nonexistent-oxs-fuzz", "fuzz.onnx");
    script::DecompileResult py = script::decompile(model);
    script::SourceFile source("decompiled.py", py.source);
    (void)script::compile_source(source);
  } catch (const Error&) {
  }
}

}  // namespace oxs::fuzz
