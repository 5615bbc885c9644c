// Harness (a): model bytes through everything `oxs check` and `oxs print`
// do, then a save and a second load of what was saved.
#include <string_view>

#include "fuzz/harness.h"
#include "oxs/infer/check_model.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/onnx/model_io.h"
#include "oxs/schema/conformance.h"

namespace oxs::fuzz {

void load_model(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    // A directory that does not exist: external data must fail cleanly,
    // never reach a real file.
    ir::Model model = onnx::load_from_bytes(bytes, "/nonexistent-oxs-fuzz", "fuzz.onnx");
    (void)ir::print(model);
    // The whole of `oxs check` (infer::check_model): the verifier, oxs's
    // conformance checks, libonnx's checker and inference where libonnx can
    // judge the model (its calls expandable, its opsets and types known),
    // and oxs's own inference (with data propagation) for the rest.
    schema::ConformanceOptions options;
    options.model_dir = "/nonexistent-oxs-fuzz";
    (void)infer::check_model(model, options);
    const std::string saved = onnx::save_to_bytes(model);
    (void)onnx::load_from_bytes(saved, "/nonexistent-oxs-fuzz", "saved.onnx");
  } catch (const Error&) {
    // The expected answer to bad input.
  }
}

}  // namespace oxs::fuzz
