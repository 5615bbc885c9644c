#include "oxs/torch/graph.h"

#include <algorithm>

namespace oxs::torch {

const Arg* FxNode::find(std::string_view arg) const {
  for (const Arg& a : args) {
    if (a.name == arg) return &a;
  }
  return nullptr;
}

bool Arg::symbolic() const {
  return std::any_of(syms.begin(), syms.end(), [](int64_t id) { return id >= 0; });
}

int64_t ExportGraph::num_values() const {
  int64_t n = 0;
  for (const auto& i : inputs) n = std::max(n, i.id + 1);
  for (const auto& p : params) n = std::max(n, p.id + 1);
  for (const auto& node : nodes) {
    for (const auto& o : node.outputs) n = std::max(n, o.id + 1);
  }
  return n;
}

std::string describe(const OutMeta& m) {
  std::string s(ir::dtype_name(m.dtype));
  s += '[';
  for (size_t i = 0; i < m.dims.size(); ++i) s += (i ? "," : "") + std::to_string(m.dims[i]);
  return s + ']';
}

}  // namespace oxs::torch
