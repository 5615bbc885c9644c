// The dispatcher: for every FX node, the library's candidates for its
// overload (then for the functional form of an in-place overload, then for
// the op's .default overload, with a warning), each scored by how well the
// node's actual input element types, ranks and attribute kinds fit the
// candidate's parameters. A user's function (oxs.torch.register) that fits
// wins; then a fitting native C++ function (shape-dependent lowering) over
// the library's ONNX Script ones; then the highest score, ties to the
// earliest registered. Nodes
// nobody can take are collected, never guessed at. Linear in the graph (times
// the few candidates per overload).
#pragma once

#include <string>
#include <vector>

#include "oxs/torch/graph.h"
#include "oxs/torch/library.h"

namespace oxs::torch {

struct Scored {
  const Candidate* candidate = nullptr;
  int score = 0;
  std::string rejected;  // why it cannot take the node; empty if it can
};

struct Decision {
  std::string looked_up;  // the overload whose candidates were scored
  std::string note;       // a fallback's warning
  std::vector<Scored> scored;
  const Candidate* winner = nullptr;
  // Why each candidate lost (same order as `scored`).
  std::vector<std::string> lost_because;
};

struct Dispatch {
  std::vector<Decision> decisions;   // one per graph node
  std::vector<std::string> missing;  // one line per node nobody takes
  std::vector<std::string> warnings;
};

// What the dispatcher knows of a value before anything is built.
struct ValueInfo {
  ir::DataType dtype = ir::DataType::Undefined;
  int rank = -1;
};

Dispatch dispatch(const ExportGraph& g, const Library& lib);

// The score of one candidate for `node` (exposed for tests and explain).
Scored score(const Candidate& c, const FxNode& node, const std::vector<ValueInfo>& values);

}  // namespace oxs::torch
