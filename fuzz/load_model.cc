// Harness (a): model bytes through everything `oxs check` and `oxs print`
// do, then a save and a second load of what was saved.
#include <string_view>

#include "fuzz/harness.h"
#include "oxs/ir/call_graph.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"
#include "oxs/schema/conformance.h"

namespace oxs::fuzz {

void load_model(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    // A directory that does not exist: external data must fail cleanly,
    // never reach a real file.
    ir::Model model = onnx::load_from_bytes(bytes, "/nonexistent-oxs-fuzz", "fuzz.onnx");
    const bool valid = ir::verify(model).empty();
    (void)ir::print(model);
    // As `oxs check`: libonnx sees only models whose calls it can expand.
    if (valid && ir::analyze_calls(model).max_depth <= ir::kMaxExpandedCallDepth) {
      schema::ConformanceOptions options;
      options.model_dir = "/nonexistent-oxs-fuzz";
      (void)schema::check_conformance(model, options);
    }
    const std::string saved = onnx::save_to_bytes(model);
    (void)onnx::load_from_bytes(saved, "/nonexistent-oxs-fuzz", "saved.onnx");
  } catch (const Error&) {
    // The expected answer to bad input.
  }
}

}  // namespace oxs::fuzz
