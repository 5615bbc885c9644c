// Harness (b), structure-aware: the bytes choose an op of ai.onnx or
// ai.onnx.ml (every since_version the schemas list; or the input's first
// line names it, "#op :Reshape-5", as every corpus file does), then, following its
// signature, the number of inputs and outputs, a dtype per type constraint
// (from the allowed ones), a shape (rank 0-4, dims 0-4) and values per
// input, and which attributes to set and to what. The one-node model runs
// on the evaluator, which must answer with outputs or an oxs::Error.
// Graph, sparse-tensor and type-proto attributes are never set (control
// flow ops then fail validation, which is fine: their kernels are fuzzed
// through the model harness).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "fuzz/byte_reader.h"
#include "fuzz/harness.h"
#include "oxs/eval/session.h"
#include "oxs/eval/tensor.h"
#include "oxs/ir/error.h"
#include "oxs/ir/model.h"
#include "oxs/schema/registry.h"

namespace oxs::fuzz {
namespace {

struct OpVersion {
  std::string domain;
  std::string op;
  int64_t version;
};

// Every (domain, op, since_version) of ai.onnx and ai.onnx.ml, sorted.
const std::vector<OpVersion>& all_ops() {
  static const std::vector<OpVersion> ops = [] {
    std::vector<std::tuple<std::string, std::string, int64_t>> found;
    for (const char* domain : {"", "ai.onnx.ml"}) {
      const int64_t latest = schema::latest_opset(domain).value_or(0);
      std::vector<std::string> names;
      for (int64_t v = 1; v <= latest; ++v) {
        for (std::string& n : schema::op_names(domain, v)) names.push_back(std::move(n));
      }
      std::sort(names.begin(), names.end());
      names.erase(std::unique(names.begin(), names.end()), names.end());
      for (const std::string& n : names) {
        for (int64_t v : schema::op_versions(domain, n)) found.emplace_back(domain, n, v);
      }
    }
    std::vector<OpVersion> out;
    for (auto& [d, n, v] : found) out.push_back({d, n, v});
    return out;
  }();
  return ops;
}

template <class T>
void fill_ints(eval::Tensor& t, ByteReader& r) {
  T* p = t.mutable_data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    // Mostly small (axes, indices, sizes), sometimes the type's extremes.
    switch (r.below(8)) {
      case 0:
        p[i] = std::numeric_limits<T>::max();
        break;
      case 1:
        p[i] = std::numeric_limits<T>::min();
        break;
      default:
        p[i] = static_cast<T>(r.in_range(-3, 6));
    }
  }
}

template <class T>
void fill_floats(eval::Tensor& t, ByteReader& r) {
  static const std::vector<double> values = {0.0,  1.0,  -1.0, 0.5,   2.0, -2.5,     3.0,
                                             1e30, -0.0, 1e-8, 100.0, NAN, INFINITY, -INFINITY};
  T* p = t.mutable_data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(r.pick(values));
}

void fill_bits16(eval::Tensor& t, ByteReader& r) {
  static const std::vector<uint16_t> half = {0x0000, 0x3c00, 0xbc00, 0x4000, 0x7e00, 0x7c00};
  auto* p = static_cast<uint16_t*>(t.mutable_raw());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = r.pick(half);
}

eval::Tensor random_tensor(ir::DataType dtype, ByteReader& r) {
  eval::Dims dims(r.below(5));
  for (auto& d : dims) d = r.in_range(0, 4);
  eval::Tensor t(dtype, dims);
  using D = ir::DataType;
  switch (dtype) {
    case D::Float:
      fill_floats<float>(t, r);
      break;
    case D::Double:
      fill_floats<double>(t, r);
      break;
    case D::Int8:
      fill_ints<int8_t>(t, r);
      break;
    case D::Int16:
      fill_ints<int16_t>(t, r);
      break;
    case D::Int32:
      fill_ints<int32_t>(t, r);
      break;
    case D::Int64:
      fill_ints<int64_t>(t, r);
      break;
    case D::Uint8:
      fill_ints<uint8_t>(t, r);
      break;
    case D::Uint16:
      fill_ints<uint16_t>(t, r);
      break;
    case D::Uint32:
      fill_ints<uint32_t>(t, r);
      break;
    case D::Uint64:
      fill_ints<uint64_t>(t, r);
      break;
    case D::Bool: {
      auto* p = static_cast<uint8_t*>(t.mutable_raw());
      for (int64_t i = 0; i < t.numel(); ++i) p[i] = r.flag();
      break;
    }
    case D::Float16:
    case D::BFloat16:
      fill_bits16(t, r);
      break;
    case D::String: {
      static const std::vector<std::string> words = {"", "a", "abc", "1", "hello world", "é"};
      for (auto& s : t.mutable_strings()) s = r.pick(words);
      break;
    }
    default:
      break;  // complex: zeros
  }
  return t;
}

ir::Attr random_attr(const schema::AttrParam& p, ByteReader& r) {
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
  switch (p.type) {
    case ir::AttrType::Int:
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
      static const std::vector<ir::DataType> types = {ir::DataType::Float, ir::DataType::Int64,
                                                      ir::DataType::Int32, ir::DataType::Bool};
      eval::Tensor t = random_tensor(r.pick(types), r);
      return ir::Attr::of_tensor(p.name, std::make_shared<ir::Tensor>(t.to_ir()));
    }
    default:
      return ir::Attr{};  // graphs, sparse tensors, type protos: not set
  }
}

