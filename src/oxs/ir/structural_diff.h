// Structural comparison of two graphs, functions or models that ignores value
// and node names and any node order not forced by data flow. Compares op
// types, domains, attributes (floats within a tolerance), constants and
// initializers by value (a Constant node and an initializer holding the same
// tensor are the same), graph input/output types and shapes, subgraphs and
// model-local functions. Linear in graph size (n log n with sorting): values
// are hashed bottom-up in topological order, then mismatching outputs are
// walked pairwise to name the first differences.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "oxs/ir/model.h"

namespace oxs::ir {

struct DiffOptions {
  // Floats (attributes and float tensor contents) compare equal when
  // |a - b| <= atol + rtol * |b|. Zero tolerances compare bit patterns.
  double rtol = 0;
  double atol = 0;
  // Compare the types and shapes of graph inputs and outputs.
  bool compare_io_types = true;
  // Stop after this many differences.
  size_t max_differences = 10;
  // Normalization: an Identity node is the value it forwards (compilers and
  // cleanups remove them freely).
  bool look_through_identity = false;
  // Report nodes that appear on one side only although every output matches
  // (nodes that feed no output, or computations done twice). Normalization
  // when false: dead code is ignored.
  bool compare_dead_nodes = true;
  // Normalization: a graph output of the second model may carry a more
  // precise type than the first declares (inference filled in dims).
  bool allow_refined_output_types = false;
};

// How two tensors of the same type and shape differ, over every element
// (not only the first): for `oxs diff` and its JSON.
struct TensorDelta {
  int64_t elements = 0;                 // elements compared
  int64_t differing = 0;                // elements outside the tolerance
  double max_abs = 0;                   // max |a - b| over differing numeric elements
  double max_rel = 0;                   // max |a - b| / |b| (inf where b is 0)
  int64_t first_index = -1;             // flat (row-major) index of the first differing element
  std::vector<int64_t> first_index_nd;  // the same, per dimension
  std::string first_a, first_b;         // the two values there, as text
};

struct Difference {
  std::string where_a;  // e.g. "node 'Add_3' (Add)" or "output 0 'y'"
  std::string where_b;
  std::string message;
  // What differs: "opset", "function", "count" (inputs/outputs/arity),
  // "io_type", "operator", "attribute", "constant", "source", "dead_nodes".
  std::string kind;
  // The graph the difference is in: "" for the main graph, else e.g.
  // "function 'f'" or "subgraph 'body' of node 'loop' (Loop)".
  std::string path;
  // For "constant" (and tensor attributes) of equal type and shape.
  std::optional<TensorDelta> tensor;
};

struct DiffResult {
  std::vector<Difference> differences;
  bool equivalent() const { return differences.empty(); }
  // "equivalent" or one paragraph per difference.
  std::string to_string() const;
};

DiffResult diff(const Graph& a, const Graph& b, const DiffOptions& options = {});
DiffResult diff(const Function& a, const Function& b, const DiffOptions& options = {});
// Also compares the set of model-local functions (matched by domain and name)
// and the opset versions of the domains that nodes use (an import nobody uses
// does not change the model's meaning).
DiffResult diff(const Model& a, const Model& b, const DiffOptions& options = {});

}  // namespace oxs::ir
