// Each standard pass on a small model: the graph after (op types) and the
// numbers (every run here verifies the pass on the evaluator, by equality
// unless a fusion changes rounding).
#include <gtest/gtest.h>

#include "oxs/ir/verifier.h"
#include "oxs/rewrite/passes/standard.h"
#include "test_util.h"

namespace oxs::rewrite {
namespace {

using testing::ops;
using testing::optimize;
using testing::parse_model;

size_t applied(const std::vector<PassStats>& stats, const std::string& rule) {
  size_t n = 0;
  for (const auto& s : stats) {
    auto it = s.applications.find(rule);
    if (it != s.applications.end()) n += it->second;
  }
  return n;
}

TEST(NoopPass, RemovesEveryKindOfNoop) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x) => (float[2,3] y)
      <int64[2] same = {2, 3}, int64[2] keep = {0, -1}, int64[2] st = {0, 0}, int64[2] en = {2, 100},
       int64[4] zeros = {0, 0, 0, 0}, int64[1] one = {1}> {
      a = Identity(x)
      b = Cast<to = 1>(a)
      c = Reshape(b, same)
      d = Reshape(c, keep)
      e = Transpose<perm = [0, 1]>(d)
      f = Expand(e, one)
      g1 = Slice(f, st, en)
      h = Pad(g1, zeros)
      i = Concat<axis = 0>(h)
      j = Dropout(i)
      y = Relu(j)
    })");
  auto stats = optimize(m, {"infer", "noop"});
  EXPECT_EQ(ops(m), "Relu");
  for (const char* op :
       {"Identity", "Cast", "Transpose", "Expand", "Slice", "Pad", "Concat", "Dropout"}) {
    EXPECT_EQ(applied(stats, std::string("noop.") + op), 1u) << op;
  }
  EXPECT_EQ(applied(stats, "noop.Reshape"), 2u);
}

TEST(NoopPass, KeepsNodesThatChangeSomething) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x) => (float[3,2] y, double[2,3] z, float[2,2] w)
      <int64[2] other = {3, 2}, int64[2] st = {0, 1}, int64[2] en = {2, 3}> {
      y = Reshape(x, other)
      z = Cast<to = 11>(x)
      w = Slice(x, st, en)
    })");
  optimize(m, {"infer", "noop"});
  EXPECT_EQ(ops(m), "Reshape,Cast,Slice");
}

TEST(NoopPass, GraphOutputsKeepTheirNames) {
  // y = Identity(t) where t comes from a node: t takes the name y.
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x) => (float[2] y, float[2] z) {
      t = Relu(x)
      y = Identity(t)
      z = Identity(x)
    })");
  optimize(m, {"noop"});
  EXPECT_EQ(ops(m), "Relu,Identity");  // z = Identity(x) must stay: x is an input
  EXPECT_EQ(m.graph->outputs()[0]->name(), "y");
  EXPECT_EQ(m.graph->outputs()[1]->name(), "z");
  EXPECT_EQ(m.graph->outputs()[0]->producer()->op_type(), "Relu");
}

TEST(AlgebraicPass, NeutralElementsAndInvolutions) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x, bool[2] p) => (float[2,3] y, bool[2] q)
      <float one = {1.0}, float[1] zero = {0.0}, float[1,1] onet = {1.0}> {
      a = Mul(one, x)
      b = Add(a, zero)
      c = Sub(b, zero)
      d = Div(c, onet)
      e = Neg(d)
      f = Neg(e)
      y = Relu(f)
      r = Not(p)
      q = Not(r)
    })");
  auto stats = optimize(m, {"infer", "algebraic", "dce"});
  // q = Not(Not(p)) is a graph output that p (an input) cannot stand for.
  EXPECT_EQ(ops(m), "Relu,Not,Not");
  EXPECT_EQ(applied(stats, "algebraic.MulOne"), 1u);
  EXPECT_EQ(applied(stats, "algebraic.NegNeg"), 1u);
  EXPECT_EQ(applied(stats, "algebraic.DivOne"), 1u);
}