// A dtype for each type constraint, chosen among its tensor types.
std::map<std::string, ir::DataType> choose_types(const schema::OpSignature& sig, ByteReader& r) {
  std::map<std::string, ir::DataType> out;
  for (const schema::TypeConstraint& c : sig.type_constraints) {
    std::vector<ir::DataType> tensors;
    for (const ir::Type& t : c.allowed_types) {
      if (t.is_tensor()) tensors.push_back(t.elem_type());
    }
    if (!tensors.empty()) out[c.name] = r.pick(tensors);
  }
  return out;
}

// The dtype of a formal parameter: its constraint's choice, or the type
// it names ("tensor(int64)"); nullopt for sequences and maps.
std::optional<ir::DataType> param_dtype(const schema::FormalParam& p,
                                        const std::map<std::string, ir::DataType>& chosen) {
  if (auto it = chosen.find(p.type_constraint); it != chosen.end()) return it->second;
  const std::string& s = p.type_constraint;
  if (s.rfind("tensor(", 0) == 0 && s.back() == ')') {
    return ir::parse_dtype(std::string_view(s).substr(7, s.size() - 8));
  }
  return std::nullopt;
}

}  // namespace

// "#op DOMAIN:OP-VERSION\n" at the start of an input names its op, so the
// corpus keeps meaning the same case when the op table grows (an index into
// the table does not: every op added shifts the ones after it). The choice
// bytes follow the line. `pos` is set past it.
std::optional<OpVersion> named_op(const uint8_t* data, size_t size, size_t& pos) {
  const std::string_view text(reinterpret_cast<const char*>(data), std::min<size_t>(size, 200));
  if (text.substr(0, 4) != "#op ") return std::nullopt;
  const size_t end = text.find('\n'), colon = text.find(':'), dash = text.rfind('-', end);
  if (end == std::string_view::npos || colon > end || dash == std::string_view::npos ||
      dash < colon || dash + 1 >= end) {
    return std::nullopt;
  }
  int64_t version = 0;
  for (size_t i = dash + 1; i < end; ++i) {
    if (text[i] < '0' || text[i] > '9' || version > 1000) return std::nullopt;
    version = version * 10 + (text[i] - '0');
  }
  pos = end + 1;
  return OpVersion{std::string(text.substr(4, colon - 4)),
                   std::string(text.substr(colon + 1, dash - colon - 1)), version};
}

