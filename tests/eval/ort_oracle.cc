// ONNX Runtime as a second oracle: models (the bundled example and models
// generated here: single ops over several element types, a small CNN, a
// transformer block) run through eval::Session and through onnxruntime-node
// (tests/eval/ort/run_ort.js, installed by scripts/install-deps) on the same
// random inputs; outputs must agree within rtol 1e-3 / atol 1e-5 (exactly
// for integers and bools).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>

#include "oxs/eval/npy.h"
#include "oxs/eval/session.h"
#include "oxs/eval/summary.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"

namespace fs = std::filesystem;

namespace oxs::eval {
namespace {

const fs::path kOrtDir = fs::path(OXS_SOURCE_DIR) / "tests/eval/ort";

std::string shell(const std::string& cmd, int* code) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  *code = WEXITSTATUS(pclose(p));
  return out;
}

std::string compare(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) return "dtype differs";
  if (a.dims() != b.dims())
    return "shape " + dims_to_string(a.dims()) + " vs ORT " + dims_to_string(b.dims());
  for (int64_t i = 0; i < a.numel(); ++i) {
    double x = a.get_as_double(i), y = b.get_as_double(i);
    bool ok = ir::is_floating(a.dtype())
                  ? (std::isnan(x) && std::isnan(y)) || std::abs(x - y) <= 1e-5 + 1e-3 * std::abs(y)
                  : x == y;
    if (!ok)
      return "element " + std::to_string(i) + ": " + std::to_string(x) + " vs ORT " +
             std::to_string(y);
  }
  return {};
}

// Runs `model` (saved at `path`) on seeded random inputs with both runtimes.
void check_against_ort(const ir::Model& model, const std::string& name,
                       const std::map<std::string, int64_t>& dims = {}, uint64_t seed = 1) {
  ASSERT_TRUE(fs::exists(kOrtDir / "node_modules/onnxruntime-node"))
      << "onnxruntime-node is missing: run scripts/install-deps";
  fs::path dir = fs::path(::testing::TempDir()) / ("oxs_ort_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / "in");
  std::string path = (dir / "model.onnx").string();
  onnx::save(model, path);
  std::mt19937_64 rng(seed);
  std::map<std::string, Value> feeds;
  for (const ir::Value* in : model.graph->inputs()) {
    if (in->const_value()) continue;
    Tensor t = random_tensor(in->name(), in->type(), dims, rng);
    write_npy((dir / "in" / (in->name() + ".npy")).string(), t);
    feeds[in->name()] = t;
  }
  Session session(model);
  std::vector<Value> ours = session.run(feeds);
  int code = 0;
  std::string out = shell("node " + (kOrtDir / "run_ort.js").string() + " " + path + " " +
                              (dir / "in").string() + " " + (dir / "out").string(),
                          &code);
  ASSERT_EQ(code, 0) << out;
  for (size_t i = 0; i < ours.size(); ++i) {
    Tensor theirs = read_npy((dir / "out" / (std::to_string(i) + ".npy")).string());
    EXPECT_EQ(compare(ours[i].tensor(), theirs), "") << name << " output " << i;
  }
  fs::remove_all(dir);
}

ir::Type tensor_type(DataType dt, std::vector<int64_t> dims) {
  return ir::Type::tensor(dt, ir::Shape::of(dims));
}

// A model with one node `op` over inputs of the given types.
ir::Model single_op(const std::string& op, std::vector<ir::Type> inputs, int opset,
                    const std::function<void(ir::Node*)>& attrs = {}, size_t outputs = 1) {
  ir::Model m;
  m.opset_imports = {{"", opset}};
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> ins;
  for (size_t i = 0; i < inputs.size(); ++i)
    ins.push_back(g.add_input("in" + std::to_string(i), inputs[i]));
  ir::Node* n = g.create_node(op, ins, outputs);
  if (attrs) attrs(n);
  for (size_t i = 0; i < outputs; ++i) {
    n->output(i)->set_name("out" + std::to_string(i));
    g.add_output(n->output(i));
  }
  return m;
}

std::shared_ptr<ir::Tensor> random_weights(std::vector<int64_t> dims, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor t = random_tensor("w", tensor_type(DataType::Float, dims), {}, rng);
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] *= 0.2f;
  return std::make_shared<ir::Tensor>(t.to_ir());
}

TEST(OrtOracle, BundledExampleModel) {
  ir::Model m = onnx::load(OXS_SOURCE_DIR "/examples/models/mlp.onnx");
  check_against_ort(m, "mlp", {{"N", 5}});
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