TEST(AlgebraicPass, KeepsMulByOneThatBroadcasts) {
  // x * ones[3] grows x of shape [1] to [3]: not a no-op.
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[1] x) => (float[3] y) <float[3] ones = {1.0, 1.0, 1.0}> {
      t = Mul(x, ones)
      y = Relu(t)
    })");
  optimize(m, {"infer", "algebraic"});
  EXPECT_EQ(ops(m), "Mul,Relu");
}

TEST(FoldPass, FoldsConstantSubgraphsAndKeepsRandomOps) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x) => (float[2] y, float[2] r) <float[2] a = {1.0, 2.0}, float[2] b = {3.0, 4.0}> {
      s = Add(a, b)
      t = Mul(s, s)
      y = Add(x, t)
      r = RandomUniformLike(a)
    })");
  auto stats = optimize(m, {"fold", "dce"}, "");
  EXPECT_EQ(ops(m), "Add,RandomUniformLike");
  const ir::Value* folded = m.graph->first_node()->input(1);
  ASSERT_TRUE(folded->const_value());
  auto v = folded->const_value()->data<float>();
  EXPECT_EQ(v[0], 16.0f);
  EXPECT_EQ(v[1], 36.0f);
}

TEST(FoldPass, SizeLimitIsRespected) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[4] x) => (float[4] y) <int64[1] shape = {4}> {
      c = ConstantOfShape<value = float {2.0}>(shape)
      y = Add(x, c)
    })");
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(make_pass("fold", {{"max-elements", "2"}}));
  run_pipeline(m, passes);
  EXPECT_EQ(ops(m), "ConstantOfShape,Add");
  EXPECT_THROW(make_pass("fold", {{"max-elemnts", "2"}}), Error);
}

TEST(FoldPass, AnIfWithAConstantConditionBecomesTheBranchItTakes) {
  // The outer condition comes from a string constant through ai.onnx.ml's
  // LabelEncoder (how a script compares a string attribute); the inner If
  // reads it from the enclosing scope and folds first.
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 3]>
    g (float[2] x) => (float[2] y) {
      mode = Constant<value_string = "trunc">()
      k = ai.onnx.ml.LabelEncoder<keys_strings = ["floor"], values_int64s = [1], default_int64 = 0>(mode)
      c = Cast<to = 9>(k)
      y = If(c) <then_branch = g1 () => (float[2] f) { f = Floor(x) },
                 else_branch = g2 () => (float[2] r) {
                   k2 = ai.onnx.ml.LabelEncoder<keys_strings = ["trunc"], values_int64s = [1], default_int64 = 0>(mode)
                   c2 = Cast<to = 9>(k2)
                   r = If(c2) <then_branch = g3 () => (float[2] t) { n = Neg(x)
                                                                   t = Abs(n) },
                               else_branch = g4 () => (float[2] i) { i = Identity(x) }>
                 }>
    })");
  auto stats = optimize(m, {"fold", "dce"});
  EXPECT_EQ(ops(m), "Neg,Abs");
  EXPECT_GE(applied(stats, "fold.if"), 2u);
  EXPECT_EQ(m.graph->outputs()[0]->name(), "y");
}

TEST(FoldPass, AnIfWithAnInputConditionOrNestedSubgraphsStays) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (bool c, float[2] x) => (float[2] y, float[2] z) {
      y = If(c) <then_branch = g1 () => (float[2] f) { f = Floor(x) },
                 else_branch = g2 () => (float[2] r) { r = Ceil(x) }>
      t = Constant<value = bool {1}>()
      z = If(t) <then_branch = g3 () => (float[2] o) {
                   o = If(c) <then_branch = g5 () => (float[2] a) { a = Abs(x) },
                              else_branch = g6 () => (float[2] b) { b = Neg(x) }>
                 },
                 else_branch = g4 () => (float[2] i) { i = Identity(x) }>
    })");
  optimize(m, {"fold", "dce"});
  EXPECT_EQ(ops(m), "If,If");
}

TEST(CsePass, MergesSameComputationsOnly) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x) => (float[2] y, float[2] r) {
      a = Relu(x)
      b = Relu(x)
      c = LeakyRelu<alpha = 0.1>(x)
      d = LeakyRelu<alpha = 0.2>(x)
      e = Add(a, b)
      f = Add(c, d)
      y = Add(e, f)
      r1 = RandomNormalLike(x)
      r2 = RandomNormalLike(x)
      r = Add(r1, r2)
    })");
  auto stats = optimize(m, {"cse"}, "");
  EXPECT_EQ(applied(stats, "cse"), 1u);
  EXPECT_EQ(ops(m), "Relu,LeakyRelu,LeakyRelu,Add,Add,Add,RandomNormalLike,RandomNormalLike,Add");
}

