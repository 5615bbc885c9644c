// `oxs infer`, `oxs extract` and `oxs convert --opset`, checked against the
// onnx Python package (Debian's python3-onnx 1.12) as the oracle: its shape
// inference, its extract_model, its checker.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "oxs/onnx/model_io.h"
#include "run_oxs.h"
#include "schema/one_node_model.h"

namespace oxs::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kMlp = source_path("examples/models/mlp.onnx");

// Runs /usr/bin/python3 on `script` with `args`; returns stdout+stderr.
std::string python(const std::string& script, const std::vector<std::string>& args) {
  std::string cmd = "/usr/bin/python3 -c '" + script + "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  return shell_output(cmd + " 2>&1");
}

// "name: dims" of every value_info entry, sorted, as onnx reads the file.
const char* kValueInfo =
    "import onnx,sys\n"
    "m = onnx.load(sys.argv[1])\n"
    "if len(sys.argv) > 2: m = onnx.shape_inference.infer_shapes(m, strict_mode=True)\n"
    "dims = lambda t: [d.dim_param or d.dim_value for d in t.type.tensor_type.shape.dim]\n"
    "for v in sorted(m.graph.value_info, key=lambda v: v.name): print(v.name, dims(v))\n";

const char* kChecker =
    "import onnx,sys\n"
    "onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)\n"
    "print(\"ok\")\n";

TEST(CliModelTools, InferWritesWhatOnnxShapeInferenceFinds) {
  TempDir dir;
  RunResult r = run_oxs({"infer", kMlp, "-o", dir.file("inferred.onnx")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "4 values typed")) << r.out;  // H, A, logits, Y
  const std::string ours = python(kValueInfo, {dir.file("inferred.onnx")});
  const std::string onnx = python(kValueInfo, {kMlp, "infer"});
  EXPECT_EQ(ours, onnx);
  EXPECT_TRUE(contains(ours, "logits ['N', 3]")) << ours;
  EXPECT_EQ(python(kChecker, {dir.file("inferred.onnx")}), "ok\n");
}

TEST(CliModelTools, ExtractMatchesOnnxExtractModel) {
  TempDir dir;
  RunResult r = run_oxs(
      {"extract", kMlp, "--inputs", "H", "--outputs", "logits", "-o", dir.file("ours.onnx")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "2 nodes, 1 input, 1 output")) << r.out;
  std::string made = python(
      "import onnx.utils,sys\n"
      "onnx.utils.extract_model(sys.argv[1], sys.argv[2], [\"H\"], [\"logits\"])\n"
      "print(\"ok\")\n",
      {kMlp, dir.file("theirs.onnx")});
  ASSERT_EQ(made, "ok\n");
  RunResult d = run_oxs({"diff", dir.file("ours.onnx"), dir.file("theirs.onnx")});
  EXPECT_EQ(d.code, 0) << d.out;
  EXPECT_EQ(python(kChecker, {dir.file("ours.onnx")}), "ok\n");
  // Graph input to graph output: the whole model.
  r = run_oxs({"extract", kMlp, "--inputs", "X", "--outputs", "Y", "-o", dir.file("all.onnx")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(run_oxs({"diff", kMlp, dir.file("all.onnx")}).code, 0);
}

TEST(CliModelTools, ExtractErrorsNameTheValue) {
  TempDir dir;
  RunResult r =
      run_oxs({"extract", kMlp, "--inputs", "A", "--outputs", "logit", "-o", dir.file("x.onnx")});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "no value named 'logit' (did you mean 'logits'?)")) << r.err;
  r = run_oxs({"extract", kMlp, "--inputs", "A", "--outputs", "Y,H", "-o", dir.file("x.onnx")});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "the outputs need graph input 'X'")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.onnx")));
}

// The outputs of `model` on `input` (--json, from "outputs" on).
std::string outputs_of(const std::string& model, const std::string& input) {
  RunResult run = run_oxs({"run", model, "--input", input, "--json", "--values", "100"});
  EXPECT_EQ(run.code, 0) << run.err;
  auto at = run.out.find("\"outputs\"");
  return at == std::string::npos ? run.out : run.out.substr(at);
}

