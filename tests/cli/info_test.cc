// `oxs info` on the bundled MLP (examples/models/make_models.py says what is
// in it: X[N,4] -> Gemm(W1[8,4], B1[8]) -> Relu -> Gemm(W2[3,8], B2[3]) ->
// Softmax -> Y[N,3]).
#include <gtest/gtest.h>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// True if `text` has the line "  <op><one or more spaces><count>". (Not
// std::regex: g++ 12 reports a false -Wmaybe-uninitialized inside it in
// sanitizer builds, which -Werror turns into a failure.)
bool has_op_count_line(const std::string& text, const std::string& op, const std::string& count) {
  const std::string head = "\n  " + op + " ";
  for (size_t at = text.find(head); at != std::string::npos; at = text.find(head, at + 1)) {
    size_t p = at + head.size();
    while (p < text.size() && text[p] == ' ') ++p;
    if (text.compare(p, count.size() + 1, count + "\n") == 0) return true;
  }
  return false;
}

TEST(CliInfo, Mlp) {
  RunResult r = run_oxs({"info", source_path("examples/models/mlp.onnx")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  const std::string& out = r.out;
  EXPECT_TRUE(contains(out, "ir_version:   8\n")) << out;
  EXPECT_TRUE(contains(out, "opsets:       ai.onnx 17\n")) << out;
  EXPECT_TRUE(contains(out, "producer:     oxs-examples 0.1\n")) << out;
  EXPECT_TRUE(contains(out, "graph:        mlp\n")) << out;
  EXPECT_TRUE(contains(out, "inputs:       1\n  X: float[N,4]\n")) << out;
  EXPECT_TRUE(contains(out, "outputs:      1\n  Y: float[N,3]\n")) << out;
  EXPECT_TRUE(contains(out, "nodes:        4\n")) << out;
  // Sorted by count: Gemm (2) before the ops seen once.
  EXPECT_TRUE(has_op_count_line(out, "Gemm", "2")) << out;
  EXPECT_TRUE(has_op_count_line(out, "Relu", "1")) << out;
  EXPECT_LT(out.find("  Gemm"), out.find("  Relu"));
  EXPECT_TRUE(contains(out, "functions:    0\n")) << out;
  // 8*4 + 8 + 3*8 + 3 = 67 float parameters = 268 bytes.
  EXPECT_TRUE(contains(out, "initializers: 4 (67 parameters, 268 B)\n")) << out;
  EXPECT_TRUE(contains(out, "  inline:     4 tensors, 268 B\n")) << out;
  EXPECT_TRUE(contains(out, "  external:   0 tensors, 0 B\n")) << out;
}

TEST(CliInfo, CountsNodesOfSubgraphs) {
  // libonnx's Loop test: one Loop whose body holds 9 nodes.
  RunResult r = run_oxs({"info", "/usr/share/libonnx-testdata/data/node/test_loop11/model.onnx"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "nodes:        10 (9 in 1 subgraph)\n")) << r.out;
  EXPECT_TRUE(has_op_count_line(r.out, "Loop", "1")) << r.out;
  EXPECT_TRUE(contains(r.out, "initializers: 0 (0 parameters, 0 B)\n")) << r.out;
}

}  // namespace
}  // namespace oxs::testing