TEST(CsePass, ComparesTensorAndTypeAttributes) {
  // Constants: equal tensors merge, a different one stays. Optional with
  // no input: the type attribute alone says what it makes.
  ir::Model m;
  m.opset_imports.push_back({"", 17});
  ir::Graph& g = *m.graph;
  auto constant = [&](std::vector<float> v) {
    ir::Node* n = g.create_node("Constant", {});
    n->set_attr(ir::Attr::of_tensor("value", std::make_shared<ir::Tensor>(ir::Tensor::from<float>(
                                                 ir::DataType::Float, {int64_t(v.size())}, v))));
    return n->output(0);
  };
  auto optional = [&](ir::Type element) {
    ir::Node* n = g.create_node("Optional", {});
    ir::Attr a;
    a.name = "type";
    a.type = ir::AttrType::TypeProto;
    a.tp = std::move(element);
    n->set_attr(std::move(a));
    g.add_output(n->output(0));
  };
  ir::Value* c1 = constant({1, 2});
  ir::Value* c2 = constant({1, 2});
  ir::Value* c3 = constant({1, 3});
  ir::Value* s = g.create_node("Add", std::vector<ir::Value*>{c1, c2})->output(0);
  g.add_output(g.create_node("Add", std::vector<ir::Value*>{s, c3})->output(0));
  optional(ir::Type::tensor(ir::DataType::Float));
  optional(ir::Type::sequence(ir::Type::tensor(ir::DataType::Float)));
  auto stats = optimize(m, {"cse"}, "");
  EXPECT_EQ(applied(stats, "cse"), 1u);
  EXPECT_EQ(ops(m), "Constant,Constant,Add,Add,Optional,Optional");
  ir::Node* add = g.first_node()->next()->next();
  EXPECT_EQ(add->input(0), add->input(1));
}

TEST(ChainsPass, CollapsesTransposeReshapeCast) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3,4] x, int32[5] i) => (float[2,3,4] y, float[24] z, float[5] w, float[4,2,3] v)
      <int64[2] s1 = {6, 4}, int64[1] s2 = {24}> {
      a = Transpose<perm = [1, 2, 0]>(x)
      y = Transpose<perm = [2, 0, 1]>(a)
      b = Reshape(x, s1)
      z = Reshape(b, s2)
      c = Cast<to = 7>(i)
      w = Cast<to = 1>(c)
      d = Transpose<perm = [0, 2, 1]>(x)
      v = Transpose<perm = [1, 0, 2]>(d)
    })");
  auto stats = optimize(m, {"infer", "chains", "dce"});
  EXPECT_EQ(applied(stats, "chains.TransposeTranspose"), 2u);
  EXPECT_EQ(applied(stats, "chains.ReshapeReshape"), 1u);
  EXPECT_EQ(applied(stats, "chains.CastCast"), 1u);
  // y is x again (an Identity keeps the output's name), the others one node each.
  EXPECT_EQ(ops(m), "Identity,Reshape,Cast,Transpose");
  EXPECT_EQ(m.graph->nodes_reversed().begin().operator*()->attr("perm")->ints,
            (std::vector<int64_t>{2, 0, 1}));
}

TEST(ChainsPass, KeepsALossyCastChain) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[3] x) => (float[3] y) {
      c = Cast<to = 6>(x)
      y = Cast<to = 1>(c)
    })");
  optimize(m, {"infer", "chains"});
  EXPECT_EQ(ops(m), "Cast,Cast");
}

TEST(FuseGemmPass, MatMulAddBecomesGemm) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[4,3] a, float[3,5] b, float[5] c, float[2,4,3] a3) => (float[4,5] y, float[2,4,5] z) {
      t = MatMul(a, b)
      y = Add(t, c)
      u = MatMul(a3, b)
      z = Add(u, c)
    })");
  optimize(m, {"infer", "fuse-gemm"}, "tolerance=1e-5,1e-6");
  EXPECT_EQ(ops(m), "Gemm,MatMul,Add");  // the 3-D product stays
}

