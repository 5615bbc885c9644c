// The fusions on the decomposed forms exporters emit, verified on the
// evaluator within a tolerance (a fused op rounds differently), and the
// GELU local function checked by onnx's checker and ONNX Runtime.
#include <gtest/gtest.h>

#include "eval/ort_check.h"
#include "test_util.h"

namespace oxs::rewrite {
namespace {

namespace fs = std::filesystem;
using testing::ops;
using testing::optimize;
using testing::parse_model;

TEST(FuseLayerNorm, DecomposedPatternBecomesLayerNormalization) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,4] x) => (float[2,4] y)
      <float two = {2.0}, float eps = {1e-5}, float[4] scale = {1.0, 2.0, 0.5, 1.5},
       float[4] bias = {0.1, 0.2, 0.3, 0.4}> {
      mean = ReduceMean<axes = [-1]>(x)
      d = Sub(x, mean)
      p = Pow(d, two)
      var = ReduceMean<axes = [-1]>(p)
      ve = Add(var, eps)
      s = Sqrt(ve)
      n = Div(d, s)
      sc = Mul(scale, n)
      y = Add(sc, bias)
    })");
  optimize(m, {"infer", "fuse-layernorm", "dce"}, "tolerance=1e-4,1e-5");
  EXPECT_EQ(ops(m), "LayerNormalization");
  EXPECT_FLOAT_EQ(m.graph->first_node()->attr("epsilon")->f, 1e-5f);
}

TEST(FuseLayerNorm, NotOverTheLastAxisStaysAsItIs) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,4] x) => (float[2,4] y)
      <float two = {2.0}, float eps = {1e-5}, float[4] scale = {1.0, 2.0, 0.5, 1.5},
       float[4] bias = {0.1, 0.2, 0.3, 0.4}> {
      mean = ReduceMean<axes = [0]>(x)
      d = Sub(x, mean)
      p = Pow(d, two)
      var = ReduceMean<axes = [0]>(p)
      ve = Add(var, eps)
      s = Sqrt(ve)
      n = Div(d, s)
      sc = Mul(n, scale)
      y = Add(sc, bias)
    })");
  optimize(m, {"infer", "fuse-layernorm"});
  EXPECT_EQ(ops(m), "ReduceMean,Sub,Pow,ReduceMean,Add,Sqrt,Div,Mul,Add");
}

const char* kGeluErf = R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x) => (float[2,3] y) <float r2 = {1.4142135}, float one = {1.0}, float half = {0.5}> {
      a = Div(x, r2)
      e = Erf(a)
      b = Add(one, e)
      c = Mul(x, half)
      y = Mul(c, b)
    })";

TEST(FuseGelu, ErfFormBecomesALocalFunctionBelowOpset20) {
  auto m = parse_model(kGeluErf);
  auto stats = optimize(m, {"infer", "fuse-gelu", "dce"}, "tolerance=1e-5,1e-6");
  EXPECT_EQ(ops(m), "Gelu");
  EXPECT_EQ(m.graph->first_node()->domain(), "oxs.fused");
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(stats[1].applications.at("fuse-gelu.ErfDiv3"), 1u);
  eval::ort_test::check_against_ort(m, "rewrite_gelu_fn");
  EXPECT_EQ(testing::onnx_checker(m, "oxs_gelu_fn.onnx"), "");
}

TEST(FuseGelu, TanhFormIsRecognized) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x) => (float[2,3] y)
      <float three = {3.0}, float k = {0.044715}, float s = {0.7978846}, float one = {1.0},
       float half = {0.5}> {
      p = Pow(x, three)
      q = Mul(k, p)
      r = Add(x, q)
      t = Mul(r, s)
      u = Tanh(t)
      b = Add(u, one)
      c = Mul(b, half)
      y = Mul(x, c)
    })");
  optimize(m, {"infer", "fuse-gelu", "dce"}, "tolerance=1e-5,1e-6");
  EXPECT_EQ(ops(m), "GeluTanh");
}

TEST(FuseGelu, WrongConstantIsNotGelu) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x) => (float[2,3] y) <float r2 = {1.5}, float one = {1.0}, float half = {0.5}> {
      a = Div(x, r2)
      e = Erf(a)
      b = Add(one, e)
      c = Mul(x, half)
      y = Mul(c, b)
    })");
  optimize(m, {"infer", "fuse-gelu"});
  EXPECT_EQ(ops(m), "Div,Erf,Add,Mul,Mul");
}

TEST(FuseAttention, ScaledDotProductAttentionBecomesALocalFunction) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,4,8] q, float[2,4,8] k, float[2,4,8] v) => (float[2,4,8] y) <float scale = {0.35355339}> {
      kt = Transpose<perm = [0, 2, 1]>(k)
      s0 = MatMul(q, kt)
      s = Mul(s0, scale)
      p = Softmax<axis = -1>(s)
      y = MatMul(p, v)
    })");
  optimize(m, {"infer", "fuse-attention", "dce"}, "equality");
  EXPECT_EQ(ops(m), "Transpose,ScaledDotProductAttention");
  ASSERT_EQ(m.functions.size(), 1u);
  eval::ort_test::check_against_ort(m, "rewrite_attention");
  EXPECT_EQ(testing::onnx_checker(m, "oxs_attention.onnx"), "");
}

}  // namespace
}  // namespace oxs::rewrite
