#include "fuzz/single_op/attrs.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz/single_op/values.h"

namespace oxs::fuzz {
namespace {

using D = ir::DataType;

// Attributes whose int is a TensorProto.DataType code.
bool is_dtype_attr(const std::string& name) {
  return name == "to" || name == "dtype" || name == "output_dtype" || name == "stash_type" ||
         name == "softmax_precision" || name == "precision";
}

D some_dtype(const std::vector<D>& chosen, ByteReader& r) {
  static const std::vector<D> base = {D::Float,  D::Int64, D::Int32, D::Bool,        D::Float16,
                                      D::String, D::Uint8, D::Int4,  D::Float8E4M3FN};
  if (!chosen.empty() && r.flag()) return r.pick(chosen);
  return r.pick(base);
}

ir::Type random_type(const std::vector<D>& chosen, ByteReader& r, int depth = 0) {
  const D dt = some_dtype(chosen, r);
  switch (depth < 2 ? r.below(6) : 0) {
    case 1:
      return ir::Type::sequence(random_type(chosen, r, depth + 1));
    case 2:
      return ir::Type::optional(random_type(chosen, r, depth + 1));
    case 3:
      return ir::Type::map(r.flag() ? D::Int64 : D::String, ir::Type::tensor(dt));
    case 4:
      return ir::Type::sparse_tensor(dt);
    case 5:
      return ir::Type();  // no type at all
    default:
      return ir::Type::tensor(dt);
  }
}

// COO: values [nnz], indices [nnz] (linear) or [nnz, rank]; indices are
// mostly in range, sometimes negative, past the end or repeated, and the
// counts of values and indices sometimes disagree.
std::shared_ptr<ir::SparseTensor> random_sparse(const std::vector<D>& chosen, ByteReader& r) {
  auto s = std::make_shared<ir::SparseTensor>();
  s->dims.resize(1 + r.below(3));
  for (int64_t& d : s->dims) d = r.in_range(0, 4);
  const int64_t nnz = int64_t(r.below(4));
  const int64_t rank = int64_t(s->dims.size());
  const bool linear = r.flag();
  const int64_t values = r.below(8) == 0 ? nnz + 1 : nnz;
  std::vector<int64_t> idx(size_t(linear ? nnz : nnz * rank));
  static const std::vector<int64_t> odd = {-1, 4, 1000, INT64_MAX, INT64_MIN};
  for (int64_t& i : idx) i = r.below(6) == 0 ? r.pick(odd) : r.in_range(0, 3);
  std::vector<int64_t> idims = linear ? std::vector<int64_t>{nnz} : std::vector<int64_t>{nnz, rank};
  s->indices = ir::Tensor::from<int64_t>(D::Int64, idims, std::span<const int64_t>(idx));
  eval::Tensor v = random_tensor(some_dtype(chosen, r), r);
  // The values as a 1-D tensor of `values` elements (the random tensor's
  // own elements when it has as many, else zeros of that type).
  if (v.numel() == values) {
    s->values = v.reshaped({values}).to_ir();
  } else {
    s->values = eval::Tensor(v.dtype(), {values}).to_ir();
  }
  return s;
}

}  // namespace

ir::Attr random_attr(const schema::AttrParam& p, const std::vector<D>& dtypes, bool extended,
                     ByteReader& r) {
  static const std::vector<int64_t> ints = {0, 1, 2, 3, -1, -2, 4, 64, -100, int64_t{1} << 40};
  static const std::vector<float> floats = {0.f, 1.f, -1.f, 0.5f, 1e-5f, 2.f, 1e30f, NAN};
  std::vector<std::string> strings = {"",
                                      "NOTSET",
                                      "SAME_UPPER",
                                      "VALID",
                                      "constant",
                                      "reflect",
                                      "edge",
                                      "linear",
                                      "nearest",
                                      "cubic",
                                      "half_pixel",
                                      "tf_crop_and_resize",
                                      "round_prefer_floor",
                                      "floor",
                                      "SOFTMAX",
                                      "LOGISTIC",
                                      "NONE",
                                      "BRANCH_LEQ",
                                      "SUM",
                                      "tanh",
                                      "relu",
                                      "sigmoid",
                                      "forward",
                                      "bidirectional"};
  if (p.default_value && p.default_value->type == ir::AttrType::String) {
    strings.push_back(p.default_value->s);
  }
  const size_t n = r.below(5);
  if (!extended && p.type > ir::AttrType::Strings) return ir::Attr{};
  switch (p.type) {
    case ir::AttrType::Int:
      if (extended && is_dtype_attr(p.name) && r.below(4) != 0) {
        return ir::Attr::of_int(p.name, r.in_range(0, int64_t(ir::kLastDataType) + 1));
      }
      return ir::Attr::of_int(p.name, r.pick(ints));
    case ir::AttrType::Float:
      return ir::Attr::of_float(p.name, r.pick(floats));
    case ir::AttrType::String:
      return ir::Attr::of_string(p.name, r.pick(strings));
    case ir::AttrType::Ints: {
      std::vector<int64_t> v(n);
      for (auto& x : v) x = r.below(4) ? r.in_range(-2, 4) : r.pick(ints);
      return ir::Attr::of_ints(p.name, v);
    }
    case ir::AttrType::Floats: {
      std::vector<float> v(n);
      for (auto& x : v) x = r.pick(floats);
      return ir::Attr::of_floats(p.name, v);
    }
    case ir::AttrType::Strings: {
      std::vector<std::string> v(n);
      for (auto& x : v) x = r.pick(strings);
      return ir::Attr::of_strings(p.name, v);
    }
    case ir::AttrType::Tensor: {
      // Common types, and the op's own (possibly ONNX 1.23) element types.
      std::vector<D> types = {D::Float, D::Int64, D::Int32, D::Bool};
      if (extended) types.insert(types.end(), dtypes.begin(), dtypes.end());
      eval::Tensor t = random_tensor(r.pick(types), r);
      return ir::Attr::of_tensor(p.name, std::make_shared<ir::Tensor>(t.to_ir()));
    }
    default:
      break;
  }
  if (is_graph_attr(p.type)) return ir::Attr{};  // bodies.h makes them
  // The kinds without an Attr::of_* maker: one value or a list of `n`.
  ir::Attr a(p.name, p.type);
  for (size_t i = 0; i < n; ++i) {
    switch (p.type) {
      case ir::AttrType::Tensors:
        a.tensors.push_back(
            std::make_shared<ir::Tensor>(random_tensor(some_dtype(dtypes, r), r).to_ir()));
        break;
      case ir::AttrType::SparseTensors:
        a.sparse_tensors.push_back(random_sparse(dtypes, r));
        break;
      case ir::AttrType::TypeProtos:
        a.type_protos.push_back(random_type(dtypes, r));
        break;
      default:
        break;
    }
  }
  if (p.type == ir::AttrType::SparseTensor) a.sparse_tensor = random_sparse(dtypes, r);
  if (p.type == ir::AttrType::TypeProto) a.tp = random_type(dtypes, r);
  return a;
}

}  // namespace oxs::fuzz
