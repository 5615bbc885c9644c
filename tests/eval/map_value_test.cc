// Map values (eval::Value::map) and the ai.onnx.ml operators that make and
// read them: ZipMap, DictVectorizer, CastMap. Expected values are derived
// from the inputs (each map entry is compared with the tensor element or map
// entry it came from). ONNX Runtime's node binding cannot return maps, so
// there is no second oracle here.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "oxs/eval/session.h"
#include "oxs/eval/summary.h"
#include "oxs/ir/error.h"

namespace oxs::eval {
namespace {

// Runs a one-node ai.onnx.ml model op(input) with the input declared as
// `in_type` and returns its output.
Value run_ml(const std::string& op, const Value& input, const ir::Type& in_type,
             const std::function<void(ir::Node*)>& set_attrs) {
  ir::Model m;
  m.opset_imports = {{"", 17}, {"ai.onnx.ml", 1}};
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> ins{g.add_input("X", in_type)};
  ir::Node* n = g.create_node(op, ins, 1, "ai.onnx.ml");
  n->set_name("node_" + op);
  set_attrs(n);
  g.add_output(n->output(0));
  Session s(m);
  return s.run({{"X", input}})[0];
}

template <class T>
Tensor vec(DataType dt, std::vector<T> v) {
  return Tensor::of<T>(dt, {int64_t(v.size())}, std::span<const T>(v));
}

Tensor strs(std::vector<std::string> v) {
  Tensor t(DataType::String, {int64_t(v.size())});
  t.mutable_strings() = v;
  return t;
}

// The error message of running `f`, or "" if it did not throw oxs::Error.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.message() + " @" + e.where().node;
  }
  return {};
}

Tensor ramp(int64_t rows, int64_t cols) {
  Tensor x(DataType::Float, {rows, cols});
  for (int64_t i = 0; i < x.numel(); ++i) x.mutable_data<float>()[i] = 0.25f * float(i) - 1.0f;
  return x;
}

TEST(MapValue, DescribesAndChecksItsParts) {
  Value m = Value::map(vec<int64_t>(DataType::Int64, {1, 7, 3}),
                       vec<float>(DataType::Float, {0.5f, 2.0f, -1.0f}));
  EXPECT_TRUE(m.is_map());
  EXPECT_EQ(m.describe(), "map(int64,float)[3]");
  EXPECT_EQ(m.map_size(), 3);
  EXPECT_EQ(type_of(m).to_string(),
            ir::Type::map(DataType::Int64, ir::Type::tensor(DataType::Float)).to_string());
  EXPECT_EQ(map_entries(m, 2), "{1: 0.5, 7: 2, ...}");
  EXPECT_NE(summarize(m).find("{1: 0.5, 7: 2, 3: -1}"), std::string::npos) << summarize(m);
  EXPECT_THROW(m.tensor(), Error);
  EXPECT_THROW(Value(Tensor(DataType::Float, {2})).map_keys(), Error);
  // Keys must be int64 or string, and as many as the values.
  EXPECT_THROW(Value::map(vec<float>(DataType::Float, {1}), vec<float>(DataType::Float, {1})),
               Error);
  EXPECT_THROW(Value::map(vec<int64_t>(DataType::Int64, {1, 2}), vec<float>(DataType::Float, {1})),
               Error);
}

TEST(MapValue, ZipMapWithInt64Labels) {
  Tensor x = ramp(3, 4);
  std::vector<int64_t> labels{10, 3, 7, -2};
  Value out = run_ml("ZipMap", x, ir::Type::tensor(DataType::Float), [&](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("classlabels_int64s", labels));
  });
  ASSERT_TRUE(out.is_sequence());
  ASSERT_EQ(out.items().size(), 3u);
  for (int64_t r = 0; r < 3; ++r) {
    const Value& m = out.items()[size_t(r)];
    ASSERT_TRUE(m.is_map());
    ASSERT_EQ(m.map_size(), 4);
    EXPECT_EQ(m.map_keys().dtype(), DataType::Int64);
    EXPECT_EQ(m.map_values().dtype(), DataType::Float);
    for (int64_t c = 0; c < 4; ++c) {
      EXPECT_EQ(m.map_keys().data<int64_t>()[c], labels[size_t(c)]);
      EXPECT_EQ(m.map_values().data<float>()[c], x.data<float>()[r * 4 + c]);
    }
  }
  EXPECT_EQ(type_of(out).to_string(), "seq(map(int64,float))");
}

