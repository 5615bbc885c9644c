// Finding Conv/MatMul -> [Add ->] Relu/HardSwish groups (conv_fusion.h).
#include "oxs/eval/conv/conv_fusion.h"

#include <unordered_map>
#include <unordered_set>

namespace oxs::eval::conv_fusion {

namespace {

bool is_core(const ir::Node& n, const char* op, size_t inputs) {
  return (n.domain().empty() || n.domain() == "ai.onnx") && n.op_type() == op &&
         n.num_inputs() == inputs && n.num_outputs() == 1 && n.output(0) != nullptr &&
         n.subgraphs().empty();
}

// A Conv, or a MatMul by a constant 2-D weight (x [..., k] x W [k, n]: the
// kernel's packed-weight GEMM takes the tail; other MatMuls would gain
// nothing and keep their folded Transposes, session.cc).
bool is_head(const ir::Node& n) {
  if ((!n.domain().empty() && n.domain() != "ai.onnx") || n.num_outputs() != 1 || !n.output(0)) {
    return false;
  }
  if (n.op_type() == "Conv") return true;
  if (n.op_type() != "MatMul" || n.num_inputs() != 2 || !n.input(1)) return false;
  const ir::Value* w = n.input(1);
  return w->is_initializer() && w->const_value() && w->const_value()->dims().size() == 2;
}

// Makes `n` the group's activation when it is a Relu or HardSwish.
bool set_act(Group& grp, const ir::Node* n) {
  if (is_core(*n, "Relu", 1)) {
    grp.relu = n;
  } else if (is_core(*n, "HardSwish", 1)) {
    grp.hard_swish = n;
  } else {
    return false;
  }
  return true;
}

}  // namespace

SoleReaders::SoleReaders(const ir::Graph& g, const std::vector<const ir::Node*>& order) {
  for (const ir::Node* n : order) {
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      if (const ir::Value* v = n->input(i)) {
        ++uses_[v];
        reader_[v] = n;
      }
    }
    for (ir::Graph* sub : n->subgraphs()) {
      sub->for_each_node_recursive([&](ir::Node* m) {
        for (size_t i = 0; i < m->num_inputs(); ++i) {
          if (const ir::Value* v = m->input(i)) uses_[v] += 2;
        }
      });
    }
  }
  for (const ir::Value* v : g.outputs()) uses_[v] += 2;
}

const ir::Node* SoleReaders::of(const ir::Value* v) const {
  auto it = uses_.find(v);
  return it != uses_.end() && it->second == 1 ? reader_.at(v) : nullptr;
}

std::vector<Group> find_groups(const ir::Graph& g, const std::vector<const ir::Node*>& order) {
  const SoleReaders readers(g, order);
  auto sole_reader = [&](const ir::Value* v) { return readers.of(v); };
  std::vector<Group> groups;
  std::unordered_set<const ir::Node*> taken;
  for (const ir::Node* n : order) {
    if (!is_head(*n)) continue;
    Group grp;
    grp.conv = n;
    const ir::Value* y = n->output(0);
    const ir::Node* next = sole_reader(y);
    if (!next || taken.count(next)) continue;
    if (is_core(*next, "Add", 2) && next->input(0) && next->input(1)) {
      grp.add = next;
      grp.residual_input = next->input(0) == y ? 1 : 0;
      const ir::Node* after = sole_reader(next->output(0));
      if (after && !taken.count(after)) set_act(grp, after);
    } else if (!set_act(grp, next)) {
      continue;
    }
    for (const ir::Node* m : {grp.conv, grp.add, grp.act()}) {
      if (m) taken.insert(m);
    }
    groups.push_back(grp);
  }
  return groups;
}

}  // namespace oxs::eval::conv_fusion