TEST(DeadCodePass, RemovesNodesInitializersAndFunctions) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
    g (float[2] x) => (float[2] y) <float[2] unused = {1.0, 2.0}> {
      dead = Relu(x)
      dead2 = Neg(dead)
      y = Abs(x)
    }
    <domain: "local", opset_import: ["" : 17]>
    f (a) => (b) { b = Neg(a) })");
  ASSERT_EQ(m.functions.size(), 1u);
  auto stats = optimize(m, {"dce"});
  EXPECT_EQ(ops(m), "Abs");
  EXPECT_TRUE(m.graph->initializers().empty());
  EXPECT_TRUE(m.functions.empty());
}

TEST(Driver, RewritesInsideSubgraphsAndFunctionBodies) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
    g (bool c, float[2] x) => (float[2] y) {
      y = If(c) <
        then_branch = t () => (float[2] o) { i = Identity(x)  o = local.f(i) },
        else_branch = e () => (float[2] o2) { o2 = Neg(x) }>
    }
    <domain: "local", opset_import: ["" : 17]>
    f (a) => (b) { n1 = Neg(a)  n2 = Neg(n1)  b = Relu(n2) })");
  auto stats = optimize(m, {"noop", "algebraic"});
  EXPECT_EQ(applied(stats, "noop.Identity"), 1u);
  EXPECT_EQ(applied(stats, "algebraic.NegNeg"), 1u);
  EXPECT_EQ(m.functions[0]->body->num_nodes(), 1u);
  EXPECT_TRUE(ir::verify(m).empty());
}

TEST(Pipeline, DefaultPipelineIsDeterministic) {
  const char* text = R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[4,3] x, float[3,5] w) => (float[4,5] y) <float[5] b = {1.0, 2.0, 3.0, 4.0, 5.0}, float one = {1.0}> {
      a = Identity(x)
      m1 = MatMul(a, w)
      m2 = Add(m1, b)
      r1 = Relu(m2)
      r2 = Relu(m2)
      s = Add(r1, r2)
      y = Mul(s, one)
    })";
  std::string first, second;
  for (std::string* out : {&first, &second}) {
    auto m = parse_model(text);
    optimize(m, default_pipeline(), "tolerance=1e-5,1e-6");
    *out = onnx::save_to_bytes(m);
  }
  EXPECT_EQ(first, second);
  auto m = parse_model(text);
  optimize(m, default_pipeline(), "tolerance=1e-5,1e-6");
  EXPECT_EQ(ops(m), "Gemm,Relu,Add");
}

