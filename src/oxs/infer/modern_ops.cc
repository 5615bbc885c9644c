// Inference for operator versions from oxs's own table (ai.onnx 18-28,
// ai.onnx.ml 4-5, ai.onnx.preview 1), which have no libonnx inference
// function. Three tiers, most precise first:
//  1. The newer version only widened the op's types (or added an attribute
//     that does not change shapes): run libonnx's inference of the op's last
//     libonnx version (Relu-like unary ops, Reshape, Shape, Squeeze, If,
//     Loop, Conv, ...), data propagation included. Not when an input or
//     attribute uses an element type libonnx 1.12 does not know.
//  2. Our own rules for the versions whose shapes changed meaning: Reduce*
//     with axes as an input, Split with num_outputs, Pad with axes, Cast to
//     the new element types, Quantize/DequantizeLinear with output_dtype and
//     the new ops (Attention, RMSNormalization, RotaryEmbedding, SwiGLU,
//     Gelu, Swish, Bitwise*, TensorScatter, BitCast, ...).
//  3. Otherwise the element types the type constraints imply (an output
//     bound to the same constraint as an input has its element type).
#include <algorithm>
#include <unordered_set>

#include "oxs/infer/impl.h"
#include "oxs/infer/modern_shapes.h"
#include "oxs/infer/node_access.h"
#include "oxs/ir/error.h"
#include "oxs/schema/onnx_schema.h"
#include "oxs/schema/registry.h"
#include "oxs/schema/table/op_table.h"

namespace oxs::infer {
namespace {

using ir::DataType;
using ir::Dim;
using ir::Shape;
using ir::Type;

// Ops whose table versions infer exactly as their last libonnx version.
const std::unordered_set<std::string_view>& same_as_libonnx() {
  static const std::unordered_set<std::string_view> ops = {"Identity",
                                                           "Constant",
                                                           "ConstantOfShape",
                                                           "Reshape",
                                                           "Shape",
                                                           "Size",
                                                           "Squeeze",
                                                           "Unsqueeze",
                                                           "Transpose",
                                                           "Flatten",
                                                           "If",
                                                           "Loop",
                                                           "Scan",
                                                           "Equal",
                                                           "IsInf",
                                                           "IsNaN",
                                                           "Acos",
                                                           "Acosh",
                                                           "Asin",
                                                           "Asinh",
                                                           "Atan",
                                                           "Atanh",
                                                           "Cos",
                                                           "Cosh",
                                                           "Sin",
                                                           "Sinh",
                                                           "Tan",
                                                           "Celu",
                                                           "Elu",
                                                           "Selu",
                                                           "HardSigmoid",
                                                           "HardSwish",
                                                           "Softplus",
                                                           "Softsign",
                                                           "ThresholdedRelu",
                                                           "Round",
                                                           "Dropout",
                                                           "Bernoulli",
                                                           "Conv",
                                                           "ConvTranspose",
                                                           "MaxPool",
                                                           "GlobalAveragePool",
                                                           "GlobalLpPool",
                                                           "GlobalMaxPool",
                                                           "InstanceNormalization",
                                                           "LpNormalization",
                                                           "GRU",
                                                           "LSTM",
                                                           "RNN",
                                                           "MaxRoiPool",
                                                           "MaxUnpool",
                                                           "RoiAlign",
                                                           "EyeLike",
                                                           "RandomNormal",
                                                           "RandomNormalLike",
                                                           "RandomUniform",
                                                           "RandomUniformLike",
                                                           "Multinomial",
                                                           "NegativeLogLikelihoodLoss",
                                                           "ScatterElements",
                                                           "ScatterND",
                                                           "TopK",
                                                           "QLinearMatMul",
                                                           "Range",
                                                           "Det",
                                                           "Mish",
                                                           "AveragePool",
                                                           "LpPool",
                                                           "Resize",
                                                           "TreeEnsembleClassifier",
                                                           "TreeEnsembleRegressor",
                                                           "LabelEncoder"};
  return ops;
}

bool newer_than_ir8(int64_t dtype) {
  return dtype > static_cast<int64_t>(DataType::BFloat16);
}

bool uses_new_element_types(const ir::Node& n) {
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    for (const Type* t = n.input(i) ? &n.input(i)->type() : nullptr; t; t = t->element()) {
      if (newer_than_ir8(static_cast<int64_t>(t->elem_type()))) return true;
    }
  }
  for (const ir::Attr& a : n.attrs()) {
    if ((a.name == "to" || a.name == "dtype" || a.name == "output_dtype") &&
        a.type == ir::AttrType::Int && newer_than_ir8(a.i)) {
      return true;
    }
    if (a.t && newer_than_ir8(static_cast<int64_t>(a.t->dtype()))) return true;
  }
  return false;
}

// Conditions under which a widened version still infers like the old one.
bool libonnx_rules_apply(const ir::Node& n) {
  const std::string& op = n.op_type();
  if (op == "AveragePool" || op == "LpPool" || op == "MaxPool") {
    // ONNX corrected ceil_mode after 1.12 (a last window that would start in
    // the end padding is dropped); libonnx 1.12 still counts it.
    if (const ir::Attr* c = n.attr("ceil_mode"); c && c->i != 0) return false;
  }
  if (op == "AveragePool" || op == "LpPool") {
    // AveragePool-19 and LpPool-18 add dilations (and LpPool ceil_mode).
    if (const ir::Attr* d = n.attr("dilations")) {
      for (int64_t x : d->ints) {
        if (x != 1) return false;
      }
    }
  }
  if (op == "Resize") {
    // Resize-18 adds axes and keep_aspect_ratio_policy.
    if (n.attr("axes")) return false;
    if (const ir::Attr* p = n.attr("keep_aspect_ratio_policy"); p && p->s != "stretch") {
      return false;
    }
  }
  if (op == "LabelEncoder") {
    // LabelEncoder-4 adds tensor-valued keys/values and default_tensor.
    for (const ir::Attr& a : n.attrs()) {
      if (a.type == ir::AttrType::Tensor) return false;
    }
  }
  return !uses_new_element_types(n);
}

std::optional<Shape> broadcast(const ir::Node& n, const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.rank());
  std::vector<Dim> out(rank, Dim::known(1));
  for (const Shape& s : shapes) {
    const size_t off = rank - s.rank();
    for (size_t i = 0; i < s.rank(); ++i) {
      const Dim& d = s.dims()[i];
      Dim& o = out[off + i];
      if (d.is_known() && d.value() == 1) continue;
      if (o.is_known() && o.value() == 1) {
        o = d;
      } else if (d.is_known() && o.is_known() && d.value() != o.value()) {
        fail(n, "inputs of shapes " + shapes.front().to_string() + " and " +
                    shapes.back().to_string() + " do not broadcast");
      } else if (!(d == o)) {
        o = d.is_known() ? d : (o.is_known() ? o : Dim::unknown());
      }
    }
  }
  return Shape(std::move(out));
}

