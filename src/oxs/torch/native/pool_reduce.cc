// Pooling (max_pool2d(_with_indices), avg_pool2d, adaptive_avg_pool2d) and
// mean.dim (ReduceMean; axes an attribute before opset 18, an input since).
#include "oxs/torch/native/spec.h"

namespace oxs::torch::native {

namespace {

using builder::Var;

std::vector<ir::Attr> window(Context& cx, size_t k, const std::vector<int64_t>& kernel) {
  std::vector<int64_t> stride = cx.get_ints("stride", Ints{});
  stride = stride.empty() ? kernel : spatial(cx, stride, k, "stride");
  std::vector<int64_t> pad = spatial(cx, cx.get_ints("padding", Ints{0}), k, "padding");
  std::vector<int64_t> pads(pad);
  pads.insert(pads.end(), pad.begin(), pad.end());
  std::vector<ir::Attr> attrs =
      attr_list(ir::Attr::of_ints("kernel_shape", kernel), ir::Attr::of_ints("strides", stride),
                ir::Attr::of_ints("pads", pads));
  if (cx.get_bool("ceil_mode", false)) attrs.push_back(ir::Attr::of_int("ceil_mode", 1));
  return attrs;
}

std::vector<Var> max_pool(Context& cx) {
  if (cx.used(1)) cx.fail("the indices of max_pool2d_with_indices are used (ONNX's differ)");
  Var x = cx.tensor("self");
  size_t k = *x.rank() - 2;
  std::vector<int64_t> kernel = spatial(cx, cx.get_ints("kernel_size"), k, "kernel_size");
  auto attrs = window(cx, k, kernel);
  std::vector<int64_t> dil = spatial(cx, cx.get_ints("dilation", Ints{1}), k, "dilation");
  attrs.push_back(ir::Attr::of_ints("dilations", dil));
  return {cx.b.op("MaxPool", {x}, std::move(attrs)), Var()};
}

std::vector<Var> avg_pool(Context& cx) {
  if (cx.has("divisor_override")) cx.fail("avg_pool2d with divisor_override has no ONNX form");
  Var x = cx.tensor("self");
  size_t k = *x.rank() - 2;
  std::vector<int64_t> kernel = spatial(cx, cx.get_ints("kernel_size"), k, "kernel_size");
  auto attrs = window(cx, k, kernel);
  if (cx.get_bool("count_include_pad", true))
    attrs.push_back(ir::Attr::of_int("count_include_pad", 1));
  return {cx.b.op("AveragePool", {x}, std::move(attrs))};
}

std::vector<Var> adaptive_avg_pool(Context& cx) {
  Var x = cx.tensor("self");
  std::vector<int64_t> out = cx.get_ints("output_size");
  bool global = true;
  for (int64_t o : out) global &= o == 1;
  if (global) return {cx.b.op("GlobalAveragePool", {x})};
  auto s = x.shape();
  size_t k = out.size();
  if (!s || s->rank() != k + 2) cx.fail("output_size does not match the input's rank");
  std::vector<int64_t> kernel;
  for (size_t i = 0; i < k; ++i) {
    const ir::Dim& d = (*s)[2 + i];
    if (!d.is_known() || d.value() % out[i] != 0) {
      cx.fail("adaptive pooling to " + std::to_string(out[i]) + " from " + d.to_string() +
              " needs windows of different sizes; ONNX pools use one size");
    }
    kernel.push_back(d.value() / out[i]);
  }
  std::vector<ir::Attr> attrs =
      attr_list(ir::Attr::of_ints("kernel_shape", kernel), ir::Attr::of_ints("strides", kernel));
  return {cx.b.op("AveragePool", {x}, std::move(attrs))};
}

std::vector<Var> mean_dim(Context& cx) {
  Var x = cx.tensor("self");
  if (cx.has("dtype")) cx.fail("mean with a dtype argument is not supported yet");
  int64_t rank = static_cast<int64_t>(*x.rank());
  if (rank == 0) return {cx.b.op("Identity", {x})};  // dim 0 or -1 of a 0-d tensor
  std::vector<int64_t> axes = cx.get_ints("dim", Ints{});
  for (int64_t& a : axes) a = normalize_axis(cx, a, rank);
  int64_t keep = cx.get_bool("keepdim", false) ? 1 : 0;
  if (axes.empty())
    return {cx.b.op("ReduceMean", {x}, attr_list(ir::Attr::of_int("keepdims", keep)))};
  if (cx.opset >= 18) {
    return {
        cx.b.op("ReduceMean", {x, cx.ints(axes)}, attr_list(ir::Attr::of_int("keepdims", keep)))};
  }
  return {cx.b.op("ReduceMean", {x},
                  attr_list(ir::Attr::of_ints("axes", axes), ir::Attr::of_int("keepdims", keep)))};
}

}  // namespace

void add_pool_reduce(Library& lib) {
  auto f = float_types();
  auto pool_params = [&](bool dilation) {
    std::vector<ParamSpec> p{tensor("self", f, 3, 5), attr("kernel_size", "ints", false),
                             attr("stride", "ints"), attr("padding", "ints")};
    if (dilation) p.push_back(attr("dilation", "ints"));
    p.push_back(attr("ceil_mode", "bool"));
    return p;
  };
  add(lib, "aten::max_pool2d_with_indices.default", "max_pool2d_with_indices (MaxPool)",
      pool_params(true), max_pool);
  add(lib, "aten::max_pool2d.default", "max_pool2d (MaxPool)", pool_params(true), max_pool);
  auto avg = pool_params(false);
  avg.push_back(attr("count_include_pad", "bool"));
  avg.push_back(attr("divisor_override", "int"));
  add(lib, "aten::avg_pool2d.default", "avg_pool2d (AveragePool)", avg, avg_pool);
  add(lib, "aten::adaptive_avg_pool2d.default", "adaptive_avg_pool2d (GlobalAveragePool)",
      {tensor("self", f, 3, 4), attr("output_size", "ints", false)}, adaptive_avg_pool);
  add(lib, "aten::_adaptive_avg_pool2d.default", "_adaptive_avg_pool2d (GlobalAveragePool)",
      {tensor("self", f, 3, 4), attr("output_size", "ints", false)}, adaptive_avg_pool);
  add(lib, "aten::mean.dim", "mean.dim (ReduceMean)",
      {tensor("self", f), attr("dim", "ints"), attr("keepdim", "bool"), attr("dtype", "int")},
      mean_dim);
}

}  // namespace oxs::torch::native
