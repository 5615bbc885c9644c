// Initializers of the narrow element types (int4/uint4/int2/uint2 packed,
// float8, float8e8m0, float4e2m1) survive ONNX -> ONNX Script -> ONNX byte
// for byte; what make_tensor cannot say is an error naming the tensor.
#include <gtest/gtest.h>

#include "oxs/ir/error.h"
#include "oxs/ir/model.h"
#include "oxs/script/compile.h"
#include "oxs/script/decompile/decompile.h"

namespace oxs::script {
namespace {

using ir::DataType;

std::shared_ptr<ir::Tensor> raw_tensor(const std::string& name, DataType dt,
                                       std::vector<int64_t> dims, std::string bytes) {
  auto t = std::make_shared<ir::Tensor>(dt, std::move(dims));
  t->name = name;
  t->set_storage(std::make_shared<ir::OwnedStorage>(std::move(bytes)));
  return t;
}

// A model whose output is Identity(initializer) for each tensor.
ir::Model model_of(const std::vector<std::shared_ptr<ir::Tensor>>& tensors) {
  ir::Model m;
  m.opset_imports = {{"", 25}};
  m.ir_version = 13;
  ir::Graph& g = *m.graph;
  for (const auto& t : tensors) {
    ir::Value* v = g.add_initializer(t->name, t);
    ir::Value* in[] = {v};
    ir::Node* n = g.create_node("Identity", in);
    n->output(0)->set_name(t->name + "_out");
    n->output(0)->set_type(ir::Type::tensor(t->dtype(), ir::Shape::of(t->dims())));
    g.add_output(n->output(0));
  }
  return m;
}

// The bytes of the tensor called `name` in a compiled model (an
// initializer or a Constant's value).
std::string bytes_named(const ir::Model& m, const std::string& name) {
  auto text = [](const ir::Tensor& t) {
    auto b = t.bytes();
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  };
  for (const ir::Value* v : m.graph->initializers()) {
    if (v->name() == name && v->const_value()) return text(*v->const_value());
  }
  for (const ir::Node* n : m.graph->nodes()) {
    const ir::Attr* a = n->attr("value");
    if (n->op_type() == "Constant" && a && a->t && a->t->name == name) return text(*a->t);
  }
  return "<no tensor '" + name + "'>";
}

TEST(NarrowLiterals, EveryNarrowTypeRoundTripsByteForByte) {
  std::vector<std::shared_ptr<ir::Tensor>> ts = {
      // Odd lengths: the padding nibble / bits are zero.
      raw_tensor("i4", DataType::Int4, {5}, std::string("\x87\xF0\x09", 3)),
      raw_tensor("u4", DataType::Uint4, {2, 2}, std::string("\x10\xFE", 2)),
      raw_tensor("i2", DataType::Int2, {5}, std::string("\xE4\x02", 2)),
      raw_tensor("u2", DataType::Uint2, {3}, std::string("\x39", 1)),
      // Every float4 code: +-0, +-6 and the rest.
      raw_tensor("f4", DataType::Float4E2M1, {16},
                 std::string("\x10\x32\x54\x76\x98\xBA\xDC\xFE", 8)),
      // Zero, negative zero, the largest, the smallest subnormal, the NaN.
      raw_tensor("e4m3", DataType::Float8E4M3FN, {5}, std::string("\x00\x80\x7E\x01\x7F", 5)),
      raw_tensor("e4m3uz", DataType::Float8E4M3FNUZ, {3}, std::string("\x00\xFF\x80", 3)),
      raw_tensor("e5m2", DataType::Float8E5M2, {5}, std::string("\x7C\xFC\x7B\x80\x7E", 5)),
      raw_tensor("e5m2uz", DataType::Float8E5M2FNUZ, {3}, std::string("\x01\xFF\x80", 3)),
      raw_tensor("e8m0", DataType::Float8E8M0, {4}, std::string("\x00\x7F\xFE\xFF", 4)),
  };
  ir::Model m = model_of(ts);
  DecompileResult d = decompile(m);
  ir::Model back = compile(SourceFile("narrow.py", d.source));
  for (const auto& t : ts) {
    auto b = t->bytes();
    EXPECT_EQ(bytes_named(back, t->name),
              std::string(reinterpret_cast<const char*>(b.data()), b.size()))
        << t->name << "\n"
        << d.source;
  }
  EXPECT_NE(d.source.find("TensorProto.INT4, [5], [7, -8, 0, -1, -7]"), std::string::npos)
      << d.source;
}

// With --weights the packed bytes go to the side file as they are, NaN codes
// that make_tensor cannot say included.
TEST(NarrowLiterals, SideFileKeepsPackedBytes) {
  auto i4 = raw_tensor("i4", DataType::Int4, {3}, std::string("\x87\x0F", 2));
  auto f8 = raw_tensor("f8", DataType::Float8E4M3FN, {3}, std::string("\x38\xFF\x7F", 3));
  DecompileOptions o;
  o.weights_file = "narrow.weights";
  o.max_inline_elements = 0;
  DecompileResult d = decompile(model_of({i4, f8}), o);
  EXPECT_NE(d.source.find("external_tensor('i4', TensorProto.INT4, [3], 'narrow.weights', "
                          "offset=0, length=2)"),
            std::string::npos)
      << d.source;
  CompileOptions c;
  c.external_data = [&](const std::string&, int64_t offset, int64_t length, const std::string&) {
    return std::make_shared<ir::OwnedStorage>(d.weights.substr(size_t(offset), size_t(length)));
  };
  ir::Model back = compile(SourceFile("narrow.py", d.source), c);
  EXPECT_EQ(bytes_named(back, "i4"), std::string("\x87\x0F", 2));
  EXPECT_EQ(bytes_named(back, "f8"), std::string("\x38\xFF\x7F", 3));
}

TEST(NarrowLiterals, ANaNMakeTensorCannotSayIsAnErrorNamingTheTensor) {
  // E4M3FN 0xFF is -NaN; make_tensor's NaN is 0x7F.
  ir::Model m = model_of({raw_tensor("scales", DataType::Float8E4M3FN, {2}, "\x38\xFF")});
  try {
    decompile(m);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'scales' (float8e4m3fn) holds code 0xFF at element 1"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("--weights"), std::string::npos) << msg;
  }
}

// A script function f() -> `type` whose body is `body` then `return w`.
std::string script_returning(const std::string& type, const std::string& body) {
  return "from onnxscript import script, " + type.substr(0, type.find('[')) +
         "\n"
         "from onnxscript import opset25 as op\n"
         "from onnx import TensorProto\n"
         "from onnx.helper import make_tensor\n"
         "\n"
         "@script()\n"
         "def f() -> " +
         type + ":\n" + body + "    return w\n";
}

TEST(NarrowLiterals, OutOfRangeIntegersInMakeTensorAreCompileErrors) {
  const std::string src = script_returning(
      "INT4[2]", "    w = op.Constant(value=make_tensor('w', TensorProto.INT4, [2], [7, 8]))\n");
  CompileResult r = compile_source(SourceFile("bad.py", src));
  ASSERT_FALSE(r.ok());
  std::string all;
  for (const auto& diag : r.diagnostics) all += diag.message + "\n";
  EXPECT_NE(all.find("the value 8 is not a int4 (whole numbers from -8 to 7)"), std::string::npos)
      << all;
}

TEST(NarrowLiterals, FloatValuesRoundToTheNearestCodeAndSaturate) {
  const std::string src = script_returning(
      "FLOAT4E2M1[4]",
      "    w = op.Constant(value=make_tensor('w', TensorProto.FLOAT4E2M1, [4], [2.5, 5.0, 100.0, "
      "-0.0]))\n");
  ir::Model m = compile(SourceFile("ok.py", src));
  // 2.5 ties to 2 (code 4), 5 ties to 4 (code 6), 100 saturates to 6 (7), -0 is 0x8.
  EXPECT_EQ(bytes_named(m, "w"), std::string("\x64\x87", 2));
}

}  // namespace
}  // namespace oxs::script