// Reduce*-18+: axes is input 1.
void reduce(const ir::Node& n, Inferencer::Impl& impl, Outputs& out) {
  const Type* x = input_type(n, 0);
  if (!x || !x->is_tensor()) return;
  out[0] = Type::tensor(x->elem_type());
  auto shape = input_shape(n, 0);
  if (!shape) return;
  const auto rank = static_cast<int64_t>(shape->rank());
  const bool keepdims = int_attr(n, "keepdims", 1) != 0;
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  if (n.num_inputs() > 1 && n.input(1)) {
    auto axes = impl.known_ints(n.input(1));
    if (!axes) {
      // Axes computed at run time: with keepdims the rank stays; without,
      // it drops by the number of axes (when the axes input's length is
      // static and some axis is named).
      auto a = input_shape(n, 1);
      const bool counted = a && a->rank() == 1 && a->dims()[0].is_known();
      if (keepdims) {
        out[0] =
            Type::tensor(x->elem_type(), Shape(std::vector<Dim>(shape->rank(), Dim::unknown())));
      } else if (counted && a->dims()[0].value() > 0 && a->dims()[0].value() <= rank) {
        out[0] = Type::tensor(
            x->elem_type(), Shape(std::vector<Dim>(static_cast<size_t>(rank - a->dims()[0].value()),
                                                   Dim::unknown())));
      }
      return;
    }
    if (axes->empty()) {
      if (int_attr(n, "noop_with_empty_axes", 0)) {
        out[0] = Type::tensor(x->elem_type(), *shape);
        return;
      }
      reduced.assign(reduced.size(), true);
    }
    for (int64_t a : *axes) reduced[static_cast<size_t>(axis_of(n, a, rank))] = true;
  } else if (int_attr(n, "noop_with_empty_axes", 0)) {
    out[0] = Type::tensor(x->elem_type(), *shape);
    return;
  } else {
    reduced.assign(reduced.size(), true);
  }
  std::vector<Dim> dims;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[static_cast<size_t>(i)]) {
      dims.push_back(shape->dims()[static_cast<size_t>(i)]);
    } else if (keepdims) {
      dims.push_back(Dim::known(1));
    }
  }
  out[0] = Type::tensor(x->elem_type(), Shape(std::move(dims)));
}

