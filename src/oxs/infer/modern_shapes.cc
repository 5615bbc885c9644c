#include "oxs/infer/modern_shapes.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace oxs::infer {
namespace {

using ir::DataType;
using ir::Dim;
using ir::Shape;
using ir::Type;

std::vector<Dim> unknown_dims(size_t n) {
  return std::vector<Dim>(n, Dim::unknown());
}

std::vector<int64_t> ints_attr(const ir::Node& n, std::string_view name) {
  const ir::Attr* a = n.attr(name);
  return a && a->type == ir::AttrType::Ints ? a->ints : std::vector<int64_t>();
}

// The node's `axes` attribute normalized for `rank`, or every axis.
std::vector<int64_t> axes_or_all(const ir::Node& n, int64_t rank) {
  std::vector<int64_t> axes;
  for (int64_t a : ints_attr(n, "axes")) axes.push_back(axis_of(n, a, rank));
  if (axes.empty()) {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  return axes;
}

// Known elements of input i (a constant or propagated ints), or nullopt.
std::optional<std::vector<int64_t>> known(const ir::Node& n, Inferencer::Impl& impl, size_t i) {
  if (i >= n.num_inputs() || !n.input(i)) return std::nullopt;
  return impl.known_ints(n.input(i));
}

// The length of a 1-D input whose shape is known, or -1.
int64_t known_length(const ir::Node& n, size_t i) {
  auto s = input_shape(n, i);
  if (!s || s->rank() != 1 || !s->dims()[0].is_known()) return -1;
  return s->dims()[0].value();
}

// GridSample-20/22: [N, C, D1..Dr] and grid [N, O1..Or, r] -> [N, C, O1..Or].
void grid_sample(const ir::Node& n, Outputs& out) {
  auto x = input_shape(n, 0);
  auto grid = input_shape(n, 1);
  if (!grid) {
    if (x) out[0] = Type::tensor(elem_of(n, 0), Shape(unknown_dims(x->rank())));
    return;
  }
  if (grid->rank() < 3) fail(n, "grid " + grid->to_string() + " must be [N, O1..Or, r]");
  const size_t r = grid->rank() - 2;
  if (x && x->rank() != r + 2) {
    fail(n, "X " + x->to_string() + " and grid " + grid->to_string() +
                " must have the same rank ([N, C, D1..Dr] and [N, O1..Or, r])");
  }
  std::vector<Dim> dims = {x ? dim_at(*x, 0) : dim_at(*grid, 0),
                           x ? dim_at(*x, 1) : Dim::unknown()};
  if (!dims[0].is_known()) dims[0] = dim_at(*grid, 0);
  for (size_t d = 0; d < r; ++d) dims.push_back(grid->dims()[1 + d]);
  out[0] = Type::tensor(elem_of(n, 0), Shape(std::move(dims)));
}

// AffineGrid-20: size [N, C, H, W] -> [N, H, W, 2]; [N, C, D, H, W] -> [N, D, H, W, 3].
void affine_grid(const ir::Node& n, Inferencer::Impl& impl, Outputs& out) {
  const DataType elem = elem_of(n, 0);
  if (auto size = known(n, impl, 1)) {
    if (size->size() != 4 && size->size() != 5) fail(n, "size must have 4 or 5 elements");
    std::vector<Dim> dims = {Dim::known((*size)[0])};
    for (size_t i = 2; i < size->size(); ++i) dims.push_back(Dim::known((*size)[i]));
    dims.push_back(Dim::known(int64_t(size->size()) - 2));
    out[0] = Type::tensor(elem, Shape(std::move(dims)));
    return;
  }
  const int64_t len = known_length(n, 1);
  if (len == 4 || len == 5) {
    std::vector<Dim> dims = unknown_dims(size_t(len));
    if (auto theta = input_shape(n, 0)) dims[0] = dim_at(*theta, 0);
    dims.back() = Dim::known(len - 2);
    out[0] = Type::tensor(elem, Shape(std::move(dims)));
  }
}

// CenterCropPad-18: the cropped or padded axes take the values of `shape`.
void center_crop_pad(const ir::Node& n, Inferencer::Impl& impl, Outputs& out) {
  auto x = input_shape(n, 0);
  if (!x) return;
  const std::vector<int64_t> axes = axes_or_all(n, int64_t(x->rank()));
  std::vector<Dim> dims = x->dims();
  auto shape = known(n, impl, 1);
  if (shape && shape->size() != axes.size()) {
    fail(n, "shape has " + std::to_string(shape->size()) + " values for " +
                std::to_string(axes.size()) + " axes");
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    dims[size_t(axes[k])] = shape ? Dim::known((*shape)[k]) : Dim::unknown();
  }
  out[0] = Type::tensor(elem_of(n, 0), Shape(std::move(dims)));
}

// Col2Im-18: [N, C * prod(block_shape), L] -> [N, C, image_shape...].
void col2im(const ir::Node& n, Inferencer::Impl& impl, Outputs& out) {
  auto x = input_shape(n, 0);
  auto image = known(n, impl, 1);
  auto block = known(n, impl, 2);
  int64_t spatial = image ? int64_t(image->size()) : known_length(n, 1);
  if (spatial < 0) spatial = block ? int64_t(block->size()) : known_length(n, 2);
  if (spatial < 0) return;
  std::vector<Dim> dims = {x ? dim_at(*x, 0) : Dim::unknown(), Dim::unknown()};
  if (x && block && dim_at(*x, 1).is_known()) {
    int64_t b = 1;
    for (int64_t v : *block) {
      if (v <= 0) fail(n, "block_shape values must be positive");
      b *= v;
    }
    const int64_t cb = dim_at(*x, 1).value();
    if (cb % b != 0) {
      fail(n, "input channels " + std::to_string(cb) + " are not a multiple of the block size " +
                  std::to_string(b));
    }
    dims[1] = Dim::known(cb / b);
  }
  for (int64_t i = 0; i < spatial; ++i) {
    dims.push_back(image ? Dim::known((*image)[size_t(i)]) : Dim::unknown());
  }
  out[0] = Type::tensor(elem_of(n, 0), Shape(std::move(dims)));
}

// DeformConv-19/22: the output of a convolution of X by W (kernel_shape,
// strides, pads, dilations as Conv's).
void deform_conv(const ir::Node& n, Outputs& out) {
  auto x = input_shape(n, 0);
  auto w = input_shape(n, 1);
  if (!x && !w) return;
  const size_t rank = x ? x->rank() : w->rank();
  if (rank < 3) fail(n, "X must have rank 3 or more ([N, C, D1..Dr])");
  if (x && w && x->rank() != w->rank()) {
    fail(n, "X " + x->to_string() + " and W " + w->to_string() + " must have the same rank");
  }
  const size_t r = rank - 2;
  std::vector<int64_t> kernel = ints_attr(n, "kernel_shape");
  std::vector<int64_t> strides = ints_attr(n, "strides"), dil = ints_attr(n, "dilations");
  std::vector<int64_t> pads = ints_attr(n, "pads");
  if (strides.empty()) strides.assign(r, 1);
  if (dil.empty()) dil.assign(r, 1);
  if (pads.empty()) pads.assign(2 * r, 0);
  if (strides.size() != r || dil.size() != r || pads.size() != 2 * r ||
      (!kernel.empty() && kernel.size() != r)) {
    fail(n, "strides, dilations, kernel_shape need " + std::to_string(r) + " values and pads " +
                std::to_string(2 * r));
  }
  std::vector<Dim> dims = {x ? dim_at(*x, 0) : Dim::unknown(), w ? dim_at(*w, 0) : Dim::unknown()};
  for (size_t d = 0; d < r; ++d) {
    const Dim in = x ? dim_at(*x, 2 + d) : Dim::unknown();
    Dim k = kernel.empty() ? (w ? dim_at(*w, 2 + d) : Dim::unknown()) : Dim::known(kernel[d]);
    if (!in.is_known() || !k.is_known() || strides[d] < 1 || dil[d] < 1) {
      dims.push_back(Dim::unknown());
      continue;
    }
    const int64_t extent = dil[d] * (k.value() - 1) + 1;
    const int64_t o = (in.value() + pads[d] + pads[d + r] - extent) / strides[d] + 1;
    if (o < 1)
      fail(n, "the kernel is larger than the padded input along axis " + std::to_string(2 + d));
    dims.push_back(Dim::known(o));
  }
  out[0] = Type::tensor(elem_of(n, 0), Shape(std::move(dims)));
}

// DFT-20: the signal axis becomes dft_length (or its one-sided half, or the
// inverse real DFT's dft_length), the last axis 2 (1 for the inverse real DFT).
void dft(const ir::Node& n, Inferencer::Impl& impl, Outputs& out) {
  auto x = input_shape(n, 0);
  if (!x) return;
  const int64_t rank = int64_t(x->rank());
  if (rank < 2) fail(n, "input must have rank >= 2 (the last dimension 1 or 2)");
  const bool onesided = int_attr(n, "onesided", 0) != 0;
  const bool real_inverse = onesided && int_attr(n, "inverse", 0) != 0;
  std::vector<Dim> dims = x->dims();
  dims.back() = Dim::known(real_inverse ? 1 : 2);
  std::optional<int64_t> axis = -2;
  if (n.num_inputs() > 2 && n.input(2)) {
    auto a = known(n, impl, 2);
    axis = a && a->size() == 1 ? std::optional<int64_t>((*a)[0]) : std::nullopt;
  }
  if (!axis) {
    for (int64_t i = 0; i + 1 < rank; ++i) dims[size_t(i)] = Dim::unknown();
    out[0] = Type::tensor(elem_of(n, 0), Shape(std::move(dims)));
    return;
  }
  int64_t a = *axis < 0 ? *axis + rank : *axis;
  if (a < 0 || a >= rank - 1) {
    fail(n, "axis " + std::to_string(*axis) + " is out of range for input " + x->to_string() +
                " (the last dimension holds the complex parts)");
  }
  const Dim in = dims[size_t(a)];
  std::optional<int64_t> len;
  if (n.num_inputs() > 1 && n.input(1)) {
    if (auto l = known(n, impl, 1); l && l->size() == 1) len = (*l)[0];
  } else if (in.is_known()) {
    len = real_inverse ? 2 * (in.value() - 1) : in.value();
  }
  if (len && *len <= 0) fail(n, "dft_length must be positive");
  Dim o = Dim::unknown();
  if (len) o = Dim::known(real_inverse ? *len : onesided ? *len / 2 + 1 : *len);
  dims[size_t(a)] = o;
  out[0] = Type::tensor(elem_of(n, 0), Shape(std::move(dims)));
}

// Known float elements of input i (a constant), or nullopt.
std::optional<std::vector<double>> known_floats(const ir::Node& n, Inferencer::Impl& impl,
                                                size_t i) {
  if (i >= n.num_inputs() || !n.input(i)) return std::nullopt;
  auto c = impl.constant_of(n.input(i));
  if (!c) return std::nullopt;
  std::vector<double> v;
  if (c->dtype() == DataType::Float) {
    for (float f : c->data<float>()) v.push_back(f);
  } else if (c->dtype() == DataType::Double) {
    for (double d : c->data<double>()) v.push_back(d);
  } else {
    return std::nullopt;
  }
  return v;
}

// Resize-18/19 with axes or keep_aspect_ratio_policy (the rest is
// libonnx's): sized axes take `sizes` (scaled alike under not_larger /
// not_smaller), scaled ones floor(dim * scale).
void resize(const ir::Node& n, Inferencer::Impl& impl, Outputs& out) {
  auto x = input_shape(n, 0);
  if (!x) return;
  const std::vector<int64_t> axes = axes_or_all(n, int64_t(x->rank()));
  std::vector<Dim> dims = x->dims();
  const bool has_sizes = n.num_inputs() > 3 && n.input(3);
  auto sizes = has_sizes ? known(n, impl, 3) : std::nullopt;
  auto scales = has_sizes ? std::nullopt : known_floats(n, impl, 2);
  if (sizes && !sizes->empty()) {
    if (sizes->size() != axes.size()) fail(n, "sizes must have one value per axis");
    const ir::Attr* p = n.attr("keep_aspect_ratio_policy");
    const std::string policy = p ? p->s : "stretch";
    if (policy == "stretch") {
      for (size_t k = 0; k < axes.size(); ++k) dims[size_t(axes[k])] = Dim::known((*sizes)[k]);
    } else {
      double common = policy == "not_larger" ? INFINITY : 0;
      bool all_known = true;
      for (size_t k = 0; k < axes.size(); ++k) {
        const Dim& d = dims[size_t(axes[k])];
        if (!d.is_known() || d.value() == 0) {
          all_known = false;
          break;
        }
        const double s = double((*sizes)[k]) / double(d.value());
        common = policy == "not_larger" ? std::min(common, s) : std::max(common, s);
      }
      for (int64_t a : axes) {
        Dim& d = dims[size_t(a)];
        d = all_known ? Dim::known(int64_t(std::round(common * double(d.value()))))
                      : Dim::unknown();
      }
    }
  } else if (scales && !scales->empty()) {
    if (scales->size() != axes.size()) fail(n, "scales must have one value per axis");
    for (size_t k = 0; k < axes.size(); ++k) {
      Dim& d = dims[size_t(axes[k])];
      const double s = (*scales)[k];
      if (!(s > 0) || !std::isfinite(s)) fail(n, "scales must be finite and positive");
      if (d.is_known()) {
        d = Dim::known(int64_t(std::floor(double(d.value()) * s)));
      } else if (s != 1) {
        d = Dim::unknown();
      }
    }
  } else {
    for (int64_t a : axes) dims[size_t(a)] = Dim::unknown();
  }
  out[0] = Type::tensor(elem_of(n, 0), Shape(std::move(dims)));
}

// ImageDecoder-20: [H, W, 3], or [H, W, 1] for Grayscale.
void image_decoder(const ir::Node& n, Outputs& out) {
  const ir::Attr* f = n.attr("pixel_format");
  const bool gray = f && f->s == "Grayscale";
  out[0] = Type::tensor(DataType::Uint8, Shape(std::vector<Dim>{Dim::unknown(), Dim::unknown(),
                                                                Dim::known(gray ? 1 : 3)}));
}

// FlexAttention-1: Q [B, Hq, L, E], V [B, Hkv, S, Ev] -> [B, Hq, L, Ev].
void flex_attention(const ir::Node& n, Outputs& out) {
  auto q = input_shape(n, 0);
  auto v = input_shape(n, 2);
  if ((q && q->rank() != 4) || (v && v->rank() != 4)) fail(n, "Q, K and V must have rank 4");
  if (!q && !v) return;
  std::vector<Dim> dims = q ? q->dims() : unknown_dims(4);
  dims[3] = v ? v->dims()[3] : Dim::unknown();
  out[0] = Type::tensor(elem_of(n, 0), Shape(std::move(dims)));
}

// ai.onnx.ml TreeEnsemble-5: [N, F] -> [N, n_targets].
void tree_ensemble(const ir::Node& n, Outputs& out) {
  auto x = input_shape(n, 0);
  const int64_t targets = int_attr(n, "n_targets", 0);
  std::vector<Dim> dims = {x && x->rank() == 2 ? x->dims()[0] : Dim::unknown(),
                           targets > 0 ? Dim::known(targets) : Dim::unknown()};
  if (x && x->rank() == 1) dims[0] = Dim::known(1);
  out[0] = Type::tensor(elem_of(n, 0), Shape(std::move(dims)));
}

// ai.onnx.ml LabelEncoder-4: the input's shape, the element type of the
// values (values_tensor's, or the list attribute's).
void label_encoder(const ir::Node& n, Outputs& out) {
  DataType elem = DataType::Undefined;
  if (const ir::Attr* v = n.attr("values_tensor"); v && v->t) {
    elem = v->t->dtype();
  } else if (n.attr("values_strings")) {
    elem = DataType::String;
  } else if (n.attr("values_int64s")) {
    elem = DataType::Int64;
  } else if (n.attr("values_floats")) {
    elem = DataType::Float;
  }
  if (elem == DataType::Undefined) return;
  auto x = input_shape(n, 0);
  out[0] = x ? Type::tensor(elem, *x) : Type::tensor(elem);
}

// OptionalHasElement-18: a bool scalar. OptionalGetElement-18: the element
// type of an optional input (a tensor or sequence input passes through).
void optional_ops(const ir::Node& n, Outputs& out) {
  if (n.op_type() == "OptionalHasElement") {
    out[0] = Type::tensor(DataType::Bool, Shape(std::vector<Dim>{}));
    return;
  }
  const Type* t = input_type(n, 0);
  if (!t || t->is_none()) return;
  if (t->kind() == Type::Kind::Optional) {
    if (t->element()) out[0] = *t->element();
  } else {
    out[0] = *t;
  }
}

// SplitToSequence-24: a sequence of tensors of the input's element type
// and rank (minus the split axis without keepdims when 'split' is absent).
void split_to_sequence(const ir::Node& n, Outputs& out) {
  const Type* t = input_type(n, 0);
  if (!t || !t->is_tensor()) return;
  Type element = Type::tensor(t->elem_type());
  if (auto x = input_shape(n, 0)) {
    const auto rank = static_cast<int64_t>(x->rank());
    const int64_t axis = axis_of(n, int_attr(n, "axis", 0), rank);
    const bool drop = !input_type(n, 1) && int_attr(n, "keepdims", 1) == 0;
    std::vector<Dim> dims = x->dims();
    if (drop) {
      dims.erase(dims.begin() + axis);
    } else {
      dims[static_cast<size_t>(axis)] = Dim::unknown();
    }
    element = Type::tensor(t->elem_type(), Shape(std::move(dims)));
  }
  out[0] = Type::sequence(std::move(element));
}

// StringSplit-20: substrings [*X, max parts] (strings), length = X's shape.
void string_split(const ir::Node& n, Outputs& out) {
  auto x = input_shape(n, 0);
  out[0] = Type::tensor(DataType::String);
  if (out.size() > 1) out[1] = Type::tensor(DataType::Int64);
  if (!x) return;
  std::vector<Dim> dims = x->dims();
  dims.push_back(Dim::unknown());
  out[0] = Type::tensor(DataType::String, Shape(std::move(dims)));
  if (out.size() > 1) out[1] = Type::tensor(DataType::Int64, *x);
}

}  // namespace

bool infer_modern_shapes(const ir::Node& n, Inferencer::Impl& impl, Outputs& out) {
  const std::string& op = n.op_type();
  const std::string& domain = n.domain();
  if (out.empty()) return false;
  if (domain == "ai.onnx.ml") {
    if (op == "TreeEnsemble") {
      tree_ensemble(n, out);
    } else if (op == "LabelEncoder") {
      label_encoder(n, out);
    } else {
      return false;
    }
    return true;
  }
  if (domain == "ai.onnx.preview") {
    if (op != "FlexAttention") return false;
    flex_attention(n, out);
    return true;
  }
  if (!domain.empty() && domain != "ai.onnx") return false;
  if (op == "GridSample") {
    grid_sample(n, out);
  } else if (op == "AffineGrid") {
    affine_grid(n, impl, out);
  } else if (op == "CenterCropPad") {
    center_crop_pad(n, impl, out);
  } else if (op == "Col2Im") {
    col2im(n, impl, out);
  } else if (op == "DeformConv") {
    deform_conv(n, out);
  } else if (op == "DFT") {
    dft(n, impl, out);
  } else if (op == "Resize") {
    resize(n, impl, out);
  } else if (op == "ImageDecoder") {
    image_decoder(n, out);
  } else if (op == "OptionalHasElement" || op == "OptionalGetElement") {
    optional_ops(n, out);
  } else if (op == "SplitToSequence") {
    split_to_sequence(n, out);
  } else if (op == "StringSplit") {
    string_split(n, out);
  } else {
    return false;
  }
  return true;
}

}  // namespace oxs::infer
