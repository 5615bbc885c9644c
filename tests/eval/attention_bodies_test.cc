// oxs's function bodies of Attention-23/24/25, LinearAttention-27 and
// FlexAttention-1 (schema/bodies/attention_bodies.cc) against the native
// kernels on call sites the backend data covers thinly: grouped and
// multi-query heads, bool and float masks shorter than the keys, past
// key/value with present outputs, softcap, every qk_matmul_output mode,
// softmax_precision, nonpad_kv_seqlen, windows, fully masked rows, float16;
// every update rule of LinearAttention; FlexAttention with both subgraph
// attributes (whose names clash with the body's). Each case runs once with
// the kernel and once with the kernel removed (the body runs), and every
// output must agree.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "oxs/eval/kernel.h"
#include "oxs/eval/session.h"

namespace oxs::eval {
namespace {

using Dims = std::vector<int64_t>;

Tensor random_float(Dims dims, std::mt19937& rng) {
  Tensor t(ir::DataType::Float, std::move(dims));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = u(rng);
  return t;
}

struct Input {
  std::optional<Tensor> tensor;                    // absent optional input when empty
  ir::DataType cast_to = ir::DataType::Undefined;  // a Cast node before the op
};

// An attribute of a case (ir::Attr is move-only).
struct AttrSpec {
  std::string name;
  char kind;  // 'i', 'f', 's' or 'g'
  int64_t i = 0;
  float f = 0;
  std::string s;
  std::function<std::unique_ptr<ir::Graph>()> graph = nullptr;
  ir::Attr make() const {
    return kind == 'i'   ? ir::Attr::of_int(name, i)
           : kind == 'f' ? ir::Attr::of_float(name, f)
           : kind == 'g' ? ir::Attr::of_graph(name, graph())
                         : ir::Attr::of_string(name, s);
  }
};

struct Case {
  std::string name;
  std::string op = "Attention";
  int opset = 23;
  std::vector<Input> inputs;
  std::vector<AttrSpec> attrs;
  size_t outputs = 1;
  double tolerance = 1e-4;
};

// Builds the one-op model (inputs cast as asked, outputs cast back to float)
// and runs it with `registry`; counts the nodes run inside function bodies.
std::vector<Value> run_case(const Case& c, const KernelRegistry& registry, int* body_nodes) {
  ir::Model m;
  const bool preview = c.op == "FlexAttention";
  m.opset_imports = {{"", preview ? 26 : c.opset}};
  if (preview) m.opset_imports.push_back({"ai.onnx.preview", c.opset});
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> ins;
  std::map<std::string, Value> feeds;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const Input& in = c.inputs[i];
    if (!in.tensor) {
      ins.push_back(nullptr);
      continue;
    }
    const std::string name = "in" + std::to_string(i);
    ir::Value* v = g.add_input(name, ir::Type::tensor(in.tensor->dtype()));
    feeds[name] = *in.tensor;
    if (in.cast_to != ir::DataType::Undefined) {
      ir::Value* one[] = {v};
      ir::Node* cast = g.create_node("Cast", one);
      cast->set_attr(ir::Attr::of_int("to", static_cast<int64_t>(in.cast_to)));
      v = cast->output(0);
    }
    ins.push_back(v);
  }
  ir::Node* n = g.create_node(c.op, ins, c.outputs, preview ? "ai.onnx.preview" : "");
  for (const AttrSpec& a : c.attrs) n->set_attr(a.make());
  n->adopt_subgraphs();
  const bool narrow = c.inputs[0].cast_to != ir::DataType::Undefined;
  for (size_t i = 0; i < c.outputs; ++i) {
    ir::Value* o = n->output(i);
    if (narrow) {
      ir::Value* one[] = {o};
      ir::Node* back = g.create_node("Cast", one);
      back->set_attr(ir::Attr::of_int("to", static_cast<int64_t>(ir::DataType::Float)));
      o = back->output(0);
    }
    g.add_output(o);
  }
  SessionOptions options;
  options.registry = &registry;
  options.trace = [&](const TraceEvent& e) { *body_nodes += e.depth > 0; };
  Session s(m, options);
  return s.run(feeds);
}

void expect_same(const Case& c) {
  SCOPED_TRACE(c.name);
  const KernelRegistry native = KernelRegistry::builtin();
  KernelRegistry bodies = KernelRegistry::builtin();
  if (c.op == "FlexAttention") {
    bodies.add("ai.onnx.preview", c.op, 1, nullptr);
  } else {
    bodies.add("", c.op, c.op == "Attention" ? 23 : 27, nullptr);
  }
  int kernel_body_nodes = 0, body_nodes = 0;
  const std::vector<Value> want = run_case(c, native, &kernel_body_nodes);
  const std::vector<Value> got = run_case(c, bodies, &body_nodes);
  // The kernel runs only FlexAttention's subgraphs below its node; the body
  // runs all its nodes there.
  EXPECT_GT(body_nodes, kernel_body_nodes) << "the body did not run";
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    const Tensor& x = got[o].tensor();
    const Tensor& y = want[o].tensor();
    ASSERT_EQ(x.dims(), y.dims()) << "output " << o;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double a = x.get_as_double(i), b = y.get_as_double(i);
      const bool ok = a == b || (std::isnan(a) && std::isnan(b)) ||
                      std::abs(a - b) <= c.tolerance * (1 + std::abs(b));
      ASSERT_TRUE(ok) << "output " << o << " element " << i << ": body " << a << ", kernel " << b;
    }
  }
}

