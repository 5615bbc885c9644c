// Helpers of the Conv path tests (conv_direct_test.cc, conv_winograd_test.cc):
// random float tensors and the Add/Relu tail after a Conv, which the session
// fuses into it (conv/conv_fusion.h).
#pragma once

#include <map>
#include <random>
#include <string>
#include <vector>

#include "oxs/eval/session.h"

namespace oxs::eval::conv_test {

// Normal values (mean 0, standard deviation `sd`) from `seed`.
inline Tensor random_tensor(Dims dims, unsigned seed, float sd = 1) {
  Tensor t(DataType::Float, std::move(dims));
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0, sd);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = d(rng);
  return t;
}

enum class Tail { None, Relu, AddRelu };

// Appends `tail` after y (an Add of graph input "x1", fed `residual`, then
// Relu) and makes the result the graph's output.
inline void add_tail(ir::Graph& g, ir::Value* y, Tail tail, const Tensor& residual,
                     std::map<std::string, Value>& feeds) {
  if (tail == Tail::AddRelu) {
    ir::Value* r = g.add_input("x1", ir::Type::tensor(DataType::Float));
    feeds.emplace("x1", residual);
    const std::vector<ir::Value*> add{y, r};
    y = g.create_node("Add", add)->output(0);
  }
  if (tail != Tail::None) {
    const std::vector<ir::Value*> relu{y};
    y = g.create_node("Relu", relu)->output(0);
  }
  g.add_output(y);
}

}  // namespace oxs::eval::conv_test
