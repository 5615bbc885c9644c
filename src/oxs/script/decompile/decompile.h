// ONNX back to ONNX Script: the inverse of the converter. Emits readable
// Python that `oxs compile` reads back into an equivalent model:
//   - imports, one decorated function per model-local function (in call
//     order) and one for the main graph, typed from the graph's inputs and
//     outputs; attribute parameters with annotations taken from their uses;
//   - Python operators (`a + b`, `a @ b`, comparisons, unary -) where they
//     mean exactly the node, `op.X(...)` otherwise, attributes as keywords;
//   - If as `if`/`else`; a Loop that always continues and has no scan
//     outputs as `for i in range(M):` (exactly the compiler's lowering of
//     that statement), a Loop with only a condition whose body computes the
//     next one and ignores the iteration number as `while c:`; other Loops
//     and Scan bodies as nested functions
//     passed as `body=` (onnxscript's decompiler gives up on these);
//   - small tensors as `make_tensor(...)` literals; larger initializers in a
//     side file referenced with `external_tensor(name, type, dims, file,
//     offset=, length=)`;
//   - graph inputs that also carry an initializer (IR < 4 weights) become
//     constants, since ONNX Script has no default values for tensor inputs;
//   - names kept when they are valid Python identifiers, made valid (and
//     unique) otherwise.
// Linear in the size of the model. This file must not parse or compile.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "oxs/ir/model.h"

namespace oxs::script {

struct DecompileOptions {
  // Tensors with more elements than this go to the side file (when one is
  // given); smaller ones are written inline.
  int64_t max_inline_elements = 64;
  // File name (relative to the .py) for large tensors; empty: every tensor
  // is written inline.
  std::string weights_file;
};

struct DecompileResult {
  std::string source;
  // Bytes of the side file (weights_file), already laid out at the offsets
  // the source refers to. Empty when nothing went there.
  std::string weights;
};

// Throws oxs::Error (Unsupported) for what ONNX Script cannot express, e.g.
// a type_proto attribute, naming the node.
DecompileResult decompile(const ir::Model& model, const DecompileOptions& options = {});

}  // namespace oxs::script
