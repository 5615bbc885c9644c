// Direct inference on the IR for a few very common ops, skipping libonnx's
// protobuf context (input types converted to TypeProto, outputs converted
// back): type-preserving unary ops and Add/Sub/Mul/Div. Each rule applies
// only where it gives exactly what libonnx's inference function gives
// (tests/infer/direct_rules_test.cc compares both on the backend test
// models); anything else (unknown or symbolic dims, integer inputs that data
// propagation may track, sequences) goes through libonnx as before.
#include <onnx/defs/schema.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "oxs/infer/impl.h"

namespace oxs::infer {

namespace {

using Rule = Inferencer::Impl::DirectRule;

// Versions whose inference is "output 0 = input 0's element type and
// shape" (older versions took a consumed_inputs attribute).
constexpr std::array<std::string_view, 12> kSameAsInput = {
    "Identity", "Relu", "Neg",  "Abs",        "Sigmoid", "Tanh",
    "Exp",      "Log",  "Sqrt", "Reciprocal", "Floor",   "Ceil"};
// Multidirectional broadcasting from opset 7 on (before: a broadcast attribute).
constexpr std::array<std::string_view, 4> kBroadcast = {"Add", "Sub", "Mul", "Div"};

Rule rule_of(const ::onnx::OpSchema& s) {
  if (!s.domain().empty() || !s.has_type_and_shape_inference_function()) return Rule::None;
  const std::string& op = s.Name();
  auto in = [&](const auto& list) { return std::find(list.begin(), list.end(), op) != list.end(); };
  if (s.since_version() >= 6 && in(kSameAsInput)) return Rule::SameAsInput;
  if (s.since_version() >= 7 && in(kBroadcast)) return Rule::Broadcast;
  return Rule::None;
}

// A tensor of known element type that data propagation cannot track (it
// only tracks integer tensors).
bool plain_tensor(const ir::Value* v) {
  if (!v || !v->type().is_tensor()) return false;
  ir::DataType t = v->type().elem_type();
  return t != ir::DataType::Undefined && t != ir::DataType::Int64 && t != ir::DataType::Int32;
}

bool static_shape(const ir::Type& t) {
  return t.shape() && t.shape()->is_static();
}

}  // namespace

bool Inferencer::Impl::infer_direct(ir::Node& n, const ::onnx::OpSchema& s) {
  auto [it, fresh] = direct_rules.try_emplace(&s, Rule::None);
  if (fresh) it->second = rule_of(s);
  if (it->second == Rule::None || !n.attrs().empty() || n.num_outputs() != 1 || !n.output(0)) {
    return false;
  }
  if (it->second == Rule::SameAsInput) {
    if (n.num_inputs() != 1 || !plain_tensor(n.input(0))) return false;
    const ir::Type& in = n.input(0)->type();
    merge_output(n, 0, ir::Type::tensor(in.elem_type(), in.shape()));
    return true;
  }
  // Broadcast: only static shapes (symbolic dims follow libonnx's own
  // rules for unknowns, which libonnx applies).
  if (n.num_inputs() != 2 || !plain_tensor(n.input(0)) || !plain_tensor(n.input(1))) return false;
  const ir::Type& a = n.input(0)->type();
  const ir::Type& b = n.input(1)->type();
  if (a.elem_type() != b.elem_type() || !static_shape(a) || !static_shape(b)) return false;
  const auto& da = a.shape()->dims();
  const auto& db = b.shape()->dims();
  size_t rank = std::max(da.size(), db.size());
  std::vector<ir::Dim> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Right-aligned; a missing leading dim is 1.
    int64_t x = i + da.size() >= rank ? da[i + da.size() - rank].value() : 1;
    int64_t y = i + db.size() >= rank ? db[i + db.size() - rank].value() : 1;
    if (x != y && x != 1 && y != 1) return false;  // libonnx reports the mismatch
    out[i] = ir::Dim::known(x == 1 ? y : x);
  }
  merge_output(n, 0, ir::Type::tensor(a.elem_type(), ir::Shape(std::move(out))));
  return true;
}

}  // namespace oxs::infer
