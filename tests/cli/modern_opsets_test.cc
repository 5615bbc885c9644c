// The `oxs` commands on ONNX 1.23 models (opsets 18-28, IR 9+ element
// types) from ONNX's own backend node tests, and the refusal of an opset
// newer than oxs knows by `check` and `run`.
#include <gtest/gtest.h>

#include <filesystem>

#include "oxs/ir/model.h"
#include "oxs/onnx/model_io.h"
#include "run_oxs.h"

namespace oxs::testing {
namespace {

const std::string kNode = OXS_ONNX_BACKEND_1_23_DIR "/node/";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string backend_model(const std::string& test) {
  return kNode + test + "/model.onnx";
}

#define REQUIRE_BACKEND_123()                                             \
  if (!std::filesystem::is_directory(kNode)) {                            \
    FAIL() << "ONNX 1.23 backend test data not found at " << kNode; \
  }

TEST(CliModern, CheckAcceptsOpset23Attention) {
  REQUIRE_BACKEND_123();
  RunResult r = run_oxs({"check", backend_model("test_attention_4d")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "ok: 1 nodes, opset 2")) << r.out;
}

TEST(CliModern, CheckAcceptsFloat8Cast) {
  REQUIRE_BACKEND_123();
  RunResult r = run_oxs({"check", backend_model("test_cast_FLOAT_to_FLOAT8E4M3FN")});
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(CliModern, InfoPrintConvertOnOpset18Model) {
  REQUIRE_BACKEND_123();
  const std::string model = backend_model("test_reduce_mean_default_axes_keepdims_example");
  RunResult info = run_oxs({"info", model});
  EXPECT_EQ(info.code, 0) << info.err;
  RunResult print = run_oxs({"print", model});
  EXPECT_EQ(print.code, 0) << print.err;
  EXPECT_TRUE(contains(print.out, "ReduceMean")) << print.out;
  TempDir dir;
  RunResult conv = run_oxs({"convert", model, dir.file("out.onnx")});
  EXPECT_EQ(conv.code, 0) << conv.err;
  EXPECT_EQ(slurp(dir.file("out.onnx")).empty(), false);
}

// A model importing ai.onnx opset 29: refused by name, exit 1.
std::string opset29_model(const TempDir& dir) {
  ir::Model m;
  m.ir_version = 14;
  m.opset_imports.push_back({"", 29});
  ir::Value* x = m.graph->add_input("x", ir::Type::tensor(ir::DataType::Float, ir::Shape({2})));
  ir::Node* n = m.graph->append(std::make_unique<ir::Node>("Relu", std::vector<ir::Value*>{x}, 1));
  n->output(0)->set_name("y");
  m.graph->add_output(n->output(0));
  const std::string path = dir.file("opset29.onnx");
  onnx::save(m, path);
  return path;
}

TEST(CliModern, NewerOpsetIsRefusedByCheckAndRun) {
  TempDir dir;
  const std::string path = opset29_model(dir);
  RunResult check = run_oxs({"check", path});
  EXPECT_EQ(check.code, 1);
  EXPECT_TRUE(contains(check.err, "ai.onnx opset 29, newer than any oxs knows (28")) << check.err;
  RunResult run = run_oxs({"run", path});
  EXPECT_EQ(run.code, 1);
  EXPECT_TRUE(contains(run.err, "imports ai.onnx opset 29; oxs knows opsets up to 28")) << run.err;
}

TEST(CliModern, TypeTheOpVersionDoesNotAllowIsNamed) {
  TempDir dir;
  ir::Model m;
  m.ir_version = 10;
  m.opset_imports.push_back({"", 23});
  ir::Value* x = m.graph->add_input("x", ir::Type::tensor(ir::DataType::Int64, ir::Shape({2})));
  ir::Node* n = m.graph->append(
      std::make_unique<ir::Node>("RMSNormalization", std::vector<ir::Value*>{x, x}, 1));
  n->set_name("norm");
  n->output(0)->set_name("y");
  m.graph->add_output(n->output(0));
  const std::string path = dir.file("int_norm.onnx");
  onnx::save(m, path);
  RunResult r = run_oxs({"check", path});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "node 'norm': input 0 (X) of RMSNormalization-23 has type int64"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "which type constraint T does not allow")) << r.err;
}

}  // namespace
}  // namespace oxs::testing
