// Fused chains of float elementwise nodes (elementwise_chain.h).
#include "oxs/eval/fast/elementwise_chain.h"

#include <algorithm>

#include "oxs/eval/conv/conv_fusion.h"
#include "oxs/eval/parallel/thread_pool.h"

namespace oxs::eval::elementwise_chain {

namespace {

// Elements per block: the block's buffer (16 KiB) stays in L1 through the
// steps.
constexpr int64_t kBlock = 4096;

bool is_core(const ir::Node& n) {
  return (n.domain().empty() || n.domain() == "ai.onnx") && n.num_outputs() == 1 &&
         n.output(0) != nullptr && n.subgraphs().empty();
}

// `n` as a step, if it is one of the ops a chain takes.
bool as_step(const ir::Node& n, Step& s) {
  if (!is_core(n)) return false;
  s = Step{};
  s.node = &n;
  const std::string& op = n.op_type();
  if (n.num_inputs() == 1 && n.input(0)) {
    s.unary = true;
    if (op == "Relu") {
      s.u = fast::Unary::Relu;
    } else if (op == "Erf") {
      s.u = fast::Unary::Erf;
    } else if (op == "HardSwish") {
      s.u = fast::Unary::HardSwish;
    } else {
      return false;
    }
    return true;
  }
  if (n.num_inputs() != 2 || !n.input(0) || !n.input(1)) return false;
  if (op == "Add") {
    s.b = fast::Binary::Add;
  } else if (op == "Sub") {
    s.b = fast::Binary::Sub;
  } else if (op == "Mul") {
    s.b = fast::Binary::Mul;
  } else if (op == "Div") {
    s.b = fast::Binary::Div;
  } else {
    return false;
  }
  return true;
}

// Whether `t`, an operand of a step over values of x's dims, keeps the
// result at x's dims and can be read as a single value or elementwise.
bool operand_fits(const Tensor& t, const Tensor& x) {
  if (t.dtype() != DataType::Float) return false;
  if (t.dims() == x.dims()) return true;
  return t.numel() == 1 && t.dims().size() <= x.dims().size();
}

}  // namespace

std::vector<Chain> find_chains(const ir::Graph& g, const std::vector<const ir::Node*>& order,
                               const std::unordered_set<const ir::Node*>& taken) {
  const conv_fusion::SoleReaders readers(g, order);
  std::unordered_set<const ir::Node*> used;
  std::vector<Chain> chains;
  for (const ir::Node* n : order) {
    Step s;
    if (taken.count(n) || used.count(n) || !as_step(*n, s)) continue;
    // The head's chain input: input 0, unless only input 1 is computed.
    if (!s.unary && n->input(0)->is_initializer() && !n->input(1)->is_initializer()) {
      s.chain_input = 1;
    }
    Chain c;
    c.steps.push_back(s);
    for (;;) {
      const ir::Value* v = c.last()->output(0);
      const ir::Node* next = readers.of(v);
      Step t;
      if (!next || taken.count(next) || used.count(next) || !as_step(*next, t)) break;
      if (!t.unary) {
        if (next->input(0) == v && next->input(1) == v) break;  // x op x
        t.chain_input = next->input(0) == v ? 0 : 1;
      }
      c.steps.push_back(t);
    }
    if (c.steps.size() < 2) continue;
    for (const Step& t : c.steps) used.insert(t.node);
    chains.push_back(std::move(c));
  }
  return chains;
}

bool applies(const Chain& c, const Tensor& x, std::span<const Tensor* const> others) {
  if (!fast::enabled() || x.dtype() != DataType::Float || others.size() != c.steps.size()) {
    return false;
  }
  for (size_t i = 0; i < c.steps.size(); ++i) {
    if (c.steps[i].unary != (others[i] == nullptr)) return false;
    if (others[i] && !operand_fits(*others[i], x)) return false;
  }
  return true;
}

bool run(const Chain& c, const Tensor& x, std::span<const Tensor* const> others, Tensor& out,
         bool in_place) {
  if (!applies(c, x, others)) return false;
  if (!in_place) out = Tensor::uninitialized(DataType::Float, x.dims());
  const int64_t n = x.numel();
  const float* px = x.data<float>();
  float* py = out.mutable_data<float>();
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  parallel_for(blocks, double(kBlock) * double(c.steps.size()), [&](int64_t b0, int64_t b1) {
    std::vector<float> buf(static_cast<size_t>(kBlock));
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t at = blk * kBlock, len = std::min(kBlock, n - at);
      const float* src = px + at;
      for (size_t i = 0; i < c.steps.size(); ++i) {
        float* dst = i + 1 == c.steps.size() ? py + at : buf.data();
        const Step& s = c.steps[i];
        if (s.unary) {
          fast::unary_span(s.u, src, dst, len);
        } else {
          const Tensor& o = *others[i];
          const bool one = o.dims() != x.dims();  // a single value
          const float* po = o.data<float>() + (one ? 0 : at);
          const int64_t so = one ? 0 : 1;
          if (s.chain_input == 0) {
            fast::binary_span(s.b, src, 1, po, so, dst, len);
          } else {
            fast::binary_span(s.b, po, so, src, 1, dst, len);
          }
        }
        src = dst;
      }
    }
  });
  return true;
}

}  // namespace oxs::eval::elementwise_chain
