// Helpers of the fused-group tests (conv_pool_fast_test.cc,
// conv_hard_swish_test.cc): small Conv and MatMul graphs, runs with the fast
// paths and the session's fusion on or off, and the check that fusion does
// not change a bit (conv/conv_fusion.h).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "eval/conv_tail_util.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/session.h"

namespace oxs::eval::fusion_test {

inline Tensor normal_tensor(Dims dims, unsigned seed) {
  return conv_test::random_tensor(std::move(dims), seed, 2);
}

// Runs `model` with the feeds x0, x1, ... = `ins`; `fast` turns the AVX-512
// paths on or off, `fuse` the session's node fusion; `ops` (when given)
// receives the op types the trace hook saw run, in order ("Conv+Add+Relu"
// for a fused group: the node and TraceEvent::fused).
inline std::vector<Value> run_model(const ir::Model& model, const std::vector<Tensor>& ins,
                                    bool fast, bool fuse = true, int threads = 1,
                                    std::vector<std::string>* ops = nullptr) {
  SessionOptions o;
  o.threads = threads;
  o.fuse = fuse;
  if (ops) {
    o.trace = [ops](const TraceEvent& e) {
      std::string op = e.node.op_type();
      for (const ir::Node* m : e.fused) op += "+" + m->op_type();
      ops->push_back(op);
    };
  }
  fast::set_enabled(fast);
  Session s(model, o);
  std::map<std::string, Value> feeds;
  for (const ir::Value* in : model.graph->inputs()) {  // x<i>: ins[i]
    const size_t i = std::stoul(in->name().substr(1));
    feeds.emplace(in->name(), ins[i]);
  }
  std::vector<Value> out = s.run(feeds);
  fast::set_enabled(true);
  return out;
}

inline void expect_bits_equal(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dims(), b.dims());
  ASSERT_EQ(0, std::memcmp(a.raw(), b.raw(), a.nbytes()));
}

// Conv fusion: graphs built from a small description. Values: x0 (the
// conv's X), x1 (W), x2 (B), x3 (the residual); W and B are graph inputs,
// or initializers holding `ins`' values (then the Conv packs W once and its
// GEMM applies the fused tail as it stores).
struct ConvGraph {
  ir::Model model;
  ir::Graph& g = *model.graph;
  ir::Value* x = nullptr;
  ir::Value* w = nullptr;
  ir::Value* b = nullptr;
  ir::Value* r = nullptr;
  ConvGraph(const std::vector<Tensor>& ins, bool const_weights) {
    model.opset_imports = {{"", 17}};
    auto value = [&](size_t i) {
      const std::string name = "x" + std::to_string(i);
      if (const_weights && (i == 1 || i == 2)) {
        return g.add_initializer(name, std::make_shared<ir::Tensor>(ins[i].to_ir()));
      }
      return g.add_input(name, ir::Type::tensor(DataType::Float));
    };
    x = value(0);
    w = value(1);
    b = value(2);
    r = value(3);
  }
  ir::Value* node(const std::string& op, std::vector<ir::Value*> ins,
                  const std::function<void(ir::Node*)>& attrs = {}) {
    ir::Node* n = g.create_node(op, ins);
    if (attrs) attrs(n);
    return n->output(0);
  }
};

struct ConvCase {
  Dims x, w;
  std::vector<int64_t> strides, pads, dilations;
  int64_t group;
};

