// Example: a model-local function `hardmax` (with an attribute parameter
// `axis`, used through attribute references) and a MatMul/Add model that
// calls it. Writes the model to argv[1] (default hardmax_model.onnx).
//
//   hardmax(X; axis) = OneHot(ArgMax(X, axis, keepdims=0), Shape(X)[axis],
//                             CastLike([0, 1], X), axis)
//   y = hardmax(x @ W + B, axis=1)        x: float[N, 4]
#include <iostream>

#include "oxs/onnx/model_io.h"
#include "oxs/opsets.h"

using oxs::Var;
using oxs::ir::DataType;

int main(int argc, char** argv) try {
  std::string path = argc > 1 ? argv[1] : "hardmax_model.onnx";
  oxs::Builder b;
  oxs::opset17 op(b);

  // The function body: X is untyped (the function is polymorphic).
  oxs::Builder fb = b.function("local", "hardmax", {"axis"});
  {
    oxs::opset17 f(fb);
    Var X = fb.input("X");
    Var argmax = f.ArgMax(X, {.axis = oxs::ref("axis"), .keepdims = 0});
    Var depth = f.Gather(f.Shape(X), f.Constant({.value_int = oxs::ref("axis")}));
    Var values = f.CastLike(fb.constant(std::vector<float>{0, 1}), X);
    fb.output(f.OneHot(argmax, depth, values, {.axis = oxs::ref("axis")}), "Y");
  }
  const oxs::ir::Function& hardmax = b.add_function(std::move(fb));

  Var x = b.input("x", DataType::Float, oxs::builder::shape({"N", 4}));
  std::vector<float> w(12);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 5) - 2.0f;
  Var W = b.constant(oxs::ir::Tensor::from<float>(DataType::Float, {4, 3}, std::span(w)), "W");
  Var B = b.constant(std::vector<float>{0.1f, -0.2f, 0.3f}, "B");
  Var logits = op.MatMul(x, W) + B;
  std::vector<oxs::ir::Attr> attrs;
  attrs.push_back(oxs::builder::make_attr("axis", int64_t{1}));
  Var y = b.call(hardmax, {logits}, std::move(attrs))[0];
  b.output(y, "y");
  std::cout << "y: " << y.type().to_string() << "\n";

  oxs::ir::Model model = b.finish();
  oxs::onnx::save(model, path);
  std::cout << "wrote " << path << " (" << model.graph->num_nodes() << " nodes, "
            << model.functions.size() << " function)\n";
  return 0;
} catch (const oxs::Error& e) {
  std::cerr << "error: " << e.describe() << "\n";
  return 1;
}
