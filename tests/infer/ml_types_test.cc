// Output types of the ai.onnx.ml operators libonnx 1.12 cannot infer
// (infer/ml_types.h): a scikit-learn style pipeline gets typed end to end,
// so the checker's "input expected to have type" does not fire downstream.
#include <gtest/gtest.h>

#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"

namespace oxs::infer {
namespace {

using ir::DataType;
using ir::Dim;
using ir::Shape;
using ir::Type;

const char* kMl = "ai.onnx.ml";

struct Pipeline {
  ir::Model m;
  ir::Graph& g;
  Pipeline() : g(*m.graph) {
    m.opset_imports.push_back({"", 17});
    m.opset_imports.push_back({kMl, 3});
  }
  ir::Node* ml(const std::string& op, std::vector<ir::Value*> ins, size_t outs = 1) {
    return g.create_node(op, ins, outs, kMl);
  }
};

Type batch_of(DataType dt, int64_t cols) {
  return Type::tensor(dt, Shape(std::vector<Dim>{Dim::symbolic("N"), Dim::known(cols)}));
}

TEST(MlTypes, PreprocessingKeepsShapes) {
  Pipeline p;
  ir::Value* x = p.g.add_input("x", batch_of(DataType::Double, 4));
  ir::Node* imp = p.ml("Imputer", {x});
  imp->set_attr(ir::Attr::of_floats("imputed_value_floats", {0.f}));
  ir::Node* bin = p.ml("Binarizer", {imp->output(0)});
  ir::Node* scl = p.ml("Scaler", {bin->output(0)});
  scl->set_attr(ir::Attr::of_floats("scale", {2.f}));
  ir::Node* nrm = p.ml("Normalizer", {scl->output(0)});
  nrm->set_attr(ir::Attr::of_string("norm", "L2"));
  Inferencer inf(p.m);
  inf.infer_graph(p.g);
  EXPECT_EQ(imp->output(0)->type(), batch_of(DataType::Double, 4));
  EXPECT_EQ(bin->output(0)->type(), batch_of(DataType::Double, 4));
  EXPECT_EQ(scl->output(0)->type(), batch_of(DataType::Float, 4));
  EXPECT_EQ(nrm->output(0)->type(), batch_of(DataType::Float, 4));
}

TEST(MlTypes, EncodersAndExtractors) {
  Pipeline p;
  ir::Value* s = p.g.add_input("s", Type::tensor(DataType::String, Shape{5}));
  ir::Node* ohe = p.ml("OneHotEncoder", {s});
  ohe->set_attr(ir::Attr::of_strings("cats_strings", {"a", "b", "c"}));
  ir::Value* x = p.g.add_input("x", batch_of(DataType::Int64, 6));
  ir::Value* idx = p.g.add_input("idx", Type::tensor(DataType::Int64, Shape{2}));
  ir::Node* afe = p.ml("ArrayFeatureExtractor", {x, idx});
  ir::Value* v = p.g.add_input("v", Type::tensor(DataType::Float, Shape{6}));
  ir::Node* afe1 = p.ml("ArrayFeatureExtractor", {v, idx});
  ir::Node* fv = p.ml("FeatureVectorizer", {afe->output(0), x});
  fv->set_attr(ir::Attr::of_ints("inputdimensions", {2, 6}));
  Inferencer inf(p.m);
  inf.infer_graph(p.g);
  EXPECT_EQ(ohe->output(0)->type(), Type::tensor(DataType::Float, Shape{5, 3}));
  EXPECT_EQ(afe->output(0)->type(), batch_of(DataType::Int64, 2));
  EXPECT_EQ(afe1->output(0)->type(), Type::tensor(DataType::Float, Shape{1, 2}));
  EXPECT_EQ(fv->output(0)->type(), batch_of(DataType::Float, 8));
}

TEST(MlTypes, RegressorsGiveRowsByTargets) {
  Pipeline p;
  p.m.opset_imports.back().version = 1;  // TreeEnsembleRegressor-1 has no libonnx inference
  ir::Value* x = p.g.add_input("x", batch_of(DataType::Float, 3));
  ir::Node* lin = p.ml("LinearRegressor", {x});
  lin->set_attr(ir::Attr::of_int("targets", 2));
  lin->set_attr(ir::Attr::of_floats("coefficients", {1, 2, 3, 4, 5, 6}));
  ir::Node* svm = p.ml("SVMRegressor", {x});
  ir::Node* tree = p.ml("TreeEnsembleRegressor", {x});
  tree->set_attr(ir::Attr::of_int("n_targets", 3));
  ir::Value* one = p.g.add_input("one", Type::tensor(DataType::Float, Shape{3}));
  ir::Node* lin1 = p.ml("LinearRegressor", {one});
  Inferencer inf(p.m);
  inf.infer_graph(p.g);
  EXPECT_EQ(lin->output(0)->type(), batch_of(DataType::Float, 2));
  EXPECT_EQ(svm->output(0)->type(), batch_of(DataType::Float, 1));
  EXPECT_EQ(tree->output(0)->type(), batch_of(DataType::Float, 3));
  EXPECT_EQ(lin1->output(0)->type(), Type::tensor(DataType::Float, Shape{1, 1}));
}

TEST(MlTypes, UnknownInputShapeStaysUnknown) {
  Pipeline p;
  ir::Value* x = p.g.add_input("x", Type::tensor(DataType::Float));
  ir::Node* scl = p.ml("Scaler", {x});
  ir::Node* lin = p.ml("LinearRegressor", {x});
  Inferencer inf(p.m);
  inf.infer_graph(p.g);
  EXPECT_EQ(scl->output(0)->type(), Type::tensor(DataType::Float));
  const Type& t = lin->output(0)->type();
  ASSERT_TRUE(t.shape().has_value());
  EXPECT_TRUE((*t.shape())[0].is_unknown());
  EXPECT_EQ((*t.shape())[1], Dim::known(1));
}

}  // namespace
}  // namespace oxs::infer
