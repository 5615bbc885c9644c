#include "oxs/ir/printer.h"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <functional>

#include "oxs/ir/printable.h"

namespace oxs::ir {
namespace {

bool is_plain_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '/' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Shortest text that reads back as the same number, always with a '.' or an
// exponent so that floats never look like ints.
template <class F>
std::string number(F v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";  // 'n': inf, nan
  return s;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      exp = 127 - 15 + 1;
      while (!(mant & 0x400u)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
    }
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);  // raw data may be unaligned
  return v;
}

std::string element(DataType t, const std::byte* p) {
  switch (t) {
    case DataType::Float:
      return number(load<float>(p));
    case DataType::Double:
      return number(load<double>(p));
    case DataType::Float16:
      return number(half_to_float(load<uint16_t>(p)));
    case DataType::BFloat16: {
      uint32_t bits = static_cast<uint32_t>(load<uint16_t>(p)) << 16;
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return number(f);
    }
    case DataType::Int8:
      return std::to_string(load<int8_t>(p));
    case DataType::Int16:
      return std::to_string(load<int16_t>(p));
    case DataType::Int32:
      return std::to_string(load<int32_t>(p));
    case DataType::Int64:
      return std::to_string(load<int64_t>(p));
    case DataType::Uint8:
      return std::to_string(load<uint8_t>(p));
    case DataType::Uint16:
      return std::to_string(load<uint16_t>(p));
    case DataType::Uint32:
      return std::to_string(load<uint32_t>(p));
    case DataType::Uint64:
      return std::to_string(load<uint64_t>(p));
    case DataType::Bool:
      return load<uint8_t>(p) ? "true" : "false";
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float8E8M0:
      return number(low_precision_to_float(t, load<uint8_t>(p)));
    default:
      return "?";
  }
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

std::string values_text(const Tensor& t, const PrintOptions& o) {
  const int64_t numel = t.numel();
  if (numel < 0) return "<bad dims>";
  const size_t n = static_cast<size_t>(numel);
  const size_t shown = n <= o.max_elements ? n : o.max_elements;
  std::string out = "[";
  if (t.dtype() == DataType::String) {
    if (t.strings.size() < shown) return "<" + std::to_string(t.strings.size()) + " strings>";
    for (size_t i = 0; i < shown; ++i) {
      if (i) out += ", ";
      out += quoted(t.strings[i]);
    }
  } else {
    const size_t size = element_size(t.dtype());
    if (size == 0 || t.dtype() == DataType::Complex64 || t.dtype() == DataType::Complex128) {
      return "<" + std::to_string(t.stored_size()) + " bytes>";
    }
    // Only data already in memory: external/mapped bytes are not read here.
    const auto& storage = t.storage();
    if (!storage) return n == 0 ? "[]" : "<no data>";
    if (storage->kind() == Storage::Kind::Lazy || storage->kind() == Storage::Kind::Mapped) {
      return "<" + std::to_string(storage->size()) + " bytes, not loaded>";
    }
    auto bytes = storage->bytes();
    if (bytes.size() < shown * size) return "<" + std::to_string(bytes.size()) + " bytes>";
    for (size_t i = 0; i < shown; ++i) {
      if (i) out += ", ";
      out += element(t.dtype(), bytes.data() + i * size);
    }
  }
  if (shown < n) out += ", ... (" + std::to_string(n) + " values)";
  return out + "]";
}

std::string list_of(size_t count, size_t limit, const std::function<std::string(size_t)>& item) {
  std::string out = "[";
  const size_t shown = count <= limit ? count : limit;
  for (size_t i = 0; i < shown; ++i) {
    if (i) out += ", ";
    out += item(i);
  }
  if (shown < count) out += ", ... (" + std::to_string(count) + " items)";
  return out + "]";
}

std::string attr_value(const Attr& a, const PrintOptions& o) {
  if (a.is_reference()) return "@" + a.ref_attr_name;
  const size_t limit = o.max_elements * 4;
  switch (a.type) {
    case AttrType::Float:
      return number(a.f);
    case AttrType::Int:
      return std::to_string(a.i);
    case AttrType::String:
      return quoted(a.s);
    case AttrType::Tensor:
      return a.t ? "tensor " + tensor_summary(*a.t, o) : "tensor <null>";
    case AttrType::Graph:
      return "graph";
    case AttrType::Floats:
      return list_of(a.floats.size(), limit, [&](size_t i) { return number(a.floats[i]); });
    case AttrType::Ints:
      return list_of(a.ints.size(), limit, [&](size_t i) { return std::to_string(a.ints[i]); });
    case AttrType::Strings:
      return list_of(a.strings.size(), limit, [&](size_t i) { return quoted(a.strings[i]); });
    case AttrType::Tensors:
      return list_of(a.tensors.size(), o.max_elements, [&](size_t i) {
        return a.tensors[i] ? tensor_summary(*a.tensors[i], o) : std::string("<null>");
      });
    case AttrType::Graphs:
      return "graphs";
    case AttrType::SparseTensor:
      return a.sparse_tensor
                 ? "sparse " + std::string(dtype_name(a.sparse_tensor->values.dtype())) +
                       dims_text(a.sparse_tensor->dims)
                 : "sparse <null>";
    case AttrType::SparseTensors:
      return std::to_string(a.sparse_tensors.size()) + " sparse tensors";
    case AttrType::TypeProto:
      return a.tp.to_string();
    case AttrType::TypeProtos:
      return list_of(a.type_protos.size(), limit,
                     [&](size_t i) { return a.type_protos[i].to_string(); });
    case AttrType::Undefined:
      break;
  }
  return "<undefined>";
}

std::string name_ref(const std::string& name) {
  return "%" + (is_plain_name(name) ? name : quoted(name));
}

std::string typed(const Value* v) {
  std::string out = value_ref(v);
  if (v && !v->type().is_none()) out += ": " + v->type().to_string();
  return out;
}

std::string op_name(const Node& n) {
  return n.domain().empty() || n.domain() == "ai.onnx" ? n.op_type()
                                                       : n.domain() + "." + n.op_type();
}

class Printer {
 public:
  explicit Printer(const PrintOptions& o) : o_(o) {}

  void graph(const Graph& g, const std::string& label, int depth) {
    line(depth, label + " " + quoted(g.name()) + " {");
    doc(g.doc_string, depth + 1);
    for (const Value* in : g.inputs()) {
      std::string text = "input " + typed(in);
      if (in->is_initializer() && in->const_value()) {
        text += " = " + values_text(*in->const_value(), o_) + "  # initialized";
      }
      line(depth + 1, text);
    }
    for (const Value* init : g.initializers()) {
      if (init->is_graph_input()) continue;  // shown with the inputs
      std::string text = "init " + value_ref(init);
      if (init->const_value()) {
        text += ": " + tensor_summary(*init->const_value(), o_);
      } else if (!init->type().is_none()) {
        text += ": " + init->type().to_string();
      }
      line(depth + 1, text);
    }
    for (const auto& sparse : g.sparse_initializers) {
      if (!sparse) continue;
      line(depth + 1, "sparse_init " + name_ref(sparse->values.name) + ": " +
                          std::string(dtype_name(sparse->values.dtype())) +
                          dims_text(sparse->dims));
    }
    for (const Node* n : g.nodes()) node(*n, depth + 1);
    for (const Value* out : g.outputs()) line(depth + 1, "output " + typed(out));
    line(depth, "}");
  }

  void node(const Node& n, int depth) {
    doc(n.doc_string, depth);
    line(depth, print_node_line(n, o_));
    for (const Attr& a : n.attrs()) {
      if (a.is_reference()) continue;
      if (a.type == AttrType::Graph && a.g) graph(*a.g, a.name + ": graph", depth + 2);
      if (a.type == AttrType::Graphs) {
        for (size_t i = 0; i < a.graphs.size(); ++i) {
          if (a.graphs[i]) {
            graph(*a.graphs[i], a.name + "[" + std::to_string(i) + "]: graph", depth + 2);
          }
        }
      }
    }
  }

  void function(const Function& f, int depth) {
    std::string head = "function " + (f.domain.empty() ? "" : f.domain + ".") + f.name;
    if (!f.overload.empty()) head += " overload " + quoted(f.overload);
    if (!f.attributes.empty()) {
      head += " <";
      for (size_t i = 0; i < f.attributes.size(); ++i) head += (i ? ", " : "") + f.attributes[i];
      head += ">";
    }
    if (!f.opset_imports.empty()) head += " " + opsets(f.opset_imports);
    line(depth, head + " {");
    doc(f.doc_string, depth + 1);
    if (f.body) {
      for (const Value* in : f.body->inputs()) line(depth + 1, "input " + typed(in));
      for (const Node* n : f.body->nodes()) node(*n, depth + 1);
      for (const Value* out : f.body->outputs()) line(depth + 1, "output " + typed(out));
    }
    line(depth, "}");
  }

  static std::string opsets(const std::vector<OpsetImport>& imports) {
    std::string out = "opsets {";
    for (size_t i = 0; i < imports.size(); ++i) {
      if (i) out += ", ";
      out += (imports[i].domain.empty() ? std::string("ai.onnx") : imports[i].domain) + ": " +
             std::to_string(imports[i].version);
    }
    return out + "}";
  }

  void line(int depth, const std::string& text) {
    out_.append(static_cast<size_t>(depth) * 2, ' ');
    out_ += printable(text);  // names, domains and docs are the model's
    out_ += '\n';
  }

  void doc(const std::string& text, int depth) {
    if (!o_.doc_strings || text.empty()) return;
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      line(depth, "# " + text.substr(start, end - start));
      start = end + 1;
    }
  }

  std::string take() { return std::move(out_); }

 private:
  const PrintOptions& o_;
  std::string out_;
};

}  // namespace