TEST(MapValue, ZipMapWithStringLabelsAndOneRow) {
  Tensor x = ramp(1, 3).reshaped({3});  // a 1-D input is one row
  std::vector<std::string> labels{"cat", "dog", "eel"};
  Value out = run_ml("ZipMap", x, ir::Type::tensor(DataType::Float), [&](ir::Node* n) {
    n->set_attr(ir::Attr::of_strings("classlabels_strings", labels));
  });
  ASSERT_EQ(out.items().size(), 1u);
  const Value& m = out.items()[0];
  ASSERT_EQ(m.map_keys().strings(), labels);
  for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(m.map_values().data<float>()[c], x.data<float>()[c]);
}

TEST(MapValue, ZipMapErrorsNameTheNode) {
  auto zip = [](Tensor x, std::function<void(ir::Node*)> attrs) {
    return error_of([&] { run_ml("ZipMap", x, ir::Type::tensor(x.dtype()), std::move(attrs)); });
  };
  std::string cols = zip(ramp(2, 3), [](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("classlabels_int64s", {1, 2}));
  });
  EXPECT_NE(cols.find("3 columns"), std::string::npos) << cols;
  EXPECT_NE(cols.find("2 class labels"), std::string::npos) << cols;
  EXPECT_NE(cols.find("node_ZipMap"), std::string::npos) << cols;
  std::string both = zip(ramp(2, 1), [](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("classlabels_int64s", {1}));
    n->set_attr(ir::Attr::of_strings("classlabels_strings", {"a"}));
  });
  EXPECT_NE(both.find("exactly one of"), std::string::npos) << both;
  std::string neither = zip(ramp(2, 1), [](ir::Node*) {});
  EXPECT_NE(neither.find("exactly one of"), std::string::npos) << neither;
  std::string rank = zip(Tensor(DataType::Float, {1, 1, 1}), [](ir::Node* n) {
    n->set_attr(ir::Attr::of_ints("classlabels_int64s", {1}));
  });
  EXPECT_NE(rank.find("1-D [C] or 2-D [N,C]"), std::string::npos) << rank;
}

const ir::Type kMapI64F = ir::Type::map(DataType::Int64, ir::Type::tensor(DataType::Float));
const ir::Type kMapStrD = ir::Type::map(DataType::String, ir::Type::tensor(DataType::Double));

TEST(MapValue, DictVectorizerInt64KeysFollowsTheVocabulary) {
  Tensor keys = vec<int64_t>(DataType::Int64, {5, 2, 99, 8});
  Tensor vals = vec<float>(DataType::Float, {1.5f, -2.0f, 7.0f, 0.25f});
  std::vector<int64_t> vocab{8, 1, 2, 5, 2};  // a repeated key fills both slots
  Value y = run_ml("DictVectorizer", Value::map(keys, vals), kMapI64F,
                   [&](ir::Node* n) { n->set_attr(ir::Attr::of_ints("int64_vocabulary", vocab)); });
  ASSERT_EQ(y.tensor().dims(), (Dims{1, 5}));
  // Each vocabulary slot holds the value of its key, or 0; key 99 is not in
  // the vocabulary and is ignored.
  for (size_t k = 0; k < vocab.size(); ++k) {
    float want = 0;
    for (int64_t i = 0; i < keys.numel(); ++i) {
      if (keys.data<int64_t>()[i] == vocab[k]) want = vals.data<float>()[i];
    }
    EXPECT_EQ(y.tensor().data<float>()[k], want) << "slot " << k;
  }
  EXPECT_EQ(y.tensor().data<float>()[1], 0.0f);   // key 1 absent from the map
  EXPECT_EQ(y.tensor().data<float>()[4], -2.0f);  // the second slot of key 2
}

TEST(MapValue, DictVectorizerStringKeys) {
  Tensor keys = strs({"b", "zz", "a"});
  Tensor vals = vec<double>(DataType::Double, {3.5, 9.0, -1.25});
  std::vector<std::string> vocab{"a", "b", "c"};
  Value y = run_ml("DictVectorizer", Value::map(keys, vals), kMapStrD, [&](ir::Node* n) {
    n->set_attr(ir::Attr::of_strings("string_vocabulary", vocab));
  });
  ASSERT_EQ(y.tensor().dtype(), DataType::Double);
  ASSERT_EQ(y.tensor().dims(), (Dims{1, 3}));
  for (size_t k = 0; k < vocab.size(); ++k) {
    double want = 0;
    for (size_t i = 0; i < keys.strings().size(); ++i) {
      if (keys.strings()[i] == vocab[k]) want = vals.data<double>()[i];
    }
    EXPECT_EQ(y.tensor().data<double>()[k], want) << vocab[k];
  }
  // String values: absent slots are empty strings.
  Value s =
      run_ml("DictVectorizer", Value::map(vec<int64_t>(DataType::Int64, {4}), strs({"x"})),
             ir::Type::map(DataType::Int64, ir::Type::tensor(DataType::String)), [](ir::Node* n) {
               n->set_attr(ir::Attr::of_ints("int64_vocabulary", {3, 4}));
             });
  EXPECT_EQ(s.tensor().strings(), (std::vector<std::string>{"", "x"}));
}

