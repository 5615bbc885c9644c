#include "oxs/ir/call_graph.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace oxs::ir {

namespace {

// Callees of every function as one flat array (CSR): the callees of
// function i are edges[offsets[i] .. offsets[i+1]), deduplicated.
struct Edges {
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> edges;
};

Edges collect_edges(const Model& model) {
  const size_t n = model.functions.size();
  std::unordered_map<const Function*, uint32_t> index;
  index.reserve(n);
  for (size_t i = 0; i < n; ++i) index.emplace(model.functions[i].get(), uint32_t(i));
  Edges out;
  out.offsets.reserve(n + 1);
  out.offsets.push_back(0);
  std::vector<const Graph*> graphs;
  for (size_t i = 0; i < n; ++i) {
    const size_t begin = out.edges.size();
    const Function* f = model.functions[i].get();
    if (f && f->body) graphs.push_back(f->body.get());
    // Subgraphs of control-flow nodes call functions too; walk them with an
    // explicit stack (their nesting is the file's, not bounded by us).
    while (!graphs.empty()) {
      const Graph* g = graphs.back();
      graphs.pop_back();
      for (const Node* node : g->nodes()) {
        if (const Function* callee = model.functions.find(node->domain(), node->op_type())) {
          out.edges.push_back(index.at(callee));
        }
        for (const Graph* sub : node->subgraphs()) graphs.push_back(sub);
      }
    }
    std::sort(out.edges.begin() + std::ptrdiff_t(begin), out.edges.end());
    out.edges.erase(std::unique(out.edges.begin() + std::ptrdiff_t(begin), out.edges.end()),
                    out.edges.end());
    out.offsets.push_back(uint32_t(out.edges.size()));
  }
  return out;
}

}  // namespace

std::string function_label(const Function& f) {
  return f.domain.empty() ? f.name : f.domain + "." + f.name;
}

std::string cycle_text(const std::vector<const Function*>& cycle) {
  std::string out;
  for (const Function* f : cycle) out += function_label(*f) + " -> ";
  if (!cycle.empty()) out += function_label(*cycle.front());
  return out;
}

CallGraphSummary analyze_calls(const Model& model) {
  constexpr size_t kMaxCycles = 10;
  CallGraphSummary summary;
  const size_t n = model.functions.size();
  if (n == 0) return summary;
  const Edges e = collect_edges(model);

  enum : uint8_t { kNew, kOnStack, kDone };
  std::vector<uint8_t> state(n, kNew);
  std::vector<uint32_t> stack_pos(n, 0);
  std::vector<bool> in_cycle(n, false);
  std::vector<size_t> depth(n, 0);
  std::vector<uint32_t> deepest_callee(n, UINT32_MAX);
  struct Frame {
    uint32_t fn;
    uint32_t next;  // index into e.edges
  };
  std::vector<Frame> stack;

  for (uint32_t root = 0; root < n; ++root) {
    if (state[root] != kNew) continue;
    state[root] = kOnStack;
    stack_pos[root] = 0;
    stack.push_back({root, e.offsets[root]});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == e.offsets[top.fn + 1]) {
        // All callees are done (or back edges): the function's depth is known.
        const uint32_t f = top.fn;
        size_t best = 0;
        for (uint32_t k = e.offsets[f]; k < e.offsets[f + 1]; ++k) {
          const uint32_t c = e.edges[k];
          if (state[c] == kDone && depth[c] > best) {
            best = depth[c];
            deepest_callee[f] = c;
          }
        }
        depth[f] = best + 1;
        state[f] = kDone;
        stack.pop_back();
        continue;
      }
      const uint32_t c = e.edges[top.next++];
      if (state[c] == kNew) {
        state[c] = kOnStack;
        stack_pos[c] = uint32_t(stack.size());
        stack.push_back({c, e.offsets[c]});
      } else if (state[c] == kOnStack) {
        // A back edge: the stack from c to the top is a cycle. Listing a
        // bounded number keeps this linear however many back edges there are.
        if (summary.cycles.size() >= kMaxCycles || in_cycle[c] || in_cycle[top.fn]) continue;
        std::vector<const Function*> cycle;
        for (size_t k = stack_pos[c]; k < stack.size(); ++k) {
          in_cycle[stack[k].fn] = true;
          cycle.push_back(model.functions[stack[k].fn].get());
        }
        summary.cycles.push_back(std::move(cycle));
      }
    }
  }

  uint32_t start = 0;
  for (uint32_t f = 1; f < n; ++f) {
    if (depth[f] > depth[start]) start = f;
  }
  summary.max_depth = depth[start];
  for (uint32_t f = start; f != UINT32_MAX; f = deepest_callee[f]) {
    summary.deepest_chain.push_back(model.functions[f].get());
  }
  return summary;
}

}  // namespace oxs::ir
