// The readable text form of the IR (printer.h).
#include "oxs/ir/printer.h"

#include <gtest/gtest.h>

namespace oxs::ir {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Model small_model() {
  Model m;
  m.ir_version = 8;
  m.opset_imports = {{"", 17}};
  m.producer_name = "test";
  Graph& g = *m.graph;
  g.set_name("main");
  Value* a =
      g.add_input("a", Type::tensor(DataType::Float, Shape({Dim::symbolic("N"), Dim::known(4)})));
  std::vector<float> wv(12);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = 0.5f * static_cast<float>(i);
  auto w = std::make_shared<Tensor>(Tensor::from<float>(DataType::Float, {3, 4}, wv));
  Value* b = g.add_initializer("b", w);
  float cv[3] = {1.0f, -2.0f, 0.25f};
  Value* c = g.add_initializer("c", std::make_shared<Tensor>(Tensor::from<float>(
                                        DataType::Float, {3}, std::span<const float>(cv, 3))));
  Value* inputs[] = {a, b, c};
  Node* gemm = g.create_node("Gemm", inputs);
  gemm->set_attr(Attr::of_float("alpha", 2.0f));
  gemm->set_attr(Attr::of_int("transB", 1));
  gemm->output(0)->set_name("y");
  gemm->output(0)->set_type(
      Type::tensor(DataType::Float, Shape({Dim::symbolic("N"), Dim::known(3)})));
  g.add_output(gemm->output(0));
  return m;
}

TEST(Printer, NodeLine) {
  Model m = small_model();
  const Node* gemm = m.graph->first_node();
  PrintOptions plain;
  plain.node_names = false;
  EXPECT_EQ(print_node_line(*gemm, plain),
            "%y: float[N,3] = Gemm(%a, %b, %c) {alpha=2.0, transB=1}");
  // By default the node's name follows as a comment.
  EXPECT_EQ(print_node_line(*gemm),
            "%y: float[N,3] = Gemm(%a, %b, %c) {alpha=2.0, transB=1}  # " + gemm->name());
}

TEST(Printer, ModelText) {
  Model m = small_model();
  std::string text = print(m);
  EXPECT_TRUE(contains(text, "ir_version 8, opsets {ai.onnx: 17}, producer \"test\"\n")) << text;
  EXPECT_TRUE(contains(text, "graph \"main\" {\n")) << text;
  EXPECT_TRUE(contains(text, "  input %a: float[N,4]\n")) << text;
  EXPECT_TRUE(contains(text, "  init %c: float[3] = [1.0, -2.0, 0.25]\n")) << text;
  // Twelve values, more than max_elements (8): the first 8 and the count.
  EXPECT_TRUE(contains(text,
                       "  init %b: float[3,4] = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, "
                       "... (12 values)]\n"))
      << text;
  EXPECT_TRUE(contains(text, "  output %y: float[N,3]\n")) << text;
  // Order: header, inputs, initializers, nodes, outputs.
  EXPECT_LT(text.find("input %a"), text.find("init %b"));
  EXPECT_LT(text.find("init %c"), text.find("= Gemm("));
  EXPECT_LT(text.find("= Gemm("), text.find("output %y"));
}

TEST(Printer, SubgraphsAreIndentedUnderTheirNode) {
  Model m;
  m.opset_imports = {{"", 17}};
  Graph& g = *m.graph;
  g.set_name("main");
  Value* cond = g.add_input("cond", Type::tensor(DataType::Bool, Shape{}));
  Value* x = g.add_input("x", Type::tensor(DataType::Float, Shape{2}));
  Value* in[] = {cond};
  Node* if_node = g.create_node("If", in);
  auto then_g = g.make_subgraph("then_body");
  Value* xin[] = {x};
  Node* neg = then_g->create_node("Neg", xin);
  then_g->add_output(neg->output(0));
  auto else_g = g.make_subgraph("else_body");
  Node* id = else_g->create_node("Identity", xin);
  else_g->add_output(id->output(0));
  if_node->set_attr(Attr::of_graph("then_branch", std::move(then_g)));
  if_node->set_attr(Attr::of_graph("else_branch", std::move(else_g)));
  g.add_output(if_node->output(0));
  std::string text = print(g);
  const std::string if_line =
      text.substr(text.find("  %"), text.find('\n', text.find("  %")) - text.find("  %"));
  EXPECT_TRUE(contains(if_line, "= If(%cond)")) << text;
  EXPECT_FALSE(contains(if_line, "then_branch")) << text;  // graphs go below the line
  EXPECT_TRUE(contains(text, "\n      then_branch: graph \"then_body\" {\n")) << text;
  EXPECT_TRUE(contains(text, "\n        %")) << text;  // the Neg node, nested deeper
  EXPECT_TRUE(contains(text, "= Neg(%x)")) << text;
  EXPECT_TRUE(contains(text, "\n      else_branch: graph \"else_body\" {\n")) << text;
}

TEST(Printer, OddNamesOmittedInputsDomainsAndAttrKinds) {
  Graph g("g");
  Value* x = g.add_input("my input", Type::tensor(DataType::Float));
  Value* in[] = {x, nullptr, x};
  Node* n = g.create_node("Clip", in);
  Node* ml = g.create_node("LinearClassifier", in, 1, "ai.onnx.ml");
  ml->set_attr(Attr::of_strings("labels", {"a\"b", "c"}));
  ml->set_attr(Attr::of_ints("ids", {1, 2, 3}));
  ml->set_attr(Attr::reference("alpha", AttrType::Float, "outer_alpha"));
  PrintOptions plain;
  plain.node_names = false;
  std::string clip = print_node_line(*n, plain);
  EXPECT_EQ(clip.substr(clip.find('=')), "= Clip(%\"my input\", \"\", %\"my input\")");
  std::string line = print_node_line(*ml);
  EXPECT_TRUE(contains(line, "= ai.onnx.ml.LinearClassifier(")) << line;
  EXPECT_TRUE(contains(line, "labels=[\"a\\\"b\", \"c\"]")) << line;
  EXPECT_TRUE(contains(line, "ids=[1, 2, 3]")) << line;
  EXPECT_TRUE(contains(line, "alpha=@outer_alpha")) << line;
}

TEST(Printer, ExternalDataIsNotRead) {
  Tensor t(DataType::Float, {1024, 1024});
  t.encoding = Tensor::Encoding::External;
  t.external.location = "weights.bin";
  t.external.offset = 4096;
  t.external.length = 4 * 1024 * 1024;
  EXPECT_EQ(tensor_summary(t),
            "float[1024,1024] = <external \"weights.bin\" offset 4096 length 4194304>");
}

TEST(Printer, MalformedTensorsDoNotCrash) {
  Tensor t(DataType::Float, {4});
  t.set_storage(std::make_shared<OwnedStorage>(std::string(6, '\0')));  // 6 bytes, not 16
  EXPECT_EQ(tensor_summary(t), "float[4] = <6 bytes>");
  Tensor none(DataType::Int64, {2});
  EXPECT_EQ(tensor_summary(none), "int64[2] = <no data>");
  Tensor bad(DataType::Int64, {-1});
  EXPECT_EQ(tensor_summary(bad), "int64[-1] = <bad dims>");
}

TEST(Printer, Functions) {
  Model m;
  auto f = std::make_unique<Function>("local", "Twice");
  f->attributes = {"k"};
  f->opset_imports = {{"", 17}};
  Value* x = f->body->add_input("x");
  Value* in[] = {x, x};
  Node* add = f->body->create_node("Add", in);
  f->body->add_output(add->output(0));
  m.functions.push_back(std::move(f));
  std::string text = print(m);
  EXPECT_TRUE(contains(text, "function local.Twice <k> opsets {ai.onnx: 17} {\n")) << text;
  EXPECT_TRUE(contains(text, "  input %x\n")) << text;
  EXPECT_TRUE(contains(text, "= Add(%x, %x)  # ")) << text;
  m.functions.rename(*m.functions[0], "local", "Twice", "int");
  text = print(m);
  EXPECT_TRUE(contains(text, "function local.Twice overload \"int\" <k> opsets")) << text;
}

TEST(Printer, NumbersAreShortestRoundTrip) {
  float v[4] = {0.1f, 1e-8f, 3.0f, -0.0f};
  Tensor t = Tensor::from<float>(DataType::Float, {4}, std::span<const float>(v, 4));
  EXPECT_EQ(tensor_summary(t), "float[4] = [0.1, 1e-08, 3.0, -0.0]");
  int64_t iv[2] = {-5, 7};
  Tensor ti = Tensor::from<int64_t>(DataType::Int64, {2}, std::span<const int64_t>(iv, 2));
  EXPECT_EQ(tensor_summary(ti), "int64[2] = [-5, 7]");
  uint16_t h[2] = {0x3c00, 0xc000};  // 1.0, -2.0 in float16
  Tensor th = Tensor::from<uint16_t>(DataType::Float16, {2}, std::span<const uint16_t>(h, 2));
  EXPECT_EQ(tensor_summary(th), "float16[2] = [1.0, -2.0]");
}

}  // namespace
}  // namespace oxs::ir
