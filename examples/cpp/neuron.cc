// Example: one Linear+Sigmoid neuron with a dynamic batch dimension,
//   y = Sigmoid(x @ W + b)      x: float[batch, 4] -> y: float[batch, 1]
// Writes argv[1] (default neuron.onnx).
#include <iostream>

#include "oxs/onnx/model_io.h"
#include "oxs/opsets.h"

using oxs::Var;
using oxs::ir::DataType;

int main(int argc, char** argv) try {
  std::string path = argc > 1 ? argv[1] : "neuron.onnx";
  oxs::Builder b;
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, oxs::builder::shape({"batch", 4}));
  std::vector<float> w = {0.5f, -1.0f, 0.25f, 2.0f};
  Var W = b.constant(oxs::ir::Tensor::from<float>(DataType::Float, {4, 1}, std::span(w)), "W");
  Var bias = b.constant(std::vector<float>{0.1f}, "b");
  Var y = op.Sigmoid(op.MatMul(x, W) + bias);
  b.output(y, "y");
  std::cout << "y: " << y.type().to_string() << "\n";

  oxs::ir::Model model = b.finish();
  oxs::onnx::save(model, path);
  std::cout << "wrote " << path << "\n";
  return 0;
} catch (const oxs::Error& e) {
  std::cerr << "error: " << e.describe() << "\n";
  return 1;
}
