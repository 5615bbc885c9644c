// Example: GELU as a model-local function written with operator overloads,
//   Gelu(X) = X * 0.5 * (1 + Erf(X / sqrt(2)))
// (X is untyped in the body, so the scalars become CastLike(c, X)), and a
// model y = Gelu(x) with x: float[N, 8]. Writes argv[1] (default gelu.onnx).
#include <cmath>
#include <iostream>

#include "oxs/onnx/model_io.h"
#include "oxs/opsets.h"

using oxs::Var;
using oxs::ir::DataType;

int main(int argc, char** argv) try {
  std::string path = argc > 1 ? argv[1] : "gelu.onnx";
  oxs::Builder b;

  oxs::Builder fb = b.function("local", "Gelu");
  {
    oxs::opset17 op(fb);
    Var X = fb.input("X");
    Var phi = 0.5 * (op.Erf(X * M_SQRT1_2) + 1.0);
    fb.output(X * phi, "Y");
  }
  const oxs::ir::Function& gelu = b.add_function(std::move(fb));

  Var x = b.input("x", DataType::Float, oxs::builder::shape({"N", 8}));
  Var y = b.call(gelu, {x})[0];
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
