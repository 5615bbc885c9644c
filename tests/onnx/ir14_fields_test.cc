// The fields and element types of IR versions 9-14 (ONNX 1.23) survive
// load -> save exactly, and reach the IR where other rooms can see them.
#include <gtest/gtest.h>

#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"
#include "test_util.h"

namespace oxs::onnx {
namespace {

using testing::proto_diff;
using wire::ModelProto;
using wire::TensorProto;

void add_meta(google::protobuf::RepeatedPtrField<wire::StringStringEntryProto>* out,
              const std::string& key) {
  auto* e = out->Add();
  e->set_key(key);
  e->set_value("v_" + key);
}

ModelProto modern_model() {
  ModelProto m;
  m.set_ir_version(14);
  auto* imp = m.add_opset_import();
  imp->set_domain("");
  imp->set_version(25);
  auto* g = m.mutable_graph();
  g->set_name("g");
  add_meta(g->mutable_metadata_props(), "graph");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT8E4M3FN);
  add_meta(in->mutable_metadata_props(), "input");
  // A float8 initializer in raw_data, an int4 one in int32_data (packed
  // bytes: 3 elements -> 2 bytes), a uint2 one in raw_data (5 -> 2 bytes).
  auto* f8 = g->add_initializer();
  f8->set_name("w8");
  f8->add_dims(2);
  f8->set_data_type(TensorProto::FLOAT8E5M2);
  f8->set_raw_data(std::string("\x3c\xbc", 2));
  add_meta(f8->mutable_metadata_props(), "tensor");
  auto* i4 = g->add_initializer();
  i4->set_name("w4");
  i4->add_dims(3);
  i4->set_data_type(TensorProto::INT4);
  i4->add_int32_data(0x21);
  i4->add_int32_data(0x0f);
  auto* u2 = g->add_initializer();
  u2->set_name("w2");
  u2->add_dims(5);
  u2->set_data_type(TensorProto::UINT2);
  u2->set_raw_data(std::string("\xe4\x03", 2));
  auto* n = g->add_node();
  n->add_input("x");
  n->add_output("y");
  n->set_op_type("F");
  n->set_domain("local");
  n->set_overload("v2");
  add_meta(n->mutable_metadata_props(), "node");
  auto* dc = n->add_device_configurations();
  dc->set_configuration_id("cfg");
  dc->set_pipeline_stage(1);
  auto* spec = dc->add_sharding_spec();
  spec->set_tensor_name("x");
  spec->add_device(0);
  spec->add_device(1);
  auto* map = spec->add_index_to_device_group_map();
  map->set_key(0);
  map->add_value(1);
  auto* sd = spec->add_sharded_dim();
  sd->set_axis(0);
  sd->add_simple_sharding()->set_dim_param("N");
  auto* out = g->add_output();
  out->set_name("y");
  auto* cfg = m.add_configuration();
  cfg->set_name("cfg");
  cfg->set_num_devices(2);
  cfg->add_device("gpu0");
  cfg->add_device("gpu1");
  auto* fn = m.add_functions();
  fn->set_name("F");
  fn->set_domain("local");
  fn->set_overload("v2");
  fn->add_input("a");
  fn->add_output("b");
  fn->add_attribute("plain");
  auto* ap = fn->add_attribute_proto();
  ap->set_name("alpha");
  ap->set_type(wire::AttributeProto::FLOAT);
  ap->set_f(0.5f);
  auto* body = fn->add_node();
  body->add_input("a");
  body->add_output("b");
  body->set_op_type("Identity");
  auto* fo = fn->add_opset_import();
  fo->set_domain("");
  fo->set_version(25);
  auto* vi = fn->add_value_info();
  vi->set_name("b");
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT4E2M1);
  add_meta(fn->mutable_metadata_props(), "function");
  return m;
}

TEST(Ir14Fields, ModernModelRoundTripsExactly) {
  const ModelProto original = modern_model();
  ir::Model model = load_from_bytes(original.SerializeAsString(), ".", "modern.onnx");
  ModelProto back;
  ASSERT_TRUE(back.ParseFromString(save_to_bytes(model)));
  EXPECT_EQ(proto_diff(original, back), "");
}

TEST(Ir14Fields, NewFieldsReachTheIr) {
  ir::Model model = load_from_bytes(modern_model().SerializeAsString(), ".", "modern.onnx");
  const ir::Graph& g = *model.graph;
  ASSERT_EQ(g.metadata_props.size(), 1u);
  EXPECT_EQ(g.inputs()[0]->type().elem_type(), ir::DataType::Float8E4M3FN);
  EXPECT_EQ(g.inputs()[0]->metadata_props[0].first, "input");
  const ir::Node* n = *g.nodes().begin();
  EXPECT_EQ(n->overload, "v2");
  ASSERT_EQ(n->device_configurations.size(), 1u);
  EXPECT_EQ(n->device_configurations[0].sharding_specs[0].devices.size(), 2u);
  ASSERT_EQ(model.configuration.size(), 1u);
  EXPECT_EQ(model.configuration[0].devices[1], "gpu1");
  const ir::Function* f = model.find_function("local", "F", "v2");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->attributes.size(), 2u);
  ASSERT_EQ(f->attribute_defaults.size(), 1u);
  EXPECT_FLOAT_EQ(f->attribute_defaults[0].f, 0.5f);
  EXPECT_EQ(f->body->outputs()[0]->type().elem_type(), ir::DataType::Float4E2M1);
  // Packed element types: bytes, not elements.
  const ir::Value* w4 = g.initializers()[1];
  EXPECT_EQ(w4->const_value()->bytes().size(), 2u);
  EXPECT_EQ(w4->const_value()->expected_nbytes(), 2);
  EXPECT_EQ(g.initializers()[2]->const_value()->expected_nbytes(), 2);
}

TEST(Ir14Fields, WrongPackedSizeIsRefused) {
  ModelProto m = modern_model();
  m.mutable_graph()->mutable_initializer(1)->add_int32_data(0);  // 3 bytes for 3 int4
  try {
    load_from_bytes(m.SerializeAsString(), ".", "bad.onnx");
    ADD_FAILURE() << "loaded";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("packed into 2 bytes"), std::string::npos) << e.message();
  }
}

TEST(Ir14Fields, UnknownElementTypeIsRefused) {
  ModelProto m = modern_model();
  m.mutable_graph()->mutable_initializer(0)->set_data_type(27);
  try {
    load_from_bytes(m.SerializeAsString(), ".", "bad.onnx");
    ADD_FAILURE() << "loaded";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("unknown data type 27"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace oxs::onnx