std::string value_ref(const Value* v) {
  if (!v) return "\"\"";  // an omitted optional input/output
  return name_ref(v->name());
}

std::string attr_value_text(const Attr& a, const PrintOptions& o) {
  return attr_value(a, o);
}

std::string tensor_summary(const Tensor& t, const PrintOptions& o) {
  std::string out = std::string(dtype_name(t.dtype())) + dims_text(t.dims()) + " = ";
  if (t.encoding == Tensor::Encoding::External) {
    out += "<external " + quoted(t.external.location);
    if (t.external.offset) out += " offset " + std::to_string(t.external.offset);
    if (t.external.length >= 0) out += " length " + std::to_string(t.external.length);
    return out + ">";
  }
  return out + values_text(t, o);
}

std::string print_node_line(const Node& n, const PrintOptions& o) {
  std::string out;
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    if (i) out += ", ";
    out += typed(n.output(i));
  }
  if (n.num_outputs()) out += " = ";
  out += op_name(n) + "(";
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    if (i) out += ", ";
    out += value_ref(n.input(i));
  }
  out += ")";
  std::string attrs;
  for (const Attr& a : n.attrs()) {
    if (!a.is_reference() && (a.type == AttrType::Graph || a.type == AttrType::Graphs)) continue;
    if (!attrs.empty()) attrs += ", ";
    attrs += a.name + "=" + attr_value(a, o);
  }
  if (!attrs.empty()) out += " {" + attrs + "}";
  if (o.node_names && !n.name().empty()) out += "  # " + n.name();
  return printable(out);
}

