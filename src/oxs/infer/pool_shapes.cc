// Shape rule of the pool op versions of oxs's table where libonnx 1.12's
// rule does not apply (modern_ops.cc): AveragePool-19+, LpPool-18+ and
// MaxPool-22 with ceil_mode or dilations. Output length per spatial axis:
// floor or ceil of (in + pads - dilated kernel) / stride + 1, where with
// ceil_mode a last window that would start inside the end padding is
// dropped (ONNX's correction after 1.12); auto_pad SAME_* gives ceil(in /
// stride), VALID floor((in - dilated kernel) / stride) + 1. MaxPool's
// Indices has the same shape. Internal to infer/.
#include <string>
#include <vector>

#include "oxs/infer/modern_shapes.h"

namespace oxs::infer {
namespace {

std::vector<int64_t> ints(const ir::Node& n, std::string_view name) {
  const ir::Attr* a = n.attr(name);
  return a && a->type == ir::AttrType::Ints ? a->ints : std::vector<int64_t>();
}

int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

}  // namespace

bool infer_pool_shapes(const ir::Node& n, Outputs& out) {
  const std::string& op = n.op_type();
  if (out.empty() || (op != "AveragePool" && op != "LpPool" && op != "MaxPool")) return false;
  const ir::Type* t = input_type(n, 0);
  if (!t || !t->is_tensor()) return true;
  out[0] = ir::Type::tensor(t->elem_type());
  if (out.size() > 1) out[1] = ir::Type::tensor(ir::DataType::Int64);
  auto x = input_shape(n, 0);
  if (!x) return true;
  if (x->rank() < 3) fail(n, "input X " + x->to_string() + " must be [N, C, D1, ...]");
  const size_t r = x->rank() - 2;
  const std::vector<int64_t> kernel = ints(n, "kernel_shape");
  if (kernel.size() != r) {
    fail(n, "kernel_shape has " + std::to_string(kernel.size()) + " values; the input has " +
                std::to_string(r) + " spatial axes");
  }
  std::vector<int64_t> strides = ints(n, "strides"), dilations = ints(n, "dilations"),
                       pads = ints(n, "pads");
  if (strides.empty()) strides.assign(r, 1);
  if (dilations.empty()) dilations.assign(r, 1);
  if (pads.empty()) pads.assign(2 * r, 0);
  if (strides.size() != r || dilations.size() != r || pads.size() != 2 * r) {
    fail(n, "strides, dilations and pads must have one value per spatial axis (pads two)");
  }
  const ir::Attr* auto_pad_attr = n.attr("auto_pad");
  const std::string auto_pad = auto_pad_attr ? auto_pad_attr->s : "NOTSET";
  const bool ceil_mode = int_attr(n, "ceil_mode", 0) != 0;
  std::vector<ir::Dim> dims = {x->dims()[0], x->dims()[1]};
  for (size_t i = 0; i < r; ++i) {
    const ir::Dim& d = x->dims()[2 + i];
    if (strides[i] <= 0 || dilations[i] <= 0 || kernel[i] <= 0) {
      fail(n, "kernel_shape, strides and dilations must be positive");
    }
    if (!d.is_known()) {
      dims.push_back(ir::Dim::unknown());
      continue;
    }
    const int64_t in = d.value(), window = (kernel[i] - 1) * dilations[i] + 1;
    int64_t o = 0;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      o = (in + strides[i] - 1) / strides[i];
    } else if (auto_pad == "VALID") {
      o = floor_div(in - window, strides[i]) + 1;
    } else {
      const int64_t span = in + pads[i] + pads[i + r] - window;
      o = (ceil_mode ? -floor_div(-span, strides[i]) : floor_div(span, strides[i])) + 1;
      if (ceil_mode && (o - 1) * strides[i] >= in + pads[i]) --o;
    }
    dims.push_back(ir::Dim::known(std::max<int64_t>(o, 0)));
  }
  out[0] = ir::Type::tensor(t->elem_type(), ir::Shape(dims));
  if (out.size() > 1) out[1] = ir::Type::tensor(ir::DataType::Int64, ir::Shape(std::move(dims)));
  return true;
}

}  // namespace oxs::infer
