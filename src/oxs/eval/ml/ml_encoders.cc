// ai.onnx.ml operators that map labels and categories: LabelEncoder (v1:
// classes_strings index <-> string; v2: keys_* -> values_* over string,
// int64 and float; v4: also int32, int16, double and tensor attributes),
// CategoryMapper (cats_strings <-> cats_int64s) and
// OneHotEncoder. Unknown keys take the default_* value; float keys match
// exactly (before v4 NaN matches nothing, as in ONNX Runtime). Also holds
// register_ml_basic_kernels and the helpers of ml_basic.h.
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "oxs/eval/kernel.h"
#include "oxs/eval/ml/ml_basic.h"

namespace oxs::eval {

namespace ml {

void require_type(const KernelContext& ctx, const char* what, const Tensor& t,
                  std::initializer_list<DataType> allowed) {
  for (DataType d : allowed) {
    if (t.dtype() == d) return;
  }
  std::string names;
  size_t i = 0;
  for (DataType d : allowed) {
    if (i) names += (i + 1 == allowed.size()) ? " or " : ", ";
    names += type_name(d);
    ++i;
  }
  ctx.fail(std::string(what) + " must be a tensor of " + names + ", got " + type_name(t.dtype()));
}

float element_as_float(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::Float:
      return t.data<float>()[i];
    case DataType::Double:
      return static_cast<float>(t.data<double>()[i]);
    case DataType::Int32:
      return static_cast<float>(t.data<int32_t>()[i]);
    case DataType::Int64:
      return static_cast<float>(t.data<int64_t>()[i]);
    default:
      return static_cast<float>(t.get_as_double(i));
  }
}

Tensor to_float_tensor(const Tensor& t) {
  if (t.dtype() == DataType::Float) return t;
  Tensor out(DataType::Float, t.dims());
  float* o = out.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) o[i] = element_as_float(t, i);
  return out;
}

}  // namespace ml