void split(const ir::Node& n, Inferencer::Impl& impl, Outputs& out) {
  const Type* x = input_type(n, 0);
  if (!x || !x->is_tensor()) return;
  for (auto& o : out) o = Type::tensor(x->elem_type());
  auto shape = input_shape(n, 0);
  if (!shape) return;
  const auto rank = static_cast<int64_t>(shape->rank());
  const int64_t axis = axis_of(n, int_attr(n, "axis", 0), rank);
  const Dim& d = shape->dims()[static_cast<size_t>(axis)];
  std::vector<int64_t> parts;
  const ir::Attr* num = n.attr("num_outputs");
  if (n.num_inputs() > 1 && n.input(1)) {
    if (num)
      fail(n, "Split takes either the 'split' input or the 'num_outputs' attribute, not both");
    auto known = impl.known_ints(n.input(1));
    if (!known) {
      // Part lengths computed at run time: only the split axis is unknown.
      for (auto& o : out) {
        std::vector<Dim> dims = shape->dims();
        dims[static_cast<size_t>(axis)] = Dim::unknown();
        o = Type::tensor(x->elem_type(), Shape(std::move(dims)));
      }
      return;
    }
    parts = *known;
    if (parts.size() != out.size()) {
      fail(n, "'split' has " + std::to_string(parts.size()) + " parts but the node has " +
                  std::to_string(out.size()) + " outputs");
    }
  } else {
    const int64_t count = num ? num->i : static_cast<int64_t>(out.size());
    if (count <= 0) fail(n, "num_outputs must be positive");
    if (num && count != static_cast<int64_t>(out.size())) {
      fail(n, "num_outputs is " + std::to_string(count) + " but the node has " +
                  std::to_string(out.size()) + " outputs");
    }
    if (!d.is_known()) return;
    // Chunks of ceil(dim / count); the last one smaller (Split-18).
    const int64_t chunk = (d.value() + count - 1) / count;
    int64_t left = d.value();
    for (int64_t i = 0; i < count; ++i) {
      parts.push_back(std::max<int64_t>(0, std::min(chunk, left)));
      left -= parts.back();
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    std::vector<Dim> dims = shape->dims();
    dims[static_cast<size_t>(axis)] = Dim::known(parts[i]);
    out[i] = Type::tensor(x->elem_type(), Shape(std::move(dims)));
  }
}

void pad(const ir::Node& n, Inferencer::Impl& impl, Outputs& out) {
  const Type* x = input_type(n, 0);
  if (!x || !x->is_tensor()) return;
  out[0] = Type::tensor(x->elem_type());
  auto shape = input_shape(n, 0);
  if (!shape || n.num_inputs() < 2 || !n.input(1)) return;
  auto pads = impl.known_ints(n.input(1));
  if (!pads) {
    // Pads computed at run time: the rank stays.
    out[0] = Type::tensor(x->elem_type(), Shape(std::vector<Dim>(shape->rank(), Dim::unknown())));
    return;
  }
  const auto rank = static_cast<int64_t>(shape->rank());
  std::vector<int64_t> axes;
  if (n.num_inputs() > 3 && n.input(3)) {
    auto known = impl.known_ints(n.input(3));
    if (!known) return;
    for (int64_t a : *known) axes.push_back(axis_of(n, a, rank));
  } else {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  if (pads->size() != 2 * axes.size()) {
    fail(n, "'pads' has " + std::to_string(pads->size()) + " values; " +
                std::to_string(2 * axes.size()) + " expected (two per padded axis)");
  }
  std::vector<Dim> dims = shape->dims();
  for (size_t k = 0; k < axes.size(); ++k) {
    Dim& d = dims[static_cast<size_t>(axes[k])];
    if (d.is_known()) {
      d = Dim::known(d.value() + (*pads)[k] + (*pads)[k + axes.size()]);
    } else if ((*pads)[k] != 0 || (*pads)[k + axes.size()] != 0) {
      d = Dim::unknown();
    }
  }
  out[0] = Type::tensor(x->elem_type(), Shape(std::move(dims)));
}

// Same shape as input `from`, element type `elem`.
void like_input(const ir::Node& n, size_t from, DataType elem, Outputs& out, size_t to = 0) {
  const Type* x = input_type(n, from);
  if (!x || !x->is_tensor() || to >= out.size()) return;
  out[to] = Type::tensor(elem, x->shape());
}

// Tier 3: element types from shared type constraints or concrete types.
void from_constraints(const ir::Node& n, const schema::OpSignature& sig, Outputs& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] || sig.outputs.empty()) continue;
    const auto& p = sig.outputs[std::min(i, sig.outputs.size() - 1)];
    const schema::TypeConstraint* c = sig.find_type_constraint(p.type_constraint);
    if (!c) {
      if (auto t = schema::table::parse_type_string(p.type_constraint)) out[i] = *t;
      continue;
    }
    if (c->allowed_types.size() == 1) {
      out[i] = c->allowed_types[0];
      continue;
    }
    if (!p.is_homogeneous) continue;
    for (size_t j = 0; j < n.num_inputs() && !sig.inputs.empty(); ++j) {
      const auto& in = sig.inputs[std::min(j, sig.inputs.size() - 1)];
      const Type* t = input_type(n, j);
      if (in.type_constraint == p.type_constraint && in.is_homogeneous && t && !t->is_none()) {
        out[i] = t->is_tensor() ? Type::tensor(t->elem_type()) : *t;
        break;
      }
    }
  }
}

}  // namespace

