#include "oxs/ir/value.h"

#include "oxs/ir/error.h"
#include "oxs/ir/graph.h"
#include "oxs/ir/node.h"

namespace oxs::ir {

Graph* Value::graph() const {
  return producer_ ? producer_->graph() : owner_graph_;
}

uint32_t Value::add_use(Node* user, uint32_t index) {
  uses_.push_back({user, index});
  return static_cast<uint32_t>(uses_.size() - 1);
}

void Value::remove_use(uint32_t slot) {
  auto last = static_cast<uint32_t>(uses_.size() - 1);
  if (slot != last) {
    uses_[slot] = uses_[last];
    uses_[slot].user->fix_slot(uses_[slot].index, slot);
  }
  uses_.pop_back();
}

void Value::replace_all_uses_with(Value* other, bool include_graph_outputs) {
  if (other == this) return;
  // set_input removes from uses_ by swap; always take the last one.
  while (!uses_.empty()) {
    Use u = uses_.back();
    u.user->set_input(u.index, other);
  }
  if (include_graph_outputs && graph_output_count_ > 0) {
    // Graph outputs of the defining graph (a value is an output only there).
    if (Graph* g = graph()) {
      for (size_t i = 0; i < g->outputs().size(); ++i) {
        if (g->outputs()[i] == this) g->set_output(i, other);
      }
    }
  }
}

}  // namespace oxs::ir
