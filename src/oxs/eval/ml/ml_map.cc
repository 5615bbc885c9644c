// ai.onnx.ml operators that make or read map values (opset 1): ZipMap
// (tensor -> sequence of maps), DictVectorizer and CastMap (map -> tensor).
// Shapes and padding follow ONNX Runtime where the spec is silent: the
// tensors made from a map are [1, N], CastMap SPARSE pads strings with
// "0.f" and writes floats as strings with std::to_string.
#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>

#include "oxs/eval/kernel.h"
#include "oxs/eval/validate/checked.h"

namespace oxs::eval {
namespace {

constexpr const char* kMl = "ai.onnx.ml";

// ZipMap: row i of X[N,C] (or X[C], one row) becomes the map
// label[j] -> X[i,j]. Every map shares one keys tensor.
void zip_map(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.dtype() != DataType::Float) {
    ctx.fail("X must be a float tensor, got " + std::string(ir::dtype_name(x.dtype())));
  }
  if (x.rank() != 1 && x.rank() != 2) {
    ctx.fail("X must be 1-D [C] or 2-D [N,C], got shape " + dims_to_string(x.dims()));
  }
  auto ints = ctx.attr_ints("classlabels_int64s");
  auto strings = ctx.attr_strings("classlabels_strings");
  bool has_ints = ctx.has_attr("classlabels_int64s");
  bool has_strings = ctx.has_attr("classlabels_strings");
  if (has_ints == has_strings) {
    ctx.fail("exactly one of classlabels_int64s and classlabels_strings must be given");
  }
  int64_t labels = has_ints ? int64_t(ints.size()) : int64_t(strings.size());
  int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
  int64_t cols = x.dims().back();
  if (cols != labels) {
    ctx.fail("X has " + std::to_string(cols) + " columns (shape " + dims_to_string(x.dims()) +
             ") but there are " + std::to_string(labels) + " class labels; they must match");
  }
  Tensor keys(has_ints ? DataType::Int64 : DataType::String, {labels});
  if (has_ints) {
    std::copy(ints.begin(), ints.end(), keys.mutable_data<int64_t>());
  } else {
    std::copy(strings.begin(), strings.end(), keys.mutable_strings().begin());
  }
  std::vector<Value> maps;
  maps.reserve(size_t(rows));
  const float* src = x.data<float>();
  for (int64_t i = 0; i < rows; ++i) {
    Tensor vals(DataType::Float, {cols});
    std::copy(src + i * cols, src + (i + 1) * cols, vals.mutable_data<float>());
    maps.push_back(Value::map(keys, std::move(vals)));
  }
  ctx.set_output(0,
                 Value::sequence(std::move(maps),
                                 ir::Type::map(keys.dtype(), ir::Type::tensor(DataType::Float))));
}

const Value& map_input(KernelContext& ctx) {
  const Value& v = ctx.input(0);
  if (!v.is_map()) ctx.fail("X must be a map but is " + v.describe());
  return v;
}

// Copies element `from` of `src` to element `to` of `dst` (same dtype).
void copy_element(const Tensor& src, int64_t from, Tensor& dst, int64_t to) {
  if (src.dtype() == DataType::String) {
    dst.mutable_strings()[size_t(to)] = src.strings()[size_t(from)];
    return;
  }
  size_t es = ir::element_size(src.dtype());
  std::copy_n(static_cast<const char*>(src.raw()) + size_t(from) * es, es,
              static_cast<char*>(dst.mutable_raw()) + size_t(to) * es);
}

// DictVectorizer: Y[0, k] = X[vocabulary[k]]; keys not in the vocabulary
// are ignored (as ONNX Runtime does), absent entries stay 0 / "".
void dict_vectorizer(KernelContext& ctx) {
  const Value& m = map_input(ctx);
  const Tensor& keys = m.map_keys();
  const Tensor& vals = m.map_values();
  bool has_ints = ctx.has_attr("int64_vocabulary");
  bool has_strings = ctx.has_attr("string_vocabulary");
  if (has_ints == has_strings) {
    ctx.fail("exactly one of int64_vocabulary and string_vocabulary must be given");
  }
  DataType want = has_ints ? DataType::Int64 : DataType::String;
  if (keys.dtype() != want) {
    ctx.fail("the map has " + std::string(ir::dtype_name(keys.dtype())) + " keys but the " +
             (has_ints ? "int64_vocabulary" : "string_vocabulary") + " needs " +
             std::string(ir::dtype_name(want)) + " keys");
  }
  DataType vt = vals.dtype();
  if (vt != DataType::Float && vt != DataType::Double && vt != DataType::Int64 &&
      vt != DataType::String) {
    ctx.fail("map values must be float, double, int64 or string, not " +
             std::string(ir::dtype_name(vt)));
  }
  // Slot k takes the value of key vocabulary[k]: a vocabulary may repeat a
  // key (ONNX Runtime fills every such slot), a repeated map key keeps its
  // last value.
  if (has_ints) {
    auto vocab = ctx.attr_ints("int64_vocabulary");
    std::unordered_map<int64_t, int64_t> entry;
    for (int64_t i = 0; i < keys.numel(); ++i) entry[keys.data<int64_t>()[i]] = i;
    Tensor& y = ctx.alloc_output(0, vt, {1, int64_t(vocab.size())});
    for (size_t k = 0; k < vocab.size(); ++k) {
      auto it = entry.find(vocab[k]);
      if (it != entry.end()) copy_element(vals, it->second, y, int64_t(k));
    }
  } else {
    auto vocab = ctx.attr_strings("string_vocabulary");
    std::unordered_map<std::string, int64_t> entry;
    for (int64_t i = 0; i < keys.numel(); ++i) entry[keys.strings()[size_t(i)]] = i;
    Tensor& y = ctx.alloc_output(0, vt, {1, int64_t(vocab.size())});
    for (size_t k = 0; k < vocab.size(); ++k) {
      auto it = entry.find(vocab[k]);
      if (it != entry.end()) copy_element(vals, it->second, y, int64_t(k));
    }
  }
}

// Element i of a float or string tensor cast to the CastMap target type.
struct CastMapValue {
  const KernelContext& ctx;
  const Tensor& vals;