namespace {

using ml::kMlDomain;
using ml::type_name;

template <class T>
const T* elems(const Tensor& t) {
  if constexpr (std::is_same_v<T, std::string>) {
    return t.strings().data();
  } else {
    return t.data<T>();
  }
}
template <class T>
T* mutable_elems(Tensor& t) {
  if constexpr (std::is_same_v<T, std::string>) {
    return t.mutable_strings().data();
  } else {
    return t.mutable_data<T>();
  }
}

// Y[i] = values[index of X[i] in keys], or `def` when absent. A repeated
// key maps to its first entry, or its last with `last_wins` (ORT:
// LabelEncoder keeps the first, CategoryMapper the last).
template <class K, class V>
void lookup(KernelContext& ctx, const Tensor& x, const std::vector<K>& keys,
            const std::vector<V>& values, const V& def, DataType out_type, bool last_wins = false,
            bool nan_matches = false) {
  std::unordered_map<K, size_t> index;
  index.reserve(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    if (last_wins) {
      index[keys[k]] = k;
    } else {
      index.emplace(keys[k], k);
    }
  }
  // NaN never equals itself: with `nan_matches` a NaN input takes the
  // first NaN key's value (LabelEncoder-4).
  size_t nan_key = keys.size();
  if constexpr (std::is_floating_point_v<K>) {
    for (size_t k = 0; nan_matches && k < keys.size() && nan_key == keys.size(); ++k) {
      if (std::isnan(keys[k])) nan_key = k;
    }
  }
  Tensor& y = ctx.alloc_output(0, out_type, x.dims());
  const K* in = elems<K>(x);
  V* out = mutable_elems<V>(y);
  for (int64_t i = 0; i < x.numel(); ++i) {
    if constexpr (std::is_floating_point_v<K>) {
      if (nan_key < keys.size() && std::isnan(in[i])) {
        out[i] = values[nan_key];
        continue;
      }
    }
    auto it = index.find(in[i]);
    out[i] = it == index.end() ? def : values[it->second];
  }
}

// LabelEncoder-1: string -> its index in classes_strings; int64 -> the
// string at that index.
void label_encoder_v1(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  ml::require_type(ctx, "X", x, {DataType::String, DataType::Int64});
  auto classes = ctx.attr_strings("classes_strings");
  if (x.dtype() == DataType::String) {
    std::vector<int64_t> idx(classes.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = int64_t(i);
    lookup<std::string, int64_t>(ctx, x, classes, idx, ctx.attr_int("default_int64", -1),
                                 DataType::Int64);
    return;
  }
  std::string def = ctx.attr_string("default_string", "_Unused");
  Tensor& y = ctx.alloc_output(0, DataType::String, x.dims());
  const int64_t* in = x.data<int64_t>();
  auto& out = y.mutable_strings();
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t k = in[i];
    out[size_t(i)] = k >= 0 && k < int64_t(classes.size()) ? classes[size_t(k)] : def;
  }
}

// The one `<prefix>_{strings,int64s,floats}` attribute a LabelEncoder-2
// node gives; fails if none or several are given.
DataType encoder_attr_type(const KernelContext& ctx, const std::string& prefix) {
  const char* suffixes[] = {"_strings", "_int64s", "_floats"};
  const DataType types[] = {DataType::String, DataType::Int64, DataType::Float};
  int found = -1;
  for (int i = 0; i < 3; ++i) {
    if (!ctx.has_attr(prefix + suffixes[i])) continue;
    if (found >= 0) {
      ctx.fail("both " + prefix + suffixes[found] + " and " + prefix + suffixes[i] +
               " are given; give exactly one " + prefix + "_* attribute");
    }
    found = i;
  }
  if (found < 0) {
    ctx.fail("no " + prefix + "_* attribute; give one of " + prefix + "_strings, " + prefix +
             "_int64s or " + prefix + "_floats");
  }
  return types[found];
}

template <class T>
std::vector<T> encoder_attr(const KernelContext& ctx, const std::string& prefix) {
  if constexpr (std::is_same_v<T, std::string>) {
    return ctx.attr_strings(prefix + "_strings");
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return ctx.attr_ints(prefix + "_int64s");
  } else {
    return ctx.attr_floats(prefix + "_floats");
  }
}

template <class T>
T encoder_default(const KernelContext& ctx) {
  if constexpr (std::is_same_v<T, std::string>) {
    return ctx.attr_string("default_string", "_Unused");
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return ctx.attr_int("default_int64", -1);
  } else {
    return ctx.attr_float("default_float", -0.0f);
  }
}

template <class F>
void with_encoder_type(DataType t, F&& f) {
  if (t == DataType::String) {
    f(std::string{});
  } else if (t == DataType::Int64) {
    f(int64_t{});
  } else {
    f(float{});
  }
}

const char* attr_suffix(DataType t) {
  return t == DataType::String ? "strings" : t == DataType::Int64 ? "int64s" : "floats";
}

// LabelEncoder-2: keys_* -> values_* (each string, int64 or float).
void label_encoder_v2(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  ml::require_type(ctx, "X", x, {DataType::String, DataType::Int64, DataType::Float});
  DataType kt = encoder_attr_type(ctx, "keys");
  DataType vt = encoder_attr_type(ctx, "values");
  if (x.dtype() != kt) {
    ctx.fail("X is " + type_name(x.dtype()) + " but the keys are keys_" + attr_suffix(kt) +
             "; give keys_" + attr_suffix(x.dtype()) + " or feed a " + type_name(kt) + " tensor");
  }
  with_encoder_type(kt, [&](auto k) {
    using K = decltype(k);
    with_encoder_type(vt, [&](auto v) {
      using V = decltype(v);
      auto keys = encoder_attr<K>(ctx, "keys");
      auto values = encoder_attr<V>(ctx, "values");
      if (keys.size() != values.size()) {
        ctx.fail("keys_" + std::string(attr_suffix(kt)) + " has " + std::to_string(keys.size()) +
                 " entries but values_" + attr_suffix(vt) + " has " +
                 std::to_string(values.size()) + "; they must have the same length");
      }
      lookup<K, V>(ctx, x, keys, values, encoder_default<V>(ctx), vt);
    });
  });
}

// The element types LabelEncoder-4 maps between.
template <class F>
void with_encoder4_type(DataType t, F&& f) {
  switch (t) {
    case DataType::String:
      return f(std::string{});
    case DataType::Int64:
      return f(int64_t{});
    case DataType::Int32:
      return f(int32_t{});
    case DataType::Int16:
      return f(int16_t{});
    case DataType::Double:
      return f(double{});
    default:
      return f(float{});
  }
}

bool is_encoder4_type(DataType t) {
  return t == DataType::String || t == DataType::Int64 || t == DataType::Int32 ||
         t == DataType::Int16 || t == DataType::Float || t == DataType::Double;
}

// keys_tensor / values_tensor, or else the v2 list attributes, as a 1-D
// tensor.
Tensor encoder4_side(const KernelContext& ctx, const std::string& prefix) {
  const ir::Attr* a = ctx.attr(prefix + "_tensor");
  if (a) {
    if (!a->t) ctx.fail(prefix + "_tensor must be a tensor attribute");
    for (const char* s : {"_strings", "_int64s", "_floats"}) {
      if (ctx.has_attr(prefix + s)) {
        ctx.fail("both " + prefix + "_tensor and " + prefix + s + " are given; give one");
      }
    }
    Tensor t = Tensor::from_ir(*a->t);
    if (!is_encoder4_type(t.dtype())) {
      ctx.fail(prefix + "_tensor is " + type_name(t.dtype()) +
               "; it must be string, int64, int32, int16, float or double");
    }
    return t.reshaped({t.numel()});
  }
  DataType dt = encoder_attr_type(ctx, prefix);
  Tensor out;
  with_encoder_type(dt, [&](auto tag) {
    using T = decltype(tag);
    auto v = encoder_attr<T>(ctx, prefix);
    out = Tensor(dt, {int64_t(v.size())});
    std::copy(v.begin(), v.end(), mutable_elems<T>(out));
  });
  return out;
}

template <class V>
V encoder4_default(const KernelContext& ctx, DataType vt) {
  if (const ir::Attr* a = ctx.attr("default_tensor")) {
    if (!a->t) ctx.fail("default_tensor must be a tensor attribute");
    Tensor d = Tensor::from_ir(*a->t);
    if (d.dtype() != vt || d.numel() != 1) {
      ctx.fail("default_tensor is " + type_name(d.dtype()) + dims_to_string(d.dims()) +
               "; it must hold one " + type_name(vt) + " (the values' type)");
    }
    return elems<V>(d)[0];
  }
  if constexpr (std::is_same_v<V, std::string>) {
    return ctx.attr_string("default_string", "_Unused");
  } else if constexpr (std::is_integral_v<V>) {
    return static_cast<V>(ctx.attr_int("default_int64", -1));
  } else {
    return static_cast<V>(ctx.attr_float("default_float", -0.0f));
  }
}

// LabelEncoder-4: as v2, over more types, with keys/values/default also
// given as tensors; a NaN key matches NaN inputs.
void label_encoder_v4(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  Tensor keys = encoder4_side(ctx, "keys");
  Tensor values = encoder4_side(ctx, "values");
  if (x.dtype() != keys.dtype()) {
    ctx.fail("X is " + type_name(x.dtype()) + " but the keys are " + type_name(keys.dtype()) +
             "; the input's type must be the keys' type");
  }
  if (keys.numel() != values.numel()) {
    ctx.fail("there are " + std::to_string(keys.numel()) + " keys but " +
             std::to_string(values.numel()) + " values; they must have the same length");
  }
  with_encoder4_type(keys.dtype(), [&](auto k) {
    using K = decltype(k);
    with_encoder4_type(values.dtype(), [&](auto v) {
      using V = decltype(v);
      std::vector<K> kv(elems<K>(keys), elems<K>(keys) + keys.numel());
      std::vector<V> vv(elems<V>(values), elems<V>(values) + values.numel());
      lookup<K, V>(ctx, x, kv, vv, encoder4_default<V>(ctx, values.dtype()), values.dtype(), false,
                   true);
    });
  });
}

// CategoryMapper: cats_strings[i] <-> cats_int64s[i].
void category_mapper(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  ml::require_type(ctx, "X", x, {DataType::String, DataType::Int64});
  auto strings = ctx.attr_strings("cats_strings");
  auto ints = ctx.attr_ints("cats_int64s");
  if (!ctx.has_attr("cats_strings") || !ctx.has_attr("cats_int64s")) {
    ctx.fail("both cats_strings and cats_int64s are required (the two sides of the mapping)");
  }
  if (strings.size() != ints.size()) {
    ctx.fail("cats_strings has " + std::to_string(strings.size()) +
             " entries but cats_int64s has " + std::to_string(ints.size()) +
             "; they must have the same length");
  }
  if (x.dtype() == DataType::String) {
    lookup<std::string, int64_t>(ctx, x, strings, ints, ctx.attr_int("default_int64", -1),
                                 DataType::Int64, true);
  } else {
    lookup<int64_t, std::string>(ctx, x, ints, strings,
                                 ctx.attr_string("default_string", "_Unused"), DataType::String,
                                 true);
  }
}

// OneHotEncoder: Y[..., j] = 1 where X[...] is category j. Numeric inputs
// are truncated to int64 and matched against cats_int64s.
void one_hot_encoder(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  ml::require_type(
      ctx, "X", x,
      {DataType::String, DataType::Int64, DataType::Int32, DataType::Float, DataType::Double});
  bool has_ints = ctx.has_attr("cats_int64s");
  bool has_strings = ctx.has_attr("cats_strings");
  if (has_ints == has_strings) {
    ctx.fail("exactly one of cats_int64s and cats_strings must be given");
  }
  bool is_string = x.dtype() == DataType::String;
  if (is_string != has_strings) {
    ctx.fail("X is " + type_name(x.dtype()) + " but the categories are " +
             (has_strings ? "cats_strings" : "cats_int64s") + "; string inputs need cats_strings" +
             ", numeric inputs cats_int64s");
  }
  bool zeros = ctx.attr_int("zeros", 1) != 0;
  int64_t n = has_ints ? int64_t(ctx.attr_ints("cats_int64s").size())
                       : int64_t(ctx.attr_strings("cats_strings").size());
  Dims od = x.dims();
  od.push_back(n);
  Tensor& y = ctx.alloc_output(0, DataType::Float, od);
  float* out = y.mutable_data<float>();
  auto unknown = [&](const std::string& v) {
    if (!zeros) {
      ctx.fail("X has the value " + v +
               ", which is not a category; with zeros=0 every value must be one (set zeros=1 "
               "to encode unknown values as all zeros)");
    }
  };
  if (is_string) {
    auto cats = ctx.attr_strings("cats_strings");
    std::unordered_map<std::string, int64_t> index;
    for (size_t j = 0; j < cats.size(); ++j) index.emplace(cats[j], int64_t(j));
    for (int64_t i = 0; i < x.numel(); ++i) {
      auto it = index.find(x.strings()[size_t(i)]);
      if (it == index.end()) {
        unknown("\"" + x.strings()[size_t(i)] + "\"");
      } else {
        out[i * n + it->second] = 1.0f;
      }
    }
    return;
  }
  auto cats = ctx.attr_ints("cats_int64s");
  std::unordered_map<int64_t, int64_t> index;
  for (size_t j = 0; j < cats.size(); ++j) index.emplace(cats[j], int64_t(j));
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t v;
    switch (x.dtype()) {
      case DataType::Int64:
        v = x.data<int64_t>()[i];
        break;
      case DataType::Int32:
        v = x.data<int32_t>()[i];
        break;
      default: {
        double d = x.get_as_double(i);
        // Out-of-range or NaN values cannot be a category (and casting
        // them would be undefined behaviour).
        if (!(d > -9.2e18 && d < 9.2e18)) {
          unknown(std::to_string(d));
          continue;
        }
        v = static_cast<int64_t>(d);
      }
    }
    auto it = index.find(v);
    if (it == index.end()) {
      unknown(std::to_string(v));
    } else {
      out[i * n + it->second] = 1.0f;
    }
  }
}

}  // namespace

namespace ml {
void register_encoder_kernels(KernelRegistry& r) {
  r.add(kMlDomain, "LabelEncoder", 1, label_encoder_v1);
  r.add(kMlDomain, "LabelEncoder", 2, label_encoder_v2);
  r.add(kMlDomain, "LabelEncoder", 4, label_encoder_v4);
  r.add(kMlDomain, "CategoryMapper", 1, category_mapper);
  r.add(kMlDomain, "OneHotEncoder", 1, one_hot_encoder);
}
}  // namespace ml

void register_ml_basic_kernels(KernelRegistry& r) {
  ml::register_encoder_kernels(r);
  ml::register_preprocess_kernels(r);
  ml::register_linear_kernels(r);
}

}  // namespace oxs::eval
