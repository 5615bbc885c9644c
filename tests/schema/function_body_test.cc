// Function-op bodies handed out as IR.
#include <gtest/gtest.h>

#include <set>

#include "oxs/ir/error.h"
#include "oxs/ir/verifier.h"
#include "oxs/schema/function_body.h"
#include "oxs/schema/registry.h"

namespace oxs::schema {
namespace {

std::multiset<std::string> op_types(const ir::Graph& g) {
  std::multiset<std::string> out;
  for (ir::Node* n : g.nodes()) out.insert(n->op_type());
  return out;
}

TEST(FunctionBody, MeanVarianceNormalization) {
  const OpSignature& mvn = require("", "MeanVarianceNormalization", 13);
  ASSERT_TRUE(mvn.has_function_body);
  std::unique_ptr<ir::Function> f = function_body(mvn, 13);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "MeanVarianceNormalization");
  ASSERT_EQ(f->body->inputs().size(), 1u);
  ASSERT_EQ(f->body->outputs().size(), 1u);
  EXPECT_EQ(f->body->inputs()[0]->name(), "X");
  EXPECT_EQ(f->body->outputs()[0]->name(), "Y");
  std::multiset<std::string> ops = op_types(*f->body);
  EXPECT_GE(ops.count("ReduceMean"), 2u);
  EXPECT_EQ(ops.count("Sqrt"), 1u);
  EXPECT_EQ(ops.count("Div"), 1u);
  // The axes attribute of the op flows into the body as a reference.
  bool has_ref = false;
  for (ir::Node* n : f->body->nodes()) {
    for (const ir::Attr& a : n->attrs()) has_ref |= a.is_reference() && a.ref_attr_name == "axes";
  }
  EXPECT_TRUE(has_ref);
  EXPECT_TRUE(ir::verify(*f->body).empty());
  EXPECT_FALSE(f->opset_imports.empty());
}

TEST(FunctionBody, OpsWithoutBody) {
  const OpSignature& relu = require("", "Relu", 14);
  EXPECT_FALSE(relu.has_function_body);
  EXPECT_EQ(function_body(relu, 17), nullptr);
  CallSite call;
  call.input_types = {ir::Type::tensor(ir::DataType::Float)};
  call.outputs_present = {true};
  EXPECT_EQ(context_dependent_body(relu, 17, call), nullptr);
}

TEST(FunctionBody, OpsetOlderThanOpIsAUsageError) {
  const OpSignature& range = require("", "Range", 11);
  try {
    function_body(range, 10);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
  }
}

TEST(ContextDependentBody, Celu) {
  const OpSignature& celu = require("", "Celu", 12);
  ASSERT_TRUE(celu.has_context_dependent_function);
  ir::Attr alpha = ir::Attr::of_float("alpha", 2.0f);
  CallSite call;
  call.input_types = {ir::Type::tensor(ir::DataType::Float, ir::Shape{2, 3})};
  call.outputs_present = {true};
  call.attrs = std::span<const ir::Attr>(&alpha, 1);
  std::unique_ptr<ir::Function> f = context_dependent_body(celu, 12, call);
  ASSERT_NE(f, nullptr);
  std::multiset<std::string> ops = op_types(*f->body);
  EXPECT_EQ(ops.count("Elu"), 1u);
  EXPECT_EQ(f->body->outputs().size(), 1u);
  EXPECT_TRUE(ir::verify(*f->body).empty());
}

TEST(ContextDependentBody, SoftmaxCrossEntropyLossDependsOnTheCallSite) {
  const OpSignature& sce = require("", "SoftmaxCrossEntropyLoss", 13);
  ASSERT_TRUE(sce.has_context_dependent_function);
  ir::Attr reduction = ir::Attr::of_string("reduction", "mean");
  CallSite call;
  call.input_types = {ir::Type::tensor(ir::DataType::Float, ir::Shape{4, 5}),
                      ir::Type::tensor(ir::DataType::Int64, ir::Shape{4})};
  call.outputs_present = {true};
  call.attrs = std::span<const ir::Attr>(&reduction, 1);
  std::unique_ptr<ir::Function> one = context_dependent_body(sce, 13, call);
  ASSERT_NE(one, nullptr);
  // libonnx lists every formal output; the ones the call site does not use
  // are not computed.
  ASSERT_EQ(one->body->outputs().size(), 2u);
  EXPECT_EQ(one->body->outputs()[1]->producer(), nullptr);
  std::multiset<std::string> ops = op_types(*one->body);
  EXPECT_EQ(ops.count("LogSoftmax"), 1u);
  EXPECT_EQ(ops.count("Identity"), 0u);

  // Asking for log_prob too computes the second output.
  call.outputs_present = {true, true};
  std::unique_ptr<ir::Function> two = context_dependent_body(sce, 13, call);
  ASSERT_NE(two, nullptr);
  ASSERT_EQ(two->body->outputs().size(), 2u);
  ASSERT_NE(two->body->outputs()[1]->producer(), nullptr);
  EXPECT_EQ(two->body->outputs()[1]->producer()->op_type(), "Identity");
  EXPECT_TRUE(ir::verify(*two->body).empty());

  // A weight input is passed on to NegativeLogLikelihoodLoss.
  auto nll_inputs = [](const ir::Function& f) -> size_t {
    for (ir::Node* n : f.body->nodes()) {
      if (n->op_type() == "NegativeLogLikelihoodLoss") return n->num_inputs();
    }
    return 0;
  };
  EXPECT_EQ(nll_inputs(*two), 2u);
  call.input_types.push_back(ir::Type::tensor(ir::DataType::Float, ir::Shape{5}));
  std::unique_ptr<ir::Function> weighted = context_dependent_body(sce, 13, call);
  ASSERT_NE(weighted, nullptr);
  EXPECT_EQ(nll_inputs(*weighted), 3u);
}

TEST(ContextDependentBody, FromANode) {
  ir::Graph g("g");
  ir::Value* x = g.add_input("x", ir::Type::tensor(ir::DataType::Float, ir::Shape{2, 8}));
  ir::Value* scale = g.add_input("scale", ir::Type::tensor(ir::DataType::Float, ir::Shape{8}));
  ir::Value* inputs[] = {x, scale};
  ir::Node* ln = g.create_node("LayerNormalization", inputs);
  ln->set_attr(ir::Attr::of_int("axis", -1));
  g.add_output(ln->output(0));
  CallSite call = call_site_of(*ln);
  ASSERT_EQ(call.input_types.size(), 2u);
  ASSERT_TRUE(call.input_types[0].has_value());
  EXPECT_EQ(call.input_types[0]->elem_type(), ir::DataType::Float);
  ASSERT_EQ(call.attrs.size(), 1u);
  const OpSignature& sig = require("", "LayerNormalization", 17);
  std::unique_ptr<ir::Function> f = context_dependent_body(sig, 17, call);
  ASSERT_NE(f, nullptr);
  std::multiset<std::string> ops = op_types(*f->body);
  EXPECT_GE(ops.count("ReduceMean"), 2u);
  EXPECT_EQ(ops.count("Sqrt"), 1u);
}

}  // namespace
}  // namespace oxs::schema
