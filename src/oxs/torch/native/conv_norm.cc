// convolution (Conv / ConvTranspose with the spatial rank taken from the
// input) and native_batch_norm in inference (BatchNormalization; absent
// affine parameters become ones and zeros).
#include <cstring>

#include "oxs/torch/native/spec.h"

namespace oxs::torch::native {

namespace {

using builder::Var;

std::vector<Var> convolution(Context& cx) {
  Var x = cx.tensor("input"), w = cx.tensor("weight"), bias = cx.optional_tensor("bias");
  size_t k = *x.rank() - 2;
  std::vector<int64_t> stride = spatial(cx, cx.get_ints("stride", Ints{1}), k, "stride");
  std::vector<int64_t> pad = spatial(cx, cx.get_ints("padding", Ints{0}), k, "padding");
  std::vector<int64_t> dil = spatial(cx, cx.get_ints("dilation", Ints{1}), k, "dilation");
  std::vector<int64_t> pads(pad);
  pads.insert(pads.end(), pad.begin(), pad.end());
  std::vector<ir::Attr> attrs = attr_list(
      ir::Attr::of_ints("strides", stride), ir::Attr::of_ints("pads", pads),
      ir::Attr::of_ints("dilations", dil), ir::Attr::of_int("group", cx.get_int("groups", 1)));
  if (cx.get_bool("transposed", false)) {
    std::vector<int64_t> op =
        spatial(cx, cx.get_ints("output_padding", Ints{0}), k, "output_padding");
    attrs.push_back(ir::Attr::of_ints("output_padding", op));
    return {cx.b.op("ConvTranspose", {x, w, bias}, std::move(attrs))};
  }
  return {cx.b.op("Conv", {x, w, bias}, std::move(attrs))};
}

std::vector<Var> batch_norm(Context& cx) {
  if (cx.get_bool("training")) {
    cx.fail(
        "batch norm in training mode: export runs the model in eval mode; a module that "
        "forces training=True cannot be exported");
  }
  if (cx.used(1) || cx.used(2)) cx.fail("the saved mean/inverse std of batch norm are used");
  Var x = cx.tensor("input"), mean = cx.tensor("running_mean"), var = cx.tensor("running_var");
  Var scale = cx.optional_tensor("weight"), bias = cx.optional_tensor("bias");
  auto c = mean.shape();
  if ((!scale || !bias) && (!c || c->rank() != 1 || !(*c)[0].is_known())) {
    cx.fail("the channel count of running_mean is not static");
  }
  auto filled = [&](float v) {
    int64_t n = (*c)[0].value();
    std::vector<float> data(static_cast<size_t>(n), v);
    Var t = cx.b.constant(ir::Tensor::from<float>(ir::DataType::Float, {n}, data));
    if (mean.dtype() != ir::DataType::Float) {
      t = cx.b.op("Cast", {t},
                  attr_list(ir::Attr::of_int("to", static_cast<int64_t>(mean.dtype()))));
    }
    return t;
  };
  if (!scale) scale = filled(1.0f);
  if (!bias) bias = filled(0.0f);
  Var y = cx.b.op(
      "BatchNormalization", {x, scale, bias, mean, var},
      attr_list(ir::Attr::of_float("epsilon", static_cast<float>(cx.get_float("eps", 1e-5)))));
  return {y, Var(), Var()};
}

}  // namespace

void add_conv_norm(Library& lib) {
  auto f = float_types();
  add(lib, "aten::convolution.default", "convolution (Conv)",
      {tensor("input", f, 3, 5), tensor("weight", f, 3, 5), optional_tensor("bias", f),
       attr("stride", "ints"), attr("padding", "ints"), attr("dilation", "ints"),
       attr("transposed", "bool"), attr("output_padding", "ints"), attr("groups", "int")},
      convolution);
  add(lib, "aten::native_batch_norm.default", "native_batch_norm (BatchNormalization)",
      {tensor("input", f, 2), optional_tensor("weight", f), optional_tensor("bias", f),
       tensor("running_mean", f, 1, 1), tensor("running_var", f, 1, 1),
       attr("training", "bool", false), attr("momentum", "float"), attr("eps", "float")},
      batch_norm);
}

}  // namespace oxs::torch::native
