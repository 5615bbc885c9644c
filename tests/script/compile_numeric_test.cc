// Numbers: the compiled seed examples and constructs, run by eval::Session,
// compute what the Python source says.
#include <gtest/gtest.h>

#include <cmath>

#include "oxs/eval/session.h"
#include "script/compile_util.h"

namespace oxs::script {
namespace {

using testing::read_file;
using testing::script_path;

ir::Model compile_file(const std::string& name, const std::string& entry = {},
                       std::optional<int64_t> opset = {}) {
  SourceFile file(name, read_file(script_path(name)));
  CompileOptions o;
  o.entry = entry;
  o.opset = opset;
  CompileResult r = compile_source(file, o);
  if (!r.ok()) throw std::runtime_error(render(file, r.diagnostics));
  return std::move(*r.model);
}

eval::Value floats(std::vector<int64_t> dims, const std::vector<float>& xs) {
  return eval::Tensor::of<float>(ir::DataType::Float, std::move(dims), xs);
}

std::vector<float> values(const eval::Value& v) {
  const float* d = v.tensor().data<float>();
  return std::vector<float>(d, d + v.tensor().numel());
}

std::vector<float> run1(const ir::Model& m, std::map<std::string, eval::Value> feeds) {
  eval::Session s(m);
  auto out = s.run(feeds);
  return values(out.at(0));
}

const std::vector<float> kX = {-2.0f, -0.5f, 0.0f, 0.25f, 3.0f};

TEST(CompileNumeric, AtenAddScalesOther) {
  ir::Model m = compile_file("aten_add.py");
  std::vector<float> b = {1, 2, 3, 4, 5};
  auto y = run1(m, {{"a", floats({5}, kX)}, {"b", floats({5}, b)}});
  for (size_t i = 0; i < kX.size(); ++i) EXPECT_FLOAT_EQ(y[i], kX[i] + 2.0f * b[i]);
}

// func_with_str.py compares the str attribute `mode` through
// ai.onnx.ml.LabelEncoder (string -> int64) inside the function body: "leaky"
// takes the else branch, "foo" (the default) returns the input.
TEST(CompileNumeric, FuncWithStrBranchesOnTheStringAttribute) {
  auto leaky = run1(compile_file("func_with_str.py"), {{"x", floats({5}, kX)}});
  for (size_t i = 0; i < kX.size(); ++i) {
    EXPECT_FLOAT_EQ(leaky[i], kX[i] < 0 ? 0.01f * kX[i] : kX[i]) << i;
  }
  std::string src = read_file(script_path("func_with_str.py"));
  for (const char* call : {"FuncWithStr(x, mode=\"foo\")", "FuncWithStr(x)",
                           "FuncWithStr(x, negative_slope=0.5, mode=\"other\")"}) {
    std::string text = src.substr(0, src.find("@script()\ndef str_model")) +
                       "@script()\ndef m(x: FLOAT[\"N\"]) -> FLOAT[\"N\"]:\n    return " + call +
                       "\n";
    SourceFile file("f.py", text);
    CompileOptions o;
    o.entry = "m";
    CompileResult r = compile_source(file, o);
    ASSERT_TRUE(r.ok()) << render(file, r.diagnostics);
    auto y = run1(*r.model, {{"x", floats({5}, kX)}});
    bool other = std::string(call).find("other") != std::string::npos;
    for (size_t i = 0; i < kX.size(); ++i) {
      EXPECT_FLOAT_EQ(y[i], other && kX[i] < 0 ? 0.5f * kX[i] : kX[i]) << call << " " << i;
    }
  }
}

TEST(CompileNumeric, LeakyRelu) {
  for (const char* f : {"leaky_relu.py"}) {
    ir::Model m = compile_file(f);
    auto y = run1(m, {{"x", floats({5}, kX)}});
    for (size_t i = 0; i < kX.size(); ++i) {
      EXPECT_FLOAT_EQ(y[i], kX[i] < 0 ? 0.01f * kX[i] : kX[i]) << f << " " << i;
    }
  }
}

TEST(CompileNumeric, EluAndGelu) {
  auto elu = run1(compile_file("elu_del.py"), {{"x", floats({2, 3}, {-1, -0.5, 0, 0.5, 1, 2})}});
  std::vector<float> in = {-1, -0.5, 0, 0.5, 1, 2};
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_NEAR(elu[i], in[i] < 0 ? 0.5f * (std::exp(in[i]) - 1) : in[i], 1e-6);
  }
  auto gelu = run1(compile_file("gelu.py"), {{"X", floats({5}, kX)}});
  for (size_t i = 0; i < kX.size(); ++i) {
    EXPECT_NEAR(gelu[i], kX[i] * 0.5f * (1 + std::erf(kX[i] / std::sqrt(2.0f))), 1e-5);
  }
}

TEST(CompileNumeric, HardmaxIsOneHotOfTheArgmax) {
  ir::Model m = compile_file("readme_hardmax.py");
  std::vector<float> x(64 * 128), w(128 * 10), b(10);
  for (int i = 0; i < 64; ++i)
    for (int k = 0; k < 128; ++k) x[i * 128 + k] = static_cast<float>((i * 7 + k * 3) % 11) / 10;
  for (int k = 0; k < 128; ++k)
    for (int j = 0; j < 10; ++j)
      w[k * 10 + j] = static_cast<float>((k * 5 + j * 3) % 13) / 10 - 0.5f;
  for (int j = 0; j < 10; ++j) b[j] = 0.01f * j;
  auto y = run1(
      m, {{"X", floats({64, 128}, x)}, {"Wt", floats({128, 10}, w)}, {"Bias", floats({10}, b)}});
  ASSERT_EQ(y.size(), 640u);
  for (int i = 0; i < 64; ++i) {
    int best = 0;
    double best_v = -1e30;
    for (int j = 0; j < 10; ++j) {
      double s = b[j];
      for (int k = 0; k < 128; ++k) s += double(x[i * 128 + k]) * w[k * 10 + j];
      if (s > best_v + 1e-9) {
        best_v = s;
        best = j;
      }
    }
    for (int j = 0; j < 10; ++j) EXPECT_EQ(y[i * 10 + j], j == best ? 1.0f : 0.0f) << i << "," << j;
  }
}

TEST(CompileNumeric, AtenChunkSplitsIntoCeilSizedChunks) {
  ir::Model m = compile_file("aten_chunk.py", "", 17);
  std::vector<float> x(25);
  for (int i = 0; i < 25; ++i) x[i] = static_cast<float>(i);
  eval::Session s(m);
  auto out = s.run({{"x", floats({25}, x)}});
  ASSERT_TRUE(out.at(0).is_sequence());
  const auto& items = out[0].items();
  ASSERT_EQ(items.size(), 9u);  // 8 chunks of 3 and one of 1
  EXPECT_EQ(items[0].tensor().dims(), (eval::Dims{3}));
  EXPECT_EQ(items[8].tensor().dims(), (eval::Dims{1}));
  EXPECT_EQ(values(items[8])[0], 24.0f);
}

TEST(CompileNumeric, LoopsBreakContinueAndEarlyReturns) {
  std::vector<float> x = {1, 2};
  auto sum =
      run1(compile_file("constructs_loops.py", "sum_loop"),
           {{"x", floats({2}, x)},
            {"n", eval::Tensor::of<int64_t>(ir::DataType::Int64, {}, std::vector<int64_t>{3})}});
  EXPECT_EQ(sum, (std::vector<float>{4, 8}));
  // range(1, 10, 3) = 1, 4, 7; breaks at 7: two doublings.
  auto r = run1(compile_file("constructs_loops.py", "range_loop"), {{"x", floats({2}, x)}});
  EXPECT_EQ(r, (std::vector<float>{4, 8}));
  // s = 3 doubles until >= 100: 3*2^6 = 192.
  auto w = run1(compile_file("constructs_loops.py", "while_loop"), {{"x", floats({2}, x)}});
  EXPECT_EQ(w, (std::vector<float>{192, 384}));
  ir::Model early = compile_file("constructs_loops.py", "early");
  EXPECT_EQ(run1(early, {{"x", floats({2}, {1, -2})}}), (std::vector<float>{1, -2}));  // max > 0
  EXPECT_EQ(run1(early, {{"x", floats({2}, {-2, -3})}}),
            (std::vector<float>{4, 6}));  // min(-x) > 1
  EXPECT_EQ(run1(early, {{"x", floats({2}, {-0.5, -3})}}), (std::vector<float>{1.5, 4}));
}

}  // namespace
}  // namespace oxs::script
