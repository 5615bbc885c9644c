// The call graph of a model's local functions: which function's body (with
// its subgraphs) calls which, found by (domain, op_type) through the model's
// FunctionList, as a call site resolves. ONNX forbids recursion among
// functions; a model that has it anyway must be rejected before anything
// expands calls recursively (libonnx's shape inference does, and so would an
// evaluator), or the process overflows its stack. Everything here is
// iterative and linear in the size of the model, so a chain of 100,000
// nested calls costs nothing but time proportional to it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "oxs/ir/model.h"

namespace oxs::ir {

// The deepest nesting of calls that may be handed to code expanding calls
// recursively (libonnx's shape inference uses a few KiB of stack per level:
// 256 levels stay well inside the usual 8 MiB main-thread stack).
inline constexpr size_t kMaxExpandedCallDepth = 256;

struct CallGraphSummary {
  // Cycles found, each as the functions along it in call order: the first
  // calls the second ... and the last calls the first. A model with
  // recursion has at least one entry; at most 10 are listed.
  std::vector<std::vector<const Function*>> cycles;
  // The deepest nesting of function bodies when a function is expanded:
  // 0 without local functions, 1 when no function calls another, 2 when
  // one calls a function that calls none, and so on. Counted over the
  // acyclic part when there are cycles.
  size_t max_depth = 0;
  // The functions along that longest chain, outermost first.
  std::vector<const Function*> deepest_chain;
};

CallGraphSummary analyze_calls(const Model& model);

// "domain.name" (just "name" in the default domain).
std::string function_label(const Function& f);
// "a.f -> a.g -> a.f" for a cycle from CallGraphSummary::cycles.
std::string cycle_text(const std::vector<const Function*>& cycle);

}  // namespace oxs::ir