std::string print(const Graph& g, const PrintOptions& o) {
  Printer p(o);
  p.graph(g, "graph", 0);
  return p.take();
}

std::string print(const Function& f, const PrintOptions& o) {
  Printer p(o);
  p.function(f, 0);
  return p.take();
}

std::string print(const Model& m, const PrintOptions& o) {
  Printer p(o);
  std::string head =
      "ir_version " + std::to_string(m.ir_version) + ", " + Printer::opsets(m.opset_imports);
  if (!m.producer_name.empty() || !m.producer_version.empty()) {
    head += ", producer " + quoted(m.producer_name);
    if (!m.producer_version.empty()) head += " " + quoted(m.producer_version);
  }
  if (!m.domain.empty()) head += ", domain " + quoted(m.domain);
  if (m.has_model_version || m.model_version) {
    head += ", model_version " + std::to_string(m.model_version);
  }
  p.line(0, head);
  for (const auto& [key, value] : m.metadata_props)
    p.line(0, "metadata " + quoted(key) + " = " + quoted(value));
  p.doc(m.doc_string, 0);
  if (m.graph) p.graph(*m.graph, "graph", 0);
  for (const auto& f : m.functions) {
    if (f) p.function(*f, 0);
  }
  if (!m.training_info.empty()) {
    p.line(0, "# " + std::to_string(m.training_info.size()) + " training_info entries not shown");
  }
  return p.take();
}

}  // namespace oxs::ir