TEST(PassCatalog, UnknownPassSuggestsAName) {
  try {
    make_pass("flod");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("did you mean 'fold'"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace oxs::rewrite

namespace oxs::rewrite {
namespace {

TEST(ShapeFoldPass, KnownDimsBecomeConstantsSymbolicOnesStay) {
  auto m = testing::parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[N,3,4] x, float[2,3] y) => (int64[3] s, int64 d1, int64 d0, int64 n) {
      s0 = Shape(x)
      s = Identity(s0)
      one = Constant<value = int64 {1}>()
      zero = Constant<value = int64 {0}>()
      g1 = Gather(s0, one)
      d1 = Identity(g1)
      g0 = Gather(s0, zero)
      d0 = Identity(g0)
      z = Size(y)
      n = Identity(z)
    })");
  auto stats = testing::optimize(m, {"shape-fold", "dce"});
  // Shape(x) stays (N is symbolic); Gather of dim 1 (3) and Size(y) (6) fold.
  EXPECT_EQ(stats[0].applications.at("shape-fold.GatherShape"), 1u);
  EXPECT_EQ(stats[0].applications.at("shape-fold.Size"), 1u);
  EXPECT_EQ(stats[0].applications.count("shape-fold.Shape"), 0u);
  EXPECT_EQ(testing::ops(m), "Shape,Identity,Constant,Identity,Gather,Identity,Identity");
  const ir::Value* d1 = m.graph->outputs()[1]->producer()->input(0);
  ASSERT_TRUE(d1->const_value());
  EXPECT_EQ(d1->const_value()->data<int64_t>()[0], 3);
}

}  // namespace
}  // namespace oxs::rewrite

namespace oxs::rewrite {
namespace {

TEST(InlinePass, CallsBecomeBodiesWithAttributesBound) {
  auto m = testing::parse_model(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
    g (float[2,3] x) => (float[2,3] y) {
      t = local.outer <alpha: float = 0.25> (x)
      y = local.outer <alpha: float = 0.5> (t)
    }
    <domain: "local", opset_import: ["" : 17, "local" : 1]>
    outer <alpha> (a) => (b) {
      n = Neg(a)
      b = local.inner <alpha: float = @alpha> (n)
    }
    <domain: "local", opset_import: ["" : 17]>
    inner <alpha> (a) => (b) { b = LeakyRelu <alpha: float = @alpha> (a) })");
  auto stats = testing::optimize(m, {"inline", "dce"});
  // Two calls of outer, the two calls of inner they bring, and the call of
  // inner inside outer's own body (function bodies are rewritten too).
  EXPECT_EQ(stats[0].applications.at("inline"), 5u);
  EXPECT_EQ(testing::ops(m), "Neg,LeakyRelu,Neg,LeakyRelu");
  EXPECT_TRUE(m.functions.empty());
  std::vector<float> alphas;
  for (const ir::Node* n : m.graph->nodes()) {
    if (n->op_type() == "LeakyRelu") alphas.push_back(n->attr("alpha")->f);
  }
  EXPECT_EQ(alphas, (std::vector<float>{0.25f, 0.5f}));
}

}  // namespace
}  // namespace oxs::rewrite

namespace oxs::rewrite {
namespace {

// A transformation that breaks the IR: Relu then reads its own output.
class CyclePass : public Pass {
 public:
  CyclePass() : Pass("make-cycle") {}
  std::string summary() const override { return "test: reads a node's own output"; }
  PassKind kind() const override { return PassKind::Transformation; }
  void run(ir::Model& model, Rewriter& rw, PassStats&) override {
    for (ir::Node* n : model.graph->nodes()) {
      if (n->op_type() != "Relu" || !rw.begin("make-cycle", *n)) continue;
      rw.set_input(*n, 0, n->output(0));
      rw.end();
    }
  }
};

std::string pipeline_error(bool each_pass) {
  auto m = parse_model(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x) => (float[2] y) { r = Relu(x)  y = Neg(r) })");
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(std::make_unique<CyclePass>());
  passes.push_back(make_pass("noop"));
  PipelineOptions o;
  o.verify_ir_each_pass = each_pass;
  try {
    run_pipeline(m, passes, o);
  } catch (const Error& e) {
    return e.message();
  }
  return "no error";
}

TEST(PipelineIrCheck, AfterEachPassNamesThePass) {
  std::string msg = pipeline_error(true);
  EXPECT_NE(msg.find("well-formed IR' of pass 'make-cycle' failed"), std::string::npos) << msg;
}

TEST(PipelineIrCheck, OnceAtTheEndNamesThePassesThatChangedTheModel) {
  // noop changed nothing, so only make-cycle is named; the hint says how to
  // find the pass when several changed the model.
  std::string msg = pipeline_error(false);
  EXPECT_NE(msg.find("well-formed IR' of the passes make-cycle (check after each pass"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("--verify-ir"), std::string::npos) << msg;
}

}  // namespace
}  // namespace oxs::rewrite

namespace oxs::rewrite {
namespace {

const char* kHalfTanhRes = R"(
    <domain: "local", opset_import: ["" : 17]>
    half_tanh_res (v) => (r) {
      h = Constant<value = float {0.5}>()
      m = Mul(v, h)
      t = Tanh(m)
      r = Add(t, v)
    })";

ir::Model parse(const std::string& text) {
  return parse_model(text.c_str());
}

// A model-local function whose body the main graph computes inline twice,
// once with an intermediate value read elsewhere (that one must stay).
const std::string kOutline = R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
    g (float[2,3] x, float[2,3] y) => (float[2,3] out, float[2,3] peek) {
      h1 = Constant<value = float {0.5}>()
      a1 = Mul(x, h1)
      b1 = Tanh(a1)
      c1 = Add(b1, x)
      a2 = Mul(y, h1)
      b2 = Tanh(a2)
      c2 = Add(b2, y)
      a3 = Mul(c1, h1)
      b3 = Tanh(a3)
      peek = Neg(b3)
      c3 = Add(b3, c1)
      out = Sub(c3, c2)
    })" + std::string(kHalfTanhRes) +
                             R"(
    <domain: "local", opset_import: ["" : 17]>
    scaled <alpha> (v) => (r) { r = LeakyRelu<alpha: float = @alpha>(v) })";