  float to_float(int64_t i) const {
    if (vals.dtype() == DataType::Float) return vals.data<float>()[i];
    const std::string& s = vals.strings()[size_t(i)];
    try {
      size_t used = 0;
      float f = std::stof(s, &used);
      if (used == s.size()) return f;
    } catch (const std::exception&) {
    }
    ctx.fail("map value \"" + s + "\" is not a number");
  }
  int64_t to_int(int64_t i) const {
    if (vals.dtype() == DataType::Float) {
      return checked_to_int64(ctx, vals.data<float>()[i], "a map value cast to int64");
    }
    const std::string& s = vals.strings()[size_t(i)];
    try {
      size_t used = 0;
      int64_t v = std::stoll(s, &used);
      if (used == s.size()) return v;
    } catch (const std::exception&) {
    }
    ctx.fail("map value \"" + s + "\" is not an integer");
  }
  std::string to_string(int64_t i) const {
    if (vals.dtype() == DataType::Float) return std::to_string(vals.data<float>()[i]);
    return vals.strings()[size_t(i)];
  }
};

// CastMap: the values of a map(int64, float|string) in ascending key order,
// packed densely ([1, size]) or at their key's position ([1, max_map]).
void cast_map(KernelContext& ctx) {
  const Value& m = map_input(ctx);
  const Tensor& keys = m.map_keys();
  const Tensor& vals = m.map_values();
  if (keys.dtype() != DataType::Int64) {
    ctx.fail("the map must have int64 keys, not " + std::string(ir::dtype_name(keys.dtype())));
  }
  if (vals.dtype() != DataType::Float && vals.dtype() != DataType::String) {
    ctx.fail("the map values must be float or string, not " +
             std::string(ir::dtype_name(vals.dtype())));
  }
  std::string cast_to = ctx.attr_string("cast_to", "TO_FLOAT");
  DataType out_type;
  if (cast_to == "TO_FLOAT") {
    out_type = DataType::Float;
  } else if (cast_to == "TO_INT64") {
    out_type = DataType::Int64;
  } else if (cast_to == "TO_STRING") {
    out_type = DataType::String;
  } else {
    ctx.fail("cast_to is '" + cast_to + "'; it must be TO_FLOAT, TO_INT64 or TO_STRING");
  }
  std::string form = ctx.attr_string("map_form", "DENSE");
  if (form != "DENSE" && form != "SPARSE") {
    ctx.fail("map_form is '" + form + "'; it must be DENSE or SPARSE");
  }
  const int64_t* k = keys.data<int64_t>();
  int64_t n = keys.numel();
  std::vector<int64_t> order(size_t(n), 0);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return k[a] < k[b]; });
  for (size_t i = 1; i < order.size(); ++i) {
    if (k[order[i]] == k[order[i - 1]]) {
      ctx.fail("the map has the key " + std::to_string(k[order[i]]) + " more than once");
    }
  }
  int64_t width = n;
  if (form == "SPARSE") {
    width = ctx.attr_int("max_map", 1);
    if (width <= 0) ctx.fail("max_map is " + std::to_string(width) + "; it must be positive");
    if (n && (k[order.front()] < 0 || k[order.back()] >= width)) {
      int64_t bad = k[order.front()] < 0 ? k[order.front()] : k[order.back()];
      ctx.fail("the map has the key " + std::to_string(bad) +
               ", outside [0, max_map=" + std::to_string(width) + ") for map_form SPARSE");
    }
  }
  Tensor& y = ctx.alloc_output(0, out_type, {1, width});
  if (out_type == DataType::String && form == "SPARSE") {
    std::fill(y.mutable_strings().begin(), y.mutable_strings().end(), "0.f");
  }
  CastMapValue cv{ctx, vals};
  for (int64_t j = 0; j < n; ++j) {
    int64_t src = order[size_t(j)];
    int64_t dst = form == "SPARSE" ? k[src] : j;
    switch (out_type) {
      case DataType::Float:
        y.mutable_data<float>()[dst] = cv.to_float(src);
        break;
      case DataType::Int64:
        y.mutable_data<int64_t>()[dst] = cv.to_int(src);
        break;
      default:
        y.mutable_strings()[size_t(dst)] = cv.to_string(src);
        break;
    }
  }
}

}  // namespace

void register_ml_map_kernels(KernelRegistry& r) {
  r.add(kMl, "ZipMap", 1, zip_map);
  r.add(kMl, "DictVectorizer", 1, dict_vectorizer);
  r.add(kMl, "CastMap", 1, cast_map);
}

}  // namespace oxs::eval
