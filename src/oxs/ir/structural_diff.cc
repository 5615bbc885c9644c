#include "oxs/ir/structural_diff.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "oxs/ir/topo_sort.h"

namespace oxs::ir {

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}
uint64_t mix_str(uint64_t h, const std::string& s) {
  return mix(h, std::hash<std::string>()(s));
}

bool close(double a, double b, const DiffOptions& o) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (o.rtol == 0 && o.atol == 0) return a == b;
  return std::fabs(a - b) <= o.atol + o.rtol * std::fabs(b);
}

bool tolerant(const DiffOptions& o) {
  return o.rtol != 0 || o.atol != 0;
}

// A Constant node's value as a tensor (all value_* forms), or null.
std::shared_ptr<Tensor> constant_tensor(const Node* n) {
  if (n->op_type() != "Constant" || !(n->domain().empty() || n->domain() == "ai.onnx") ||
      n->attrs().size() != 1 || n->attrs()[0].is_reference()) {
    return nullptr;
  }
  const Attr& a = n->attrs()[0];
  if (a.name == "value" && a.t) return a.t;
  if (a.name == "value_float") return std::make_shared<Tensor>(Tensor::scalar_float(a.f));
  if (a.name == "value_int") return std::make_shared<Tensor>(Tensor::scalar_int64(a.i));
  if (a.name == "value_floats") {
    return std::make_shared<Tensor>(
        Tensor::from<float>(DataType::Float, {static_cast<int64_t>(a.floats.size())}, a.floats));
  }
  if (a.name == "value_ints") {
    return std::make_shared<Tensor>(
        Tensor::from<int64_t>(DataType::Int64, {static_cast<int64_t>(a.ints.size())}, a.ints));
  }
  return nullptr;
}

double half_to_double(uint16_t h) {
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  double v = exp == 0    ? std::ldexp(mant, -24)
             : exp == 31 ? (mant ? std::nan("") : INFINITY)
                         : std::ldexp(mant + 1024, exp - 25);
  return (h & 0x8000) ? -v : v;
}