std::optional<std::vector<int64_t>> Inferencer::Impl::known_ints(const ir::Value* v) {
  const auto* data = shape_data_of(v);
  if (!data) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& d : data->dim()) {
    if (!d.has_dim_value()) return std::nullopt;
    out.push_back(d.dim_value());
  }
  return out;
}

void Inferencer::Impl::infer_table_node(ir::Node& n, const schema::OpSignature& sig,
                                        const Frame& f) {
  if (options.check_signature) check_table_signature(n, sig);
  const std::string& op = n.op_type();
  if (same_as_libonnx().count(op) && libonnx_rules_apply(n)) {
    const std::string domain = n.domain() == "ai.onnx" ? std::string() : n.domain();
    const int last = domain.empty() ? 17 : 3;
    if (const ::onnx::OpSchema* old = schema::onnx_schema_registry().GetSchema(op, last, domain)) {
      run_schema_inference(n, *old, f);
      return;
    }
  }
  for (ir::Graph* g : n.subgraphs()) infer_graph(*g, f);
  Outputs out(n.num_outputs());
  if (out.empty()) return;
  const Type* x = input_type(n, 0);
  const DataType x_elem = x ? x->elem_type() : DataType::Undefined;
  if (op.rfind("Reduce", 0) == 0) {
    reduce(n, *this, out);
  } else if (op == "Split") {
    split(n, *this, out);
  } else if (op == "Pad") {
    pad(n, *this, out);
  } else if (op == "Cast" || op == "BitCast") {
    const auto to = static_cast<DataType>(int_attr(n, "to", 0));
    if (!ir::is_valid_dtype(static_cast<int32_t>(to))) {
      fail(n, "attribute 'to' is " + std::to_string(int_attr(n, "to", 0)) +
                  ", which is no ONNX element type");
    }
    if (op == "Cast" || (x && ir::element_bits(x_elem) == ir::element_bits(to))) {
      like_input(n, 0, to, out);
    } else {
      out[0] = Type::tensor(to);
    }
  } else if (op == "CastLike") {
    if (const Type* t = input_type(n, 1)) like_input(n, 0, t->elem_type(), out);
  } else if (op == "QuantizeLinear" || op == "DequantizeLinear") {
    DataType elem = DataType::Undefined;
    if (int64_t o = int_attr(n, "output_dtype", 0); o != 0) {
      elem = static_cast<DataType>(o);
    } else if (op == "QuantizeLinear") {
      const Type* zp = input_type(n, 2);
      elem = zp ? zp->elem_type() : DataType::Uint8;
    } else if (const Type* scale = input_type(n, 1)) {
      elem = scale->elem_type();
    }
    like_input(n, 0, elem, out);
  } else if (op == "BitwiseAnd" || op == "BitwiseOr" || op == "BitwiseXor" ||
             op == "StringConcat") {
    auto a = input_shape(n, 0);
    auto b = input_shape(n, 1);
    out[0] = Type::tensor(x_elem);
    if (a && b) out[0] = Type::tensor(x_elem, broadcast(n, {*a, *b}));
  } else if (op == "RegexFullMatch") {
    like_input(n, 0, DataType::Bool, out);
  } else if (op == "BitwiseNot" || op == "Gelu" || op == "Swish" || op == "RMSNormalization" ||
             op == "GroupNormalization" || op == "RotaryEmbedding" || op == "TensorScatter" ||
             op == "Mish" || op == "Round" || op == "CumProd" || op == "SwiGLU") {
    like_input(n, 0, x_elem, out);
  } else if (!infer_attention_shapes(n, out) && !infer_pool_shapes(n, out)) {
    infer_modern_shapes(n, *this, out);
  }
  from_constraints(n, sig, out);
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i]) merge_output(n, i, std::move(*out[i]));
  }
}

}  // namespace oxs::infer