TEST(CliModelTools, ConvertOpsetDownAndUpKeepsTheOutputs) {
  TempDir dir;
  // Down: Relu 14 -> 13 has no adapter in libonnx; ours keeps it (float is
  // a Relu-13 type).
  RunResult r = run_oxs({"convert", kMlp, dir.file("m13.onnx"), "--opset", "13"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "(opset 17 -> 13)")) << r.out;
  EXPECT_TRUE(contains(run_oxs({"info", dir.file("m13.onnx")}).out, "opsets:       ai.onnx 13"));
  EXPECT_EQ(python(kChecker, {dir.file("m13.onnx")}), "ok\n");
  r = run_oxs({"convert", dir.file("m13.onnx"), dir.file("m17.onnx"), "--opset", "17"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string x = "X=[[1,-2,3,-4],[0.5,0,0,1]]";
  EXPECT_EQ(outputs_of(dir.file("m13.onnx"), x), outputs_of(kMlp, x));
  EXPECT_EQ(outputs_of(dir.file("m17.onnx"), x), outputs_of(kMlp, x));
}

TEST(CliModelTools, ConvertOpsetUpRewritesSoftmaxToKeepItsMeaning) {
  // Softmax-11 over axis 1 of [2,3,4] normalizes 12 values at a time;
  // Softmax-13 would normalize 3: the converted model must still give 11's.
  TempDir dir;
  const std::string m11 = source_path("tests/cli/data/softmax_opset11.onnx");
  RunResult r = run_oxs({"convert", m11, dir.file("s13.onnx"), "--opset", "13"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(python(kChecker, {dir.file("s13.onnx")}), "ok\n");
  const std::string x = "x=[[[1,2,3,4],[0,1,0,1],[2,2,2,2]],[[-1,0,1,2],[3,3,0,0],[1,0,0,5]]]";
  // The same values up to float rounding (the rewrite computes through a
  // reshape): 24 of them, each within 1e-6 relative.
  auto values = [](const std::string& out) {
    std::vector<double> v;
    const size_t at = out.find("\"values\": [");
    if (at == std::string::npos) return v;
    std::istringstream in(out.substr(at + 11, out.find(']', at) - at - 11));
    std::string item;
    while (std::getline(in, item, ',')) v.push_back(std::stod(item));
    return v;
  };
  const std::vector<double> before = values(outputs_of(m11, x));
  const std::vector<double> after = values(outputs_of(dir.file("s13.onnx"), x));
  ASSERT_EQ(before.size(), 24u);
  ASSERT_EQ(after.size(), 24u);
  for (size_t i = 0; i < 24; ++i) EXPECT_NEAR(after[i], before[i], 1e-6 * before[i]) << i;
  // Opset 11's meaning: the 4 of the first block is normalized among its
  // block's twelve values (0.448), not among its column's three (0.844).
  EXPECT_NEAR(before[3], 0.4483202, 1e-6);
  EXPECT_NE(run_oxs({"print", dir.file("s13.onnx")}).out.find("Reshape"), std::string::npos);
}

TEST(CliModelTools, ConvertOpsetRefusesWhatItCannotConvert) {
  TempDir dir;
  // Softmax changed meaning at 13 and has no way down.
  RunResult down = run_oxs({"convert", kMlp, dir.file("m11.onnx"), "--opset", "11"});
  EXPECT_EQ(down.code, 1) << down.err;
  EXPECT_TRUE(contains(down.err, "no conversion of Softmax from its opset-13 version")) << down.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("m11.onnx")));
  // Celu exists from opset 12: there is no opset-11 form of it.
  RunResult r = run_oxs({"convert", "/usr/share/libonnx-testdata/data/node/test_celu/model.onnx",
                         dir.file("celu11.onnx"), "--opset", "11"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "cannot convert from opset 12 to 11")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("celu11.onnx")));
  r = run_oxs({"convert", kMlp, dir.file("x.onnx"), "--opset", "29"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "between ai.onnx opsets 1 and 28")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.onnx")));
  ASSERT_EQ(run_oxs({"compile", source_path("examples/hardmax.py"), "-o", dir.file("h.onnx")}).code,
            0);
  // Its function uses CastLike, which opset 13 lacks: named up front.
  r = run_oxs({"convert", dir.file("h.onnx"), dir.file("h13.onnx"), "--opset", "13"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "(CastLike): CastLike is new in ai.onnx opset 15; opset 13 has no "
                       "such op"))
      << r.err;
  // libonnx's converter (within 1-17) drops functions: refused.
  r = run_oxs({"convert", dir.file("h.onnx"), dir.file("h16.onnx"), "--opset", "16"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "model-local function")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("h16.onnx")));
  // oxs's own steps (17-28) convert functions too, both ways.
  ASSERT_EQ(run_oxs({"compile", source_path("examples/hardmax.py"), "--opset", "18", "-o",
                     dir.file("h18.onnx")})
                .code,
            0);
  r = run_oxs({"convert", dir.file("h18.onnx"), dir.file("h28.onnx"), "--opset", "28"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(run_oxs({"check", dir.file("h28.onnx")}).code, 0);
  EXPECT_TRUE(contains(run_oxs({"print", dir.file("h28.onnx")}).out, "opsets {ai.onnx: 28"));
  r = run_oxs({"convert", dir.file("h28.onnx"), dir.file("h17.onnx"), "--opset", "17"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(run_oxs({"check", dir.file("h17.onnx")}).code, 0);
}

TEST(CliModelTools, ConvertOpsetAcrossSeventeenBothWaysKeepsTheOutputs) {
  // 17 -> 28 by oxs's own steps, 28 -> 13 by them and then libonnx's.
  TempDir dir;
  RunResult r = run_oxs({"convert", kMlp, dir.file("m28.onnx"), "--opset", "28"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "(opset 17 -> 28)")) << r.out;
  EXPECT_TRUE(contains(run_oxs({"info", dir.file("m28.onnx")}).out, "opsets:       ai.onnx 28"));
  EXPECT_EQ(run_oxs({"check", dir.file("m28.onnx")}).code, 0);
  r = run_oxs({"convert", dir.file("m28.onnx"), dir.file("m13.onnx"), "--opset", "13"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(python(kChecker, {dir.file("m13.onnx")}), "ok\n");
  const std::string x = "X=[[1,-2,3,-4],[0.5,0,0,1]]";
  EXPECT_EQ(outputs_of(dir.file("m28.onnx"), x), outputs_of(kMlp, x));
  EXPECT_EQ(outputs_of(dir.file("m13.onnx"), x), outputs_of(kMlp, x));
}

// Saves a one-node model in `dir` and returns its path.
std::string saved(const TempDir& dir, const std::string& name, const ir::Model& m) {
  const std::string path = dir.file(name);
  onnx::save(m, path);
  return path;
}

TEST(CliModelTools, ConvertOpsetRefusalsAreOneLineAndWriteNothing) {
  TempDir dir;
  const std::string gelu =
      saved(dir, "gelu.onnx",
            one_node_model(20, "Gelu", {{"x", float_tensor({2})}}, {{"y", float_tensor({2})}}));
  RunResult r = run_oxs({"convert", gelu, dir.file("gelu19.onnx"), "--opset", "19"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "oxs: error: cannot convert from opset 20 to 19: node 'the_Gelu' (Gelu): Gelu is new "
            "in ai.onnx opset 20; opset 19 has no such op\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("gelu19.onnx")));

  // A type the older version lacks: the node, the op and the type are named.
  ir::Model cast = one_node_model(21, "Cast", {{"x", float_tensor({2})}},
                                  {{"y", ir::Type::tensor(ir::DataType::Int4, ir::Shape{2})}}, {});
  cast.graph->first_node()->set_attr(ir::Attr::of_int("to", int64_t(ir::DataType::Int4)));
  const std::string c = saved(dir, "cast.onnx", cast);
  const auto before = std::filesystem::file_size(c);
  r = run_oxs({"convert", c, c, "--opset", "20", "--in-place"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "oxs: error: cannot convert from opset 21 to 20: node 'the_Cast' (Cast): output 'y' "
            "is of element type int4, which Cast-19 (opset 20) does not take\n");
  EXPECT_EQ(std::filesystem::file_size(c), before);  // the input is left as it was
  EXPECT_EQ(run_oxs({"info", c}).code, 0);
}

}  // namespace
}  // namespace oxs::testing