Tensor bool_tensor(Dims dims, const std::vector<bool>& values) {
  Tensor t(ir::DataType::Bool, std::move(dims));
  bool* p = t.mutable_data<bool>();
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return t;
}

Tensor int64_tensor(Dims dims, const std::vector<int64_t>& values) {
  return Tensor::of<int64_t>(ir::DataType::Int64, std::move(dims), values);
}

AttrSpec i(const char* name, int64_t v) {
  return {name, 'i', v};
}
AttrSpec f(const char* name, float v) {
  return {name, 'f', 0, v};
}
AttrSpec rule(const char* v) {
  return {"update_rule", 's', 0, 0, v};
}

TEST(AttentionBodies, AgreeWithTheKernelOnAttentionCallSites) {
  std::mt19937 rng(7);
  auto r = [&](Dims d) { return Input{random_float(std::move(d), rng)}; };
  const Input none{};
  std::vector<Case> cases;
  cases.push_back({"gqa_4d", "Attention", 23, {r({2, 4, 3, 8}), r({2, 2, 5, 8}), r({2, 2, 5, 6})}});
  cases.push_back({"mqa_4d_scaled",
                   "Attention",
                   23,
                   {r({1, 3, 2, 4}), r({1, 1, 6, 4}), r({1, 1, 6, 4})},
                   {f("scale", 0.3f)}});
  cases.push_back(
      {"gqa_3d_past_causal_mode0",
       "Attention",
       23,
       {r({2, 3, 32}), r({2, 3, 16}), r({2, 3, 12}), none, r({2, 2, 4, 8}), r({2, 2, 4, 6})},
       {i("q_num_heads", 4), i("kv_num_heads", 2), i("is_causal", 1)},
       4});
  cases.push_back({"short_bool_mask_softcap_mode1",
                   "Attention",
                   23,
                   {r({2, 2, 3, 4}), r({2, 2, 5, 4}), r({2, 2, 5, 4}),
                    Input{bool_tensor({3, 4}, {1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1})}},
                   {f("softcap", 2.0f), i("qk_matmul_output_mode", 1)},
                   4});
  cases.push_back({"float_mask_4d_mode2",
                   "Attention",
                   23,
                   {r({2, 2, 3, 4}), r({2, 2, 5, 4}), r({2, 2, 5, 4}), r({2, 1, 3, 5})},
                   {i("qk_matmul_output_mode", 2), f("softcap", 1.5f)},
                   4});
  cases.push_back({"past_causal_mask_mode3_double_softmax",
                   "Attention",
                   23,
                   {r({1, 2, 2, 4}), r({1, 2, 2, 4}), r({1, 2, 2, 4}), r({1, 2, 2, 5}),
                    r({1, 2, 3, 4}), r({1, 2, 3, 4})},
                   {i("is_causal", 1), i("qk_matmul_output_mode", 3), i("softmax_precision", 11)},
                   4});
  cases.push_back({"fully_masked_row_mode3",
                   "Attention",
                   23,
                   {r({1, 1, 2, 4}), r({1, 1, 3, 4}), r({1, 1, 3, 4}),
                    Input{bool_tensor({2, 3}, {0, 0, 0, 1, 0, 1})}},
                   {i("qk_matmul_output_mode", 3)},
                   4});
  cases.push_back({"nonpad_causal_24",
                   "Attention",
                   24,
                   {r({2, 2, 2, 4}), r({2, 2, 5, 4}), r({2, 2, 5, 4}), none, none, none,
                    Input{int64_tensor({2}, {3, 5})}},
                   {i("is_causal", 1)}});
  cases.push_back(
      {"windows_25",
       "Attention",
       25,
       {r({1, 2, 4, 4}), r({1, 2, 6, 4}), r({1, 2, 6, 4}), none, r({1, 2, 2, 4}), r({1, 2, 2, 4})},
       {i("left_window_size", 1), i("right_window_size", 1)},
       3});
  cases.push_back(
      {"causal_left_window_3d_25",
       "Attention",
       25,
       {r({1, 5, 8}), r({1, 5, 8}), r({1, 5, 8})},
       {i("q_num_heads", 2), i("kv_num_heads", 2), i("is_causal", 1), i("left_window_size", 2)}});
  Case half{"float16_gqa_causal",
            "Attention",
            23,
            {r({1, 4, 3, 8}), r({1, 2, 3, 8}), r({1, 2, 3, 8})},
            {i("is_causal", 1)}};
  for (Input& in : half.inputs) in.cast_to = ir::DataType::Float16;
  half.tolerance = 1e-2;
  cases.push_back(half);
  for (const Case& c : cases) expect_same(c);
}

