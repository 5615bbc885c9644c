// Type and shape inference over the IR: symbolic dims, data propagation,
// constants, subgraphs in scope, model-local functions, merge rules and the
// signature checks' messages.
#include <gtest/gtest.h>

#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"

namespace oxs::infer {
namespace {

using ir::DataType;
using ir::Dim;
using ir::Shape;
using ir::Type;

Shape sym(std::vector<Dim> d) {
  return Shape(std::move(d));
}

struct Fixture {
  ir::Model m;
  ir::Graph& g;
  Fixture() : g(*m.graph) { m.opset_imports.push_back({"", 17}); }
  ir::Value* input(const std::string& name, Type t) { return g.add_input(name, std::move(t)); }
  ir::Node* node(const std::string& op, std::vector<ir::Value*> ins, size_t outs = 1,
                 std::string domain = "") {
    return g.create_node(op, ins, outs, std::move(domain));
  }
  ir::Value* ints(const std::string& name, std::vector<int64_t> v, bool scalar = false) {
    std::vector<int64_t> dims;
    if (!scalar) dims.push_back(static_cast<int64_t>(v.size()));
    return g.add_initializer(name, std::make_shared<ir::Tensor>(ir::Tensor::from<int64_t>(
                                       DataType::Int64, dims, std::span<const int64_t>(v))));
  }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.message();
  }
  return "(no error)";
}

TEST(Infer, SymbolicDimsSurviveBroadcastAndMatMul) {
  Fixture f;
  auto* x = f.input("x", Type::tensor(DataType::Float, sym({Dim::symbolic("N"), Dim::known(3)})));
  auto* w = f.input("w", Type::tensor(DataType::Float, Shape{3, 4}));
  auto* b = f.input("b", Type::tensor(DataType::Float, Shape{4}));
  auto* mm = f.node("MatMul", {x, w});
  auto* add = f.node("Add", {mm->output(0), b});
  auto* relu = f.node("Relu", {add->output(0)});
  run(f.m);
  EXPECT_EQ(relu->output(0)->type().to_string(), "float[N,4]");
  EXPECT_EQ(mm->output(0)->type().to_string(), "float[N,4]");
}

TEST(Infer, ConstantInputsFeedShapeInference) {
  Fixture f;
  auto* x = f.input("x", Type::tensor(DataType::Float, Shape{2, 3, 4}));
  auto* shape = f.ints("shape", {-1, 12});
  auto* r = f.node("Reshape", {x, shape});
  run(f.m);
  EXPECT_EQ(r->output(0)->type().to_string(), "float[2,12]");
}

TEST(Infer, ConstantNodeOutputsAreKnownValues) {
  Fixture f;
  auto* x = f.input("x", Type::tensor(DataType::Float, Shape{2, 3, 4}));
  auto* c = f.node("Constant", {});
  c->set_attr(ir::Attr::of_ints("value_ints", {4, 6}));
  auto* r = f.node("Reshape", {x, c->output(0)});
  Inferencer inf(f.m);
  inf.infer_graph(f.g);
  EXPECT_EQ(r->output(0)->type().to_string(), "float[4,6]");
  auto kv = inf.known_value(c->output(0));
  ASSERT_TRUE(kv);
  EXPECT_EQ(Shape(*kv).to_string(), "[4,6]");
}

TEST(Infer, DataPropagationShapeSliceConcatReshape) {
  Fixture f;
  auto* x = f.input(
      "x", Type::tensor(DataType::Float, sym({Dim::symbolic("N"), Dim::known(3), Dim::known(4)})));
  auto* s = f.node("Shape", {x});
  auto* b = f.node("Slice", {s->output(0), f.ints("zero", {0}), f.ints("one", {1})});
  auto* c = f.node("Concat", {b->output(0), f.ints("twelve", {12})});
  c->set_attr(ir::Attr::of_int("axis", 0));
  auto* r = f.node("Reshape", {x, c->output(0)});
  Inferencer inf(f.m);
  inf.infer_graph(f.g);
  auto kv = inf.known_value(c->output(0));
  ASSERT_TRUE(kv);
  EXPECT_EQ(Shape(*kv).to_string(), "[N,12]");
  EXPECT_EQ(r->output(0)->type().to_string(), "float[N,12]");
}

TEST(Infer, DataPropagationThroughGather) {
  Fixture f;
  auto* x = f.input(
      "x", Type::tensor(DataType::Float, sym({Dim::symbolic("B"), Dim::known(5), Dim::known(7)})));
  auto* s = f.node("Shape", {x});
  auto* g = f.node("Gather", {s->output(0), f.ints("idx", {0, 2})});
  auto* c = f.node("Concat", {g->output(0), f.ints("five", {5})});
  c->set_attr(ir::Attr::of_int("axis", 0));
  auto* r = f.node("Reshape", {x, c->output(0)});
  Inferencer inf(f.m);
  inf.infer_graph(f.g);
  auto kv = inf.known_value(g->output(0));
  ASSERT_TRUE(kv);
  EXPECT_EQ(Shape(*kv).to_string(), "[B,7]");
  EXPECT_EQ(r->output(0)->type().to_string(), "float[B,7,5]");
}

TEST(Infer, FullyKnownPropagatedValuesActAsConstants) {
  Fixture f;
  auto* x = f.input("x", Type::tensor(DataType::Float, Shape{2, 3}));
  auto* y = f.input("y", Type::tensor(DataType::Float, Shape{1, 3}));
  auto* s = f.node("Shape", {x});
  auto* e = f.node("Expand", {y, s->output(0)});
  auto* g = f.node("Gather", {s->output(0), f.ints("one", {1}, /*scalar=*/true)});
  auto* t = f.node("Unsqueeze", {g->output(0), f.ints("ax", {0})});
  auto* c = f.node("ConstantOfShape", {t->output(0)});
  run(f.m);
  EXPECT_EQ(e->output(0)->type().to_string(), "float[2,3]");
  EXPECT_EQ(c->output(0)->type().to_string(), "float[3]");
}

TEST(Infer, UnrankedAndUntypedInputsDoNotBreakPropagation) {
  for (Type t : {Type::tensor(DataType::Float), Type()}) {
    Fixture f;
    auto* x = f.input("x", t);
    auto* s = f.node("Shape", {x});
    auto* g = f.node("Gather", {s->output(0), f.ints("idx", {0})});
    auto* sl = f.node("Slice", {s->output(0), f.ints("zero", {0}), f.ints("one", {1})});
    auto* c = f.node("Concat", {g->output(0), sl->output(0)});
    c->set_attr(ir::Attr::of_int("axis", 0));
    auto* u = f.node("Unsqueeze", {c->output(0), f.ints("ax", {0})});
    auto* q = f.node("Squeeze", {u->output(0), f.ints("ax0", {0})});
    auto* a = f.node("Add", {q->output(0), q->output(0)});
    auto* r = f.node("Reshape", {x, a->output(0)});
    EXPECT_NO_THROW(run(f.m)) << t.to_string();
    EXPECT_FALSE(r->output(0)->type().shape().has_value() &&
                 r->output(0)->type().shape()->is_static());
  }
}

TEST(Infer, IfBranchesSeeTheEnclosingScope) {
  Fixture f;
  auto* x = f.input("x", Type::tensor(DataType::Float, sym({Dim::symbolic("N"), Dim::known(2)})));
  auto* cond = f.input("cond", Type::tensor(DataType::Bool, Shape{}));
  auto then_g = f.g.make_subgraph("then");
  auto* t = then_g->create_node("Relu", std::vector<ir::Value*>{x});
  then_g->add_output(t->output(0));
  auto else_g = f.g.make_subgraph("else");
  auto* e = else_g->create_node("Neg", std::vector<ir::Value*>{x});
  else_g->add_output(e->output(0));
  auto* n = f.node("If", {cond});
  n->set_attr(ir::Attr::of_graph("then_branch", std::move(then_g)));
  n->set_attr(ir::Attr::of_graph("else_branch", std::move(else_g)));
  run(f.m);
  EXPECT_EQ(t->output(0)->type().to_string(), "float[N,2]");
  EXPECT_EQ(n->output(0)->type().to_string(), "float[N,2]");
}

TEST(Infer, LoopBodyGetsCarriedTypes) {
  Fixture f;
  auto* x = f.input("x", Type::tensor(DataType::Float, Shape{3}));
  auto* trip = f.ints("trip", {4}, /*scalar=*/true);
  auto body = f.g.make_subgraph("body");
  body->add_input("i", {});
  auto* cin = body->add_input("c", {});
  auto* acc = body->add_input("acc", {});
  auto* add = body->create_node("Add", std::vector<ir::Value*>{acc, x});
  auto* cid = body->create_node("Identity", std::vector<ir::Value*>{cin});
  body->add_output(cid->output(0));
  body->add_output(add->output(0));
  auto* loop = f.node("Loop", {trip, nullptr, x});
  loop->set_attr(ir::Attr::of_graph("body", std::move(body)));
  run(f.m);
  // libonnx passes loop-carried values without shape (it may change per
  // iteration): the element type flows, the rank does not.
  EXPECT_EQ(add->output(0)->type().elem_type(), DataType::Float);
  EXPECT_EQ(loop->output(0)->type().elem_type(), DataType::Float);
}

// f(X) = Flatten(Relu(X), axis = @axis)
void add_flatten_function(ir::Model& m) {
  auto fn = std::make_unique<ir::Function>("local", "relu_flatten");
  fn->attributes = {"axis"};
  fn->opset_imports = {{"", 17}};
  auto* X = fn->body->add_input("X");
  auto* r = fn->body->create_node("Relu", std::vector<ir::Value*>{X});
  auto* fl = fn->body->create_node("Flatten", std::vector<ir::Value*>{r->output(0)});
  fl->set_attr(ir::Attr::reference("axis", ir::AttrType::Int, "axis"));
  fn->body->add_output(fl->output(0));
  m.functions.push_back(std::move(fn));
  m.opset_imports.push_back({"local", 1});
}

TEST(Infer, FunctionsAreInferredThroughTheirBodies) {
  Fixture f;
  add_flatten_function(f.m);
  auto* x = f.input("x", Type::tensor(DataType::Float, Shape{2, 3, 4, 5}));
  auto* call = f.node("relu_flatten", {x}, 1, "local");
  call->set_attr(ir::Attr::of_int("axis", 2));
  auto* call2 = f.node("relu_flatten", {x}, 1, "local");  // default axis = 1
  // Same signature again (served from the call cache) and another type.
  auto* call3 = f.node("relu_flatten", {x}, 1, "local");
  call3->set_attr(ir::Attr::of_int("axis", 2));
  auto* d = f.input("d", Type::tensor(DataType::Double, Shape{2, 3, 4, 5}));
  auto* call4 = f.node("relu_flatten", {d}, 1, "local");
  call4->set_attr(ir::Attr::of_int("axis", 2));
  run(f.m);
  EXPECT_EQ(call->output(0)->type().to_string(), "float[6,20]");
  EXPECT_EQ(call2->output(0)->type().to_string(), "float[2,60]");
  EXPECT_EQ(call3->output(0)->type().to_string(), "float[6,20]");
  EXPECT_EQ(call4->output(0)->type().to_string(), "double[6,20]");
}

// One inferencer while the model's functions are renamed, removed and
// replaced: each call resolves to the function the model has right now.
TEST(Infer, InferencerFollowsFunctionRenamesAndReplacements) {
  Fixture f;
  add_flatten_function(f.m);
  Inferencer inf(f.m);
  auto* x = f.input("x", Type::tensor(DataType::Float, Shape{2, 3, 4, 5}));
  auto* before = f.node("relu_flatten", {x}, 1, "local");
  inf.infer_node(*before);
  EXPECT_EQ(before->output(0)->type().to_string(), "float[2,60]");
  // Same number of functions, another name.
  f.m.functions.rename(*f.m.functions[0], "local", "flat");
  auto* old_name = f.node("relu_flatten", {x}, 1, "local");
  inf.infer_node(*old_name);  // no such function any more: an unknown custom op
  EXPECT_TRUE(old_name->output(0)->type().is_none());
  auto* renamed = f.node("flat", {x}, 1, "local");
  inf.infer_node(*renamed);
  EXPECT_EQ(renamed->output(0)->type().to_string(), "float[2,60]");
  // Removed, and a function with the same key but another body added (it
  // may well sit at the removed one's address).
  f.m.functions.clear();
  auto shape_fn = std::make_unique<ir::Function>("local", "flat");
  shape_fn->opset_imports = {{"", 17}};
  auto* X = shape_fn->body->add_input("X");
  shape_fn->body->add_output(
      shape_fn->body->create_node("Shape", std::vector<ir::Value*>{X})->output(0));
  f.m.functions.push_back(std::move(shape_fn));
  auto* replaced = f.node("flat", {x}, 1, "local");
  inf.infer_node(*replaced);
  EXPECT_EQ(replaced->output(0)->type().to_string(), "int64[4]");
}

TEST(Infer, FunctionCallWithMisspeltAttributeSuggests) {
  Fixture f;
  add_flatten_function(f.m);
  auto* x = f.input("x", Type::tensor(DataType::Float, Shape{2, 3}));
  auto* call = f.node("relu_flatten", {x}, 1, "local");
  call->set_attr(ir::Attr::of_int("axsi", 1));
  std::string msg = error_of([&] { run(f.m); });
  EXPECT_NE(msg.find("no attribute parameter 'axsi'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'axis'"), std::string::npos) << msg;
}

TEST(Infer, MergeKeepsDeclaredInformation) {
  Fixture f;
  auto* x = f.input("x", Type::tensor(DataType::Float, Shape{2, 3}));
  auto* s = f.input("s", Type::tensor(DataType::Int64, Shape{2}));
  auto* r = f.node("Reshape", {x, s});  // target shape unknown: inference gives rank 2 only
  r->output(0)->set_type(Type::tensor(DataType::Float, sym({Dim::symbolic("A"), Dim::known(3)})));
  run(f.m);
  EXPECT_EQ(r->output(0)->type().to_string(), "float[A,3]");
}

TEST(Infer, MergeReplacesSymbolsWithNumbers) {
  Type declared = Type::tensor(DataType::Float, sym({Dim::symbolic("N"), Dim::unknown()}));
  Type inferred = Type::tensor(DataType::Float, Shape{4, 5});
  EXPECT_EQ(merge_types(declared, inferred, "v").to_string(), "float[4,5]");
  EXPECT_EQ(merge_types(Type(), inferred, "v").to_string(), "float[4,5]");
  EXPECT_EQ(merge_types(inferred, Type(), "v").to_string(), "float[4,5]");
}

TEST(Infer, ContradictionsNameTheNode) {
  Fixture f;
  auto* x = f.input("x", Type::tensor(DataType::Float, Shape{2, 3}));
  auto* n = f.node("Relu", {x});
  n->output(0)->set_type(Type::tensor(DataType::Int64, Shape{2, 3}));
  std::string msg = error_of([&] { run(f.m); });
  EXPECT_NE(msg.find("node 'Relu' (Relu)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("element types differ"), std::string::npos) << msg;

  Fixture g;
  auto* y = g.input("y", Type::tensor(DataType::Float, Shape{2, 3}));
  auto* m = g.node("Relu", {y});
  m->output(0)->set_type(Type::tensor(DataType::Float, Shape{2, 4}));
  msg = error_of([&] { run(g.m); });
  EXPECT_NE(msg.find("dim 1 is 4 but inferred 3"), std::string::npos) << msg;
}

TEST(Infer, ShapeInferenceErrorsAreWrapped) {
  Fixture f;
  auto* a = f.input("a", Type::tensor(DataType::Float, Shape{2, 3}));
  auto* b = f.input("b", Type::tensor(DataType::Float, Shape{4, 5}));
  f.node("MatMul", {a, b});
  std::string msg = error_of([&] { run(f.m); });
  EXPECT_NE(msg.find("node 'MatMul' (MatMul)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ShapeInferenceError"), std::string::npos) << msg;
}

// ---- signature checks ----

TEST(Signature, MisspeltAttributeSuggestsTheRightOne) {
  Fixture f;
  auto* a = f.input("a", Type::tensor(DataType::Float, Shape{2, 3}));
  auto* n = f.node("Gemm", {a, a});
  n->set_attr(ir::Attr::of_float("alpah", 2.0f));
  std::string msg = error_of([&] { run(f.m); });
  EXPECT_NE(msg.find("Gemm has no attribute 'alpah'; did you mean 'alpha'?"), std::string::npos)
      << msg;
}

TEST(Signature, SchemasAllowingUncheckedAttributesAcceptExtras) {
  Fixture f;
  auto* x = f.input("x", Type::tensor(DataType::Float, Shape{2, 3}));
  auto* sc = f.input("scale", Type::tensor(DataType::Float, Shape{3}));
  auto* n = f.node("LayerNormalization", {x, sc});
  n->set_attr(ir::Attr::of_int("some_extra", 1));
  EXPECT_NO_THROW(run(f.m));
  EXPECT_EQ(n->output(0)->type().to_string(), "float[2,3]");
}

TEST(Signature, AttributeOfTheWrongType) {
  Fixture f;
  auto* a = f.input("a", Type::tensor(DataType::Float, Shape{2, 3}));
  auto* n = f.node("Gemm", {a, a});
  n->set_attr(ir::Attr::of_int("alpha", 2));
  std::string msg = error_of([&] { run(f.m); });
  EXPECT_NE(msg.find("attribute 'alpha' of Gemm must be of type float, got int"), std::string::npos)
      << msg;
}

TEST(Signature, MissingRequiredAttribute) {
  Fixture f;
  auto* a = f.input("a", Type::tensor(DataType::Float, Shape{2, 3}));
  f.node("Cast", {a});
  std::string msg = error_of([&] { run(f.m); });
  EXPECT_NE(msg.find("Cast requires attribute 'to' (int)"), std::string::npos) << msg;
}

TEST(Signature, InputCountAndOmittedRequiredInputs) {
  Fixture f;
  auto* a = f.input("a", Type::tensor(DataType::Float, Shape{2}));
  f.node("Relu", {a, a});
  std::string msg = error_of([&] { run(f.m); });
  EXPECT_NE(msg.find("Relu takes at most 1 inputs (X), got 2"), std::string::npos) << msg;

  Fixture g;
  auto* b = g.input("b", Type::tensor(DataType::Float, Shape{2}));
  g.node("Add", {b});
  msg = error_of([&] { run(g.m); });
  EXPECT_NE(msg.find("input 1 (B) of Add is required but missing"), std::string::npos) << msg;
}

TEST(Signature, TypeConstraintsBindConsistently) {
  Fixture f;
  auto* a = f.input("a", Type::tensor(DataType::Float, Shape{2}));
  auto* b = f.input("b", Type::tensor(DataType::Int64, Shape{2}));
  f.node("Add", {a, b});
  std::string msg = error_of([&] { run(f.m); });
  EXPECT_NE(msg.find("type constraint T of Add is bound to tensor(float) by input 0 (A) 'a' but "
                     "to tensor(int64) by input 1 (B) 'b'"),
            std::string::npos)
      << msg;
}

TEST(Signature, TypeNotAllowedByConstraint) {
  Fixture f;
  auto* a = f.input("a", Type::tensor(DataType::String, Shape{2}));
  f.node("Relu", {a});
  std::string msg = error_of([&] { run(f.m); });
  EXPECT_NE(msg.find("input 0 (X) 'a' of Relu has type tensor(string), which type constraint T "
                     "does not allow"),
            std::string::npos)
      << msg;
}

TEST(Signature, UnknownOperatorSuggests) {
  Fixture f;
  auto* a = f.input("a", Type::tensor(DataType::Float, Shape{2}));
  f.node("Reluu", {a});
  std::string msg = error_of([&] { run(f.m); });
  EXPECT_NE(msg.find("there is no operator 'Reluu' in ai.onnx; did you mean 'Relu'"),
            std::string::npos)
      << msg;
}

TEST(Signature, OperatorNewerThanTheImport) {
  ir::Model m;
  m.opset_imports.push_back({"", 11});
  auto* a = m.graph->add_input("a", Type::tensor(DataType::Float, Shape{2}));
  m.graph->create_node("CastLike", std::vector<ir::Value*>{a, a});
  std::string msg = error_of([&] { run(m); });
  EXPECT_NE(msg.find("CastLike exists only from ai.onnx opset 15 on"), std::string::npos) << msg;
}

TEST(Signature, UnknownCustomDomainsAreLeftAlone) {
  Fixture f;
  f.m.opset_imports.push_back({"com.example", 1});
  auto* a = f.input("a", Type::tensor(DataType::Float, Shape{2}));
  auto* n = f.node("Anything", {a}, 1, "com.example");
  EXPECT_NO_THROW(run(f.m));
  EXPECT_TRUE(n->output(0)->type().is_none());
}

TEST(Suggest, ClosestFirst) {
  auto s = suggest("alpah", {"alpha", "beta", "transA"});
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0], "alpha");
  EXPECT_TRUE(suggest("zzzzzz", {"alpha"}).empty());
}

}  // namespace
}  // namespace oxs::infer
