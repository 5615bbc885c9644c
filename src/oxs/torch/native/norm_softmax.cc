// native_layer_norm (LayerNormalization over the trailing normalized_shape
// dims: its axis depends on the input's rank) and _softmax/_log_softmax
// (Softmax/LogSoftmax with the axis normalized), and gelu (its `approximate`
// string chosen at export time: the library's function branches on it at run
// time, which leaves an If and a string LabelEncoder in the graph).
#include "oxs/torch/native/spec.h"

namespace oxs::torch::native {

namespace {

using builder::Var;

std::vector<Var> layer_norm(Context& cx) {
  if (cx.opset < 17) cx.fail("LayerNormalization needs opset 17 or later");
  if (cx.used(1) || cx.used(2)) cx.fail("the mean/rstd outputs of layer norm are used");
  Var x = cx.tensor("input");
  int64_t rank = static_cast<int64_t>(*x.rank());
  int64_t k = static_cast<int64_t>(cx.get_ints("normalized_shape").size());
  if (k < 1 || k > rank) cx.fail("normalized_shape does not fit the input's rank");
  Var scale = cx.optional_tensor("weight"), bias = cx.optional_tensor("bias");
  if (!scale) {
    // LayerNormalization requires a scale: ones of the normalized shape.
    std::vector<int64_t> shape = cx.get_ints("normalized_shape");
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> ones(static_cast<size_t>(n), 1.0f);
    scale = cx.b.constant(ir::Tensor::from<float>(ir::DataType::Float, shape, ones));
    if (x.dtype() != ir::DataType::Float) {
      scale = cx.b.op("Cast", {scale},
                      attr_list(ir::Attr::of_int("to", static_cast<int64_t>(x.dtype()))));
    }
  }
  Var y = cx.b.op(
      "LayerNormalization", {x, scale, bias},
      attr_list(ir::Attr::of_int("axis", rank - k),
                ir::Attr::of_float("epsilon", static_cast<float>(cx.get_float("eps", 1e-5)))));
  return {y, Var(), Var()};
}

std::vector<Var> softmax_op(Context& cx, const char* op) {
  Var x = cx.tensor("self");
  if (cx.get_bool("half_to_float", false)) cx.fail("half_to_float softmax is not supported");
  int64_t rank = static_cast<int64_t>(*x.rank());
  int64_t axis = normalize_axis(cx, cx.get_int("dim"), rank);
  if (rank == 0) {
    // A 0-d tensor (dim 0 or -1): the op over a one-element axis.
    Var one = cx.b.op("Reshape", {x, cx.ints({1})});
    Var y = cx.b.op(op, {one}, attr_list(ir::Attr::of_int("axis", 0)));
    return {cx.b.op("Reshape", {y, cx.ints({})})};
  }
  return {cx.b.op(op, {x}, attr_list(ir::Attr::of_int("axis", axis)))};
}

std::vector<Var> softmax(Context& cx) {
  return softmax_op(cx, "Softmax");
}

std::vector<Var> log_softmax(Context& cx) {
  return softmax_op(cx, "LogSoftmax");
}

// gelu: x * 0.5 * (1 + erf(x / sqrt(2))), or with approximate="tanh"
// x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
std::vector<Var> gelu(Context& cx) {
  Var x = cx.tensor("self");
  const Arg* a = cx.node.find("approximate");
  std::string mode = a && a->kind == Arg::Kind::String ? a->s : "none";
  ir::DataType t = x.dtype();
  Var inner;
  if (mode == "none") {
    inner = cx.b.op("Erf", {cx.b.op("Mul", {x, cx.scalar(t, 0.70710678118654752440)})});
  } else if (mode == "tanh") {
    Var cube = cx.b.op("Mul", {cx.b.op("Mul", {x, x}), x});
    Var sum = cx.b.op("Add", {x, cx.b.op("Mul", {cube, cx.scalar(t, 0.044715)})});
    inner = cx.b.op("Tanh", {cx.b.op("Mul", {sum, cx.scalar(t, 0.79788456080286535588)})});
  } else {
    cx.fail("gelu's approximate is '" + mode + "'; torch knows 'none' and 'tanh'");
  }
  Var half = cx.b.op("Mul", {x, cx.scalar(t, 0.5)});
  return {cx.b.op("Mul", {half, cx.b.op("Add", {inner, cx.scalar(t, 1.0)})})};
}

}  // namespace

void add_norm_softmax(Library& lib) {
  auto f = float_types();
  add(lib, "aten::native_layer_norm.default", "native_layer_norm (LayerNormalization)",
      {tensor("input", f, 1), attr("normalized_shape", "ints", false), optional_tensor("weight", f),
       optional_tensor("bias", f), attr("eps", "float", false)},
      layer_norm);
  std::vector<ParamSpec> p{tensor("self", f), attr("dim", "int", false),
                           attr("half_to_float", "bool")};
  add(lib, "aten::_softmax.default", "_softmax (Softmax)", p, softmax);
  add(lib, "aten::_log_softmax.default", "_log_softmax (LogSoftmax)", p, log_softmax);
  add(lib, "aten::gelu.default", "gelu (Erf or Tanh, chosen at export)",
      {tensor("self", f), attr("approximate", "str")}, gelu);
}

}  // namespace oxs::torch::native
