// onnx::parse_value / load_value: SequenceProto, OptionalProto and MapProto
// bytes built here (and the backend test data) read as IR tensors in a
// tree, the declared type choosing the message, and files of another kind
// refused with a message that says what they are.
#include "oxs/onnx/wire/onnx_wire.pb.h"

#include <gtest/gtest.h>

#include <cstring>

#include "oxs/ir/error.h"
#include "oxs/onnx/value_io.h"

namespace oxs::onnx {
namespace {

using ir::DataType;

void fill_float(oxs::wire::TensorProto* t, std::vector<float> v, std::vector<int64_t> dims) {
  t->set_data_type(oxs::wire::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float f : v) t->add_float_data(f);
}

std::vector<float> floats(const ir::Tensor& t) {
  std::vector<float> out(size_t(t.numel()));
  std::memcpy(out.data(), t.bytes().data(), out.size() * 4);
  return out;
}

std::string message_of(std::string_view bytes, const ir::Type& type) {
  try {
    parse_value(bytes, type, "f.pb");
  } catch (const Error& e) {
    return e.message();
  }
  return {};
}

const ir::Type kSeqF = ir::Type::sequence(ir::Type::tensor(DataType::Float));

TEST(ValueIo, SequenceOfTensors) {
  oxs::wire::SequenceProto s;
  s.set_elem_type(oxs::wire::SequenceProto::TENSOR);
  fill_float(s.add_tensor_values(), {1, 2}, {2});
  fill_float(s.add_tensor_values(), {3}, {1});
  std::string bytes = s.SerializeAsString();
  ValueData d = parse_value(bytes, kSeqF, "f.pb");
  ASSERT_EQ(d.kind, ValueData::Kind::Sequence);
  ASSERT_EQ(d.items.size(), 2u);
  EXPECT_EQ(floats(*d.items[0].tensor), (std::vector<float>{1, 2}));
  EXPECT_EQ(floats(*d.items[1].tensor), (std::vector<float>{3}));
  EXPECT_EQ(guess_value_message(bytes), "SequenceProto");
  // The same bytes where a tensor is expected.
  std::string m = message_of(bytes, ir::Type::tensor(DataType::Float));
  EXPECT_NE(m.find("the file is a SequenceProto, not the TensorProto expected"), std::string::npos)
      << m;
  // A sequence of maps where tensors are declared.
  oxs::wire::SequenceProto sm;
  sm.set_elem_type(oxs::wire::SequenceProto::MAP);
  std::string wrong = message_of(sm.SerializeAsString(), kSeqF);
  EXPECT_NE(wrong.find("holds map elements"), std::string::npos) << wrong;
}

TEST(ValueIo, OptionalFromAnOptionalProtoOrTheElementsFile) {
  ir::Type opt = ir::Type::optional(ir::Type::tensor(DataType::Float));
  oxs::wire::OptionalProto o;
  o.set_elem_type(oxs::wire::OptionalProto::TENSOR);
  fill_float(o.mutable_tensor_value(), {4, 5}, {2});
  ValueData d = parse_value(o.SerializeAsString(), opt, "f.pb");
  ASSERT_EQ(d.kind, ValueData::Kind::Optional);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(floats(*d.items[0].tensor), (std::vector<float>{4, 5}));
  oxs::wire::OptionalProto empty;
  EXPECT_TRUE(parse_value(empty.SerializeAsString(), opt, "f.pb").items.empty());
  // A TensorProto is a present optional.
  oxs::wire::TensorProto t;
  fill_float(&t, {6, 7, 8}, {3});
  ValueData p = parse_value(t.SerializeAsString(), opt, "f.pb");
  ASSERT_EQ(p.kind, ValueData::Kind::Optional);
  EXPECT_EQ(floats(*p.items.at(0).tensor), (std::vector<float>{6, 7, 8}));
}

TEST(ValueIo, MapsWithIntegerAndStringKeys) {
  oxs::wire::MapProto m;
  m.set_key_type(oxs::wire::TensorProto::INT32);  // widened to int64
  m.add_keys(3);
  m.add_keys(-1);
  m.mutable_values()->set_elem_type(oxs::wire::SequenceProto::TENSOR);
  fill_float(m.mutable_values()->add_tensor_values(), {0.5f}, {});
  fill_float(m.mutable_values()->add_tensor_values(), {2.5f}, {});
  ir::Type mt = ir::Type::map(DataType::Int64, ir::Type::tensor(DataType::Float));
  ValueData d = parse_value(m.SerializeAsString(), mt, "f.pb");
  ASSERT_EQ(d.kind, ValueData::Kind::Map);
  ASSERT_EQ(d.tensor->dtype(), DataType::Int64);
  std::vector<int64_t> keys(2);
  std::memcpy(keys.data(), d.tensor->bytes().data(), 16);
  EXPECT_EQ(keys, (std::vector<int64_t>{3, -1}));
  EXPECT_EQ(floats(*d.map_values), (std::vector<float>{0.5f, 2.5f}));

  oxs::wire::MapProto s;
  s.set_key_type(oxs::wire::TensorProto::STRING);
  s.add_string_keys("a");
  s.mutable_values()->set_elem_type(oxs::wire::SequenceProto::TENSOR);
  fill_float(s.mutable_values()->add_tensor_values(), {9}, {});
  ValueData sd = parse_value(s.SerializeAsString(), mt, "f.pb");
  EXPECT_EQ(sd.tensor->strings, (std::vector<std::string>{"a"}));
  // More keys than values.
  s.add_string_keys("b");
  std::string m2 = message_of(s.SerializeAsString(), mt);
  EXPECT_NE(m2.find("2 keys but 1 tensor values"), std::string::npos) << m2;
}

TEST(ValueIo, BackendTestDataOptionalOfSequence) {
  const std::string dir =
      "/usr/share/libonnx-testdata/data/node/test_optional_get_element_sequence/test_data_set_0/";
  ir::Type t =
      ir::Type::optional(ir::Type::sequence(ir::Type::tensor(DataType::Int32, ir::Shape{4})));
  ValueData d = load_value(dir + "input_0.pb", t);
  ASSERT_EQ(d.kind, ValueData::Kind::Optional);
  ASSERT_EQ(d.items.size(), 1u);
  ASSERT_EQ(d.items[0].kind, ValueData::Kind::Sequence);
  ValueData out = load_value(dir + "output_0.pb", *t.element());
  ASSERT_EQ(out.items.size(), d.items[0].items.size());
  for (size_t i = 0; i < out.items.size(); ++i) {
    EXPECT_TRUE(out.items[i].tensor->same_value(*d.items[0].items[i].tensor)) << i;
  }
  EXPECT_THROW(load_value(dir + "no_such.pb", t), Error);
  std::string garbage = "\xff\xff\xff";
  EXPECT_NE(message_of(garbage, t).find("not a serialized OptionalProto"), std::string::npos);
}

}  // namespace
}  // namespace oxs::onnx
