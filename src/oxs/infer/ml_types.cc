#include "oxs/infer/ml_types.h"

#include <string>

#include "oxs/ir/graph.h"
#include "oxs/ir/value.h"

namespace oxs::infer {
namespace {

using ir::DataType;
using ir::Dim;
using ir::Shape;
using ir::Type;

const Type* input_type(const ir::Node& n, size_t i) {
  if (i >= n.num_inputs() || !n.input(i)) return nullptr;
  const Type& t = n.input(i)->type();
  return t.is_tensor() ? &t : nullptr;
}

int64_t attr_int(const ir::Node& n, const char* name, int64_t def) {
  const ir::Attr* a = n.attr(name);
  return a ? a->i : def;
}

// Number of entries of a list attribute, whichever element kind it holds.
std::optional<int64_t> attr_len(const ir::Node& n, const char* name) {
  const ir::Attr* a = n.attr(name);
  if (!a) return std::nullopt;
  return int64_t(a->ints.size() + a->floats.size() + a->strings.size());
}

// X's element type with X's shape (Binarizer, Imputer).
Type same_as(const Type& x) {
  return x;
}

// Float with X's shape (Scaler, Normalizer).
Type float_like(const Type& x) {
  return Type::tensor(DataType::Float, x.shape());
}

// The row count of a [N, F] or [F] input, as the kernels read it.
Dim rows_of(const Type& x) {
  if (!x.shape()) return Dim::unknown();
  if (x.shape()->rank() == 1) return Dim::known(1);
  if (x.shape()->rank() == 2) return (*x.shape())[0];
  return Dim::unknown();
}

Type float_matrix(Dim rows, Dim cols) {
  return Type::tensor(DataType::Float, Shape(std::vector<Dim>{rows, cols}));
}

}  // namespace

std::vector<std::optional<Type>> ml_fallback_types(const ir::Node& n) {
  const std::string& op = n.op_type();
  const Type* x = input_type(n, 0);
  if (!x) return {};
  std::vector<std::optional<Type>> out(n.num_outputs());
  if (out.empty()) return out;
  if (op == "Binarizer" || op == "Imputer") {
    out[0] = same_as(*x);
  } else if (op == "Scaler" || op == "Normalizer") {
    out[0] = float_like(*x);
  } else if (op == "OneHotEncoder") {
    std::optional<Shape> s = x->shape();
    if (s) {
      std::optional<int64_t> c = attr_len(n, "cats_int64s");
      if (!c) c = attr_len(n, "cats_strings");
      s->dims().push_back(c ? Dim::known(*c) : Dim::unknown());
    }
    out[0] = Type::tensor(DataType::Float, s);
  } else if (op == "ArrayFeatureExtractor") {
    std::optional<Shape> s = x->shape();
    const Type* idx = input_type(n, 1);
    std::optional<int64_t> k;
    if (idx && idx->shape()) k = idx->shape()->numel();
    if (s && s->rank() >= 1) {
      if (s->rank() == 1) s->dims().insert(s->dims().begin(), Dim::known(1));
      s->dims().back() = k ? Dim::known(*k) : Dim::unknown();
    }
    out[0] = Type::tensor(x->elem_type(), s);
  } else if (op == "FeatureVectorizer") {
    int64_t total = 0;
    if (const ir::Attr* a = n.attr("inputdimensions")) {
      for (int64_t d : a->ints) total += d;
    }
    out[0] = float_matrix(rows_of(*x), Dim::known(total));
  } else if (op == "LinearRegressor") {
    out[0] = float_matrix(rows_of(*x), Dim::known(attr_int(n, "targets", 1)));
  } else if (op == "SVMRegressor") {
    out[0] = float_matrix(rows_of(*x), Dim::known(1));
  } else if (op == "TreeEnsembleRegressor") {
    const ir::Attr* t = n.attr("n_targets");
    out[0] = float_matrix(rows_of(*x), t ? Dim::known(t->i) : Dim::unknown());
  } else {
    return {};
  }
  return out;
}

}  // namespace oxs::infer
