#include "oxs/eval/summary.h"

#include <cmath>
#include <sstream>

#include "oxs/eval/dispatch.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/ir/error.h"

namespace oxs::eval {

TensorStats tensor_stats(const Tensor& t) {
  TensorStats s;
  if (t.dtype() == DataType::String || t.numel() == 0) return s;
  double sum = 0;
  bool first = true;
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = t.get_as_double(i);
    if (std::isnan(v)) {
      ++s.nan_count;
      continue;
    }
    if (std::isinf(v)) {
      s.min = first ? v : std::min(s.min, v);
      s.max = first ? v : std::max(s.max, v);
      first = false;
      continue;
    }
    s.min = first ? v : std::min(s.min, v);
    s.max = first ? v : std::max(s.max, v);
    first = false;
    sum += v;
    ++s.finite_count;
  }
  s.mean = s.finite_count ? sum / double(s.finite_count) : 0;
  return s;
}

std::string first_values(const Tensor& t, size_t n) {
  std::ostringstream os;
  os.precision(6);
  os << "[";
  size_t count = std::min<size_t>(n, size_t(t.numel()));
  for (size_t i = 0; i < count; ++i) {
    if (i) os << ", ";
    if (t.dtype() == DataType::String) {
      os << '"' << t.strings()[i] << '"';
    } else if (t.dtype() == DataType::Bool) {
      os << (t.data<bool>()[i] ? "true" : "false");
    } else {
      os << t.get_as_double(int64_t(i));
    }
  }
  if (size_t(t.numel()) > count) os << ", ...";
  os << "]";
  return os.str();
}

std::string summarize(const Value& v, size_t n_values) {
  switch (v.kind()) {
    case Value::Kind::None:
      return "none";
    case Value::Kind::Tensor: {
      const Tensor& t = v.tensor();
      std::ostringstream os;
      os.precision(6);
      os << ir::dtype_name(t.dtype()) << dims_to_string(t.dims());
      if (t.dtype() != DataType::String && t.numel() > 0) {
        TensorStats s = tensor_stats(t);
        os << " min=" << s.min << " max=" << s.max << " mean=" << s.mean;
        if (ir::is_floating(t.dtype())) os << " nan=" << s.nan_count;
      }
      os << " " << first_values(t, n_values);
      return os.str();
    }
    case Value::Kind::Sequence: {
      // One line per element, as many as values are shown per tensor.
      std::string s = "seq[" + std::to_string(v.items().size()) + "]";
      if (v.items().empty() && !v.elem_type().is_none()) s += " of " + v.elem_type().to_string();
      size_t shown = std::max<size_t>(n_values, 1);
      for (size_t i = 0; i < v.items().size() && i < shown; ++i) {
        std::string item = summarize(v.items()[i], n_values);
        for (size_t p = item.find('\n'); p != std::string::npos; p = item.find('\n', p + 1)) {
          item.insert(p + 1, "  ");  // nested sequences indent further
        }
        s += "\n    [" + std::to_string(i) + "] " + item;
      }
      if (v.items().size() > shown) {
        s += "\n    ... (" + std::to_string(v.items().size() - shown) + " more)";
      }
      return s;
    }
    case Value::Kind::Optional:
      return v.has_element() ? "optional(" + summarize(v.element(), n_values) + ")"
                             : "none (an empty optional)";
    case Value::Kind::Map:
      return v.describe() + " " + map_entries(v, n_values);
  }
  return "?";
}

std::string map_entries(const Value& v, size_t n) {
  const Tensor& k = v.map_keys();
  const Tensor& vals = v.map_values();
  std::ostringstream os;
  os.precision(6);
  os << "{";
  size_t count = std::min<size_t>(n, size_t(k.numel()));
  for (size_t i = 0; i < count; ++i) {
    if (i) os << ", ";
    if (k.dtype() == DataType::String) {
      os << '"' << k.strings()[i] << '"';
    } else {
      os << k.data<int64_t>()[i];
    }
    os << ": ";
    if (vals.dtype() == DataType::String) {
      os << '"' << vals.strings()[i] << '"';
    } else {
      os << vals.get_as_double(int64_t(i));
    }
  }
  if (size_t(k.numel()) > count) os << ", ...";
  os << "}";
  return os.str();
}

