// Lossless round trips of hand-written models that use every field of
// onnx-ml.proto 1.12, including proto2 presence of default values, and
// checks of the IR that loading builds (scoped name resolution, annotation
// values for undefined names, typed tensor decoding, name authority).
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "oxs/ir/error.h"
#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"
#include "oxs/onnx/proto_convert.h"
#include "test_util.h"

namespace oxs::onnx {
namespace {

using testing::parse_model;
using testing::proto_diff;

constexpr const char* kEveryField = R"pb(
  ir_version: 3
  opset_import { domain: "" version: 13 }
  opset_import { version: 12 }
  opset_import { domain: "com.example" version: 1 }
  producer_name: "oxs-test"
  producer_version: ""
  domain: "ai.example"
  model_version: 0
  doc_string: "model doc"
  metadata_props { key: "k1" value: "v1" }
  metadata_props { key: "" value: "" }
  graph {
    name: "main"
    doc_string: ""
    input {
      name: "X"
      type {
        tensor_type {
          elem_type: 1
          shape {
            dim { dim_value: 2 denotation: "DATA_BATCH" }
            dim { dim_param: "N" }
            dim {}
            dim { dim_value: 0 denotation: "" }
            dim { dim_param: "" }
          }
        }
        denotation: "TENSOR"
      }
      doc_string: "the input"
    }
    input {
      name: "S"
      type { sequence_type { elem_type { tensor_type { elem_type: 7 } } } }
    }
    input {
      name: "M"
      type {
        map_type {
          key_type: 8
          value_type {
            tensor_type {
              elem_type: 1
              shape {}
            }
          }
        }
      }
    }
    input {
      name: "O"
      type { optional_type { elem_type { sequence_type {} } } }
    }
    input {
      name: "SP"
      type {
        sparse_tensor_type {
          elem_type: 1
          shape { dim { dim_value: 4 } }
        }
      }
    }
    input {
      name: "Q"
      type { opaque_type { domain: "d" name: "" } }
    }
    input {
      name: "E"
      type {}
    }
    input { name: "U" doc_string: "" }
    input {
      name: "W"
      type {
        tensor_type {
          elem_type: 1
          shape { dim { dim_value: 2 } }
        }
      }
    }
    input {
      name: "T0"
      type {
        tensor_type { shape {} }
        denotation: ""
      }
    }
    input {
      name: "MK"
      type { map_type {} }
    }
    initializer { name: "W" dims: 2 data_type: 1 raw_data: "\000\000\200?\000\000\000@" }
    initializer {
      name: "f32"
      dims: 2
      data_type: 1
      float_data: 1.5
      float_data: -2
      doc_string: "typed"
    }
    initializer { name: "i8" dims: 3 data_type: 3 int32_data: -3 int32_data: 127 int32_data: -128 }
    initializer { name: "u8" dims: 2 data_type: 2 int32_data: 0 int32_data: 255 }
    initializer { name: "b" dims: 2 data_type: 9 int32_data: 1 int32_data: 0 }
    initializer { name: "f16" dims: 1 data_type: 10 int32_data: 15360 }
    initializer { name: "bf16" dims: 1 data_type: 16 int32_data: 16256 }
    initializer { name: "i16" dims: 1 data_type: 5 int32_data: -32768 }
    initializer { name: "u16" dims: 1 data_type: 4 int32_data: 65535 }
    initializer { name: "i32" dims: 1 data_type: 6 int32_data: -7 }
    initializer { name: "i64" dims: 2 data_type: 7 int64_data: -9000000000 int64_data: 1 }
    initializer { name: "f64" dims: 1 data_type: 11 double_data: 3.25 }
    initializer { name: "u32" dims: 1 data_type: 12 uint64_data: 4294967295 }
    initializer { name: "u64" dims: 1 data_type: 13 uint64_data: 18446744073709551615 }
    initializer { name: "c64" dims: 1 data_type: 14 float_data: 1 float_data: 2 }
    initializer { name: "c128" dims: 1 data_type: 15 double_data: 1 double_data: 2 }
    initializer { name: "str" dims: 2 data_type: 8 string_data: "a" string_data: "\377\000b" }
    initializer { name: "raw_i8" dims: 2 data_type: 3 raw_data: "\377\001" }
    initializer { name: "empty_raw" dims: 0 data_type: 1 raw_data: "" data_location: DEFAULT }
    initializer { name: "empty_typed" dims: 0 data_type: 7 }
    initializer { name: "scalar" data_type: 6 int32_data: 5 }
    initializer {
      name: "seg"
      dims: 2
      data_type: 1
      segment { begin: 0 end: 2 }
      float_data: 1
      float_data: 2
    }
    initializer {
      name: "seg2"
      dims: 1
      data_type: 1
      segment { end: 1 }
      float_data: 1
    }
    initializer { name: "" dims: 1 data_type: 1 float_data: 0 doc_string: "" }
    initializer { dims: 1 data_type: 1 float_data: 0 }
    initializer { name: "nodtype" }
    sparse_initializer {
      values { name: "spv" dims: 2 data_type: 1 float_data: 1 float_data: 2 }
      indices { name: "spi" dims: 2 data_type: 7 int64_data: 0 int64_data: 3 }
      dims: 4
    }
    node {
      input: "X"
      input: ""
      input: "W"
      output: "A"
      output: ""
      name: "n0"
      op_type: "Foo"
      domain: ""
      doc_string: ""
      attribute { name: "f0" type: FLOAT f: 0 }
      attribute { name: "i" type: INT i: -1 doc_string: "an int" }
      attribute { name: "s" type: STRING s: "\001bytes" }
      attribute {
        name: "t"
        type: TENSOR
        t { dims: 1 data_type: 1 raw_data: "\000\000\000\000" }
      }
      attribute { name: "fs" type: FLOATS floats: 1 floats: 2 }
      attribute { name: "is" type: INTS ints: 1 ints: -2 }
      attribute { name: "ss" type: STRINGS strings: "a" strings: "" }
      attribute {
        name: "ts"
        type: TENSORS
        tensors { dims: 1 data_type: 7 int64_data: 4 }
      }
      attribute {
        name: "st"
        type: SPARSE_TENSOR
        sparse_tensor {
          values { dims: 1 data_type: 1 float_data: 1 }
          indices { dims: 1 data_type: 7 int64_data: 0 }
          dims: 3
        }
      }
      attribute {
        name: "sts"
        type: SPARSE_TENSORS
        sparse_tensors {
          values { dims: 0 data_type: 1 }
          indices { dims: 0 data_type: 7 }
          dims: 3
        }
      }
      attribute {
        name: "tp"
        type: TYPE_PROTO
        tp { tensor_type { elem_type: 1 } }
      }
      attribute {
        name: "tps"
        type: TYPE_PROTOS
        type_protos { sequence_type { elem_type { tensor_type { elem_type: 7 } } } }
        type_protos {}
      }
      attribute { name: "notype" i: 3 }
      attribute { name: "notype_list" ints: 3 ints: 4 }
      attribute { name: "two" type: INT i: 1 f: 2 }
      attribute { name: "empty_ints" type: INTS }
      attribute { name: "fnone" type: FLOAT }
      attribute { type: INT i: 0 }
      attribute {
        name: "tempty"
        type: TENSOR
        t {}
      }
      attribute { name: "gempty" type: GRAPH }
      attribute { name: "undef" type: UNDEFINED }
    }
    node {
      input: "A"
      input: "undefined_name"
      output: "B"
      op_type: "If"
      attribute {
        name: "then_branch"
        type: GRAPH
        g {
          name: "then"
          node { input: "A" input: "X" output: "T1" op_type: "Add" }
          output {
            name: "T1"
            type { tensor_type { elem_type: 1 } }
          }
          output { name: "X" }
          value_info {
            name: "A"
            type { tensor_type { elem_type: 1 } }
          }
        }
      }
      attribute {
        name: "branches"
        type: GRAPHS
        graphs {
          name: "g1"
          node { input: "B_later" output: "G1" op_type: "Identity" }
          output { name: "G1" }
        }
        graphs {}
      }
    }
    node { input: "A" output: "B_later" op_type: "Identity" name: "" }
    node { output: "dup" op_type: "Constant" }
    node { output: "dup" op_type: "Constant" }
    node { op_type: "NoOp" }
    node {}
    output {
      name: "B"
      type { tensor_type { elem_type: 1 } }
      doc_string: ""
    }
    output {
      name: "X"
      type { tensor_type { elem_type: 1 } }
    }
    output { name: "f32" }
    output {
      name: "nowhere"
      type { tensor_type { elem_type: 2 } }
    }
    output { name: "" }
    output { type {} }
    output {
      name: "W"
      type {
        tensor_type {
          elem_type: 1
          shape { dim { dim_value: 2 } }
        }
      }
    }
    value_info {
      name: "A"
      type {
        tensor_type {
          elem_type: 1
          shape { dim { dim_value: 2 } }
        }
      }
      doc_string: "A info"
    }
    value_info {
      name: "A"
      type { tensor_type { elem_type: 1 } }
    }
    value_info {
      name: "ghost"
      type { tensor_type { elem_type: 1 } }
    }
    value_info { name: "ghost" }
    value_info {
      name: "i8"
      type {
        tensor_type {
          elem_type: 3
          shape { dim { dim_param: "K" } }
        }
      }
    }
    quantization_annotation {
      tensor_name: "A"
      quant_parameter_tensor_names { key: "SCALE_TENSOR" value: "s" }
      quant_parameter_tensor_names { key: "ZERO_POINT_TENSOR" value: "z" }
    }
    quantization_annotation {}
  }
  training_info {
    initialization {
      name: "init"
      node { output: "W_init" op_type: "RandomNormal" }
      output { name: "W_init" }
    }
    algorithm {
      name: "algo"
      node { input: "W" output: "W_new" op_type: "Identity" }
      output { name: "W_new" }
    }
    initialization_binding { key: "W" value: "W_init" }
    update_binding { key: "W" value: "W_new" }
  }
  training_info {}
  functions {
    name: "MyFn"
    domain: "com.example"
    doc_string: "fn doc"
    input: "x"
    input: ""
    output: "y"
    output: "x"
    output: "nothing"
    attribute: "alpha"
    attribute: "beta"
    opset_import { domain: "" version: 13 }
    node {
      input: "x"
      output: "y"
      op_type: "LeakyRelu"
      attribute { name: "alpha" ref_attr_name: "alpha" type: FLOAT }
      attribute { name: "beta" type: FLOAT ref_attr_name: "" f: 0.5 }
    }
  }
  functions { name: "" domain: "" doc_string: "" }
  functions {}
)pb";

oxs::wire::ModelProto every_field_proto() {
  oxs::wire::ModelProto p;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kEveryField, &p));
  return p;
}

