// Decompiled source is readable ONNX Script that our parser accepts; the
// golden texts pin the forms the compiler must read back.
#include <gtest/gtest.h>

#include <cstring>

#include "oxs/ir/error.h"
#include "oxs/ir/model.h"
#include "oxs/script/decompile/decompile.h"
#include "oxs/script/decompile/python_names.h"
#include "oxs/script/front/diagnostics.h"
#include "oxs/script/front/parser.h"

namespace oxs::script {
namespace {

using ir::Attr;
using ir::DataType;
using ir::Dim;
using ir::Shape;
using ir::Type;
using ir::Value;

void expect_parses(const std::string& source) {
  SourceFile file("decompiled.py", source);
  ParseResult r = parse(file);
  std::string errors;
  for (const auto& d : r.diagnostics) errors += render(file, d) + "\n";
  EXPECT_TRUE(r.ok()) << errors << "\n--- source ---\n" << source;
}

ir::Model simple_model() {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  g.set_name("mlp");
  Value* x = g.add_input("input.1",
                         Type::tensor(DataType::Float, Shape({Dim::symbolic("N"), Dim::known(2)})));
  float wv[] = {0.5f, -1.0f, 2.0f, 0.25f};
  Value* w = g.add_initializer(
      "w", std::make_shared<ir::Tensor>(ir::Tensor::from<float>(DataType::Float, {2, 2}, wv)));
  Value* mm_in[] = {x, w};
  ir::Node* mm = g.create_node("MatMul", mm_in);
  mm->output(0)->set_name("mm");
  Value* neg_in[] = {mm->output(0)};
  ir::Node* neg = g.create_node("Neg", neg_in);
  neg->output(0)->set_name("2");
  Value* lr_in[] = {neg->output(0)};
  ir::Node* lr = g.create_node("LeakyRelu", lr_in);
  lr->set_attr(Attr::of_float("alpha", 0.1f));
  lr->output(0)->set_name("y");
  lr->output(0)->set_type(
      Type::tensor(DataType::Float, Shape({Dim::symbolic("N"), Dim::known(2)})));
  g.add_output(lr->output(0));
  return m;
}

TEST(Decompile, SimpleModelGolden) {
  auto r = decompile(simple_model());
  EXPECT_EQ(r.source,
            "from onnxscript import script, FLOAT\n"
            "from onnxscript import opset17 as op\n"
            "from onnx import TensorProto\n"
            "from onnx.helper import make_tensor\n"
            "\n\n"
            "@script(io_names={'input_1': 'input.1'})\n"
            "def mlp(input_1: FLOAT['N', 2]) -> FLOAT['N', 2]:\n"
            "    w = op.Constant(value=make_tensor('w', TensorProto.FLOAT, [2, 2], [0.5, -1.0, "
            "2.0, 0.25]))\n"
            "    mm = input_1 @ w\n"
            "    v_2 = -mm\n"
            "    y = op.LeakyRelu(v_2, alpha=0.1)\n"
            "    return y\n");
  expect_parses(r.source);
  EXPECT_TRUE(r.weights.empty());
}

TEST(Decompile, LargeTensorsGoToTheSideFile) {
  ir::Model m = simple_model();
  DecompileOptions o;
  o.weights_file = "mlp.weights";
  o.max_inline_elements = 2;
  auto r = decompile(m, o);
  EXPECT_NE(r.source.find("w = op.Constant(value=external_tensor('w', TensorProto.FLOAT, [2, 2], "
                          "'mlp.weights', offset=0, length=16))"),
            std::string::npos)
      << r.source;
  EXPECT_NE(r.source.find("from onnxscript import external_tensor"), std::string::npos);
  ASSERT_EQ(r.weights.size(), 16u);
  float first;
  std::memcpy(&first, r.weights.data(), 4);
  EXPECT_EQ(first, 0.5f);
  expect_parses(r.source);
}

TEST(Decompile, IfBecomesIfElseAndLoopANestedBody) {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  Value* c = g.add_input("cond", Type::tensor(DataType::Bool, Shape{}));
  Value* x = g.add_input("x", Type::tensor(DataType::Float));
  Value* xin[] = {x};
  auto then_g = g.make_subgraph("then");
  ir::Node* t = then_g->create_node("Relu", xin);
  then_g->add_output(t->output(0));
  auto else_g = g.make_subgraph("else");
  else_g->add_output(x);  // passes an outer value through
  Value* cin[] = {c};
  ir::Node* ifn = g.create_node("If", cin);
  ifn->set_attr(Attr::of_graph("then_branch", std::move(then_g)));
  ifn->set_attr(Attr::of_graph("else_branch", std::move(else_g)));
  ifn->output(0)->set_name("r");
  // Loop(M, "", r) with a body that doubles the carried value.
  auto body = g.make_subgraph("body");
  Value* i = body->add_input("i", Type::tensor(DataType::Int64, Shape{}));
  Value* cond_in = body->add_input("cond_in", Type::tensor(DataType::Bool, Shape{}));
  Value* acc = body->add_input("acc", Type::tensor(DataType::Float));
  (void)i;
  Value* add_in[] = {acc, acc};
  ir::Node* add = body->create_node("Add", add_in);
  body->add_output(cond_in);
  body->add_output(add->output(0));
  Value* trip =
      g.add_initializer("trip", std::make_shared<ir::Tensor>(ir::Tensor::scalar_int64(3)));
  Value* loop_in[] = {trip, nullptr, ifn->output(0)};
  ir::Node* loop = g.create_node("Loop", loop_in);
  loop->set_attr(Attr::of_graph("body", std::move(body)));
  loop->output(0)->set_name("out");
  g.add_output(loop->output(0));
  auto r = decompile(m);
  const std::string& s = r.source;
  EXPECT_NE(s.find("    if cond:\n        r = op.Relu(x)\n    else:\n        r = x\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("    def body_Loop(i: INT64[()], cond_in: BOOL[()], acc: FLOAT[...]):\n"
                   "        Add = acc + acc\n"
                   "        return cond_in, Add\n"
                   "    out = op.Loop(trip, None, r, body=body_Loop)\n"),
            std::string::npos)
      << s;
  expect_parses(s);
}

TEST(Decompile, LoopThatAlwaysContinuesBecomesForRange) {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  Value* x = g.add_input("x", Type::tensor(DataType::Float, Shape{3}));
  Value* n = g.add_input("n", Type::tensor(DataType::Int64, Shape{}));
  bool yes = true;
  Value* t =
      g.add_initializer("keep_going", std::make_shared<ir::Tensor>(ir::Tensor::from<bool>(
                                          DataType::Bool, {}, std::span<const bool>(&yes, 1))));
  auto body = g.make_subgraph("body");
  body->add_input("i", Type::tensor(DataType::Int64, Shape{}));
  body->add_input("c", Type::tensor(DataType::Bool, Shape{}));
  Value* acc = body->add_input("acc", Type::tensor(DataType::Float));
  Value* add_in[] = {acc, x};
  ir::Node* add = body->create_node("Add", add_in);
  add->output(0)->set_name("acc_next");
  Value* keep_in[] = {t};
  ir::Node* keep = body->create_node("Identity", keep_in);
  body->add_output(keep->output(0));
  body->add_output(add->output(0));
  Value* loop_in[] = {n, nullptr, x};
  ir::Node* loop = g.create_node("Loop", loop_in);
  loop->set_attr(Attr::of_graph("body", std::move(body)));
  loop->output(0)->set_name("total");
  g.add_output(loop->output(0));
  auto r = decompile(m);
  EXPECT_NE(r.source.find("    acc = x\n"
                          "    for i in range(n):\n"
                          "        acc_next = acc + x\n"
                          "        acc = acc_next\n"
                          "    total = acc\n"
                          "    return total\n"),
            std::string::npos)
      << r.source;
  expect_parses(r.source);
}

TEST(Decompile, LoopWithAConditionOnlyBecomesWhile) {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  Value* x = g.add_input("x", Type::tensor(DataType::Float, Shape{}));
  Value* go = g.add_input("go", Type::tensor(DataType::Bool, Shape{}));
  auto body = g.make_subgraph("body");
  body->add_input("i", Type::tensor(DataType::Int64, Shape{}));
  body->add_input("c", Type::tensor(DataType::Bool, Shape{}));
  Value* acc = body->add_input("acc", Type::tensor(DataType::Float, Shape{}));
  Value* add_in[] = {acc, acc};
  ir::Node* add = body->create_node("Add", add_in);
  add->output(0)->set_name("twice");
  Value* less_in[] = {add->output(0), x};
  ir::Node* less = body->create_node("Less", less_in);
  less->output(0)->set_name("more");
  body->add_output(less->output(0));
  body->add_output(add->output(0));
  Value* loop_in[] = {nullptr, go, x};
  ir::Node* loop = g.create_node("Loop", loop_in);
  loop->set_attr(Attr::of_graph("body", std::move(body)));
  loop->output(0)->set_name("total");
  g.add_output(loop->output(0));
  auto r = decompile(m);
  EXPECT_NE(r.source.find("    acc = x\n"
                          "    c = go\n"
                          "    while c:\n"
                          "        twice = acc + acc\n"
                          "        more = twice < x\n"
                          "        acc = twice\n"
                          "        c = more\n"
                          "    total = acc\n"),
            std::string::npos)
      << r.source;
  expect_parses(r.source);
}

TEST(Decompile, FunctionsWithAttributeParametersAndCustomDomains) {
  ir::Model m;
  m.opset_imports = {{"", 17}, {"com.example", 1}};
  auto f = std::make_unique<ir::Function>("com.example", "ScaledRelu");
  f->attributes = {"alpha"};
  f->opset_imports = {{"", 17}};
  Value* fx = f->body->add_input("X");
  Value* fin[] = {fx};
  ir::Node* lr = f->body->create_node("LeakyRelu", fin);
  lr->set_attr(Attr::reference("alpha", ir::AttrType::Float, "alpha"));
  f->body->add_output(lr->output(0));
  m.functions.push_back(std::move(f));
  ir::Graph& g = *m.graph;
  Value* x = g.add_input("x", Type::tensor(DataType::Float, Shape{3}));
  Value* in[] = {x};
  ir::Node* call = g.create_node("ScaledRelu", in, 1, "com.example");
  call->set_attr(Attr::of_float("alpha", 0.2f));
  g.add_output(call->output(0));
  auto r = decompile(m);
  EXPECT_NE(r.source.find("com_example = Opset('com.example', 1)"), std::string::npos) << r.source;
  EXPECT_NE(r.source.find("@script(com_example)\ndef ScaledRelu(X, alpha: float):\n"
                          "    LeakyRelu = op.LeakyRelu(X, alpha=alpha)\n"),
            std::string::npos)
      << r.source;
  EXPECT_NE(r.source.find("= ScaledRelu(x, alpha=0.2)"), std::string::npos) << r.source;
  expect_parses(r.source);
}

TEST(Decompile, RejectsWhatScriptCannotSay) {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  Value* x = m.graph->add_input("x", Type::tensor(DataType::Float));
  Value* in[] = {x};
  ir::Node* n = m.graph->create_node("Foo", in);
  Attr a("tp", ir::AttrType::TypeProto);
  n->set_attr(std::move(a));
  m.graph->add_output(n->output(0));
  try {
    decompile(m);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("no form for a 'type_proto' attribute ('tp')"),
              std::string::npos)
        << e.what();
  }
}

TEST(PythonNames, ValidUniqueIdentifiers) {
  PythonNames names;
  int a, b, c, d;
  EXPECT_EQ(names.get(&a, "x"), "x");
  EXPECT_EQ(names.get(&a, "ignored"), "x");
  EXPECT_EQ(names.get(&b, "x"), "x_1");
  EXPECT_EQ(names.get(&c, "1:out/0"), "v_1_out_0");
  EXPECT_EQ(names.get(&d, "lambda"), "lambda_1");
  EXPECT_TRUE(is_python_identifier("abc_1"));
  EXPECT_FALSE(is_python_identifier("1abc"));
  EXPECT_FALSE(is_python_identifier("for"));
  EXPECT_EQ(python_float(0.1f, true), "0.1");
  EXPECT_EQ(python_float(1.0, false), "1.0");
  EXPECT_EQ(python_float(1e-7f, true), "1e-07");
  EXPECT_EQ(python_string("it's\n"), "'it\\'s\\n'");
}

}  // namespace
}  // namespace oxs::script