Value random_value(const std::string& input, const ir::Type& type,
                   const std::map<std::string, int64_t>& dims, std::mt19937_64& rng,
                   int64_t seq_len) {
  switch (type.kind()) {
    case ir::Type::Kind::Sequence: {
      if (!type.element() || type.element()->is_none()) {
        throw Error(ErrorKind::Input, "input '" + input +
                                          "' is a sequence of unknown element type; give it "
                                          "with --input");
      }
      ir::Type elem = *type.element();
      // Sequence elements often have no declared shape; a short vector will do.
      if (elem.is_tensor() && !elem.shape()) elem.shape() = ir::Shape{3};
      std::vector<Value> items;
      for (int64_t i = 0; i < seq_len; ++i) {
        items.push_back(random_value(input, elem, dims, rng, seq_len));
      }
      return Value::sequence(std::move(items), *type.element());
    }
    case ir::Type::Kind::Optional:
      if (!type.element() || type.element()->is_none()) {
        throw Error(ErrorKind::Input, "input '" + input +
                                          "' is an optional of unknown element type; give it "
                                          "with --input NAME=FILE or NAME=none");
      }
      return Value::optional(random_value(input, *type.element(), dims, rng, seq_len),
                             *type.element());
    case ir::Type::Kind::Map:
      throw Error(ErrorKind::Usage, "input '" + input + "' is a map (" + type.to_string() +
                                        "); --random does not make maps; give it with --input " +
                                        input + "=FILE.json or a MapProto .pb");
    default:
      return random_tensor(input, type, dims, rng);
  }
}

Tensor random_tensor(const std::string& input, const ir::Type& type,
                     const std::map<std::string, int64_t>& dims, std::mt19937_64& rng) {
  if (!type.is_tensor()) {
    throw Error(ErrorKind::Unsupported, "input '" + input + "' has type " + type.to_string() +
                                            "; --random cannot make it; give it with --input");
  }
  DataType dt = type.elem_type();
  if (dt == DataType::Undefined) {
    throw Error(ErrorKind::Input,
                "input '" + input + "' has no element type; give it with --input");
  }
  if (!type.shape()) {
    throw Error(ErrorKind::Input,
                "input '" + input + "' has no declared rank; give it with --input");
  }
  Dims d;
  for (const ir::Dim& dim : type.shape()->dims()) {
    if (dim.is_known()) {
      d.push_back(dim.value());
    } else if (dim.is_symbolic()) {
      auto it = dims.find(dim.symbol());
      if (it == dims.end()) {
        throw Error(ErrorKind::Usage, "input '" + input + "' has symbolic dimension '" +
                                          dim.symbol() + "'; give its size (oxs run: --dim " +
                                          dim.symbol() + "=SIZE)");
      }
      d.push_back(it->second);
    } else {
      d.push_back(1);
    }
  }
  Tensor t(dt, d);
  if (dt == DataType::String) {
    for (size_t i = 0; i < t.strings().size(); ++i)
      t.mutable_strings()[i] = "s" + std::to_string(rng() % 100);
    return t;
  }
  Tensor dbl(DataType::Double, d);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int64_t i = 0; i < dbl.numel(); ++i) {
    double v;
    if (ir::is_floating(dt)) {
      v = normal(rng);
    } else if (dt == DataType::Bool) {
      v = double(rng() & 1);
    } else {
      v = double(rng() % 10);
    }
    dbl.mutable_data<double>()[i] = v;
  }
  return cast_tensor(dbl, dt);
}

std::string file_safe_name(const std::string& name) {
  std::string s;
  for (char c : name) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    s += ok ? c : '_';
  }
  if (s.empty() || s == "." || s == "..") s = "_" + s;
  return s;
}

}  // namespace oxs::eval
