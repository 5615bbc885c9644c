// `--json` of info, check, diff, op and run: parsed back and checked field by
// field against what docs/json.md promises.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

using Json = nlohmann::json;

const std::string kMlp = source_path("examples/models/mlp.onnx");
const std::string kData = source_path("tests/cli/data/");

Json parse_stdout(const RunResult& r) {
  Json j = Json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON:\n" << r.out << r.err;
  if (!j.is_discarded()) {
    EXPECT_EQ(j["oxs_json"], 1) << r.out;
  }
  return j;
}

TEST(CliJson, Info) {
  RunResult r = run_oxs({"info", kData + "mlp_metadata.onnx", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json j = parse_stdout(r);
  EXPECT_EQ(j["command"], "info");
  EXPECT_EQ(j["ir_version"], 8);
  EXPECT_EQ(j["opsets"]["ai.onnx"], 17);
  EXPECT_EQ(j["metadata_props"]["author"], "oxs tests");
  ASSERT_EQ(j["inputs"].size(), 1u);
  EXPECT_EQ(j["inputs"][0]["name"], "X");
  EXPECT_EQ(j["inputs"][0]["type"]["elem_type"], "float");
  EXPECT_EQ(j["inputs"][0]["type"]["shape"], Json::parse(R"(["N", 4])"));
  EXPECT_EQ(j["nodes"]["total"], 4);
  EXPECT_EQ(j["nodes"]["by_op"]["Gemm"], 2);
  EXPECT_EQ(j["initializers"]["parameters"], 67);
  EXPECT_EQ(j["initializers"]["bytes"], 268);
}

TEST(CliJson, CheckValidAndInvalid) {
  RunResult r = run_oxs({"check", kMlp, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json j = parse_stdout(r);
  EXPECT_EQ(j["valid"], true);
  EXPECT_EQ(j["nodes"], 4);
  EXPECT_TRUE(j["issues"].empty());
  r = run_oxs({"check", kData + "bad_ops.onnx", "--json"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;  // the problems are in the document
  j = parse_stdout(r);
  EXPECT_EQ(j["valid"], false);
  EXPECT_EQ(j["problems"], 2);
  ASSERT_GE(j["issues"].size(), 2u);
  EXPECT_EQ(j["issues"][0]["severity"], "error");
  EXPECT_EQ(j["issues"][0]["stage"], "op schema");
  EXPECT_NE(j["issues"][0]["message"].get<std::string>().find("did you mean 'Relu'"),
            std::string::npos);
}

TEST(CliJson, DiffGivesKindPathAndTensorStatistics) {
  RunResult r = run_oxs({"diff", kMlp, kData + "mlp_changed.onnx", "--json"});
  EXPECT_EQ(r.code, 1) << r.err;
  Json j = parse_stdout(r);
  EXPECT_EQ(j["equivalent"], false);
  std::set<std::string> kinds;
  const Json* constant = nullptr;
  for (const Json& d : j["differences"]) {
    kinds.insert(d["kind"].get<std::string>());
    EXPECT_TRUE(d.contains("path") && d.contains("first") && d.contains("second")) << d;
    if (d["kind"] == "constant") constant = &d;
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"operator", "attribute", "constant"})) << j.dump(2);
  ASSERT_NE(constant, nullptr);
  const Json& t = (*constant)["tensor"];
  EXPECT_EQ(t["elements"], 32);
  EXPECT_EQ(t["differing"], 2);
  EXPECT_EQ(t["first_index"], 6);  // [1,2] in an [8,4] tensor
  EXPECT_EQ(t["first_index_nd"], Json::parse("[1, 2]"));
  EXPECT_NEAR(t["max_abs_diff"].get<double>(), 0.5, 1e-6);
  r = run_oxs({"diff", kMlp, kMlp, "--json"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(parse_stdout(r)["equivalent"], true);
}

TEST(CliJson, Op) {
  RunResult r = run_oxs({"op", "Gemm", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json j = parse_stdout(r);
  EXPECT_EQ(j["name"], "Gemm");
  EXPECT_EQ(j["since_version"], 13);
  EXPECT_EQ(j["inputs"][2]["option"], "optional");
  EXPECT_EQ(j["attributes"][0]["name"], "alpha");
  EXPECT_EQ(j["attributes"][0]["default"], "1.0");
}

TEST(CliJson, RunOutputsSummary) {
  RunResult r = run_oxs({"run", kMlp, "--input", "X=[[1,2,3,4],[0,0,0,0]]", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json j = parse_stdout(r);
  ASSERT_EQ(j["outputs"].size(), 1u);
  const Json& y = j["outputs"][0];
  EXPECT_EQ(y["name"], "Y");
  EXPECT_EQ(y["elem_type"], "float");
  EXPECT_EQ(y["shape"], Json::parse("[2, 3]"));
  ASSERT_EQ(y["values"].size(), 6u);
  // Softmax rows sum to 1.
  double row = 0;
  for (int i = 0; i < 3; ++i) row += y["values"][i].get<double>();
  EXPECT_NEAR(row, 1.0, 1e-5);
  EXPECT_EQ(j["inputs"][0]["name"], "X");
  EXPECT_EQ(j["inputs"][0]["random"], false);
}

}  // namespace
}  // namespace oxs::testing