void build_and_run(const uint8_t* data, size_t size) {
  const std::vector<OpVersion>& ops = all_ops();
  if (ops.empty()) return;
  size_t pos = 0;
  std::optional<OpVersion> named = named_op(data, size, pos);
  if (!named && size >= 4 && std::string_view(reinterpret_cast<const char*>(data), 4) == "#op ") {
    return;  // a mangled op line: no case
  }
  ByteReader r(data + pos, size - pos);
  const OpVersion& which = named ? *named : ops[r.below(ops.size())];
  const schema::OpSignature* sig = schema::lookup(which.domain, which.op, which.version);
  if (!sig) return;
  // Hostile sizes must meet the evaluator's limit, not exhaust the machine.
  eval::set_allocation_limit(int64_t{64} << 20);

  ir::Model model;
  model.ir_version = 8;
  model.opset_imports = {{which.domain, which.version}};
  if (!which.domain.empty()) model.opset_imports.push_back({"", 17});
  ir::Graph& g = *model.graph;
  g.set_name("fuzz");
  const auto chosen = choose_types(*sig, r);
  std::map<std::string, eval::Value> feeds;
  std::vector<ir::Value*> inputs;
  for (size_t i = 0; i < sig->inputs.size(); ++i) {
    const schema::FormalParam& p = sig->inputs[i];
    size_t count = 1;
    if (p.option == schema::ParamOption::Optional) count = r.flag() ? 1 : 0;
    if (p.option == schema::ParamOption::Variadic) count = size_t(p.min_arity) + r.below(3);
    for (size_t k = 0; k < count; ++k) {
      std::optional<ir::DataType> dtype = param_dtype(p, chosen);
      if (!dtype) return;  // a sequence or map input: not generated here
      const std::string name = "in" + std::to_string(inputs.size());
      eval::Tensor t = random_tensor(*dtype, r);
      ir::Value* v = g.add_input(name, ir::Type::tensor(*dtype));
      inputs.push_back(v);
      feeds[name] = eval::Value(std::move(t));
    }
    if (count == 0 && i + 1 < sig->inputs.size()) inputs.push_back(nullptr);  // skipped optional
  }
  while (!inputs.empty() && !inputs.back()) inputs.pop_back();
  size_t outputs = size_t(std::max(sig->min_output, 1));
  if (sig->max_output > sig->min_output) outputs += r.below(size_t(std::min(sig->max_output, 4)));
  ir::Node* node = g.create_node(which.op, inputs, outputs, which.domain);
  for (const schema::AttrParam& p : sig->attributes) {
    if (!p.required && !r.flag()) continue;
    ir::Attr a = random_attr(p, r);
    if (a.type != ir::AttrType::Undefined) node->set_attr(std::move(a));
  }
  for (size_t i = 0; i < node->num_outputs(); ++i) g.add_output(node->output(i));

  // OXS_FUZZ_VERBOSE=1 says which case each input became (for triage).
  static const bool verbose = std::getenv("OXS_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::fprintf(stderr, "single_op: %s%s%s-%lld, %zu inputs, %zu attributes\n",
                 which.domain.c_str(), which.domain.empty() ? "" : ".", which.op.c_str(),
                 static_cast<long long>(which.version), inputs.size(), node->attrs().size());
  }
  try {
    eval::Session session(model);
    (void)session.run(feeds);
    if (verbose) std::fprintf(stderr, "single_op: ran\n");
  } catch (const Error& e) {
    if (verbose) std::fprintf(stderr, "single_op: oxs::Error: %s\n", e.what());
  }
}

// A type the evaluator cannot hold (int4, float8 inputs since the table knows
// ONNX 1.23) is refused with an oxs::Error while the inputs are made: an
// expected outcome, like any other error.
void single_op(const uint8_t* data, size_t size) {
  try {
    build_and_run(data, size);
  } catch (const Error&) {
  }
}

}  // namespace oxs::fuzz
