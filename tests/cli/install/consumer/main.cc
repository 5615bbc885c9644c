// Loads a model, verifies it, and runs it on zeros with the evaluator: the
// IR, ONNX I/O and evaluator libraries (and OpenBLAS, libonnx, protobuf
// behind them) linked from an installed tree.
#include <cstdio>
#include <map>

#include "oxs/eval/session.h"
#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer MODEL.onnx\n");
    return 2;
  }
  oxs::ir::Model model = oxs::onnx::load(argv[1]);
  if (!oxs::ir::verify(model).empty()) return 1;
  std::map<std::string, oxs::eval::Value> feeds;
  feeds["X"] = oxs::eval::Tensor(oxs::ir::DataType::Float, {1, 4});
  oxs::eval::Session session(model);
  std::vector<oxs::eval::Value> outs = session.run(feeds);
  const oxs::eval::Tensor& y = outs.at(0).tensor();
  double sum = 0;
  for (int64_t i = 0; i < y.numel(); ++i) sum += y.data<float>()[i];
  std::printf("%zu nodes, %lld outputs, softmax sum %.3f\n", model.graph->num_nodes(),
              static_cast<long long>(y.numel()), sum);
  return 0;
}
