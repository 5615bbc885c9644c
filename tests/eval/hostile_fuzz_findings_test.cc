// Hostile input found by fuzzing single_op with sequence, optional and map
// inputs and graph bodies (the campaign of 2026-11-26, docs/hostile-input.md):
// each model here crashed the evaluator before its fix and must now end in
// an oxs::Error naming the node and what is wrong. The fuzzer's inputs are
// in fuzz/corpus/single_op/mutate-*.bin.
#include "hostile_util.h"

namespace oxs::eval::hostile {
namespace {

// Node "hostile" of `op` reading one graph input "s" of type `in_type`.
ir::Model one_input_model(const std::string& op, ir::Type in_type, std::vector<ir::Attr> as,
                          int64_t opset = 17) {
  ir::Model m;
  m.opset_imports = {{"", opset}};
  ir::Graph& g = *m.graph;
  ir::Value* ins[] = {g.add_input("s", std::move(in_type))};
  ir::Node* n = g.create_node(op, ins);
  n->set_name("hostile");
  for (ir::Attr& a : as) n->set_attr(std::move(a));
  g.add_output(n->output(0));
  return m;
}

void expect_run_error(const ir::Model& m, const std::map<std::string, Value>& feeds,
                      std::initializer_list<std::string> parts) {
  const std::string text = run_error(m, {}, feeds);
  ASSERT_FALSE(text.empty()) << "the model ran without an error";
  for (const std::string& p : parts) {
    EXPECT_NE(text.find(p), std::string::npos) << "'" << p << "' not in: " << text;
  }
}

const ir::Type kFloatSeq = ir::Type::sequence(ir::Type::tensor(DataType::Float));

// new_axis placed the axis by element 0's rank; a lower-rank element got a
// dim inserted past its end (out-of-bounds write, SIGSEGV in the copy).
TEST(HostileFuzzFindings, ConcatFromSequenceNewAxisOverElementsOfDifferentRanks) {
  ir::Model m = one_input_model("ConcatFromSequence", kFloatSeq,
                                attrs(a_int("axis", 2), a_int("new_axis", 1)));
  std::map<std::string, Value> feeds{{"s", Value::sequence({ones({2, 3}), ones({3})})}};
  expect_run_error(m, feeds, {"hostile", "element 1 has shape [3]", "one rank"});
}

TEST(HostileFuzzFindings, ConcatFromSequenceOfElementsOfDifferentRanks) {
  ir::Model m = one_input_model("ConcatFromSequence", kFloatSeq, attrs(a_int("axis", 0)));
  std::map<std::string, Value> feeds{{"s", Value::sequence({ones({2}), ones({2, 2})})}};
  expect_run_error(m, feeds, {"hostile", "element 1 has shape [2,2]", "one rank"});
}

TEST(HostileFuzzFindings, ConcatFromSequenceOfOneRankStillConcatenates) {
  ir::Model m = one_input_model("ConcatFromSequence", kFloatSeq,
                                attrs(a_int("axis", -1), a_int("new_axis", 1)));
  Session s(m);
  std::vector<Value> out = s.run({{"s", Value::sequence({ones({2}), ones({2}), ones({2})})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().dims(), (Dims{2, 3}));
}

}  // namespace
}  // namespace oxs::eval::hostile