TEST(OutlinePass, RepeatedBodiesBecomeCallsVerifiedByEquality) {
  auto m = parse(kOutline);
  auto stats = optimize(m, {"outline", "dce"});
  // c1 and c2 become calls; c3's Tanh output is also read by peek, so it stays.
  EXPECT_EQ(stats[0].applications.at("outline.local.half_tanh_res"), 2u);
  EXPECT_EQ(ops(m), "Constant,half_tanh_res,half_tanh_res,Mul,Tanh,Neg,Add,Sub");
  for (const ir::Node* n : m.graph->nodes()) {
    if (n->op_type() == "half_tanh_res") {
      EXPECT_EQ(n->domain(), "local");
    }
  }
  ASSERT_EQ(stats[0].notes.size(), 1u);
  EXPECT_EQ(stats[0].notes[0], "local.scaled not used as a pattern: it has attribute parameters");
  EXPECT_TRUE(ir::verify(m).empty());
  EXPECT_EQ(testing::onnx_checker(m, "oxs_outline.onnx"), "");
}

TEST(OutlinePass, InlineThenOutlineGivesTheCallsBack) {
  auto m = parse(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
    g (float[4] x) => (float[4] y) {
      t = local.half_tanh_res(x)
      y = local.half_tanh_res(t)
    })" + std::string(kHalfTanhRes));
  optimize(m, {"inline"});
  EXPECT_EQ(ops(m), "Constant,Mul,Tanh,Add,Constant,Mul,Tanh,Add");
  optimize(m, {"outline", "dce"});
  EXPECT_EQ(ops(m), "half_tanh_res,half_tanh_res");
  EXPECT_EQ(m.functions.size(), 1u);
}

TEST(OutlinePass, LibraryFunctionsAreAddedWhenUsed) {
  auto m = parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[4] x) => (float[4] y) {
      h = Constant<value = float {0.5}>()
      a = Mul(x, h)
      b = Tanh(a)
      c = Add(b, x)
      y = Neg(c)
    })");
  auto library = std::make_shared<const ir::Model>(
      parse(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
    lib (float[4] x) => (float[4] y) { y = local.half_tanh_res(x) })" +
            std::string(kHalfTanhRes) + R"(
    <domain: "local", opset_import: ["" : 17]>
    unused (v) => (r) { r = Sigmoid(v) })"));
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(make_outline_pass({}, library));
  PipelineOptions o;
  o.verify = VerifySpec::parse("equality");
  auto stats = run_pipeline(m, passes, o);
  EXPECT_EQ(ops(m), "half_tanh_res,Neg");
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions.begin()->get()->name, "half_tanh_res");
  EXPECT_EQ(ir::find_opset(m.opset_imports, "local"), 1);
  EXPECT_TRUE(ir::verify(m).empty());
  EXPECT_EQ(testing::onnx_checker(m, "oxs_outline_library.onnx"), "");
}

TEST(OutlinePass, DifferentConstantOrOpDoesNotMatch) {
  auto m = parse(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
    g (float[4] x) => (float[4] y) {
      h = Constant<value = float {0.25}>()
      a = Mul(x, h)
      b = Tanh(a)
      c = Add(b, x)
      d = Mul(c, h)
      e = Sigmoid(d)
      y = Add(e, c)
    })" + std::string(kHalfTanhRes));
  auto stats = optimize(m, {"outline"});
  EXPECT_EQ(stats[0].total_applications, 0u);
  EXPECT_EQ(ops(m), "Constant,Mul,Tanh,Add,Mul,Sigmoid,Add");
}

}  // namespace
}  // namespace oxs::rewrite
