// oxs's own function bodies for the op versions of its operator table
// (ai.onnx 18+): every op the spec defines as a function has one, served
// through the same calls as libonnx's bodies.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "oxs/ir/error.h"
#include "oxs/ir/verifier.h"
#include "oxs/schema/function_body.h"
#include "oxs/schema/registry.h"

namespace oxs::schema {
namespace {

bool from_table(const OpSignature& s) {
  return (s.domain.empty() && s.since_version >= 18) ||
         (s.domain == "ai.onnx.ml" && s.since_version >= 4) || s.domain == "ai.onnx.preview";
}

// Table op versions the spec defines as functions that oxs has no body for
// yet (their kernels run instead), and why.
const std::map<std::string, std::string>& missing_bodies() {
  static const std::map<std::string, std::string> m = {};
  return m;
}

std::string key_of(const OpSignature& s) {
  return (s.domain.empty() ? std::string() : s.domain + ".") + s.name + "-" +
         std::to_string(s.since_version);
}

TEST(TableBodies, EveryFunctionOpHasABodyOrANamedReason) {
  std::set<std::string> seen_missing;
  int with_body = 0;
  for (const char* domain : {"", "ai.onnx.ml", "ai.onnx.preview"}) {
    for (const OpSignature* s : all_signatures(domain)) {
      if (!from_table(*s)) continue;
      if (!s->has_function_body && !s->has_context_dependent_function) {
        EXPECT_FALSE(body_available(*s)) << key_of(*s);
        continue;
      }
      const std::string k = key_of(*s);
      if (missing_bodies().count(k)) {
        seen_missing.insert(k);
        EXPECT_FALSE(body_available(*s)) << k << " has a body now: drop it from missing_bodies()";
        continue;
      }
      EXPECT_TRUE(body_available(*s)) << k << " is a function in the spec but has no body";
      ++with_body;
    }
  }
  // The exception list names only function ops of the table.
  for (const auto& [k, why] : missing_bodies()) {
    EXPECT_TRUE(seen_missing.count(k)) << k << " (" << why << ") is not a table function op";
  }
  EXPECT_GE(with_body, 25);
}

// The table's function marks follow the spec where its extraction missed
// or misread them: the opset-18 reductions that ONNX defines through
// ReduceSum are functions (ONNX 1.23 ships *_expanded tests for them); Det-22
// is not (its schema has no body; a helper after it in ONNX's source does).
TEST(TableBodies, FunctionMarksOfTheTableFollowTheSpec) {
  for (const char* op :
       {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
    const OpSignature& s = require("", op, 18);
    EXPECT_EQ(s.since_version, 18) << op;
    EXPECT_TRUE(s.has_function_body) << op;
    EXPECT_TRUE(body_available(s)) << op;
  }
  const OpSignature& det = require("", "Det", 22);
  EXPECT_FALSE(det.has_function_body || det.has_context_dependent_function);
  EXPECT_FALSE(body_available(det));
}

TEST(TableBodies, FixedBodiesMatchTheirSignatures) {
  int checked = 0;
  for (const OpSignature* s : all_signatures("")) {
    if (!from_table(*s) || !s->has_function_body || !body_available(*s)) continue;
    std::unique_ptr<ir::Function> f = function_body(*s, s->since_version);
    ASSERT_NE(f, nullptr) << key_of(*s);
    EXPECT_EQ(f->name, s->name);
    ASSERT_EQ(f->body->inputs().size(), s->inputs.size()) << key_of(*s);
    ASSERT_EQ(f->body->outputs().size(), s->outputs.size()) << key_of(*s);
    for (size_t i = 0; i < s->inputs.size(); ++i) {
      EXPECT_EQ(f->body->inputs()[i]->name(), s->inputs[i].name) << key_of(*s);
    }
    for (size_t i = 0; i < s->outputs.size(); ++i) {
      EXPECT_EQ(f->body->outputs()[i]->name(), s->outputs[i].name) << key_of(*s);
    }
    // Every attribute the body refers to is one of the op's.
    for (ir::Node* n : f->body->nodes()) {
      for (const ir::Attr& a : n->attrs()) {
        if (a.is_reference()) {
          EXPECT_NE(s->find_attr(a.ref_attr_name), nullptr)
              << key_of(*s) << " @" << a.ref_attr_name;
        }
      }
    }
    EXPECT_TRUE(ir::verify(*f->body).empty()) << key_of(*s);
    ++checked;
  }
  EXPECT_GE(checked, 12);
}

TEST(TableBodies, MishBodyIsXTimesTanhOfSoftplus) {
  std::unique_ptr<ir::Function> f = function_body(require("", "Mish", 22), 22);
  ASSERT_NE(f, nullptr);
  std::multiset<std::string> ops;
  for (ir::Node* n : f->body->nodes()) ops.insert(n->op_type());
  EXPECT_EQ(ops, (std::multiset<std::string>{"Softplus", "Tanh", "Mul"}));
  ASSERT_EQ(f->opset_imports.size(), 1u);
  EXPECT_EQ(f->opset_imports[0].version, 22);
}

TEST(TableBodies, NormalizationsServeEveryCallSiteFromOneBody) {
  const OpSignature& rms = require("", "RMSNormalization", 23);
  ASSERT_TRUE(rms.has_context_dependent_function);
  CallSite call;
  call.input_types = {ir::Type::tensor(ir::DataType::Float), ir::Type::tensor(ir::DataType::Float)};
  call.outputs_present = {true};
  std::unique_ptr<ir::Function> f = context_dependent_body(rms, 23, call);
  ASSERT_NE(f, nullptr);
  bool reduces = false;
  for (ir::Node* n : f->body->nodes()) reduces |= n->op_type() == "ReduceMean";
  EXPECT_TRUE(reduces);
  EXPECT_EQ(function_body(rms, 23), nullptr) << "a context op has no call-free body";
}

std::string cast_to(const ir::Function& f) {
  for (ir::Node* n : f.body->nodes()) {
    if (n->op_type() != "Cast") continue;
    for (const ir::Attr& a : n->attrs()) {
      if (a.name == "to") return std::to_string(a.i);
    }
  }
  return "no Cast";
}

TEST(TableBodies, CastLikeCastsToTheTargetsElementType) {
  for (int64_t v : {19, 21, 23, 24, 25}) {
    const OpSignature& s = require("", "CastLike", v);
    ASSERT_EQ(s.since_version, v);
    CallSite call;
    call.input_types = {ir::Type::tensor(ir::DataType::Float),
                        ir::Type::tensor(ir::DataType::Float16)};
    call.outputs_present = {true};
    std::unique_ptr<ir::Function> f = context_dependent_body(s, v, call);
    ASSERT_NE(f, nullptr) << v;
    EXPECT_EQ(cast_to(*f), std::to_string(int(ir::DataType::Float16))) << v;
    // An unknown target type: declined, not guessed.
    call.input_types[1] = ir::Type();
    EXPECT_EQ(context_dependent_body(s, v, call), nullptr) << v;
  }
}

TEST(TableBodies, GeluFollowsItsApproximateAttribute) {
  const OpSignature& s = require("", "Gelu", 20);
  auto ops_for = [&](const char* approximate) {
    std::vector<ir::Attr> attrs;
    if (approximate) attrs.push_back(ir::Attr::of_string("approximate", approximate));
    CallSite call;
    call.input_types = {ir::Type::tensor(ir::DataType::Float)};
    call.outputs_present = {true};
    call.attrs = attrs;
    std::unique_ptr<ir::Function> f = context_dependent_body(s, 20, call);
    std::set<std::string> ops;
    if (f) {
      for (ir::Node* n : f->body->nodes()) ops.insert(n->op_type());
    }
    return ops;
  };
  EXPECT_TRUE(ops_for(nullptr).count("Erf"));
  EXPECT_TRUE(ops_for("none").count("Erf"));
  EXPECT_TRUE(ops_for("tanh").count("Tanh"));
  EXPECT_FALSE(ops_for("tanh").count("Erf"));
  try {
    ops_for("cubic");
    FAIL() << "an unknown approximation was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Invalid);
    EXPECT_NE(std::string(e.what()).find("cubic"), std::string::npos);
  }
}

// Call sites a body cannot be built for: declined (null) when a static fact
// the body needs is unknown, a reasoned Invalid error when the call breaks
// the spec.
TEST(TableBodies, BadOrUnknownCallSites) {
  const OpSignature& conv = require("", "CausalConvWithState", 27);
  CallSite call;
  call.input_types = {ir::Type::tensor(ir::DataType::Float), ir::Type::tensor(ir::DataType::Float)};
  call.outputs_present = {true, true};
  EXPECT_EQ(context_dependent_body(conv, 27, call), nullptr) << "channels unknown";
  call.input_types[0] = ir::Type::tensor(ir::DataType::Float, ir::Shape{1, 4, 8});
  EXPECT_NE(context_dependent_body(conv, 27, call), nullptr);

  const OpSignature& rope = require("", "RotaryEmbedding", 23);
  CallSite r;
  r.input_types = {ir::Type::tensor(ir::DataType::Float, ir::Shape{2, 8}),
                   ir::Type::tensor(ir::DataType::Float), ir::Type::tensor(ir::DataType::Float)};
  r.outputs_present = {true};
  try {
    context_dependent_body(rope, 23, r);
    FAIL() << "a rank-2 X was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Invalid);
    EXPECT_NE(std::string(e.what()).find("rank 2"), std::string::npos) << e.what();
  }
  r.input_types[0] = ir::Type::tensor(ir::DataType::Float);  // rank unknown
  EXPECT_EQ(context_dependent_body(rope, 23, r), nullptr);
}

}  // namespace
}  // namespace oxs::schema

namespace oxs::schema {
namespace {

// The attention bodies (schema/bodies/attention_bodies.cc) are built per call
// site. A call site a body cannot be built for is declined (null) when a
// static fact it needs is unknown, and refused with a reasoned Invalid error
// when the attributes or inputs break the spec. Each case: name -> why.
struct AttentionCall {
  std::string name;
  std::string op;
  int64_t version;
  std::vector<std::optional<ir::Type>> inputs;
  std::vector<std::pair<std::string, int64_t>> int_attrs;
  std::string refusal;  // a part of the error message; empty: declined (null)
};

ir::Type ft(ir::Shape s) {
  return ir::Type::tensor(ir::DataType::Float, std::move(s));
}

TEST(TableBodies, AttentionBodiesDeclineOrRefuseWhatTheyCannotExpress) {
  const ir::Type q4 = ft({1, 2, 3, 4}), q3 = ft({1, 3, 8});
  const std::vector<AttentionCall> cases = {
      {"Q's rank unknown: the layout (3-D or 4-D) decides the body",
       "Attention",
       23,
       {ir::Type::tensor(ir::DataType::Float), q4, q4},
       {},
       ""},
      {"the mask's element type unknown: bool and additive masks differ",
       "Attention",
       23,
       {q4, q4, q4, ir::Type()},
       {},
       ""},
      {"Q of rank 2", "Attention", 23, {ft({3, 4}), q4, q4}, {}, "rank 2"},
      {"3-D inputs without head counts", "Attention", 23, {q3, q3, q3}, {}, "q_num_heads"},
      {"head counts on 4-D inputs (Attention-25)",
       "Attention",
       25,
       {q4, q4, q4},
       {{"q_num_heads", 2}},
       "must not be given for 4-D"},
      {"qk_matmul_output_mode 4",
       "Attention",
       23,
       {q4, q4, q4},
       {{"qk_matmul_output_mode", 4}},
       "qk_matmul_output_mode"},
      {"softmax_precision of an integer type",
       "Attention",
       23,
       {q4, q4, q4},
       {{"softmax_precision", 7}},
       "softmax_precision"},
      {"past_key without past_value",
       "Attention",
       23,
       {q4, q4, q4, std::nullopt, q4},
       {},
       "together"},
      {"nonpad_kv_seqlen with a past cache",
       "Attention",
       24,
       {q4, q4, q4, std::nullopt, q4, q4, ir::Type::tensor(ir::DataType::Int64, ir::Shape{1})},
       {},
       "cannot be combined"},
      {"a negative window", "Attention", 25, {q4, q4, q4}, {{"left_window_size", -2}}, "window"},
      {"LinearAttention gated without decay",
       "LinearAttention",
       27,
       {q3, q3, q3},
       {{"q_num_heads", 2}, {"kv_num_heads", 2}},
       "decay"},
      {"LinearAttention with q heads not a multiple of kv heads",
       "LinearAttention",
       27,
       {q3, q3, q3, std::nullopt, q3, q3},
       {{"q_num_heads", 3}, {"kv_num_heads", 2}},
       "multiple"},
      {"FlexAttention's Q type unknown: softmax_precision's default depends on it",
       "FlexAttention",
       1,
       {ir::Type(), q4, q4},
       {},
       ""},
      {"FlexAttention on 3-D inputs", "FlexAttention", 1, {q3, q3, q3}, {}, "4-D"},
  };
  for (const AttentionCall& c : cases) {
    SCOPED_TRACE(c.name);
    const char* domain = c.op == "FlexAttention" ? "ai.onnx.preview" : "";
    const OpSignature& sig = require(domain, c.op, c.version);
    ASSERT_TRUE(body_available(sig));
    std::vector<ir::Attr> attrs;
    for (const auto& [name, v] : c.int_attrs) attrs.push_back(ir::Attr::of_int(name, v));
    CallSite call;
    call.input_types = c.inputs;
    call.outputs_present.assign(sig.outputs.size(), true);
    call.attrs = attrs;
    if (c.refusal.empty()) {
      EXPECT_EQ(context_dependent_body(sig, c.version, call), nullptr);
      continue;
    }
    try {
      context_dependent_body(sig, c.version, call);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Invalid);
      EXPECT_NE(std::string(e.what()).find(c.refusal), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(sig.display_name()), std::string::npos) << e.what();
    }
  }
}

// The bodies use only ops of the op's own opset (ai.onnx at its version;
// FlexAttention's at 18, see attention_bodies.cc) and verify as IR.
TEST(TableBodies, AttentionBodiesImportTheOpsOpset) {
  const ir::Type q4 = ft({1, 2, 3, 4}), q3 = ft({1, 3, 8});
  const ir::Type mask = ir::Type::tensor(ir::DataType::Float);
  const ir::Type nonpad = ir::Type::tensor(ir::DataType::Int64, ir::Shape{1});
  struct Site {
    const char* domain;
    const char* op;
    int64_t version;
    std::vector<std::optional<ir::Type>> inputs;
    int64_t ai_onnx;
    std::vector<std::pair<std::string, int64_t>> int_attrs;
  };
  const std::vector<std::pair<std::string, int64_t>> heads = {{"q_num_heads", 2},
                                                              {"kv_num_heads", 2}};
  const std::vector<Site> sites = {
      {"", "Attention", 23, {q4, q4, q4, ir::Type::tensor(ir::DataType::Bool), q4, q4}, 23, {}},
      {"", "Attention", 24, {q3, q3, q3}, 24, heads},
      {"", "Attention", 25, {q4, q4, q4}, 25, {}},
      // Every bias at once: mask, causal, both windows, softcap, precision.
      {"",
       "Attention",
       25,
       {q4, q4, q4, mask, q4, q4},
       25,
       {{"is_causal", 1},
        {"left_window_size", 1},
        {"right_window_size", 0},
        {"softmax_precision", 11},
        {"qk_matmul_output_mode", 2}}},
      {"",
       "Attention",
       24,
       {q3, q3, q3, mask, std::nullopt, std::nullopt, nonpad},
       24,
       {{"q_num_heads", 2}, {"kv_num_heads", 1}, {"is_causal", 1}}},
      {"", "LinearAttention", 27, {q3, q3, q3, std::nullopt, q3, q3}, 27, heads},
      {"",
       "LinearAttention",
       27,
       {q3, q3, q3, q4},
       27,
       {{"q_num_heads", 2}, {"kv_num_heads", 2}, {"update_rule", 0}}},
      {"ai.onnx.preview", "FlexAttention", 1, {q4, q4, q4}, 18, {}},
  };
  for (const Site& s : sites) {
    SCOPED_TRACE(s.op + std::to_string(s.version));
    const OpSignature& sig = require(s.domain, s.op, s.version);
    std::vector<ir::Attr> attrs;
    for (const auto& [name, v] : s.int_attrs) {
      attrs.push_back(name == "update_rule" ? ir::Attr::of_string(name, "linear")
                                            : ir::Attr::of_int(name, v));
    }
    CallSite call;
    call.input_types = s.inputs;
    call.outputs_present.assign(sig.outputs.size(), true);
    call.attrs = attrs;
    std::unique_ptr<ir::Function> f = context_dependent_body(sig, s.version, call);
    ASSERT_NE(f, nullptr);
    for (const auto& problem : ir::verify(*f->body)) ADD_FAILURE() << problem.message;
    std::optional<int64_t> onnx_version = ir::find_opset(f->opset_imports, "");
    ASSERT_TRUE(onnx_version.has_value());
    EXPECT_EQ(*onnx_version, s.ai_onnx);
    for (ir::Node* n : f->body->nodes()) {
      if (!n->domain().empty()) continue;
      EXPECT_NE(lookup("", n->op_type(), s.ai_onnx), nullptr) << n->op_type();
    }
  }
}

// FlexAttention's subgraph attributes run inside the body (as If branches),
// their names kept apart from the body's: the body verifies as IR even when
// the subgraph names its values as the body does.
TEST(TableBodies, FlexAttentionBodyCarriesItsSubgraphs) {
  auto mod = [] {
    auto g = std::make_unique<ir::Graph>();
    ir::Value* x = g->add_input("scores", ir::Type::tensor(ir::DataType::Float));
    const float half[] = {0.5f};
    ir::Value* c = g->add_initializer("probs", std::make_shared<ir::Tensor>(ir::Tensor::from<float>(
                                                   ir::DataType::Float, {}, half)));
    ir::Value* in[] = {x, c};
    ir::Node* n = g->create_node("Mul", in);
    n->output(0)->set_name("scores_mod");
    g->add_output(n->output(0));
    return g;
  };
  const OpSignature& sig = require("ai.onnx.preview", "FlexAttention", 1);
  std::vector<ir::Attr> attrs;
  attrs.push_back(ir::Attr::of_graph("score_mod", mod()));
  attrs.push_back(ir::Attr::of_graph("prob_mod", mod()));
  CallSite call;
  call.input_types = {ft({1, 2, 3, 4}), ft({1, 1, 5, 4}), ft({1, 1, 5, 4})};
  call.outputs_present = {true};
  call.attrs = attrs;
  std::unique_ptr<ir::Function> f = context_dependent_body(sig, 1, call);
  ASSERT_NE(f, nullptr);
  for (const auto& problem : ir::verify(*f->body)) ADD_FAILURE() << problem.message;
  int ifs = 0;
  for (ir::Node* n : f->body->nodes()) ifs += n->op_type() == "If";
  EXPECT_EQ(ifs, 2);
}

}  // namespace
}  // namespace oxs::schema