// Element i of a numeric or bool tensor as double; nullopt for other types.
std::optional<double> element_as_double(const Tensor& t, size_t i) {
  auto b = t.bytes();
  auto read = [&](auto tag) {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
    return v;
  };
  switch (t.dtype()) {
    case DataType::Float:
      return read(float{});
    case DataType::Double:
      return read(double{});
    case DataType::Float16:
      return half_to_double(read(uint16_t{}));
    case DataType::BFloat16: {
      uint32_t bits = static_cast<uint32_t>(read(uint16_t{})) << 16;
      return static_cast<double>(std::bit_cast<float>(bits));
    }
    case DataType::Int8:
      return read(int8_t{});
    case DataType::Int16:
      return read(int16_t{});
    case DataType::Int32:
      return read(int32_t{});
    case DataType::Int64:
      return static_cast<double>(read(int64_t{}));
    case DataType::Uint8:
      return read(uint8_t{});
    case DataType::Uint16:
      return read(uint16_t{});
    case DataType::Uint32:
      return read(uint32_t{});
    case DataType::Uint64:
      return static_cast<double>(read(uint64_t{}));
    case DataType::Bool:
      return read(uint8_t{}) ? 1.0 : 0.0;
    default:
      return std::nullopt;
  }
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Compares every element of two tensors of one type and shape. Floats use
// the tolerance when there is one; everything else compares bit patterns (so
// 64-bit integers beyond 2^53 are not confused, and -0 differs from 0).
TensorDelta element_delta(const Tensor& a, const Tensor& b, const DiffOptions& o) {
  TensorDelta d;
  const bool strings = a.dtype() == DataType::String;
  const size_t esize = element_size(a.dtype());
  const size_t n = strings ? a.strings.size() : (esize ? a.bytes().size() / esize : 0);
  d.elements = static_cast<int64_t>(n);
  const bool is_float = is_floating(a.dtype());
  auto ab = a.bytes(), bb = b.bytes();
  for (size_t i = 0; i < n; ++i) {
    bool same = true;
    std::optional<double> x, y;
    if (strings) {
      same = a.strings[i] == b.strings[i];
    } else if (is_float && tolerant(o)) {
      x = element_as_double(a, i);
      y = element_as_double(b, i);
      same = !x || close(*x, *y, o);
    } else {  // bit patterns (zero tolerance: -0 and 0 differ, as in same_value)
      same = std::memcmp(ab.data() + i * esize, bb.data() + i * esize, esize) == 0;
      if (!same) x = element_as_double(a, i), y = element_as_double(b, i);
    }
    if (same) continue;
    ++d.differing;
    if (x && y && !std::isnan(*x) && !std::isnan(*y)) {
      const double diff = std::fabs(*x - *y);
      d.max_abs = std::max(d.max_abs, diff);
      d.max_rel = std::max(d.max_rel, *y == 0 ? (diff == 0 ? 0 : INFINITY) : diff / std::fabs(*y));
    }
    if (d.first_index >= 0) continue;
    d.first_index = static_cast<int64_t>(i);
    int64_t rest = d.first_index;
    d.first_index_nd.assign(a.dims().size(), 0);
    for (size_t k = a.dims().size(); k-- > 0;) {
      const int64_t dim = a.dims()[k];
      if (dim > 0) {
        d.first_index_nd[k] = rest % dim;
        rest /= dim;
      }
    }
    d.first_a = strings ? "\"" + a.strings[i] + "\"" : x ? number_text(*x) : "?";
    d.first_b = strings ? "\"" + b.strings[i] + "\"" : y ? number_text(*y) : "?";
  }
  return d;
}

bool tensors_equal(const Tensor& a, const Tensor& b, const DiffOptions& o, std::string* why,
                   std::optional<TensorDelta>* delta = nullptr) {
  if (a.dtype() != b.dtype()) {
    *why = "element types differ: " + std::string(dtype_name(a.dtype())) + " vs " +
           std::string(dtype_name(b.dtype()));
    return false;
  }
  if (a.dims() != b.dims()) {
    *why = "shapes differ: " + Shape::of(a.dims()).to_string() + " vs " +
           Shape::of(b.dims()).to_string();
    return false;
  }
  bool is_float = is_floating(a.dtype());
  if ((!is_float || !tolerant(o)) && a.same_value(b)) return true;
  if (a.dtype() != DataType::String && b.bytes().size() != a.bytes().size()) {
    *why = "tensor sizes differ";
    return false;
  }
  TensorDelta d = element_delta(a, b, o);
  if (d.differing == 0) {
    if (is_float && tolerant(o)) return true;
    *why = "tensor contents differ";  // same elements, other bytes (e.g. string encoding)
    return false;
  }
  std::string index;
  for (int64_t k : d.first_index_nd) index += (index.empty() ? "" : ",") + std::to_string(k);
  *why = std::to_string(d.differing) + " of " + std::to_string(d.elements) +
         " elements differ; first at [" + index + "]: " + d.first_a + " vs " + d.first_b;
  if (a.dtype() != DataType::String) {
    *why += "; max abs diff " + number_text(d.max_abs) + ", max rel diff " + number_text(d.max_rel);
  }
  if (delta) *delta = std::move(d);
  return false;
}

uint64_t hash_tensor(const Tensor& t, const DiffOptions& o) {
  uint64_t h = mix(0x7e05, static_cast<uint64_t>(t.dtype()));
  for (int64_t d : t.dims()) h = mix(h, static_cast<uint64_t>(d));
  bool is_float = t.dtype() == DataType::Float || t.dtype() == DataType::Double;
  if (!(is_float && tolerant(o))) h = mix(h, t.content_hash());
  return h;
}

// True when `b` says everything `a` says (and perhaps more): same kinds and
// element types, and each dim of `a` unknown, or equal in `b`.
bool refines(const Type& a, const Type& b) {
  if (a.kind() != b.kind() || a.elem_type() != b.elem_type()) return false;
  if ((a.element() == nullptr) != (b.element() == nullptr)) return false;
  if (a.element() && !refines(*a.element(), *b.element())) return false;
  if (!a.shape()) return true;
  if (!b.shape() || a.shape()->rank() != b.shape()->rank()) return false;
  for (size_t i = 0; i < a.shape()->rank(); ++i) {
    const Dim& x = (*a.shape())[i];
    const Dim& y = (*b.shape())[i];
    if (x.is_unknown()) continue;
    if (x.is_known() ? !(y.is_known() && y.value() == x.value()) : !(x == y || y.is_known())) {
      return false;
    }
  }
  return true;
}

// Trailing omitted inputs mean the same as no inputs there (ONNX IR spec).
size_t used_inputs(const Node* n) {
  size_t k = n->num_inputs();
  while (k > 0 && !n->input(k - 1)) --k;
  return k;
}

bool is_identity(const Node* n) {
  return n && n->op_type() == "Identity" && (n->domain().empty() || n->domain() == "ai.onnx") &&
         n->num_inputs() == 1 && n->input(0) && n->num_outputs() == 1;
}

std::string describe(const Value* v) {
  if (!v) return "an omitted input";
  if (Node* p = v->producer()) {
    return "output " + std::to_string(v->output_index()) + " of node '" + p->display_name() +
           "' (" + p->op_type() + ")";
  }
  if (v->is_graph_input()) return "graph input '" + v->name() + "'";
  if (v->is_initializer()) return "initializer '" + v->name() + "'";
  return "value '" + v->name() + "'";
}

std::string describe(const Node* n) {
  return "node '" + n->display_name() + "' (" + n->op_type() + ")";
}

class Differ {
 public:
  Differ(const DiffOptions& o, DiffResult& r) : o_(o), r_(r) {}

  // Hashes every value of `g` (and its subgraphs) into `side`.
  void hash_graph(const Graph& g, int side) {
    auto& h = hash_[side];
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      const Value* v = g.inputs()[i];
      uint64_t x = mix(0x1a7u, i);
      if (o_.compare_io_types && !g.owner()) x = mix_str(x, v->type().to_string());
      if (v->const_value()) x = mix(x, hash_tensor(*v->const_value(), o_));
      h[v] = x;
    }
    for (const Value* v : g.initializers()) {
      if (!v->is_graph_input()) h[v] = v->const_value() ? hash_tensor(*v->const_value(), o_) : 0;
    }
    for (const Node* n : topological_order(g)) {
      if (auto t = constant_tensor(n); t && n->num_outputs() == 1 && n->output(0)) {
        // Normalization: a Constant node is a value, like an initializer,
        // so it is not counted among the nodes.
        h[n->output(0)] = hash_tensor(*t, o_);
        continue;
      }
      if (o_.look_through_identity && is_identity(n)) {
        h[n->output(0)] = lookup(side, n->input(0));
        continue;
      }
      uint64_t x = mix_str(mix_str(0x40de, n->op_type()), canonical_domain(n->domain()));
      // Attribute order carries no meaning: combine their hashes by sum.
      uint64_t attrs = 0;
      for (const Attr& a : n->attrs()) attrs += hash_attr(a, side);
      x = mix(x, attrs);
      for (size_t i = 0; i < used_inputs(n); ++i) {
        const Value* in = n->input(i);
        x = mix(x, in ? lookup(side, in) : 0x0e11);
      }
      x = mix(x, n->num_outputs());
      node_hashes_[side].push_back(x);
      for (size_t i = 0; i < n->num_outputs(); ++i) {
        if (const Value* v = n->output(i)) h[v] = mix(x, i + 1);
      }
    }
  }

  uint64_t lookup(int side, const Value* v) {
    auto it = hash_[side].find(v);
    // A value defined nowhere visible: hash its name so that the same broken
    // reference on both sides still compares equal.
    return it == hash_[side].end() ? mix_str(0xdead, v->name()) : it->second;
  }

  // Compares graph outputs pairwise, walking down where they differ.
  void compare_graphs(const Graph& a, const Graph& b, const std::string& label) {
    const std::string outer = path_;
    if (!label.empty()) path_ = outer.empty() ? label : outer + " / " + label;
    compare_graphs_in_path(a, b, label);
    path_ = outer;
  }

  void compare_graphs_in_path(const Graph& a, const Graph& b, const std::string& label) {
    if (a.inputs().size() != b.inputs().size()) {
      add("count", label + " graph '" + a.name() + "'", label + " graph '" + b.name() + "'",
          "input counts differ: " + std::to_string(a.inputs().size()) + " vs " +
              std::to_string(b.inputs().size()));
    } else if (o_.compare_io_types && !a.owner()) {
      for (size_t i = 0; i < a.inputs().size(); ++i) {
        if (a.inputs()[i]->type() != b.inputs()[i]->type()) {
          add("io_type", describe(a.inputs()[i]), describe(b.inputs()[i]),
              "input " + std::to_string(i) + " types differ: " + a.inputs()[i]->type().to_string() +
                  " vs " + b.inputs()[i]->type().to_string());
        }
      }
    }
    if (a.outputs().size() != b.outputs().size()) {
      add("count", label + " graph '" + a.name() + "'", label + " graph '" + b.name() + "'",
          "output counts differ: " + std::to_string(a.outputs().size()) + " vs " +
              std::to_string(b.outputs().size()));
      return;
    }
    for (size_t i = 0; i < a.outputs().size(); ++i) {
      const Value* va = a.outputs()[i];
      const Value* vb = b.outputs()[i];
      bool types_match = va->type() == vb->type() ||
                         (o_.allow_refined_output_types && refines(va->type(), vb->type()));
      if (o_.compare_io_types && !a.owner() && !types_match) {
        add("io_type", "output " + std::to_string(i) + " '" + va->name() + "'",
            "output " + std::to_string(i) + " '" + vb->name() + "'",
            "output types differ: " + va->type().to_string() + " vs " + vb->type().to_string());
      }
      walk(va, vb);
    }
  }

  // Reports nodes present on one side only (e.g. dead code), by hash.
  void compare_node_multisets() {
    auto& x = node_hashes_[0];
    auto& y = node_hashes_[1];
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    std::vector<uint64_t> only_a, only_b;
    std::set_difference(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(only_a));
    std::set_difference(y.begin(), y.end(), x.begin(), x.end(), std::back_inserter(only_b));
    if (r_.differences.empty() && (!only_a.empty() || !only_b.empty()) && !tolerant(o_) &&
        o_.compare_dead_nodes) {
      add("dead_nodes", "first graph", "second graph",
          std::to_string(only_a.size()) + " node(s) only in the first graph and " +
              std::to_string(only_b.size()) +
              " only in the second (nodes that feed no output, or duplicated computations)");
    }
  }

  bool full() const { return r_.differences.size() >= o_.max_differences; }

  void add(const char* kind, std::string a, std::string b, std::string message,
           std::optional<TensorDelta> delta = std::nullopt) {
    if (full()) return;
    r_.differences.push_back(
        {std::move(a), std::move(b), std::move(message), kind, path_, std::move(delta)});
  }

  uint64_t hash_attr(const Attr& a, int side) {
    uint64_t x = mix_str(mix_str(0xa77, a.name), a.ref_attr_name);
    x = mix(x, static_cast<uint64_t>(a.type));
    bool exact = !tolerant(o_);
    if (exact) x = mix(x, std::bit_cast<uint32_t>(a.f));
    x = mix(x, static_cast<uint64_t>(a.i));
    x = mix_str(x, a.s);
    if (a.t) x = mix(x, hash_tensor(*a.t, o_));
    if (exact) {
      for (float f : a.floats) x = mix(x, std::bit_cast<uint32_t>(f));
    }
    x = mix(x, a.floats.size());
    for (int64_t i : a.ints) x = mix(x, static_cast<uint64_t>(i));
    for (const auto& s : a.strings) x = mix_str(x, s);
    for (const auto& t : a.tensors) x = mix(x, hash_tensor(*t, o_));
    x = mix_str(x, a.tp.to_string());
    auto sub = [&](const Graph& g) {
      hash_graph(g, side);
      uint64_t y = mix(0x5b, g.inputs().size());
      for (const Value* out : g.outputs()) y = mix(y, lookup(side, out));
      return y;
    };
    if (a.g) x = mix(x, sub(*a.g));
    for (const auto& g : a.graphs) x = mix(x, sub(*g));
    return x;
  }

  static std::string canonical_domain(const std::string& d) { return d == "ai.onnx" ? "" : d; }

  bool attrs_equal(const Attr& a, const Attr& b, std::string* why) {
    if (a.type != b.type || a.ref_attr_name != b.ref_attr_name) {
      *why = "attribute '" + a.name + "' differs in kind";
      return false;
    }
    if (!close(a.f, b.f, o_) || a.i != b.i || a.s != b.s || a.ints != b.ints ||
        a.strings != b.strings || a.floats.size() != b.floats.size() || a.tp != b.tp) {
      *why = "attribute '" + a.name + "' values differ";
      return false;
    }
    for (size_t i = 0; i < a.floats.size(); ++i) {
      if (!close(a.floats[i], b.floats[i], o_)) {
        *why = "attribute '" + a.name + "' values differ";
        return false;
      }
    }
    if ((a.t == nullptr) != (b.t == nullptr)) {
      *why = "attribute '" + a.name + "' differs";
      return false;
    }
    if (a.t && !tensors_equal(*a.t, *b.t, o_, why)) {
      *why = "attribute '" + a.name + "': " + *why;
      return false;
    }
    if (a.tensors.size() != b.tensors.size() || a.graphs.size() != b.graphs.size() ||
        (a.g == nullptr) != (b.g == nullptr)) {
      *why = "attribute '" + a.name + "' differs";
      return false;
    }
    for (size_t i = 0; i < a.tensors.size(); ++i) {
      if (!tensors_equal(*a.tensors[i], *b.tensors[i], o_, why)) return false;
    }
    return true;
  }

  // Iterative pairwise walk from (a, b) down to where they differ.
  void walk(const Value* a0, const Value* b0) {
    std::vector<std::pair<const Value*, const Value*>> stack{{a0, b0}};
    while (!stack.empty() && !full()) {
      auto [a, b] = stack.back();
      stack.pop_back();
      if (o_.look_through_identity) {
        while (a && is_identity(a->producer())) a = a->producer()->input(0);
        while (b && is_identity(b->producer())) b = b->producer()->input(0);
      }
      if (!visited_.insert({a, b}).second) continue;
      if (!a || !b) {
        if (a != b) add("source", describe(a), describe(b), "an input is omitted on one side only");
        continue;
      }
      uint64_t ha = lookup(0, a), hb = lookup(1, b);
      if (ha == hb && !tolerant(o_)) continue;
      const Node* na = a->producer();
      const Node* nb = b->producer();
      auto ta = na ? constant_tensor(na) : a->const_value();
      auto tb = nb ? constant_tensor(nb) : b->const_value();
      if (ta && tb && !(a->is_graph_input() || b->is_graph_input())) {
        std::string why;
        std::optional<TensorDelta> delta;
        if (!tensors_equal(*ta, *tb, o_, &why, &delta)) {
          add("constant", describe(a), describe(b), "constants differ: " + why, std::move(delta));
        }
        continue;
      }
      if (!na || !nb || (ta && !na) || (tb && !nb)) {
        if (na || nb || ha != hb) {
          std::string msg = "different sources";
          if (a->is_graph_input() && b->is_graph_input()) msg = "different graph inputs";
          add("source", describe(a), describe(b), msg);
        }
        continue;
      }
      if (na->op_type() != nb->op_type() ||
          canonical_domain(na->domain()) != canonical_domain(nb->domain())) {
        add("operator", describe(na), describe(nb),
            "operators differ: " + na->op_type() + " vs " + nb->op_type());
        // Differences upstream are differences too (a new op and new weights).
        if (used_inputs(na) == used_inputs(nb)) {
          for (size_t i = 0; i < used_inputs(na); ++i)
            stack.push_back({na->input(i), nb->input(i)});
        }
        continue;
      }
      if (a->output_index() != b->output_index()) {
        add("operator", describe(a), describe(b), "different outputs of the same operator");
        continue;
      }
      if (!compare_node_shape(na, nb)) continue;
      for (size_t i = 0; i < used_inputs(na); ++i) stack.push_back({na->input(i), nb->input(i)});
    }
  }

  // Attributes, arity and subgraphs of two nodes of the same op. Reports
  // every attribute that differs; true when the inputs can still be compared
  // pairwise (same arity).
  bool compare_node_shape(const Node* na, const Node* nb) {
    if (used_inputs(na) != used_inputs(nb) || na->num_outputs() != nb->num_outputs()) {
      add("count", describe(na), describe(nb), "input or output counts differ");
      return false;
    }
    std::map<std::string, const Attr*> attrs_b;
    for (const Attr& x : nb->attrs()) attrs_b[x.name] = &x;
    for (const Attr& x : na->attrs()) {
      auto it = attrs_b.find(x.name);
      std::string why;
      if (it == attrs_b.end()) {
        add("attribute", describe(na), describe(nb),
            "attribute '" + x.name + "' only in the first");
        continue;
      }
      const Attr& y = *it->second;
      attrs_b.erase(it);
      if (!attrs_equal(x, y, &why)) {
        add("attribute", describe(na), describe(nb), why);
        continue;
      }
      if (x.g) compare_graphs(*x.g, *y.g, "subgraph '" + x.name + "' of " + describe(na));
      for (size_t i = 0; i < x.graphs.size(); ++i) {
        compare_graphs(*x.graphs[i], *y.graphs[i], "subgraph of " + describe(na));
      }
    }
    for (const auto& [name, attr] : attrs_b) {
      add("attribute", describe(na), describe(nb), "attribute '" + name + "' only in the second");
    }
    return true;
  }

 private:
  struct PairHash {
    size_t operator()(const std::pair<const Value*, const Value*>& p) const {
      return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
    }
  };
  const DiffOptions& o_;
  DiffResult& r_;
  std::unordered_map<const Value*, uint64_t> hash_[2];
  std::vector<uint64_t> node_hashes_[2];
  std::unordered_set<std::pair<const Value*, const Value*>, PairHash> visited_;
  std::string path_;  // the subgraph being compared ("" for the top graph)
};

}  // namespace