TEST(RoundTrip, EveryFieldSurvivesExactly) {
  const oxs::wire::ModelProto original = every_field_proto();
  ir::Model m = load_from_bytes(original.SerializeAsString(), ".", "every_field.onnx");
  EXPECT_EQ(proto_diff(original, parse_model(save_to_bytes(m))), "");
  // And again from the IR that the first save came from.
  ir::Model again = load_from_bytes(save_to_bytes(m), ".", "again.onnx");
  EXPECT_EQ(proto_diff(original, parse_model(save_to_bytes(again))), "");
}

TEST(RoundTrip, ProtoConvertEntryPointsAreLossless) {
  oxs::wire::ModelProto original = every_field_proto();
  oxs::wire::ModelProto work = original;
  FromProtoContext ctx{.file = "x.onnx", .base_dir = "."};
  ir::Model m = model_from_proto(work, ctx);
  oxs::wire::ModelProto out;
  model_to_proto(m, &out);
  EXPECT_EQ(proto_diff(original, out), "");

  oxs::wire::GraphProto g = original.graph();
  auto graph = graph_from_proto(g, ctx);
  oxs::wire::GraphProto g_out;
  graph_to_proto(*graph, &g_out);
  EXPECT_EQ(proto_diff(original.graph(), g_out), "");

  oxs::wire::FunctionProto f = original.functions(0);
  auto fn = function_from_proto(f, ctx);
  oxs::wire::FunctionProto f_out;
  function_to_proto(*fn, &f_out);
  EXPECT_EQ(proto_diff(original.functions(0), f_out), "");

  for (const auto& a : original.graph().node(0).attribute()) {
    oxs::wire::AttributeProto copy = a;
    ir::Attr attr = attr_from_proto(copy, ctx);
    oxs::wire::AttributeProto a_out;
    attr_to_proto(attr, &a_out);
    EXPECT_EQ(proto_diff(a, a_out), "") << a.name();
  }
  for (const auto& t : original.graph().initializer()) {
    oxs::wire::TensorProto copy = t;
    auto tensor = tensor_from_proto(copy, ctx);
    oxs::wire::TensorProto t_out;
    tensor_to_proto(*tensor, &t_out);
    EXPECT_EQ(proto_diff(t, t_out), "") << t.name();
  }
  for (const auto& in : original.graph().input()) {
    oxs::wire::TypeProto t_out;
    if (!in.has_type()) continue;
    type_to_proto(type_from_proto(in.type()), &t_out);
    EXPECT_EQ(proto_diff(in.type(), t_out), "") << in.name();
  }
}