// Cases over the Conv paths: pointwise, im2col (strides 1, 2 and 3,
// dilations, odd sizes), grouped, depthwise (strides 1, 2, 3, multiplier
// 2), batch 2, and a 1x1 input (the matrix-vector path).
inline const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> cases{
      {{1, 8, 9, 9}, {16, 8, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},
      {{2, 6, 11, 13}, {10, 6, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},
      {{1, 5, 17, 15}, {12, 5, 3, 3}, {2, 2}, {1, 0, 1, 2}, {1, 1}, 1},
      {{1, 4, 20, 19}, {9, 4, 1, 1}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1},
      {{1, 3, 23, 21}, {7, 3, 7, 7}, {2, 2}, {3, 3, 3, 3}, {1, 1}, 1},
      {{1, 6, 14, 16}, {8, 3, 3, 3}, {1, 3}, {2, 1, 0, 2}, {2, 1}, 2},
      {{1, 8, 10, 12}, {8, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 8},
      {{1, 6, 15, 37}, {6, 1, 5, 5}, {2, 2}, {2, 2, 2, 2}, {1, 1}, 6},
      {{2, 4, 11, 13}, {8, 1, 3, 3}, {3, 3}, {1, 1, 1, 1}, {2, 1}, 4},
      {{1, 16, 32, 32}, {24, 16, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},
      {{2, 40, 1, 1}, {24, 40, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},  // one position
  };
  return cases;
}

// The conv's output shape for `c`.
inline Dims conv_out(const ConvCase& c) {
  Dims d{c.x[0], c.w[0]};
  for (size_t i = 0; i < 2; ++i) {
    const int64_t extent = (c.w[2 + i] - 1) * c.dilations[i] + 1;
    d.push_back((c.x[2 + i] + c.pads[i] + c.pads[2 + i] - extent) / c.strides[i] + 1);
  }
  return d;
}

inline std::function<void(ir::Node*)> conv_attrs(const ConvCase& c) {
  return [c](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("strides", c.strides));
    n->set_attr(ir::Attr::of_ints("pads", c.pads));
    n->set_attr(ir::Attr::of_ints("dilations", c.dilations));
    n->set_attr(ir::Attr::of_int("group", c.group));
  };
}

inline std::vector<Tensor> conv_inputs(const ConvCase& c, unsigned seed) {
  Tensor x = normal_tensor(c.x, seed), w = normal_tensor(c.w, seed + 1);
  x.mutable_data<float>()[3] = NAN;  // NaN through the epilogue: Relu gives 0
  return {x, w, normal_tensor({c.w[0]}, seed + 2), normal_tensor(conv_out(c), seed + 3)};
}

// Every output of the fused run has the bits of the node-by-node run, with
// the fast paths on and off, and with 3 threads; the fused run (fast paths
// on) runs the op types `fused_ops`.
inline void expect_fusion_transparent(const ir::Model& m, const std::vector<Tensor>& ins,
                                      const std::vector<std::string>& fused_ops) {
  std::vector<std::string> ran;
  run_model(m, ins, true, true, 1, &ran);
  EXPECT_EQ(ran, fused_ops);
  for (bool fast : {true, false}) {
    SCOPED_TRACE(fast ? "fast paths" : "reference kernels");
    const std::vector<Value> fused = run_model(m, ins, fast, true);
    const std::vector<Value> plain = run_model(m, ins, fast, false);
    ASSERT_EQ(fused.size(), plain.size());
    for (size_t i = 0; i < fused.size(); ++i)
      expect_bits_equal(fused[i].tensor(), plain[i].tensor());
    const std::vector<Value> threaded = run_model(m, ins, fast, true, 3);
    for (size_t i = 0; i < fused.size(); ++i) {
      expect_bits_equal(threaded[i].tensor(), plain[i].tensor());
    }
  }
}

// Conv [-> Add(y, r) and Add(r, y)] -> `act` over every case of
// conv_cases(), W packed and fed, inputs(case, seed + case index) the feeds:
// each graph runs as the one node "Conv[+Add]+act" with the bits of its
// separate nodes (expect_fusion_transparent).
inline void expect_conv_tails_fuse(
    const std::string& act, bool add,
    const std::function<std::vector<Tensor>(const ConvCase&, unsigned)>& inputs, unsigned seed) {
  for (size_t i = 0; i < conv_cases().size(); ++i) {
    for (bool residual_first : add ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
      for (bool const_weights : {true, false}) {
        SCOPED_TRACE("case " + std::to_string(i) +
                     (add ? residual_first ? ", Add(r, y)" : ", Add(y, r)" : "") +
                     (const_weights ? ", packed W" : ", fed W"));
        const ConvCase& c = conv_cases()[i];
        const std::vector<Tensor> ins = inputs(c, seed + unsigned(i));
        ConvGraph cg(ins, const_weights);
        ir::Value* y = cg.node("Conv", {cg.x, cg.w, cg.b}, conv_attrs(c));
        if (add) y = residual_first ? cg.node("Add", {cg.r, y}) : cg.node("Add", {y, cg.r});
        cg.g.add_output(cg.node(act, {y}));
        if (!add) cg.g.add_output(cg.r);  // keeps x3 used
        expect_fusion_transparent(cg.model, ins, {add ? "Conv+Add+" + act : "Conv+" + act});
      }
    }
  }
}

// MatMul fusion: x0 [.., S, K] x W [K, N] (x1, an initializer: packed once) ->
// Add(x2) [-> Relu]; x2 is the bias (an initializer) or a graph input.
struct MatMulGraph {
  ir::Model model;
  ir::Graph& g = *model.graph;
  std::vector<Tensor> ins;
  ir::Value *x, *w, *r;
  MatMulGraph(Dims xd, Dims wd, Dims rd, bool const_w, bool const_r, unsigned seed) {
    model.opset_imports = {{"", 17}};
    ins = {normal_tensor(xd, seed), normal_tensor(wd, seed + 1), normal_tensor(rd, seed + 2)};
    ins[0].mutable_data<float>()[1] = NAN;  // a NaN row through the epilogue
    auto value = [&](size_t i, bool is_const) {
      const std::string name = "x" + std::to_string(i);
      if (is_const) return g.add_initializer(name, std::make_shared<ir::Tensor>(ins[i].to_ir()));
      return g.add_input(name, ir::Type::tensor(DataType::Float));
    };
    x = value(0, false);
    w = value(1, const_w);
    r = value(2, const_r);
  }
  ir::Value* node(const std::string& op, std::vector<ir::Value*> in) {
    return g.create_node(op, in)->output(0);
  }
};

}  // namespace oxs::eval::fusion_test