std::string DiffResult::to_string() const {
  if (differences.empty()) return "equivalent\n";
  std::string out;
  for (const Difference& d : differences) {
    out += "difference: " + d.message + "\n";
    if (!d.path.empty() && d.path.rfind("function '", 0) != 0) out += "  in:     " + d.path + "\n";
    out += "  first:  " + d.where_a + "\n  second: " + d.where_b + "\n";
  }
  return out;
}

DiffResult diff(const Graph& a, const Graph& b, const DiffOptions& options) {
  DiffResult r;
  Differ d(options, r);
  d.hash_graph(a, 0);
  d.hash_graph(b, 1);
  d.compare_graphs(a, b, "");
  d.compare_node_multisets();
  return r;
}

DiffResult diff(const Function& a, const Function& b, const DiffOptions& options) {
  DiffOptions o = options;
  o.compare_io_types = false;  // function parameters are untyped
  DiffResult r = diff(*a.body, *b.body, o);
  if (a.attributes != b.attributes) {
    r.differences.insert(r.differences.begin(),
                         {"function '" + a.name + "'", "function '" + b.name + "'",
                          "attribute parameters differ", "function"});
  }
  return r;
}

DiffResult diff(const Model& a, const Model& b, const DiffOptions& options) {
  DiffResult r = diff(*a.graph, *b.graph, options);
  std::set<std::string> used;
  auto collect = [&used](const Graph& g) {
    g.for_each_node_recursive(
        [&used](Node* n) { used.insert(n->domain() == "ai.onnx" ? "" : n->domain()); });
  };
  for (const Model* m : {&a, &b}) {
    collect(*m->graph);
    for (const auto& f : m->functions) collect(*f->body);
  }
  auto opsets = [&used](const Model& m) {
    std::map<std::string, int64_t> s;
    for (const auto& o : m.opset_imports) {
      std::string d = o.domain == "ai.onnx" ? "" : o.domain;
      if (used.count(d)) s[d] = o.version;
    }
    return s;
  };
  if (auto oa = opsets(a), ob = opsets(b); oa != ob) {
    std::string text;
    for (const auto& [d, v] : oa) {
      auto it = ob.find(d);
      if (it == ob.end() || it->second != v) {
        text = "domain '" + (d.empty() ? std::string("ai.onnx") : d) + "' is imported at " +
               std::to_string(v) + " vs " +
               (it == ob.end() ? std::string("not at all") : std::to_string(it->second));
        break;
      }
    }
    if (text.empty()) text = "the second model imports a used domain the first does not";
    r.differences.insert(r.differences.begin(),
                         {"model", "model", "opset imports differ: " + text, "opset"});
  }
  // Functions match by their key (domain, name, overload).
  auto label = [](const Function& f) {
    return f.domain + "." + f.name + (f.overload.empty() ? "" : ":" + f.overload);
  };
  std::map<std::tuple<std::string, std::string, std::string>, const Function*> fb;
  for (const auto& f : b.functions) fb[{f->domain, f->name, f->overload}] = f.get();
  for (const auto& f : a.functions) {
    auto it = fb.find({f->domain, f->name, f->overload});
    if (it == fb.end()) {
      r.differences.push_back({"function '" + label(*f) + "'", "(none)",
                               "function only in the first model", "function"});
      continue;
    }
    DiffResult fr = diff(*f, *it->second, options);
    for (auto& d : fr.differences) {
      d.message = "in function '" + f->name + "': " + d.message;
      d.path = "function '" + label(*f) + "'" + (d.path.empty() ? "" : " / " + d.path);
      r.differences.push_back(std::move(d));
    }
    fb.erase(it);
  }
  for (const auto& [key, f] : fb) {
    r.differences.push_back({"(none)", "function '" + label(*f) + "'",
                             "function only in the second model", "function"});
  }
  if (r.differences.size() > options.max_differences) r.differences.resize(options.max_differences);
  return r;
}

}  // namespace oxs::ir
