// Data propagation that libonnx 1.12 lacks, for the shape arithmetic that
// function bodies and exporters write: integer Div (ONNX's truncating
// division) and Neg, Concat of known 1-D pieces (an empty piece included),
// ConstantOfShape of a short 1-D shape with an integer value, and integer
// Range. Each applies only when every input value is known and the result is
// short (a shape, a list of axes), and never replaces a value libonnx's own
// propagation gave.
#include <algorithm>
#include <optional>
#include <vector>

#include "oxs/infer/impl.h"

namespace oxs::infer {
namespace {

// Longest value kept: shapes and axes lists, not data.
constexpr int64_t kMaxElements = 64;

bool is_int(const ir::Type& t) {
  return t.is_tensor() &&
         (t.elem_type() == ir::DataType::Int64 || t.elem_type() == ir::DataType::Int32);
}

std::optional<std::vector<int64_t>> div(const std::vector<int64_t>& a,
                                        const std::vector<int64_t>& b) {
  if (a.size() != b.size() && a.size() != 1 && b.size() != 1) return std::nullopt;
  // Broadcasting: one element against n gives n, and n may be 0 (a [] and
  // [1] gave one element read from the empty side).
  std::vector<int64_t> out(a.size() == 1 ? b.size() : a.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = a[a.size() == 1 ? 0 : i], y = b[b.size() == 1 ? 0 : i];
    if (y == 0) return std::nullopt;
    out[i] = x / y;
  }
  return out;
}

}  // namespace

void Inferencer::Impl::propagate_int_values(const ir::Node& n) {
  if ((!n.domain().empty() && n.domain() != "ai.onnx") || n.num_outputs() < 1 || !n.output(0)) {
    return;
  }
  const ir::Value* out = n.output(0);
  const std::string& op = n.op_type();
  if ((op != "Div" && op != "Neg" && op != "ConstantOfShape" && op != "Range" && op != "Concat") ||
      shape_data.count(out) || !is_int(out->type()) || !out->type().shape() ||
      out->type().shape()->rank() > 1) {
    return;
  }
  auto input = [&](size_t i) -> std::optional<std::vector<int64_t>> {
    if (i >= n.num_inputs() || !n.input(i)) return std::nullopt;
    return known_ints(n.input(i));
  };
  std::optional<std::vector<int64_t>> values;
  if (op == "Div") {
    auto a = input(0), b = input(1);
    if (a && b) values = div(*a, *b);
  } else if (op == "Neg") {
    values = input(0);
    if (values) {
      for (int64_t& x : *values) x = -x;
    }
  } else if (op == "Concat") {
    values = std::vector<int64_t>();
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      auto part = input(i);
      if (!part) return;
      values->insert(values->end(), part->begin(), part->end());
    }
  } else if (op == "ConstantOfShape") {
    auto shape = input(0);
    const ir::Attr* v = n.attr("value");
    if (!shape || shape->size() != 1 || (*shape)[0] < 0 || (*shape)[0] > kMaxElements || !v ||
        !v->t || v->t->dims().size() > 1) {
      return;
    }
    int64_t fill = 0;
    if (v->t->dtype() == ir::DataType::Int64 && v->t->data<int64_t>().size() == 1) {
      fill = v->t->data<int64_t>()[0];
    } else if (v->t->dtype() == ir::DataType::Int32 && v->t->data<int32_t>().size() == 1) {
      fill = v->t->data<int32_t>()[0];
    } else {
      return;
    }
    values = std::vector<int64_t>(static_cast<size_t>((*shape)[0]), fill);
  } else {
    auto start = input(0), limit = input(1), delta = input(2);
    if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 ||
        delta->size() != 1 || (*delta)[0] == 0) {
      return;
    }
    const int64_t s = (*start)[0], l = (*limit)[0], d = (*delta)[0];
    const int64_t count = std::max<int64_t>(0, (l - s + d + (d > 0 ? -1 : 1)) / d);
    if (count > kMaxElements) return;
    values = std::vector<int64_t>();
    for (int64_t i = 0; i < count; ++i) values->push_back(s + i * d);
  }
  if (!values) return;
  const ir::Shape& shape = *out->type().shape();
  if (shape.rank() == 0 ? values->size() != 1
                        : shape.dims()[0].is_known() &&
                              shape.dims()[0].value() != static_cast<int64_t>(values->size())) {
    return;  // not what inference says the output holds
  }
  ::onnx::TensorShapeProto tsp;
  for (int64_t x : *values) tsp.add_dim()->set_dim_value(x);
  shape_data.emplace(out, std::move(tsp));
}

}  // namespace oxs::infer
