// oxs's own operator table (ai.onnx 18-28, ai.onnx.ml 4-5, ai.onnx.preview 1)
// served through the same lookup as libonnx's 1-17. Expected values are
// ONNX 1.23's docs/Operators.md and Changelog.md, checked by hand.
#include <gtest/gtest.h>

#include <climits>

#include "oxs/ir/error.h"
#include "oxs/schema/function_body.h"
#include "oxs/schema/onnx_schema.h"
#include "oxs/schema/registry.h"
#include "oxs/schema/table/op_table.h"

namespace oxs::schema {
namespace {

TEST(OpTable, TableHoldsEveryNewOperatorVersion) {
  auto sigs = table::parse_op_table(table::embedded_op_table(), "embedded");
  size_t onnx = 0, ml = 0, preview = 0;
  for (const OpSignature& s : sigs) {
    if (s.domain.empty()) ++onnx;
    if (s.domain == "ai.onnx.ml") ++ml;
    if (s.domain == "ai.onnx.preview") ++preview;
  }
  EXPECT_EQ(onnx, 193u);  // "193 new operator versions" (ONNX 1.23 vs 1.12)
  EXPECT_EQ(ml, 4u);      // LabelEncoder-4, TreeEnsemble-5, TreeEnsemble{Classifier,Regressor}-5
  EXPECT_EQ(preview, 1u);
}

TEST(OpTable, SplitEighteenHasNumOutputs) {
  const OpSignature* split = lookup("", "Split", 23);
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->since_version, 18);
  ASSERT_NE(split->find_attr("num_outputs"), nullptr);
  EXPECT_EQ(split->find_attr("num_outputs")->type, ir::AttrType::Int);
  EXPECT_FALSE(split->find_attr("num_outputs")->default_value.has_value());
  ASSERT_NE(split->find_attr("axis"), nullptr);
  EXPECT_EQ(split->find_attr("axis")->default_value->i, 0);
  EXPECT_EQ(split->outputs[0].option, ParamOption::Variadic);
  EXPECT_EQ(split->min_input, 1);
  EXPECT_EQ(split->max_input, 2);
  // Opset 17 still answers libonnx's Split-13.
  EXPECT_EQ(lookup("", "Split", 17)->since_version, 13);
}

TEST(OpTable, UnchangedOpsAtNewOpsetsAreLibonnxVersions) {
  const OpSignature* relu = lookup("", "Relu", 28);
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->since_version, 14);
  EXPECT_NE(find_onnx_schema("", "Relu", 28), nullptr);   // its inference function serves
  EXPECT_EQ(find_onnx_schema("", "Split", 23), nullptr);  // a table version: no libonnx schema
}

TEST(OpTable, AttentionSignature) {
  const OpSignature& att = require("", "Attention", 24);
  EXPECT_EQ(att.since_version, 24);
  EXPECT_EQ(att.min_input, 3);
  EXPECT_EQ(att.min_output, 1);
  EXPECT_EQ(att.find_attr("is_causal")->default_value->i, 0);
  const TypeConstraint* t1 = att.find_type_constraint("T1");
  ASSERT_NE(t1, nullptr);
  EXPECT_EQ(t1->allowed_types.size(), t1->allowed_type_strs.size());
  EXPECT_EQ(lookup("", "Attention", 22), nullptr);
}

TEST(OpTable, NewElementTypesInConstraints) {
  const OpSignature& cast = require("", "Cast", 25);
  const TypeConstraint* t2 = cast.find_type_constraint("T2");
  ASSERT_NE(t2, nullptr);
  bool fp8 = false, int2 = false;
  for (const ir::Type& t : t2->allowed_types) {
    fp8 = fp8 || t.elem_type() == ir::DataType::Float8E4M3FN;
    int2 = int2 || t.elem_type() == ir::DataType::Int2;
  }
  EXPECT_TRUE(fp8);
  EXPECT_TRUE(int2);  // Cast-25 adds int2/uint2
}

TEST(OpTable, ExactFloatDefaultsAndDeprecations) {
  // Documented as 1.67326; the table keeps libonnx's exact float.
  EXPECT_FLOAT_EQ(require("", "Selu", 22).find_attr("alpha")->default_value->f,
                  1.67326319217681884765625f);
  const OpSignature* gn = lookup("", "GroupNormalization", 20);
  ASSERT_NE(gn, nullptr);
  EXPECT_TRUE(gn->deprecated);
  EXPECT_FALSE(require("", "GroupNormalization", 21).deprecated);
  EXPECT_TRUE(lookup("ai.onnx.ml", "TreeEnsembleRegressor", 5)->deprecated);
  EXPECT_FALSE(lookup("ai.onnx.ml", "TreeEnsembleRegressor", 4)->deprecated);
}

// Table versions carry the spec's function flag; their bodies are oxs's own
// (see table_bodies_test.cc), and an op without one yet hands out null.
TEST(OpTable, FunctionFlagsAndBodies) {
  const OpSignature& swiglu = require("", "SwiGLU", 28);
  EXPECT_TRUE(swiglu.has_function_body);
  EXPECT_NE(function_body(swiglu, 28), nullptr);
  const OpSignature& linear = require("", "LinearAttention", 27);
  EXPECT_TRUE(linear.has_context_dependent_function);
  CallSite call;
  call.input_types.assign(linear.inputs.size(), ir::Type::tensor(ir::DataType::Float));
  call.outputs_present.assign(linear.outputs.size(), true);
  // Its body is built per call site (schema/bodies/attention_bodies.cc); the
  // head counts are required attributes.
  EXPECT_THROW(context_dependent_body(linear, 27, call), Error);
  std::vector<ir::Attr> heads;
  heads.push_back(ir::Attr::of_int("q_num_heads", 2));
  heads.push_back(ir::Attr::of_int("kv_num_heads", 2));
  call.attrs = heads;
  EXPECT_NE(context_dependent_body(linear, 27, call), nullptr);
}

TEST(OpTable, NewerOpsetsAreRefusedByName) {
  try {
    require_known_opsets({{"", 29}}, "'m.onnx'");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(e.message().find("ai.onnx opset 29"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("up to 28"), std::string::npos) << e.message();
  }
  EXPECT_NO_THROW(require_known_opsets({{"", 28}, {"ai.onnx.ml", 5}}, "m"));
}

TEST(OpTable, TypeStrings) {
  EXPECT_EQ(table::parse_type_string("tensor(float8e5m2fnuz)")->elem_type(),
            ir::DataType::Float8E5M2FNUZ);
  auto seq = table::parse_type_string("optional(seq(tensor(int4)))");
  ASSERT_TRUE(seq.has_value());
  EXPECT_EQ(seq->kind(), ir::Type::Kind::Optional);
  EXPECT_FALSE(table::parse_type_string("tensor(float9)").has_value());
  EXPECT_THROW(table::parse_op_table("op ai.onnx X 18\n  attr a : widget : doc\n", "t"), Error);
}

}  // namespace
}  // namespace oxs::schema