TEST(MapValue, DictVectorizerKeyTypeMismatchIsAnError) {
  std::string e = error_of([&] {
    run_ml("DictVectorizer", Value::map(strs({"a"}), vec<float>(DataType::Float, {1})),
           ir::Type::map(DataType::String, ir::Type::tensor(DataType::Float)),
           [](ir::Node* n) { n->set_attr(ir::Attr::of_ints("int64_vocabulary", {1})); });
  });
  EXPECT_NE(e.find("string keys but the int64_vocabulary needs int64 keys"), std::string::npos)
      << e;
  std::string t = error_of([&] {
    run_ml("DictVectorizer", Tensor(DataType::Float, {2}), ir::Type(),
           [](ir::Node* n) { n->set_attr(ir::Attr::of_ints("int64_vocabulary", {1})); });
  });
  EXPECT_NE(t.find("X must be a map"), std::string::npos) << t;
}

TEST(MapValue, CastMapDenseOrdersByKey) {
  Tensor keys = vec<int64_t>(DataType::Int64, {7, 1, 4});
  Tensor vals = vec<float>(DataType::Float, {2.5f, -1.0f, 3.75f});
  Value m = Value::map(keys, vals);
  Value y = run_ml("CastMap", m, kMapI64F, [](ir::Node*) {});  // TO_FLOAT, DENSE
  ASSERT_EQ(y.tensor().dims(), (Dims{1, 3}));
  // Ascending keys: each output is the value of the next larger key.
  std::map<int64_t, float> sorted;
  for (int64_t i = 0; i < 3; ++i) sorted[keys.data<int64_t>()[i]] = vals.data<float>()[i];
  int64_t j = 0;
  for (auto [k, v] : sorted) EXPECT_EQ(y.tensor().data<float>()[j++], v) << "key " << k;

  Value yi = run_ml("CastMap", m, kMapI64F,
                    [](ir::Node* n) { n->set_attr(ir::Attr::of_string("cast_to", "TO_INT64")); });
  j = 0;
  for (auto [k, v] : sorted) EXPECT_EQ(yi.tensor().data<int64_t>()[j++], int64_t(v));
}

// A NaN or huge float value has no int64: converting it was undefined
// behaviour; it is an error naming the node.
TEST(MapValue, CastMapOfANanOrHugeValueToInt64IsAnError) {
  for (float bad : {NAN, 1e30f, -INFINITY}) {
    Tensor keys = vec<int64_t>(DataType::Int64, {1, 2});
    Tensor vals = vec<float>(DataType::Float, {2.0f, bad});
    std::string t = error_of([&] {
      run_ml("CastMap", Value::map(keys, vals), kMapI64F,
             [](ir::Node* n) { n->set_attr(ir::Attr::of_string("cast_to", "TO_INT64")); });
    });
    EXPECT_NE(t.find("a map value cast to int64 is"), std::string::npos) << t;
    EXPECT_NE(t.find("@node_CastMap"), std::string::npos) << t;
  }
}

TEST(MapValue, CastMapSparsePlacesValuesAtTheirKeys) {
  Tensor keys = vec<int64_t>(DataType::Int64, {4, 0, 2});
  Tensor vals = vec<float>(DataType::Float, {1.5f, -3.0f, 8.0f});
  Value y = run_ml("CastMap", Value::map(keys, vals), kMapI64F, [](ir::Node* n) {
    n->set_attr(ir::Attr::of_string("map_form", "SPARSE"));
    n->set_attr(ir::Attr::of_int("max_map", 6));
  });
  ASSERT_EQ(y.tensor().dims(), (Dims{1, 6}));
  std::vector<float> want(6, 0.0f);
  for (int64_t i = 0; i < 3; ++i) want[size_t(keys.data<int64_t>()[i])] = vals.data<float>()[i];
  for (size_t k = 0; k < 6; ++k) EXPECT_EQ(y.tensor().data<float>()[k], want[k]) << k;

  // String values to int64, padded with 0.
  Value s =
      run_ml("CastMap", Value::map(vec<int64_t>(DataType::Int64, {1}), strs({"42"})),
             ir::Type::map(DataType::Int64, ir::Type::tensor(DataType::String)), [](ir::Node* n) {
               n->set_attr(ir::Attr::of_string("cast_to", "TO_INT64"));
               n->set_attr(ir::Attr::of_string("map_form", "SPARSE"));
               n->set_attr(ir::Attr::of_int("max_map", 3));
             });
  EXPECT_EQ(s.tensor().to_int_vector(), (std::vector<int64_t>{0, 42, 0}));
}