ir::Node* node_named(const ir::Graph& g, const std::string& op) {
  for (ir::Node* n : g.nodes()) {
    if (n->op_type() == op) return n;
  }
  return nullptr;
}

const ir::Value* value_named(const std::vector<ir::Value*>& values, const std::string& name) {
  for (const ir::Value* v : values) {
    if (v->name() == name) return v;
  }
  return nullptr;
}

TEST(RoundTrip, LoadBuildsTheExpectedIr) {
  ir::Model m = load_from_bytes(every_field_proto().SerializeAsString(), ".", "m.onnx");
  const ir::Graph& g = *m.graph;
  ASSERT_EQ(g.inputs().size(), 11u);
  const ir::Value* w = value_named(g.inputs(), "W");
  ASSERT_TRUE(w);
  EXPECT_TRUE(w->is_graph_input());
  EXPECT_TRUE(w->is_initializer());  // IR < 4: an input with a default
  EXPECT_EQ(w->const_value()->encoding, ir::Tensor::Encoding::Raw);

  ir::Node* n0 = node_named(g, "Foo");
  ASSERT_TRUE(n0);
  EXPECT_EQ(n0->input(0), g.inputs()[0]);
  EXPECT_EQ(n0->input(1), nullptr);  // "" is an omitted input
  EXPECT_EQ(n0->input(2), w);
  EXPECT_EQ(n0->output(1), nullptr);  // "" is an omitted output
  EXPECT_EQ(n0->attrs().size(), 21u);
  EXPECT_EQ(n0->attr("notype")->type, ir::AttrType::Int);
  EXPECT_EQ(n0->attr("notype_list")->type, ir::AttrType::Ints);

  // Subgraphs read outer values through the same Value objects.
  ir::Node* if_node = node_named(g, "If");
  ASSERT_TRUE(if_node);
  const ir::Graph* then_g = if_node->attr("then_branch")->g.get();
  ir::Node* add = node_named(*then_g, "Add");
  ASSERT_TRUE(add);
  EXPECT_EQ(add->input(0), n0->output(0));
  EXPECT_EQ(add->input(1), g.inputs()[0]);
  EXPECT_EQ(then_g->outputs()[1], g.inputs()[0]);
  EXPECT_EQ(then_g->owner(), if_node);
  // ... including values defined after the node that owns the subgraph.
  ir::Node* later = nullptr;
  for (ir::Node* n : g.nodes()) {
    if (n->num_outputs() == 1 && n->output(0) && n->output(0)->name() == "B_later") later = n;
  }
  ASSERT_TRUE(later);
  ir::Node* g1_identity = node_named(*if_node->attr("branches")->graphs[0], "Identity");
  EXPECT_EQ(g1_identity->input(0), later->output(0));

  // An undefined name loads as an annotation value that the verifier reports.
  const ir::Value* undefined = if_node->input(1);
  ASSERT_TRUE(undefined);
  EXPECT_EQ(undefined->name(), "undefined_name");
  EXPECT_EQ(undefined->producer(), nullptr);
  EXPECT_FALSE(undefined->is_graph_input());
  bool reported = false;
  for (const auto& issue : ir::verify(m)) {
    if (issue.message.find("undefined_name") != std::string::npos) reported = true;
  }
  EXPECT_TRUE(reported);

  // Graph outputs naming inputs/initializers are those values.
  EXPECT_EQ(g.outputs()[1], g.inputs()[0]);
  EXPECT_EQ(g.outputs()[2]->name(), "f32");
  EXPECT_TRUE(g.outputs()[2]->is_initializer());
  EXPECT_EQ(g.outputs()[3]->name(), "nowhere");
  EXPECT_EQ(g.outputs()[3]->producer(), nullptr);
  // value_info names the node output; the first entry describes it.
  EXPECT_EQ(g.value_info[0], n0->output(0));
  EXPECT_EQ(n0->output(0)->type().to_string(), "float[2]");
  EXPECT_EQ(n0->output(0)->doc_string, "A info");

  // Every name is claimed in the graph's name authority (shared by subgraphs).
  for (const char* name : {"X", "W", "A", "B", "T1", "G1", "undefined_name", "f32", "nowhere"}) {
    EXPECT_TRUE(g.names().has_value(name)) << name;
  }
  EXPECT_TRUE(g.names().has_node("n0"));
  EXPECT_EQ(g.names().unique_value("A"), "A_1");

  // Training graphs read the main graph's initializers.
  ASSERT_EQ(m.training_info.size(), 2u);
  ir::Node* update = node_named(*m.training_info[0].algorithm, "Identity");
  EXPECT_EQ(update->input(0), w);
  EXPECT_EQ(m.training_info[1].initialization, nullptr);

  // Functions: formal parameters and attribute references.
  ASSERT_EQ(m.functions.size(), 3u);
  const ir::Function& fn = *m.functions[0];
  EXPECT_EQ(fn.attributes, (std::vector<std::string>{"alpha", "beta"}));
  ir::Node* leaky = fn.body->first_node();
  EXPECT_EQ(leaky->input(0), fn.body->inputs()[0]);
  EXPECT_TRUE(leaky->attr("alpha")->is_reference());
  EXPECT_EQ(fn.body->outputs()[1], fn.body->inputs()[0]);
}

