// Eager calls (`oxs run FILE.py -e fn --arg ...`) bind attributes as the
// compiled model does: defaults written in the script apply, ints convert to
// float attributes as in Python, floats for int attributes are refused.
#include <gtest/gtest.h>

#include "oxs/eval/session.h"
#include "oxs/ir/error.h"
#include "oxs/script/eager/eager.h"

namespace oxs::script {
namespace {

constexpr const char* kSource =
    "from onnxscript import FLOAT, script\n"
    "from onnxscript import opset17 as op\n"
    "@script()\n"
    "def scale(x, alpha: float = 0.5, axis: int = 0, flag: bool = False):\n"
    "    a = op.Constant(value_float=alpha)\n"
    "    return op.Mul(x, op.CastLike(a, x))\n";

std::vector<float> run(const std::map<std::string, std::string>& args) {
  SourceFile file("t.py", kSource);
  EagerOptions o;
  o.attribute_args = args;
  EagerCall call = prepare_eager(file, o);
  std::vector<float> xs = {1.0f, -2.0f};
  std::vector<eval::Value> in = {
      eval::Tensor::of<float>(ir::DataType::Float, {2}, std::span<const float>(xs))};
  auto out = eval::Session(call.model).run_function(*call.function, in, call.attributes);
  const float* d = out.at(0).tensor().data<float>();
  return {d[0], d[1]};
}

TEST(Eager, DefaultAttributeApplies) {
  EXPECT_EQ(run({}), (std::vector<float>{0.5f, -1.0f}));
}

TEST(Eager, IntForAFloatAttributeConverts) {
  EXPECT_EQ(run({{"alpha", "2"}}), (std::vector<float>{2.0f, -4.0f}));
}

TEST(Eager, FloatForAnIntAttributeIsAnError) {
  try {
    run({{"axis", "1.5"}});
    ADD_FAILURE() << "accepted axis=1.5";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(e.message().find("is an int"), std::string::npos) << e.message();
  }
}

TEST(Eager, BoolAttributeTakesTrueOrFalse) {
  ScriptAttribute a{"flag", ir::AttrType::Int, true, nullptr};
  EXPECT_EQ(parse_attribute_arg(a, "True").i, 1);
  EXPECT_EQ(parse_attribute_arg(a, "False").i, 0);
  EXPECT_THROW(parse_attribute_arg(a, "maybe"), Error);
}

TEST(Eager, ListAttributes) {
  ScriptAttribute ints{"axes", ir::AttrType::Ints, false, nullptr};
  EXPECT_EQ(parse_attribute_arg(ints, "[1, -2]").ints, (std::vector<int64_t>{1, -2}));
  EXPECT_THROW(parse_attribute_arg(ints, "[1, 2.5]"), Error);
  ScriptAttribute floats{"scales", ir::AttrType::Floats, false, nullptr};
  EXPECT_EQ(parse_attribute_arg(floats, "[1, 2.5]").floats, (std::vector<float>{1.0f, 2.5f}));
}

TEST(Eager, UnknownAttributeIsAnError) {
  EXPECT_THROW(run({{"beta", "1"}}), Error);
}

TEST(Eager, EntryDefaultsAsInCompile) {
  SourceFile file("t.py", kSource);
  EagerCall call = prepare_eager(file, {});
  EXPECT_EQ(call.info.name, "scale");
  EXPECT_EQ(call.function->name, "scale");
}

TEST(Eager, DefaultEntryIgnoresFunctionsItDoesNotCall) {
  SourceFile file("t.py",
                  "from onnxscript import FLOAT, script, opset16, opset17\n"
                  "@script(default_opset=opset16)\n"
                  "def other(x):\n"
                  "    return opset16.Neg(x)\n"
                  "@script(default_opset=opset17)\n"
                  "def main(x):\n"
                  "    return opset17.Abs(x)\n");
  EagerCall call = prepare_eager(file, {});
  EXPECT_EQ(call.info.name, "main");
  EXPECT_EQ(call.model.functions.size(), 1u);
}

}  // namespace
}  // namespace oxs::script
