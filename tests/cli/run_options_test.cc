// `oxs run`'s observation and input options on the bundled MLP: literal and
// .npz inputs (archives written by numpy), --save-inputs, --save-intermediates,
// --profile, --repeat, --trace-json and the --trace-filter warning.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "oxs/eval/npy.h"
#include "oxs/ir/model.h"
#include "oxs/onnx/model_io.h"
#include "run_oxs.h"

namespace oxs::testing {
namespace {

using Json = nlohmann::json;

const std::string kMlp = source_path("examples/models/mlp.onnx");
const std::string kData = source_path("tests/cli/data/");

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Y of the MLP for the given --input arguments, as JSON values.
Json run_y(std::vector<std::string> inputs) {
  std::vector<std::string> args{"run", kMlp, "--json", "--values", "100"};
  for (auto& i : inputs) {
    args.push_back("--input");
    args.push_back(i);
  }
  RunResult r = run_oxs(args);
  EXPECT_EQ(r.code, 0) << r.err;
  Json j = Json::parse(r.out, nullptr, false);
  if (j.is_discarded()) return Json();
  return j["outputs"][0]["values"];
}

TEST(CliRunOptions, LiteralAndNpzInputsGiveTheSameOutputsAsNpy) {
  // make_cli_data.py: X = arange(8).reshape(2, 4) / 8.
  Json expected = run_y({"X=" + kData + "mlp_x.npy"});
  ASSERT_EQ(expected.size(), 6u);
  EXPECT_EQ(run_y({"X=[[0,0.125,0.25,0.375],[0.5,0.625,0.75,0.875]]"}), expected);
  EXPECT_EQ(run_y({kData + "mlp_inputs.npz"}), expected);
  EXPECT_EQ(run_y({kData + "mlp_inputs_compressed.npz"}), expected);
  EXPECT_EQ(run_y({"X=" + kData + "mlp_inputs_compressed.npz"}), expected);
}

TEST(CliRunOptions, BadLiteralsAndArchivesAreClearErrors) {
  RunResult r = run_oxs({"run", kMlp, "--input", "X=[[1,2,3,4],[1,2]]"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "ragged")) << r.err;
  r = run_oxs({"run", kMlp, "--input", "X=[[1,2,3,4],[1,2,\"a\",4]]"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "'\"a\"' is not a number")) << r.err;
  r = run_oxs({"run", kMlp, "--input", "X=[[1,2,3,4]"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "not a valid literal list")) << r.err;
  r = run_oxs({"run", kMlp, "--input", kData + "mlp_wrong_inputs.npz"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "array 'Z'")) << r.err;
  EXPECT_TRUE(contains(r.err, "its inputs: X")) << r.err;
  r = run_oxs({"run", kMlp, "--input", kData + "mlp_x.npy"});  // no NAME=, not an archive
  EXPECT_EQ(r.code, 2) << r.err;
  r = run_oxs({"run", kMlp, "--input", kMlp + ".npz"});
  EXPECT_EQ(r.code, 1) << r.err;
}

TEST(CliRunOptions, SavedRandomInputsReproduceTheRun) {
  TempDir dir;
  RunResult r = run_oxs({"run", kMlp, "--random", "--dim", "N=3", "--seed", "5", "--json",
                         "--save-inputs", dir.file("in")});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_TRUE(std::filesystem::exists(dir.file("in/X.npy"))) << r.err;
  Json first = Json::parse(r.out)["outputs"][0]["values"];
  EXPECT_EQ(Json::parse(r.out)["inputs"][0]["random"], true);
  RunResult again = run_oxs({"run", kMlp, "--json", "--input", "X=" + dir.file("in/X.npy")});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(Json::parse(again.out)["outputs"][0]["values"], first);
}

TEST(CliRunOptions, SaveIntermediatesWritesEveryValueOrTheFilteredOnes) {
  TempDir dir;
  RunResult r = run_oxs({"run", kMlp, "--input", "X=" + kData + "mlp_x.npy", "--save-intermediates",
                         dir.file("all")});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* v : {"H", "A", "logits", "Y"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.file(std::string("all/") + v + ".npy"))) << v;
  }
  // A = Relu(H), element by element.
  eval::Tensor h = eval::read_npy(dir.file("all/H.npy"));
  eval::Tensor a = eval::read_npy(dir.file("all/A.npy"));
  ASSERT_EQ(h.numel(), 16);
  for (int64_t i = 0; i < h.numel(); ++i) {
    EXPECT_EQ(a.data<float>()[i], std::max(0.0f, h.data<float>()[i])) << i;
  }
  r = run_oxs({"run", kMlp, "--input", "X=" + kData + "mlp_x.npy", "--save-intermediates",
               dir.file("relu"), "--trace-filter", "Relu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.file("relu/A.npy")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("relu/H.npy")));
}

TEST(CliRunOptions, ProfileListsOpTypesAndNodes) {
  RunResult r = run_oxs({"run", kMlp, "--random", "--dim", "N=16", "--profile"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "profile: 4 nodes of the main graph")) << r.out;
  EXPECT_TRUE(contains(r.out, "by op type:")) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n    Gemm +2 nodes"))) << r.out;
  for (const char* node : {"fc1", "fc2", "relu1", "softmax"}) {
    EXPECT_TRUE(contains(r.out, std::string("\n    ") + node)) << node << "\n" << r.out;
  }
  r = run_oxs({"run", kMlp, "--random", "--dim", "N=16", "--profile", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json p = Json::parse(r.out)["profile"];
  ASSERT_EQ(p["per_node"].size(), 4u);
  // Sorted, slowest first; percentages add up to 100.
  double sum = 0, prev = 1e300;
  for (const Json& n : p["per_node"]) {
    EXPECT_LE(n["ms"].get<double>(), prev);
    prev = n["ms"].get<double>();
    sum += n["percent"].get<double>();
  }
  EXPECT_NEAR(sum, 100.0, 1e-6);
}

// x -> Conv (3x3, pads 1) -> `act` (Relu or HardSwish) -> y: the evaluator
// runs the two as one fused node, and the profile names the group after both
// op types.
std::string conv_relu_model(const TempDir& dir, const std::string& act = "Relu") {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  g.set_name("conv_relu");
  auto f32 = [](std::vector<int64_t> dims) {
    std::vector<ir::Dim> d;
    for (int64_t v : dims) d.push_back(ir::Dim::known(v));
    return ir::Type::tensor(ir::DataType::Float, ir::Shape(d));
  };
  ir::Value* x = g.add_input("x", f32({1, 3, 8, 8}));
  std::vector<float> w(4 * 3 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(i % 7) * 0.25f - 0.75f;
  ir::Value* wv =
      g.add_initializer("w", std::make_shared<ir::Tensor>(ir::Tensor::from<float>(
                                 ir::DataType::Float, {4, 3, 3, 3}, std::span<const float>(w))));
  ir::Value* conv_in[] = {x, wv};
  ir::Node* conv = g.create_node("Conv", conv_in);
  conv->set_name("conv");
  conv->set_attr(ir::Attr::of_ints("pads", {1, 1, 1, 1}));
  ir::Value* relu_in[] = {conv->output(0)};
  ir::Node* relu = g.create_node(act, relu_in);
  relu->set_name("relu");
  relu->output(0)->set_name("y");
  relu->output(0)->set_type(f32({1, 4, 8, 8}));
  g.add_output(relu->output(0));
  const std::string path = dir.file("conv_" + act + ".onnx");
  onnx::save(m, path);
  return path;
}

TEST(CliRunOptions, ProfileNamesAFusedConvGroupAfterItsOps) {
  TempDir dir;
  const std::string model = conv_relu_model(dir);
  RunResult r = run_oxs({"run", model, "--random", "--profile"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "profile: 1 node of the main graph")) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n    Conv\\+Relu +1 node "))) << r.out;
  r = run_oxs({"run", model, "--random", "--profile", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json p = Json::parse(r.out)["profile"];
  ASSERT_EQ(p["per_node"].size(), 1u) << p.dump();
  EXPECT_EQ(p["per_node"][0]["node"], "conv");
  EXPECT_EQ(p["per_node"][0]["op_type"], "Conv+Relu");
  // Saving intermediates needs every node's own output: no fusion then.
  r = run_oxs({"run", model, "--random", "--profile", "--json", "--save-intermediates",
               dir.file("values")});
  ASSERT_EQ(r.code, 0) << r.err;
  p = Json::parse(r.out)["profile"];
  EXPECT_EQ(p["per_node"].size(), 2u) << p.dump();
  EXPECT_TRUE(std::filesystem::exists(dir.file("values/y.npy")));
}

TEST(CliRunOptions, ProfileNamesAFusedConvHardSwishGroupAfterItsOps) {
  TempDir dir;
  const std::string model = conv_relu_model(dir, "HardSwish");
  RunResult r = run_oxs({"run", model, "--random", "--profile"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n    Conv\\+HardSwish +1 node "))) << r.out;
  r = run_oxs({"run", model, "--random", "--profile", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json p = Json::parse(r.out)["profile"];
  ASSERT_EQ(p["per_node"].size(), 1u) << p.dump();
  EXPECT_EQ(p["per_node"][0]["op_type"], "Conv+HardSwish");
}

TEST(CliRunOptions, RepeatReportsTimingPerRun) {
  RunResult r = run_oxs({"run", kMlp, "--random", "--dim", "N=4", "--repeat", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "timing: 5 runs, min ")) << r.out;
  r = run_oxs({"run", kMlp, "--random", "--dim", "N=4", "--repeat", "3", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json t = Json::parse(r.out)["timing"];
  EXPECT_EQ(t["runs"], 3);
  EXPECT_LE(t["min_ms"].get<double>(), t["median_ms"].get<double>());
  EXPECT_EQ(run_oxs({"run", kMlp, "--random", "--dim", "N=4", "--repeat", "0"}).code, 2);
}

TEST(CliRunOptions, TraceFilterMatchingNothingIsAWarning) {
  RunResult r = run_oxs({"run", kMlp, "--random", "--dim", "N=2", "--trace-filter", "Conv"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "oxs: warning: --trace-filter 'Conv' matched no node")) << r.err;
  r = run_oxs({"run", kMlp, "--random", "--dim", "N=2", "--trace-filter", "Gemm"});
  EXPECT_FALSE(contains(r.err, "warning")) << r.err;
}

TEST(CliRunOptions, TraceJsonHasEveryValueOfTheMainGraph) {
  TempDir dir;
  RunResult r =
      run_oxs({"run", kMlp, "--random", "--dim", "N=2", "--trace-json", dir.file("trace.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  Json t = Json::parse(slurp(dir.file("trace.json")));
  EXPECT_EQ(t["command"], "run-trace");
  ASSERT_EQ(t["values"].size(), 4u);
  EXPECT_EQ(t["values"][0]["value"], "H");
  EXPECT_EQ(t["values"][0]["summary"]["shape"], Json::parse("[2, 8]"));
}

// A terminal (script(1) gives the command a pseudo-terminal): the progress
// line appears on it and is erased at the end; --quiet has none; a pipe
// (every other test here) never gets one.
TEST(CliRunOptions, ProgressLineOnlyOnATerminal) {
  const std::string cmd = oxs_bin() + " run " + kMlp + " --random --dim N=2";
  auto on_tty = terminal_output;
  std::string out = on_tty(cmd);
  EXPECT_TRUE(contains(out, "\roxs: run: node 1/4 Gemm 'fc1'")) << out;
  EXPECT_TRUE(contains(out, "\r\033[K")) << out;
  EXPECT_TRUE(contains(out, "Y: float[2,3]")) << out;
  out = on_tty(cmd + " --quiet");
  EXPECT_FALSE(contains(out, "node 1/4")) << out;
  RunResult r = run_oxs({"run", kMlp, "--random", "--dim", "N=2", "--verbose"});
  EXPECT_FALSE(contains(r.err, "node 1/4")) << r.err;
  EXPECT_TRUE(contains(r.err, "oxs: run 1 took ")) << r.err;
}

}  // namespace
}  // namespace oxs::testing
