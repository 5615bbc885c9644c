// Conv fused with the Add and/or the Relu or HardSwish that follow it (the
// resnet patterns Conv -> Relu and Conv -> Add(residual) -> Relu, the
// mobilenet_v3 one Conv -> HardSwish), found when a session plans a graph;
// likewise a MatMul by a constant 2-D weight (a transformer's MatMul ->
// Add(bias) [-> Relu/HardSwish], math/matmul.cc). The group runs as one
// node at the place of its last member: the head's kernel applies the Add
// and the activation to its output as it stores it (a GEMM epilogue,
// conv_forward.h, sgemm_avx512_packed), so the intermediates are never
// written. The math is that of the separate nodes (conv + bias, +
// residual, then `v > 0 ? v : 0` or HardSwish's v * max(0, min(1, v / 6 +
// 0.5)) by fast::hard_swish_vec / hard_swish_one), bit for bit. A group is
// formed only when each intermediate has exactly one use (the next member)
// and is not a graph output nor read by a subgraph; when the kernel cannot
// apply the tail (not float, shapes that broadcast, another Conv path) the
// session runs the Add and activation nodes as usual.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <vector>

#include "oxs/ir/graph.h"
#include "oxs/ir/node.h"

namespace oxs::eval {

class Value;

// What a Conv or MatMul kernel run as the head of a fused group applies to
// its output
// (KernelContext::fused_tail).
struct FusedTail {
  const Value* residual = nullptr;  // the Add's other operand; null: no Add
  bool relu = false;
  bool hard_swish = false;  // (never with relu)
  // Set by the kernel when its output holds act(head + residual).
  bool applied = false;
  // The Add and/or Relu/HardSwish nodes the tail stands for (for trace
  // events).
  const ir::Node* members[2] = {nullptr, nullptr};
  size_t num_members = 0;
};

namespace conv_fusion {

struct Group {
  const ir::Node* conv = nullptr;        // the head: a Conv or a MatMul
  const ir::Node* add = nullptr;         // or null
  const ir::Node* relu = nullptr;        // or null
  const ir::Node* hard_swish = nullptr;  // or null (not both; with neither,
                                         // add is set)
  size_t residual_input = 0;             // the Add's input that is not the Conv's output
  // The Relu or HardSwish node, or null.
  const ir::Node* act() const { return relu ? relu : hard_swish; }
  const ir::Node* last() const { return act() ? act() : add; }
};

// The one node of `order` (a graph's nodes) that reads a value, for values
// read exactly once and by no subgraph, and not a graph output: the values
// a fused group or chain may keep to itself.
class SoleReaders {
 public:
  SoleReaders(const ir::Graph& g, const std::vector<const ir::Node*>& order);
  const ir::Node* of(const ir::Value* v) const;  // or null

 private:
  // Reads by nodes of `order`; reads from subgraphs and graph outputs count
  // twice (they rule a value out).
  std::unordered_map<const ir::Value*, int> uses_;
  std::unordered_map<const ir::Value*, const ir::Node*> reader_;
};

// The groups among `order` (all nodes of `g`, topologically sorted); each
// node is in at most one group. Linear in the size of the graph.
std::vector<Group> find_groups(const ir::Graph& g, const std::vector<const ir::Node*>& order);

}  // namespace conv_fusion
}  // namespace oxs::eval