template <class T>
std::vector<T> values_of(const ir::Graph& g, const std::string& name) {
  for (const ir::Value* v : g.initializers()) {
    if (v->name() == name) {
      auto d = v->const_value()->data<T>();
      return {d.begin(), d.end()};
    }
  }
  ADD_FAILURE() << "no initializer " << name;
  return {};
}

TEST(RoundTrip, TypedFieldsDecodeToNativeElements) {
  ir::Model m = load_from_bytes(every_field_proto().SerializeAsString(), ".", "m.onnx");
  const ir::Graph& g = *m.graph;
  EXPECT_EQ(values_of<int8_t>(g, "i8"), (std::vector<int8_t>{-3, 127, -128}));
  EXPECT_EQ(values_of<uint8_t>(g, "u8"), (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(values_of<uint8_t>(g, "b"), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(values_of<uint16_t>(g, "f16"), (std::vector<uint16_t>{0x3c00}));
  EXPECT_EQ(values_of<uint16_t>(g, "bf16"), (std::vector<uint16_t>{0x3f80}));
  EXPECT_EQ(values_of<int16_t>(g, "i16"), (std::vector<int16_t>{-32768}));
  EXPECT_EQ(values_of<uint16_t>(g, "u16"), (std::vector<uint16_t>{65535}));
  EXPECT_EQ(values_of<int64_t>(g, "i64"), (std::vector<int64_t>{-9000000000LL, 1}));
  EXPECT_EQ(values_of<uint32_t>(g, "u32"), (std::vector<uint32_t>{4294967295u}));
  EXPECT_EQ(values_of<uint64_t>(g, "u64"), (std::vector<uint64_t>{18446744073709551615ull}));
  EXPECT_EQ(values_of<double>(g, "f64"), (std::vector<double>{3.25}));
  EXPECT_EQ(values_of<float>(g, "c64"), (std::vector<float>{1, 2}));
  EXPECT_EQ(values_of<float>(g, "W"), (std::vector<float>{1, 2}));
  EXPECT_EQ(values_of<int8_t>(g, "raw_i8"), (std::vector<int8_t>{-1, 1}));
  for (const ir::Value* v : g.initializers()) {
    if (v->name() == "str") {
      EXPECT_EQ(v->const_value()->strings,
                (std::vector<std::string>{"a", std::string("\377\000b", 3)}));
      EXPECT_EQ(v->const_value()->encoding, ir::Tensor::Encoding::Typed);
    }
  }
}

TEST(RoundTrip, RawBytesAreMovedNotCopied) {
  oxs::wire::TensorProto t;
  t.set_name("big");
  t.set_data_type(oxs::wire::TensorProto::FLOAT);
  t.add_dims(1 << 16);
  t.mutable_raw_data()->assign(size_t{4} << 16, '\x01');
  const char* before = t.raw_data().data();
  auto tensor = tensor_from_proto(t, FromProtoContext{.file = "t"});
  EXPECT_EQ(reinterpret_cast<const char*>(tensor->bytes().data()), before);
  EXPECT_EQ(tensor->storage()->kind(), ir::Storage::Kind::Owned);
}

TEST(RoundTrip, IrBuiltInMemorySavesCanonicallyAndReloads) {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  m.producer_name = "builder";
  ir::Graph& g = *m.graph;
  g.set_name("g");
  ir::Value* x = g.add_input("x", ir::Type::tensor(ir::DataType::Float, ir::Shape{2}));
  std::vector<float> wv = {1, 2};
  ir::Value* w = g.add_initializer(
      "w", std::make_shared<ir::Tensor>(ir::Tensor::from<float>(ir::DataType::Float, {2}, wv)));
  std::vector<ir::Value*> ins = {x, w};
  ir::Node* add = g.create_node("Add", ins);
  add->set_attr(ir::Attr::of_int("k", 0));
  g.add_output(add->output(0));

  oxs::wire::ModelProto p = parse_model(save_to_bytes(m));
  EXPECT_EQ(p.ir_version(), 8);
  EXPECT_EQ(p.opset_import(0).domain(), "");
  EXPECT_TRUE(p.opset_import(0).has_domain());
  EXPECT_FALSE(p.has_model_version());
  ASSERT_EQ(p.graph().node_size(), 1);
  EXPECT_FALSE(p.graph().node(0).has_domain());
  EXPECT_EQ(p.graph().node(0).attribute(0).type(), oxs::wire::AttributeProto::INT);
  EXPECT_TRUE(p.graph().node(0).attribute(0).has_i());
  EXPECT_EQ(p.graph().initializer(0).raw_data().size(), 8u);
  EXPECT_EQ(p.graph().output(0).name(), add->output(0)->name());

  ir::Model back = load_from_bytes(p.SerializeAsString(), ".", "back.onnx");
  EXPECT_EQ(proto_diff(p, parse_model(save_to_bytes(back))), "");
  EXPECT_TRUE(ir::verify(back).empty());
}

TEST(RoundTrip, AttrFromProtoResolvesThroughTheGivenScope) {
  ir::Graph g("outer");
  ir::Value* x = g.add_input("x", ir::Type::tensor(ir::DataType::Float));
  std::vector<ir::Value*> ins = {x};
  ir::Node* host = g.create_node("If", ins);
  oxs::wire::AttributeProto a;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        name: "then_branch"
        type: GRAPH
        g {
          node { input: "x" input: "missing" output: "inner" op_type: "Add" }
          output { name: "inner" }
        }
      )pb",
      &a));
  ir::Attr attr = attr_from_proto(a, FromProtoContext{.file = "attr"}, &g);
  ASSERT_TRUE(attr.g);
  ir::Node* add = attr.g->first_node();
  EXPECT_EQ(add->input(0), x);  // the outer value itself
  EXPECT_EQ(add->input(1)->name(), "missing");
  EXPECT_EQ(add->input(1)->graph(), attr.g.get());  // an annotation value of the subgraph
  EXPECT_TRUE(g.names().has_value("inner"));        // the subgraph shares the authority
  host->set_attr(std::move(attr));
  EXPECT_EQ(host->attr("then_branch")->g->owner(), host);
}

TEST(RoundTrip, TypeWithDenotationOnlyAndSparseTypes) {
  ir::Type t = ir::Type::sequence(ir::Type::map(
      ir::DataType::Int64, ir::Type::optional(ir::Type::sparse_tensor(ir::DataType::Float))));
  t.denotation = "IMAGE";
  oxs::wire::TypeProto p;
  type_to_proto(t, &p);
  EXPECT_TRUE(type_from_proto(p) == t);
  EXPECT_EQ(type_from_proto(p).to_string(), t.to_string());
}

}  // namespace
}  // namespace oxs::onnx
