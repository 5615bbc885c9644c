// schema::convert_opset on small models built in memory: the adapters of
// oxs's own steps between opsets 17 and 28, each way, and the refusals.
#include "oxs/schema/version_convert.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "oxs/ir/error.h"
#include "oxs/ir/tensor.h"
#include "schema/one_node_model.h"

namespace oxs::testing {
namespace {

using schema::convert_opset;

ir::Node* find(const ir::Graph& g, const std::string& op) {
  for (ir::Node* n : g.nodes()) {
    if (n->op_type() == op) return n;
  }
  return nullptr;
}

// The int64 values of the Constant node feeding `n`'s input `i`.
std::vector<int64_t> constant_input(const ir::Node& n, size_t i) {
  const ir::Node* c = n.input(i)->producer();
  EXPECT_NE(c, nullptr);
  if (c == nullptr) return {};
  auto d = c->attr("value")->t->data<int64_t>();
  return {d.begin(), d.end()};
}

std::string refusal(ir::Model m, int64_t target) {
  try {
    convert_opset(std::move(m), target, "");
  } catch (const Error& e) {
    return e.message();
  }
  return "(converted)";
}

TEST(VersionConvert, ReduceAxesAttributeBecomesInputAndBack) {
  ir::Model m = one_node_model(13, "ReduceMean", {{"x", float_tensor({2, 3})}},
                               {{"y", float_tensor({2, 1})}}, {});
  find(*m.graph, "ReduceMean")->set_attr(ir::Attr::of_ints("axes", {1}));
  auto up = convert_opset(std::move(m), 18, "");
  const ir::Node* r = find(*up.model.graph, "ReduceMean");
  EXPECT_EQ(r->attr("axes"), nullptr);
  EXPECT_EQ(constant_input(*r, 1), std::vector<int64_t>{1});
  EXPECT_EQ(up.model.opset_imports[0].version, 18);
  auto down = convert_opset(std::move(up.model), 17, "");
  r = find(*down.model.graph, "ReduceMean");
  ASSERT_NE(r->attr("axes"), nullptr);
  EXPECT_EQ(r->attr("axes")->ints, std::vector<int64_t>{1});
  EXPECT_EQ(r->num_inputs(), 1u);
  EXPECT_EQ(find(*down.model.graph, "Constant"), nullptr);  // the dead Constant is gone
}

TEST(VersionConvert, ReduceAxesFromAGraphInputAreRefusedDown) {
  ir::Model m = one_node_model(
      18, "ReduceMax",
      {{"x", float_tensor({2, 3})}, {"axes", ir::Type::tensor(ir::DataType::Int64, ir::Shape{1})}},
      {{"y", float_tensor({2, 1})}});
  EXPECT_EQ(refusal(std::move(m), 17),
            "cannot convert from opset 18 to 17: node 'the_ReduceMax' (ReduceMax): its axes input "
            "'axes' is not a constant; ReduceMax-13 (opset 17) takes axes as an attribute");
}

TEST(VersionConvert, SplitNumOutputsDownGivesSizesWhenUneven) {
  ir::Model m = one_node_model(
      18, "Split", {{"x", float_tensor({7})}},
      {{"a", float_tensor({3})}, {"b", float_tensor({3})}, {"c", float_tensor({1})}}, {});
  find(*m.graph, "Split")->set_attr(ir::Attr::of_int("num_outputs", 3));
  auto down = convert_opset(std::move(m), 17, "");
  const ir::Node* s = find(*down.model.graph, "Split");
  EXPECT_EQ(s->attr("num_outputs"), nullptr);
  EXPECT_EQ(constant_input(*s, 1), (std::vector<int64_t>{3, 3, 1}));
}

TEST(VersionConvert, SplitOfUnknownSizeIsRefusedDownAndNamedUp) {
  ir::Type x = ir::Type::tensor(ir::DataType::Float, ir::Shape({ir::Dim::symbolic("n")}));
  ir::Model m = one_node_model(18, "Split", {{"x", x}}, {{"a", x}, {"b", x}});
  find(*m.graph, "Split")->set_attr(ir::Attr::of_int("num_outputs", 2));
  EXPECT_NE(refusal(std::move(m), 17).find("splits a dimension of unknown size"),
            std::string::npos);
  ir::Model old = one_node_model(13, "Split", {{"x", x}}, {{"a", x}, {"b", x}});
  auto up = convert_opset(std::move(old), 18, "");
  ASSERT_NE(find(*up.model.graph, "Split")->attr("num_outputs"), nullptr);
  EXPECT_EQ(find(*up.model.graph, "Split")->attr("num_outputs")->i, 2);
}

TEST(VersionConvert, GridSampleModeNamesAndRank) {
  ir::Model m = one_node_model(
      16, "GridSample", {{"x", float_tensor({1, 1, 4, 4})}, {"g", float_tensor({1, 2, 2, 2})}},
      {{"y", float_tensor({1, 1, 2, 2})}}, {});
  find(*m.graph, "GridSample")->set_attr(ir::Attr::of_string("mode", "bicubic"));
  auto up = convert_opset(std::move(m), 20, "");
  EXPECT_EQ(find(*up.model.graph, "GridSample")->attr("mode")->s, "cubic");
  auto down = convert_opset(std::move(up.model), 19, "");
  EXPECT_EQ(find(*down.model.graph, "GridSample")->attr("mode")->s, "bicubic");

  ir::Model five =
      one_node_model(20, "GridSample",
                     {{"x", float_tensor({1, 1, 2, 4, 4})}, {"g", float_tensor({1, 2, 2, 2, 3})}},
                     {{"y", float_tensor({1, 1, 2, 2, 2})}});
  EXPECT_NE(refusal(std::move(five), 19).find("its input is 5-d"), std::string::npos);
}

TEST(VersionConvert, DftAxisDefaultsDifferAcrossVersions) {
  // DFT-20 without an axis input transforms axis -2: dim 1 of a rank-3 input.
  ir::Model m =
      one_node_model(20, "DFT", {{"x", float_tensor({1, 8, 2})}}, {{"y", float_tensor({1, 8, 2})}});
  auto down = convert_opset(std::move(m), 19, "");
  const ir::Node* d = find(*down.model.graph, "DFT");
  ASSERT_NE(d->attr("axis"), nullptr);
  EXPECT_EQ(d->attr("axis")->i, 1);
  // DFT-17 without an axis attribute transforms axis 1: made explicit going up.
  ir::Model old =
      one_node_model(17, "DFT", {{"x", float_tensor({1, 8, 2})}}, {{"y", float_tensor({1, 8, 2})}});
  auto up = convert_opset(std::move(old), 20, "");
  EXPECT_EQ(constant_input(*find(*up.model.graph, "DFT"), 2), std::vector<int64_t>{1});
}

TEST(VersionConvert, PadWrapIsRefusedDown) {
  ir::Model wrap = one_node_model(
      19, "Pad",
      {{"x", float_tensor({2, 2})}, {"p", ir::Type::tensor(ir::DataType::Int64, ir::Shape{4})}},
      {{"y", float_tensor({4, 2})}});
  find(*wrap.graph, "Pad")->set_attr(ir::Attr::of_string("mode", "wrap"));
  EXPECT_EQ(refusal(std::move(wrap), 18),
            "cannot convert from opset 19 to 18: node 'the_Pad' (Pad): mode='wrap' is new in "
            "Pad-19; opset 18 has no equivalent");
}

TEST(VersionConvert, PadAxesAreFoldedIntoThePadsDown) {
  ir::Model m =
      one_node_model(18, "Pad", {{"x", float_tensor({2, 3})}}, {{"y", float_tensor({2, 6})}});
  ir::Node* pad = find(*m.graph, "Pad");
  auto ints = [](std::vector<int64_t> v) {
    return std::make_shared<ir::Tensor>(
        ir::Tensor::from<int64_t>(ir::DataType::Int64, {int64_t(v.size())}, {v.data(), v.size()}));
  };
  pad->append_input(m.graph->add_initializer("pads", ints({1, 2})));
  pad->append_input(nullptr);
  pad->append_input(m.graph->add_initializer("axes", ints({-1})));
  auto down = convert_opset(std::move(m), 17, "");
  pad = find(*down.model.graph, "Pad");
  EXPECT_EQ(pad->num_inputs(), 2u);
  EXPECT_EQ(constant_input(*pad, 1), (std::vector<int64_t>{0, 1, 0, 2}));
}

TEST(VersionConvert, FunctionBodiesAndImportsAreConverted) {
  ir::Model m =
      one_node_model(18, "F", {{"x", float_tensor({2, 3})}}, {{"y", float_tensor({2, 1})}});
  find(*m.graph, "F")->set_domain("local");
  m.opset_imports.push_back(ir::OpsetImport{"local", 1});
  auto f = std::make_unique<ir::Function>("F", "local");
  f->opset_imports.push_back(ir::OpsetImport{"", 18});
  ir::Value* x = f->body->add_input("x");
  ir::Node* r = f->body->create_node("ReduceSumSquare", std::vector<ir::Value*>{x});
  f->body->add_output(r->output(0));
  r->set_attr(ir::Attr::of_int("keepdims", 1));
  r->append_input(nullptr);  // axes omitted: every axis
  m.functions.push_back(std::move(f));
  auto down = convert_opset(std::move(m), 17, "");
  const ir::Function& g = *down.model.functions[0];
  EXPECT_EQ(g.opset_imports[0].version, 17);
  EXPECT_EQ(down.model.opset_imports[0].version, 17);
  const ir::Node* body = find(*g.body, "ReduceSumSquare");
  EXPECT_EQ(body->num_inputs(), 1u);
  EXPECT_EQ(body->attr("axes"), nullptr);  // every axis, as before
}

TEST(VersionConvert, ResizeAxesAreFoldedIntoFullRankScalesDown) {
  ir::Model m = one_node_model(18, "Resize", {{"x", float_tensor({1, 1, 2, 2})}},
                               {{"y", float_tensor({1, 1, 4, 4})}});
  ir::Node* r = find(*m.graph, "Resize");
  std::vector<float> scales{2.0F, 2.0F};
  r->append_input(nullptr);
  r->append_input(m.graph->add_initializer(
      "scales", std::make_shared<ir::Tensor>(ir::Tensor::from<float>(
                    ir::DataType::Float, {2}, {scales.data(), scales.size()}))));
  r->set_attr(ir::Attr::of_ints("axes", {2, 3}));
  auto down = convert_opset(std::move(m), 17, "");
  r = find(*down.model.graph, "Resize");
  EXPECT_EQ(r->attr("axes"), nullptr);
  auto full = r->input(2)->producer()->attr("value")->t->data<float>();
  EXPECT_EQ(std::vector<float>(full.begin(), full.end()), (std::vector<float>{1, 1, 2, 2}));
}

TEST(VersionConvert, GroupNormalizationScaleIsSpreadOverChannelsUp) {
  // Version 18 (deprecated by ONNX) takes one scale and bias per group;
  // 21 one per channel: 4 channels in 2 groups.
  ir::Model m = one_node_model(18, "GroupNormalization", {{"x", float_tensor({1, 4, 2})}},
                               {{"y", float_tensor({1, 4, 2})}});
  ir::Node* g = find(*m.graph, "GroupNormalization");
  g->set_attr(ir::Attr::of_int("num_groups", 2));
  std::vector<float> scale{2.0F, 3.0F}, bias{0.5F, -1.0F};
  auto tensor = [](std::vector<float>& v) {
    return std::make_shared<ir::Tensor>(
        ir::Tensor::from<float>(ir::DataType::Float, {2}, {v.data(), v.size()}));
  };
  g->append_input(m.graph->add_initializer("scale", tensor(scale)));
  g->append_input(m.graph->add_initializer("bias", tensor(bias)));
  auto up = convert_opset(std::move(m), 21, "");
  g = find(*up.model.graph, "GroupNormalization");
  auto floats = [](const ir::Node& n, size_t i) {
    auto d = n.input(i)->producer()->attr("value")->t->data<float>();
    return std::vector<float>(d.begin(), d.end());
  };
  EXPECT_EQ(floats(*g, 1), (std::vector<float>{2, 2, 3, 3}));
  EXPECT_EQ(floats(*g, 2), (std::vector<float>{0.5F, 0.5F, -1, -1}));
  // Down, version 18 being deprecated, is refused.
  EXPECT_EQ(refusal(std::move(up.model), 20),
            "cannot convert from opset 21 to 20: node 'the_GroupNormalization' "
            "(GroupNormalization): GroupNormalization-18, the version before opset 21, is "
            "deprecated by ONNX; opset 20 has no usable GroupNormalization");
}

TEST(VersionConvert, NewValuesOfStringAttributesAreRefusedDown) {
  ir::Type i64 = ir::Type::tensor(ir::DataType::Int64, ir::Shape{1, 2});
  ir::Model m = one_node_model(
      18, "ScatterElements", {{"x", float_tensor({1, 4})}, {"i", i64}, {"u", float_tensor({1, 2})}},
      {{"y", float_tensor({1, 4})}});
  find(*m.graph, "ScatterElements")->set_attr(ir::Attr::of_string("reduction", "max"));
  EXPECT_EQ(refusal(std::move(m), 17),
            "cannot convert from opset 18 to 17: node 'the_ScatterElements' (ScatterElements): "
            "reduction='max' is new in ScatterElements-18; opset 17 has no equivalent");
}

TEST(VersionConvert, CastToBfloat16IsRefusedAcross19) {
  // Cast-13 truncates to bfloat16 (onnx's reference, oxs's evaluator);
  // Cast-19 rounds to nearest even.
  ir::Model m = one_node_model(19, "Cast", {{"x", float_tensor({2})}},
                               {{"y", ir::Type::tensor(ir::DataType::BFloat16, ir::Shape{2})}});
  find(*m.graph, "Cast")->set_attr(ir::Attr::of_int("to", int64_t(ir::DataType::BFloat16)));
  EXPECT_EQ(refusal(std::move(m), 18),
            "cannot convert from opset 19 to 18: node 'the_Cast' (Cast): a cast to bfloat16 "
            "truncates in Cast-13 and rounds to nearest even from Cast-19; the results would "
            "change");
}

TEST(VersionConvert, TypesTheOlderVersionLacksAreRefusedByName) {
  ir::Model m = one_node_model(19, "Cast", {{"x", float_tensor({2})}},
                               {{"y", ir::Type::tensor(ir::DataType::Float8E4M3FN, ir::Shape{2})}});
  find(*m.graph, "Cast")->set_attr(ir::Attr::of_int("to", int64_t(ir::DataType::Float8E4M3FN)));
  EXPECT_EQ(refusal(std::move(m), 18),
            "cannot convert from opset 19 to 18: node 'the_Cast' (Cast): output 'y' is of element "
            "type float8e4m3fn, which Cast-13 (opset 18) does not take");
}

TEST(VersionConvert, OpsNewerThanTheTargetAreNamed) {
  ir::Model m = one_node_model(20, "Gelu", {{"x", float_tensor({2})}}, {{"y", float_tensor({2})}});
  EXPECT_EQ(refusal(std::move(m), 19),
            "cannot convert from opset 20 to 19: node 'the_Gelu' (Gelu): Gelu is new in ai.onnx "
            "opset 20; opset 19 has no such op");
}

TEST(VersionConvert, EveryOpNewerThanTheTargetIsNamedUpFront) {
  ir::Model m = one_node_model(26, "Gelu", {{"x", float_tensor({2})}}, {{"y", float_tensor({2})}});
  ir::Node* gelu = find(*m.graph, "Gelu");
  ir::Node* cast = m.graph->create_node("BitCast", std::vector<ir::Value*>{gelu->output(0)});
  cast->set_attr(ir::Attr::of_int("to", int64_t(ir::DataType::Int32)));
  ir::Node* again = m.graph->create_node("Gelu", std::vector<ir::Value*>{cast->output(0)});
  m.graph->add_output(again->output(0));
  EXPECT_EQ(refusal(std::move(m), 13),
            "cannot convert from opset 26 to 13: node 'the_Gelu' (Gelu): Gelu is new in ai.onnx "
            "opset 20; opset 13 has no such op (nor BitCast-26)");
}

TEST(VersionConvert, AttributesTheOlderVersionLacksDropWhenDefaultElseRefused) {
  ir::Model m = one_node_model(19, "AveragePool", {{"x", float_tensor({1, 1, 4, 4})}},
                               {{"y", float_tensor({1, 1, 3, 3})}});
  ir::Node* p = find(*m.graph, "AveragePool");
  p->set_attr(ir::Attr::of_ints("kernel_shape", {2, 2}));
  p->set_attr(ir::Attr::of_ints("dilations", {1, 1}));
  auto down = convert_opset(std::move(m), 18, "");
  EXPECT_EQ(find(*down.model.graph, "AveragePool")->attr("dilations"), nullptr);

  ir::Model dilated = one_node_model(19, "AveragePool", {{"x", float_tensor({1, 1, 4, 4})}},
                                     {{"y", float_tensor({1, 1, 2, 2})}});
  p = find(*dilated.graph, "AveragePool");
  p->set_attr(ir::Attr::of_ints("kernel_shape", {2, 2}));
  p->set_attr(ir::Attr::of_ints("dilations", {2, 2}));
  const std::string why = refusal(std::move(dilated), 18);
  EXPECT_NE(why.find("attribute 'dilations' is new in AveragePool-19; AveragePool-11 (opset 18) "
                     "has no equivalent"),
            std::string::npos)
      << why;
}

TEST(VersionConvert, TargetsOutsideTheKnownOpsetsAreUsageErrors) {
  ir::Model m = one_node_model(13, "Relu", {{"x", float_tensor({2})}}, {{"y", float_tensor({2})}});
  try {
    convert_opset(std::move(m), 29, "");
    FAIL() << "converted to 29";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(e.message(), "--opset 29: oxs converts between ai.onnx opsets 1 and 28");
  }
}

}  // namespace
}  // namespace oxs::testing
