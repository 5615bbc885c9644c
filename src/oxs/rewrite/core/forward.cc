#include "oxs/rewrite/core/forward.h"

#include "oxs/ir/graph.h"

namespace oxs::rewrite {

bool can_forward(const ir::Value& out, const ir::Value& in) {
  if (!out.is_graph_output()) return true;
  return in.producer() && in.graph() == out.graph() && !in.is_graph_output() &&
         !in.is_graph_input() && !in.is_initializer();
}

}  // namespace oxs::rewrite
