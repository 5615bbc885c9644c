// libonnx's checker and strict shape inference over IR models.
#include <gtest/gtest.h>

#include "oxs/schema/conformance.h"

namespace oxs::schema {
namespace {

ir::Model model_with(const std::string& op, int inputs, int64_t opset = 17) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports = {{"", opset}};
  ir::Graph& g = *m.graph;
  g.set_name("main");
  std::vector<ir::Value*> in;
  for (int i = 0; i < inputs; ++i) {
    std::string name = "x";  // not "x" + ...: g++ 12 -Wrestrict false positive
    name += std::to_string(i);
    in.push_back(g.add_input(name, ir::Type::tensor(ir::DataType::Float, ir::Shape{2, 2})));
  }
  ir::Node* n = g.create_node(op, in);
  n->output(0)->set_type(ir::Type::tensor(ir::DataType::Float, ir::Shape{2, 2}));
  g.add_output(n->output(0));
  return m;
}

TEST(Conformance, ValidModelPasses) {
  ir::Model m = model_with("Add", 2);
  EXPECT_TRUE(check_conformance(m).empty());
}

TEST(Conformance, CheckerRejectsWrongArity) {
  ir::Model m = model_with("Gemm", 1);  // Gemm needs 2 or 3 inputs
  std::vector<ConformanceIssue> issues = check_conformance(m);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].stage, "checker");
  EXPECT_NE(issues[0].message.find("Gemm"), std::string::npos) << issues[0].message;
  EXPECT_EQ(issues[0].message.find('\n'), std::string::npos);
}

TEST(Conformance, CheckerRejectsUnknownOp) {
  ir::Model m = model_with("Reul", 1);
  std::vector<ConformanceIssue> issues = check_conformance(m);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].stage, "checker");
}

TEST(Conformance, StrictInferenceCatchesShapeConflicts) {
  ir::Model m = model_with("Add", 2);
  // Declared output shape disagrees with what Add infers ([2,2]).
  m.graph->outputs()[0]->set_type(ir::Type::tensor(ir::DataType::Float, ir::Shape{3, 5}));
  std::vector<ConformanceIssue> issues = check_conformance(m);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].stage, "shape inference");
  ConformanceOptions no_inference;
  no_inference.shape_inference = false;
  EXPECT_TRUE(check_conformance(m, no_inference).empty());
}

TEST(Conformance, StrictInferenceCatchesTypeConflicts) {
  ir::Model m = model_with("Add", 2);
  m.graph->outputs()[0]->set_type(ir::Type::tensor(ir::DataType::Int64, ir::Shape{2, 2}));
  std::vector<ConformanceIssue> issues = check_conformance(m);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].stage, "shape inference");
}

}  // namespace
}  // namespace oxs::schema
