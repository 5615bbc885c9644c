// ONNX Runtime as an oracle for what the backend test data leaves open about
// the narrow element types: blocked and per-axis QuantizeLinear and
// DequantizeLinear with int4/uint4 and zero points (rounding ties, clamping),
// and float8 quantization. ORT 1.20 has no Cast to or from int4 and no
// int2/uint2/float4e2m1/float8e8m0 kernels; those are covered by the 1.23
// backend tests and narrow_types_test.cc.
#include <gtest/gtest.h>

#include "ort_check.h"

namespace oxs::eval {
namespace {

using namespace ort_test;  // NOLINT: the shared oracle helpers

template <class T>
std::shared_ptr<ir::Tensor> init(const std::string& name, DataType dt, std::vector<int64_t> dims,
                                 std::vector<T> values) {
  Tensor t = Tensor::of<T>(dt, dims, std::span<const T>(values));
  auto r = std::make_shared<ir::Tensor>(t.to_ir());
  r->name = name;
  return r;
}

ir::Value* add_init(ir::Graph& g, std::shared_ptr<ir::Tensor> t) {
  std::string name = t->name;
  return g.add_initializer(name, std::move(t));
}

using IntAttrs = std::vector<std::pair<std::string, int64_t>>;

ir::Node* node(ir::Graph& g, const std::string& op, std::vector<ir::Value*> ins,
               const IntAttrs& attrs = {}) {
  ir::Node* n = g.create_node(op, ins);
  for (const auto& [name, v] : attrs) n->set_attr(ir::Attr::of_int(name, v));
  return n;
}

void output(ir::Graph& g, ir::Node* n, const std::string& name) {
  n->output(0)->set_name(name);
  g.add_output(n->output(0));
}

// Values around every rounding tie and both ends of the 4-bit ranges.
Tensor edge_inputs(std::vector<int64_t> dims) {
  Tensor t(DataType::Float, dims);
  const float pattern[] = {-9.5f, -8.5f, -8.f, -7.5f, -2.5f, -1.5f, -0.5f, -0.f, 0.5f,  1.5f,
                           2.5f,  6.5f,  7.5f, 8.f,   14.5f, 15.5f, 16.f,  -1.f, 3.25f, 100.f};
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = pattern[i % 20];
  return t;
}

// x [4, 6] quantized along axis 1 in blocks of 4 (two blocks, the second
// short), then dequantized (exactly: the codes show through).
TEST(OrtQuant, BlockedQuantizationToInt4WithZeroPoints) {
  for (DataType dt : {DataType::Int4, DataType::Uint4}) {
    ir::Model m;
    m.opset_imports = {{"", 21}};
    ir::Graph& g = *m.graph;
    ir::Value* x = g.add_input("x", tensor_type(DataType::Float, {4, 6}));
    ir::Value* scale = add_init(g, init<float>("scale", DataType::Float, {4, 2},
                                               {0.5f, 1.f, 2.f, 0.25f, 1.f, 3.f, 0.75f, 1.5f}));
    std::vector<uint8_t> zps =
        dt == DataType::Int4 ? std::vector<uint8_t>{0, 1, uint8_t(-2), 3, uint8_t(-8), 7, 0, 0}
                             : std::vector<uint8_t>{0, 1, 2, 3, 8, 15, 0, 7};
    ir::Value* zp = add_init(g, init<uint8_t>("zp", dt, {4, 2}, zps));
    IntAttrs attrs = {{"axis", 1}, {"block_size", 4}};
    ir::Node* q = node(g, "QuantizeLinear", {x, scale, zp}, attrs);
    ir::Node* dq = node(g, "DequantizeLinear", {q->output(0), scale, zp}, attrs);
    output(g, dq, "y");
    check_against_ort(m, "blocked_" + std::string(ir::dtype_name(dt)),
                      {.feeds = {{"x", edge_inputs({4, 6})}}, .rtol = 0, .atol = 0});
  }
}

TEST(OrtQuant, PerAxisQuantizationToInt4) {
  ir::Model m;
  m.opset_imports = {{"", 21}};
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", tensor_type(DataType::Float, {2, 10}));
  ir::Value* scale = add_init(g, init<float>("scale", DataType::Float, {2}, {0.5f, 2.f}));
  ir::Value* zp = add_init(g, init<uint8_t>("zp", DataType::Int4, {2}, {uint8_t(-1), 2}));
  ir::Node* q = node(g, "QuantizeLinear", {x, scale, zp}, {{"axis", 0}});
  ir::Node* dq = node(g, "DequantizeLinear", {q->output(0), scale, zp}, {{"axis", 0}});
  output(g, dq, "y");
  check_against_ort(m, "per_axis_int4",
                    {.feeds = {{"x", edge_inputs({2, 10})}}, .rtol = 0, .atol = 0});
}

// Float8 quantization, rounding ties included. With saturate=0 only values
// that stay in range are compared: past the largest value ORT 1.20 departs
// from the spec's table (E4M3FN 480 gives 448, not NaN; E5M2 overflow gives
// NaN, not infinity), where oxs follows the table, ONNX's reference and the
// test_cast_no_saturate_* data.
TEST(OrtQuant, Float8Quantization) {
  for (DataType dt : {DataType::Float8E4M3FN, DataType::Float8E5M2}) {
    for (int64_t saturate : {0, 1}) {
      ir::Model m;
      m.opset_imports = {{"", 19}};
      ir::Graph& g = *m.graph;
      ir::Value* x = g.add_input("x", tensor_type(DataType::Float, {12}));
      ir::Value* scale = add_init(g, init<float>("scale", DataType::Float, {}, {2.f}));
      ir::Value* zp = add_init(g, init<uint8_t>("zp", dt, {}, {0}));
      ir::Node* q = node(g, "QuantizeLinear", {x, scale, zp}, {{"saturate", saturate}});
      output(g, node(g, "Cast", {q->output(0)}, {{"to", 1}}), "y");
      Tensor in(DataType::Float, {12});
      std::vector<float> v = {0.f,     -0.f,  1.f,  2.125f, 2.375f, 1e-9f,
                              1.0625f, 2.25f, -3.f, 800.f,  -850.f, 0.0390625f};
      if (saturate) v[9] = 1e6f, v[10] = -1e6f;
      std::copy(v.begin(), v.end(), in.mutable_data<float>());
      check_against_ort(m,
                        "f8_" + std::string(ir::dtype_name(dt)) + "_sat" + std::to_string(saturate),
                        {.feeds = {{"x", in}}, .rtol = 0, .atol = 0});
    }
  }
}

}  // namespace
}  // namespace oxs::eval
