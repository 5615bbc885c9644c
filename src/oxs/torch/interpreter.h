// The interpreter: walks an ExportGraph in order and builds the ONNX model.
// Parameters become initializers (their tensors' bytes are not copied), each
// node calls the function the dispatcher chose: a native C++ function builds
// its nodes directly from static facts (ranks, sizes, optional arguments); an
// ONNX Script function is added once as a model-local function and called,
// and every call is inlined at the end unless keep_functions. Types the trace
// knew check what the builder inferred (a library function that disagrees
// with torch about an output's type or static shape is an error naming it).
// Dims named by dynamic_shapes stay symbolic. The builder's cleanups run last.
#pragma once

#include <cstdint>
#include <string_view>

#include "oxs/ir/model.h"
#include "oxs/torch/dispatcher.h"
#include "oxs/torch/graph.h"
#include "oxs/torch/library.h"

namespace oxs::torch {

// The domain of the model-local functions made from chosen nn.Module
// classes (modules_as_functions): one function per class and body, called
// once per module call; see FxNode::scopes.
inline constexpr std::string_view kModuleDomain = "oxs.modules";

struct ExportOptions {
  int64_t opset = 18;
  bool keep_functions = false;  // keep ONNX Script functions as model-local functions
};

struct ExportTimings {
  double dispatch_s = 0, build_s = 0, cleanup_s = 0;
};

struct ExportResult {
  ir::Model model;
  Dispatch dispatch;
  ExportTimings timings;
};

// Throws oxs::Error (Unsupported) listing every node without a function, or
// naming the node whose function failed.
ExportResult export_graph(const ExportGraph& g, const Library& lib, const ExportOptions& options);

}  // namespace oxs::torch
