// libonnx's checker and strict shape inference over IR models.
#include <gtest/gtest.h>

#include "oxs/schema/conformance.h"

#include <filesystem>
#include <fstream>

#include "oxs/ir/error.h"

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

// libonnx 1.12's shape inference aborts on map-typed values: reported as a
// limitation (a note), not as a problem of this valid model.
TEST(Conformance, MapTypedValuesAreALimitationNotAProblem) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports = {{"", 17}, {"ai.onnx.ml", 3}};
  ir::Graph& g = *m.graph;
  g.set_name("main");
  ir::Value* in[] = {g.add_input("p", ir::Type::tensor(ir::DataType::Float, ir::Shape{2, 3}))};
  ir::Node* zip = g.create_node("ZipMap", in, 1, "ai.onnx.ml");
  zip->set_attr(ir::Attr::of_ints("classlabels_int64s", {0, 1, 2}));
  zip->output(0)->set_type(ir::Type::sequence(
      ir::Type::map(ir::DataType::Int64, ir::Type::tensor(ir::DataType::Float, ir::Shape{}))));
  g.add_output(zip->output(0));
  std::vector<ConformanceIssue> issues = check_conformance(m);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_TRUE(issues[0].limitation) << issues[0].message;
  EXPECT_NE(issues[0].message.find("map-typed"), std::string::npos) << issues[0].message;
  // Without shape inference nothing is left to say.
  ConformanceOptions no_inference;
  no_inference.shape_inference = false;
  EXPECT_TRUE(check_conformance(m, no_inference).empty());
}

TEST(Conformance, CheckerRejectsWrongArity) {
  ir::Model m = model_with("Gemm", 1);  // Gemm needs 2 or 3 inputs
  std::vector<ConformanceIssue> issues = check_conformance(m);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].stage, "checker");
  EXPECT_NE(issues[0].message.find("Gemm"), std::string::npos) << issues[0].message;
  EXPECT_EQ(issues[0].message.find('\n'), std::string::npos);
}

TEST(Conformance, EveryUnknownOpIsReportedWithSuggestions) {
  ir::Model m = model_with("Reul", 1);
  ir::Graph& g = *m.graph;
  ir::Value* x[] = {g.inputs()[0]};
  g.create_node("LayerNormalization", x);  // exists only from opset 17
  m.opset_imports = {{"", 16}};
  std::vector<ConformanceIssue> issues = check_conformance(m);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].stage, "schema");
  EXPECT_NE(issues[0].message.find("did you mean 'Relu'"), std::string::npos) << issues[0].message;
  EXPECT_NE(issues[1].message.find("introduced at opset 17"), std::string::npos)
      << issues[1].message;
}

TEST(Conformance, UnknownAndMissingAttributes) {
  ir::Model m = model_with("ReduceMean", 1);
  ir::Graph& g = *m.graph;
  g.first_node()->set_attr(ir::Attr::of_int("keepdim", 0));
  g.first_node()->set_attr(ir::Attr::of_int("__internal", 1));  // always allowed
  ir::Value* x[] = {g.inputs()[0], g.inputs()[0]};
  g.create_node("Concat", x);  // no axis
  std::vector<ConformanceIssue> issues = check_conformance(m);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_NE(issues[0].message.find("unknown attribute 'keepdim' of ReduceMean-13 (did you mean "
                                   "'keepdims'?)"),
            std::string::npos)
      << issues[0].message;
  EXPECT_NE(issues[1].message.find("missing required attribute 'axis' of Concat-13"),
            std::string::npos)
      << issues[1].message;
  // LayerNormalization-17 accepts attributes it does not list.
  ir::Model ln = model_with("LayerNormalization", 2);
  ln.graph->first_node()->set_attr(ir::Attr::of_int("custom", 1));
  for (const auto& i : check_conformance(ln)) EXPECT_NE(i.stage, "schema") << i.message;
}

TEST(Conformance, LocalFunctionsAndCustomDomainsAreNotSchemaOps) {
  ir::Model m = model_with("Twice", 1);
  m.graph->first_node()->set_domain("local");
  m.opset_imports.push_back({"local", 1});
  auto f = std::make_unique<ir::Function>("local", "Twice");
  f->opset_imports = {{"", 17}};
  ir::Value* x = f->body->add_input("x");
  ir::Value* in[] = {x, x};
  f->body->add_output(f->body->create_node("Add", in)->output(0));
  m.functions.push_back(std::move(f));
  std::vector<ConformanceIssue> issues = check_conformance(m);
  for (const auto& i : issues) EXPECT_NE(i.stage, "schema") << i.message;
  // A typo inside the function body is found too.
  m.functions[0]->body->first_node()->set_op_type("Ad");
  issues = check_conformance(m);
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].stage, "schema");
  EXPECT_NE(issues[0].message.find("function 'Twice'"), std::string::npos) << issues[0].message;
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

// Lazy storage that fails the test if anybody reads it.
class UntouchableStorage final : public ir::Storage {
 public:
  explicit UntouchableStorage(size_t size) : size_(size) {}
  Kind kind() const override { return Kind::Lazy; }
  std::span<const std::byte> bytes() const override {
    ADD_FAILURE() << "external data was read";
    throw Error(ErrorKind::IO, "external data must not be read by the checker");
  }
  size_t size() const override { return size_; }

 private:
  size_t size_;
};

ir::Model model_with_external_weight(const std::string& location) {
  ir::Model m = model_with("Add", 1);
  ir::Graph& g = *m.graph;
  auto w = std::make_shared<ir::Tensor>(ir::DataType::Float, std::vector<int64_t>{2, 2});
  w->encoding = ir::Tensor::Encoding::External;
  w->external.location = location;
  w->external.length = 16;
  w->external.entries = {{"location", location}, {"length", "16"}};
  w->set_storage(std::make_shared<UntouchableStorage>(16));
  ir::Value* wv = g.add_initializer("w", w);
  g.first_node()->append_input(wv);
  return m;
}

TEST(Conformance, ExternalDataIsCheckedByReferenceNotRead) {
  const std::string dir = std::filesystem::temp_directory_path() / "oxs_conformance_ext";
  std::filesystem::create_directories(dir);
  { std::ofstream(dir + "/w.bin", std::ios::binary) << std::string(16, '\0'); }
  ConformanceOptions options;
  options.model_dir = dir;
  ir::Model present = model_with_external_weight("w.bin");
  EXPECT_TRUE(check_conformance(present, options).empty());

  // A missing data file is reported (found relative to model_dir, not cwd).
  ir::Model missing = model_with_external_weight("gone.bin");
  std::vector<ConformanceIssue> issues = check_conformance(missing, options);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].stage, "checker");
  EXPECT_NE(issues[0].message.find("gone.bin"), std::string::npos) << issues[0].message;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace oxs::schema
