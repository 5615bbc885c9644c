// Chains of float elementwise nodes run as one pass over memory: a GELU
// written out as Div -> Erf -> Add -> Mul -> Mul (vit's MLP), a scale and
// shift, a bias then an activation. Found when a session plans a graph
// (session.cc, after the Conv/MatMul groups of conv/conv_fusion.h), run at
// the place of the chain's last node: each block of elements goes through
// every step while it is in L1, instead of each node reading and writing
// the whole tensor. Each step runs the fast kernel's own span loop
// (fast_kernels.h: unary_span, binary_span), so the result is the chain's
// nodes' bits exactly. A chain is formed only where each intermediate has
// exactly one use (the next step) and is not a graph output nor read by a
// subgraph; when it cannot run (not float, an operand that broadcasts other
// than a single value, the fast paths off) the session runs its nodes.
#pragma once

#include <span>
#include <unordered_set>
#include <vector>

#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/tensor.h"
#include "oxs/ir/graph.h"
#include "oxs/ir/node.h"

namespace oxs::eval::elementwise_chain {

struct Step {
  const ir::Node* node = nullptr;
  bool unary = false;
  fast::Unary u = fast::Unary::Relu;
  fast::Binary b = fast::Binary::Add;
  // The input of `node` that carries the chain's value (0 or 1); a binary
  // step's other input is its operand.
  size_t chain_input = 0;
};

struct Chain {
  std::vector<Step> steps;  // at least two
  const ir::Node* last() const { return steps.back().node; }
  // The chain's input: steps[0]'s chain input.
  const ir::Value* input() const { return steps[0].node->input(steps[0].chain_input); }
};

// The chains among `order` (the graph's nodes, topologically sorted),
// leaving out nodes in `taken` (members of other fused groups). Each node is
// in at most one chain. Linear in the size of the graph.
std::vector<Chain> find_chains(const ir::Graph& g, const std::vector<const ir::Node*>& order,
                               const std::unordered_set<const ir::Node*>& taken);

// Whether run() applies to these tensors (the conditions below).
bool applies(const Chain& c, const Tensor& x, std::span<const Tensor* const> others);

// Runs `c` with x its input and others[i] step i's other operand (null for
// a unary step) into `out`: allocated here (x's dims), or when `in_place`,
// out is x or an operand (float, x's dims) and its buffer takes the result
// (each block's elements are read before its last step writes them).
// False, with nothing written, when the chain does not apply: a tensor not
// float, an operand that is neither a single value (of rank at most x's)
// nor of x's dims, or the fast paths off.
bool run(const Chain& c, const Tensor& x, std::span<const Tensor* const> others, Tensor& out,
         bool in_place = false);

}  // namespace oxs::eval::elementwise_chain
