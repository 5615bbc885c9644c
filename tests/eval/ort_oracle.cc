// ONNX Runtime as a second oracle: models (the bundled example and models
// generated here: single ops over several element types, a small CNN, a
// transformer block) run through eval::Session and through ONNX Runtime
// (tests/eval/ort/run_ort.py on the project venv's onnxruntime wheel) on the same
// random inputs; outputs must agree within rtol 1e-3 / atol 1e-5 (exactly
// for integers and bools).
#include <gtest/gtest.h>

#include "ort_check.h"

namespace oxs::eval {
namespace {

using namespace ort_test;  // NOLINT: the shared oracle helpers

TEST(OrtOracle, BundledExampleModel) {
  ir::Model m = onnx::load(OXS_SOURCE_DIR "/examples/models/mlp.onnx");
  check_against_ort(m, "mlp", {.dims = {{"N", 5}}});
}

TEST(OrtOracle, ElementwiseOpsOverElementTypes) {
  for (DataType dt : {DataType::Float, DataType::Double, DataType::Int32, DataType::Int64}) {
    for (const char* op : {"Add", "Sub", "Mul", "Max", "Min"}) {
      ir::Model m = single_op(op, {tensor_type(dt, {2, 3, 4}), tensor_type(dt, {3, 1})}, 17);
      check_against_ort(m, std::string(op) + "_" + std::string(ir::dtype_name(dt)));
    }
  }
  for (const char* op : {"Exp", "Tanh", "Sigmoid", "Abs", "Neg", "Floor", "Erf"}) {
    check_against_ort(single_op(op, {tensor_type(DataType::Float, {5, 7})}, 17), op);
  }
}

TEST(OrtOracle, StringTensors) {
  Tensor words(DataType::String, {2, 3});
  const char* text[] = {"Apple", "pear", "", "BANANA", "kiwi fruit", "été"};
  for (int i = 0; i < 6; ++i) words.mutable_strings()[i] = text[i];
  auto upper = [](ir::Node* n) {
    n->set_attr(ir::Attr::of_string("case_change_action", "UPPER"));
    n->set_attr(ir::Attr::of_string("locale", "C.UTF-8"));  // ORT needs an installed locale
  };
  ir::Model m = single_op("StringNormalizer", {tensor_type(DataType::String, {1, 6})}, 17, upper);
  check_against_ort(m, "string_normalizer", {.feeds = {{"in0", words.reshaped({1, 6})}}});
}

TEST(OrtOracle, ReductionsAndShapes) {
  auto axes = [](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("axes", {1}));
    n->set_attr(ir::Attr::of_int("keepdims", 0));
  };
  for (const char* op : {"ReduceMean", "ReduceMax", "ReduceL2", "ReduceLogSumExp"}) {
    check_against_ort(single_op(op, {tensor_type(DataType::Float, {3, 4, 5})}, 17, axes), op);
  }
  check_against_ort(single_op("Transpose", {tensor_type(DataType::Float, {2, 3, 4})}, 17,
                              [](ir::Node* n) {
                                n->set_attr(ir::Attr::of_ints("perm", {2, 0, 1}));
                              }),
                    "Transpose");
  check_against_ort(single_op("Softmax", {tensor_type(DataType::Float, {3, 6})}, 13), "Softmax13");
  check_against_ort(
      single_op("LayerNormalization",
                {tensor_type(DataType::Float, {2, 3, 8}), tensor_type(DataType::Float, {8}),
                 tensor_type(DataType::Float, {8})},
                17),
      "LayerNormalization");
}

TEST(OrtOracle, SmallConvNet) {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", tensor_type(DataType::Float, {2, 3, 16, 16}));
  ir::Value* w = g.add_initializer("w", random_weights({8, 3, 3, 3}, 2));
  ir::Value* b = g.add_initializer("b", random_weights({8}, 3));
  ir::Value* conv_in[] = {x, w, b};
  ir::Node* conv = g.create_node("Conv", conv_in);
  conv->set_attr(ir::Attr::of_ints("pads", {1, 1, 1, 1}));
  ir::Value* r_in[] = {conv->output(0)};
  ir::Node* relu = g.create_node("Relu", r_in);
  ir::Value* p_in[] = {relu->output(0)};
  ir::Node* pool = g.create_node("MaxPool", p_in);
  pool->set_attr(ir::Attr::of_ints("kernel_shape", {2, 2}));
  pool->set_attr(ir::Attr::of_ints("strides", {2, 2}));
  ir::Value* gp_in[] = {pool->output(0)};
  ir::Node* gap = g.create_node("GlobalAveragePool", gp_in);
  ir::Value* f_in[] = {gap->output(0)};
  ir::Node* flat = g.create_node("Flatten", f_in);
  ir::Value* fc_w = g.add_initializer("fc_w", random_weights({8, 4}, 4));
  ir::Value* mm_in[] = {flat->output(0), fc_w};
  ir::Node* mm = g.create_node("MatMul", mm_in);
  g.add_output(mm->output(0));
  check_against_ort(m, "convnet");
}

}  // namespace
}  // namespace oxs::eval