TEST(AttentionBodies, AgreeWithTheKernelOnLinearAttentionCallSites) {
  std::mt19937 rng(11);
  auto r = [&](Dims d) { return Input{random_float(std::move(d), rng)}; };
  const Input none{};
  auto heads = [](int64_t q, int64_t kv) {
    return std::vector<AttrSpec>{i("q_num_heads", q), i("kv_num_heads", kv)};
  };
  auto with = [](std::vector<AttrSpec> a, AttrSpec x) {
    a.push_back(std::move(x));
    return a;
  };
  std::vector<Case> cases;
  // B = 2, T = 3, d_k = 4, d_v = 3.
  cases.push_back({"linear_no_past",
                   "LinearAttention",
                   27,
                   {r({2, 3, 8}), r({2, 3, 8}), r({2, 3, 6})},
                   with(heads(2, 2), rule("linear")),
                   2});
  cases.push_back({"gated_per_key_decay_gqa_past",
                   "LinearAttention",
                   27,
                   {r({2, 3, 16}), r({2, 3, 8}), r({2, 3, 6}), r({2, 2, 4, 3}), r({2, 3, 8})},
                   with(heads(4, 2), rule("gated")),
                   2});
  cases.push_back({"delta_scalar_beta_scaled",
                   "LinearAttention",
                   27,
                   {r({2, 3, 8}), r({2, 3, 8}), r({2, 3, 6}), none, none, r({2, 3, 1})},
                   with(with(heads(2, 2), rule("delta")), f("scale", 0.7f)),
                   2});
  cases.push_back(
      {"gated_delta_mqa_per_head",
       "LinearAttention",
       27,
       {r({2, 3, 12}), r({2, 3, 4}), r({2, 3, 3}), r({2, 1, 4, 3}), r({2, 3, 1}), r({2, 3, 1})},
       heads(3, 1),
       2});
  Case half{"gated_delta_float16",
            "LinearAttention",
            27,
            {r({1, 2, 8}), r({1, 2, 8}), r({1, 2, 6}), none, r({1, 2, 2}), r({1, 2, 2})},
            heads(2, 2),
            2};
  for (Input& in : half.inputs) {
    if (in.tensor) in.cast_to = ir::DataType::Float16;
  }
  half.tolerance = 1e-2;
  cases.push_back(half);
  for (const Case& c : cases) expect_same(c);
}

// A subgraph (x) -> x <op> c for FlexAttention's score_mod / prob_mod, its
// constant an initializer and its names clashing with the body's on purpose.
std::function<std::unique_ptr<ir::Graph>()> mod(const char* op, float c) {
  return [op, c] {
    auto g = std::make_unique<ir::Graph>();
    ir::Value* x = g->add_input("scores", ir::Type::tensor(ir::DataType::Float));
    const float value[] = {c};
    ir::Value* k = g->add_initializer(
        "scale_f",
        std::make_shared<ir::Tensor>(ir::Tensor::from<float>(ir::DataType::Float, {}, value)));
    ir::Value* in[] = {x, k};
    ir::Node* n = g->create_node(op, in);
    n->output(0)->set_name("probs");
    g->add_output(n->output(0));
    return g;
  };
}

TEST(AttentionBodies, AgreeWithTheKernelOnFlexAttentionCallSites) {
  std::mt19937 rng(5);
  auto r = [&](Dims d) { return Input{random_float(std::move(d), rng)}; };
  std::vector<Case> cases;
  cases.push_back({"gqa_both_mods_scaled",
                   "FlexAttention",
                   1,
                   {r({2, 4, 3, 4}), r({2, 2, 5, 4}), r({2, 2, 5, 3})},
                   {AttrSpec{"score_mod", 'g', 0, 0, "", mod("Mul", 0.5f)},
                    AttrSpec{"prob_mod", 'g', 0, 0, "", mod("Add", 0.25f)}, f("scale", 0.7f)}});
  cases.push_back({"double_softmax_precision_mqa",
                   "FlexAttention",
                   1,
                   {r({1, 3, 2, 4}), r({1, 1, 6, 4}), r({1, 1, 6, 4})},
                   {i("softmax_precision", 11)}});
  for (const Case& c : cases) expect_same(c);
}

}  // namespace
}  // namespace oxs::eval