TEST(MapValue, CastMapErrors) {
  Value m = Value::map(vec<int64_t>(DataType::Int64, {0, 5}), vec<float>(DataType::Float, {1, 2}));
  std::string big = error_of([&] {
    run_ml("CastMap", m, kMapI64F, [](ir::Node* n) {
      n->set_attr(ir::Attr::of_string("map_form", "SPARSE"));
      n->set_attr(ir::Attr::of_int("max_map", 3));
    });
  });
  EXPECT_NE(big.find("key 5, outside [0, max_map=3)"), std::string::npos) << big;
  EXPECT_NE(big.find("node_CastMap"), std::string::npos) << big;
  std::string cast = error_of([&] {
    run_ml("CastMap", m, kMapI64F,
           [](ir::Node* n) { n->set_attr(ir::Attr::of_string("cast_to", "TO_DOUBLE")); });
  });
  EXPECT_NE(cast.find("cast_to is 'TO_DOUBLE'"), std::string::npos) << cast;
  Value dup =
      Value::map(vec<int64_t>(DataType::Int64, {3, 3}), vec<float>(DataType::Float, {1, 2}));
  std::string twice = error_of([&] { run_ml("CastMap", dup, kMapI64F, [](ir::Node*) {}); });
  EXPECT_NE(twice.find("key 3 more than once"), std::string::npos) << twice;
  Value notnum = Value::map(vec<int64_t>(DataType::Int64, {0}), strs({"abc"}));
  std::string nan = error_of([&] {
    run_ml("CastMap", notnum, ir::Type::map(DataType::Int64, ir::Type::tensor(DataType::String)),
           [](ir::Node*) {});
  });
  EXPECT_NE(nan.find("\"abc\" is not a number"), std::string::npos) << nan;
}

TEST(MapValue, SessionChecksNonTensorInputsAgainstTheirTypes) {
  Value m = Value::map(vec<int64_t>(DataType::Int64, {1}), vec<float>(DataType::Float, {1}));
  // A map with string keys fed where int64 keys are declared.
  Value sm = Value::map(strs({"a"}), vec<float>(DataType::Float, {1}));
  std::string keys = error_of([&] { run_ml("CastMap", sm, kMapI64F, [](ir::Node*) {}); });
  EXPECT_NE(keys.find("input 'X' must have int64 keys"), std::string::npos) << keys;
  std::string kind = error_of(
      [&] { run_ml("CastMap", Tensor(DataType::Float, {1}), kMapI64F, [](ir::Node*) {}); });
  EXPECT_NE(kind.find("input 'X' must be a map"), std::string::npos) << kind;
  // Sequences: each element is checked.
  ir::Model model;
  model.opset_imports = {{"", 17}};
  ir::Graph& g = *model.graph;
  ir::Value* s =
      g.add_input("S", ir::Type::sequence(ir::Type::tensor(DataType::Float, ir::Shape{2})));
  ir::Node* n = g.create_node("SequenceLength", std::vector<ir::Value*>{s});
  g.add_output(n->output(0));
  Session sess(model);
  Value good = Value::sequence({Tensor(DataType::Float, {2}), Tensor(DataType::Float, {2})});
  EXPECT_EQ(sess.run({{"S", good}})[0].tensor().scalar_int(), 2);
  std::string elem = error_of([&] {
    sess.run(
        {{"S", Value::sequence({Tensor(DataType::Float, {2}), Tensor(DataType::Float, {3})})}});
  });
  EXPECT_NE(elem.find("input 'S' element 1 dimension 0 must be 2"), std::string::npos) << elem;
  std::string notseq = error_of([&] { sess.run({{"S", m}}); });
  EXPECT_NE(notseq.find("input 'S' must be a sequence"), std::string::npos) << notseq;
  // An empty sequence takes the declared element type.
  EXPECT_EQ(sess.run({{"S", Value::sequence({})}})[0].tensor().scalar_int(), 0);
}

}  // namespace
}  // namespace oxs::eval
