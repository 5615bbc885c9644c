// The session's memory plan: elementwise kernels write their output into the
// buffer of an input whose value dies at that node (session.cc's Plan,
// KernelContext::alloc_output_reusing). Each test checks the count of
// in-place outputs (Session::buffers_reused) and that the results are
// bit-identical to a run with reuse turned off, and the cases where reuse
// must not happen: a value read later, a graph output, a graph input or
// initializer, a buffer aliased by Reshape/Identity, a value read by a
// subgraph, the same value in two input slots, a smaller (broadcast) input,
// a trace hook.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/session.h"

namespace oxs::eval {
namespace {

Tensor random_floats(Dims dims, unsigned seed) {
  Tensor t(DataType::Float, std::move(dims));
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0, 2);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = d(rng);
  return t;
}

std::vector<float> values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.dims() == b.dims() &&
         std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

struct Net {
  ir::Model m;
  ir::Graph& g;
  Net() : g(*m.graph) { m.opset_imports = {{"", 17}}; }
  ir::Value* input(const std::string& name) {
    return g.add_input(name, ir::Type::tensor(DataType::Float));
  }
  ir::Value* init(const std::string& name, const Tensor& t) {
    return g.add_initializer(name, std::make_shared<ir::Tensor>(t.to_ir()));
  }
  ir::Value* op(const std::string& type, std::vector<ir::Value*> ins) {
    return g.create_node(type, ins)->output(0);
  }
};

struct Result {
  std::vector<Value> out;
  int64_t reused = 0;
};

Result run(const ir::Model& m, const std::map<std::string, Value>& feeds, bool reuse,
           int threads = 1) {
  SessionOptions o;
  o.reuse_buffers = reuse;
  o.threads = threads;
  Session s(m, o);
  Result r;
  r.out = s.run(feeds);
  r.reused = s.buffers_reused();
  return r;
}

// Runs with and without reuse: same bits in every output; returns the
// reusing run.
Result run_both(const ir::Model& m, const std::map<std::string, Value>& feeds, int threads = 1) {
  Result off = run(m, feeds, false, threads);
  EXPECT_EQ(off.reused, 0);
  Result on = run(m, feeds, true, threads);
  EXPECT_EQ(on.out.size(), off.out.size());
  for (size_t i = 0; i < on.out.size() && i < off.out.size(); ++i) {
    EXPECT_TRUE(same_bits(on.out[i].tensor(), off.out[i].tensor())) << "output " << i;
  }
  return on;
}

float relu(float v) {
  return v > 0 ? v : 0;
}

TEST(BufferReuse, ElementwiseChainWritesInPlaceBitIdentically) {
  // y = Sub(Erf(Add(Mul(x, c), d)), e), broadcasting c [129], d [37, 1].
  Net n;
  ir::Value* x = n.input("x");
  ir::Value* t = n.op("Mul", {x, n.init("c", random_floats({129}, 2))});
  t = n.op("Add", {t, n.init("d", random_floats({37, 1}, 3))});
  t = n.op("Erf", {t});
  t = n.op("Sub", {t, n.init("e", random_floats({1}, 4))});
  t = n.op("Relu", {t});
  n.g.add_output(t);
  Tensor xin = random_floats({37, 129}, 1);
  const std::vector<float> before = values(xin);
  Result r = run_both(n.m, {{"x", xin}});
  // Add, Erf, Sub and Relu take the dying intermediate; Mul reads the graph
  // input, which stays as fed.
  EXPECT_EQ(r.reused, 4);
  EXPECT_EQ(values(xin), before);
}

TEST(BufferReuse, SoftmaxAndLayerNormTakeTheirInputsBuffer) {
  // y = LayerNormalization(Mul(Softmax(Add(x, c)), d), scale, bias).
  Net n;
  ir::Value* t = n.op("Add", {n.input("x"), n.init("c", random_floats({1}, 2))});
  t = n.op("Softmax", {t});
  t = n.op("Mul", {t, n.init("d", random_floats({100}, 3))});
  n.g.add_output(n.op("LayerNormalization", {t, n.init("scale", random_floats({100}, 4)),
                                             n.init("bias", random_floats({100}, 5))}));
  Result r = run_both(n.m, {{"x", random_floats({30, 100}, 1)}});
  // Softmax, Mul, and LayerNormalization on its fast path (the reference
  // kernel allocates its output).
  EXPECT_EQ(r.reused, fast::enabled() ? 3 : 2);
}

TEST(BufferReuse, SameResultsWithTwoThreads) {
  Net n;
  ir::Value* t = n.op("Mul", {n.input("x"), n.init("c", random_floats({1000}, 5))});
  t = n.op("Add", {t, n.init("d", random_floats({1000}, 6))});
  t = n.op("Div", {t, n.init("e", random_floats({1}, 7))});
  n.g.add_output(n.op("Erf", {t}));
  Result one = run(n.m, {{"x", random_floats({300, 1000}, 8)}}, false, 1);
  Result two = run(n.m, {{"x", random_floats({300, 1000}, 8)}}, true, 2);
  EXPECT_EQ(two.reused, 3);
  EXPECT_TRUE(same_bits(one.out[0].tensor(), two.out[0].tensor()));
}

TEST(BufferReuse, NotIntoAValueReadLater) {
  // t = Relu(x); u = Add(t, c); y = Mul(t, u): Add must not overwrite t.
  Net n;
  ir::Value* t = n.op("Relu", {n.input("x")});
  ir::Value* u = n.op("Add", {t, n.init("c", random_floats({64}, 2))});
  n.g.add_output(n.op("Mul", {t, u}));
  Tensor x = random_floats({8, 64}, 1);
  Tensor c = random_floats({64}, 2);
  Result r = run_both(n.m, {{"x", x}});
  EXPECT_EQ(r.reused, 1);  // Mul only (t and u both die there)
  const float* px = x.data<float>();
  const float* pc = c.data<float>();
  const float* py = r.out[0].tensor().data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float tv = relu(px[i]);
    ASSERT_EQ(py[i], tv * (tv + pc[i % 64])) << i;
  }
}

TEST(BufferReuse, NotIntoAGraphOutput) {
  Net n;
  ir::Value* t = n.op("Relu", {n.input("x")});
  n.g.add_output(t);
  n.g.add_output(n.op("Add", {t, n.init("c", random_floats({1}, 2))}));
  Tensor x = random_floats({16, 16}, 1);
  Result r = run_both(n.m, {{"x", x}});
  EXPECT_EQ(r.reused, 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    ASSERT_EQ(r.out[0].tensor().data<float>()[i], relu(x.data<float>()[i])) << i;
  }
}

TEST(BufferReuse, NotIntoGraphInputsOrInitializers) {
  Net n;
  Tensor w = random_floats({16, 16}, 2);
  n.g.add_output(n.op("Add", {n.input("x"), n.init("w", w)}));
  n.g.add_output(n.op("Neg", {n.g.initializers()[0]}));
  Tensor x = random_floats({16, 16}, 1);
  const std::vector<float> before = values(x);
  Result r = run_both(n.m, {{"x", x}});
  EXPECT_EQ(r.reused, 0);
  EXPECT_EQ(values(x), before);
  // The initializer is intact for the second output.
  for (int64_t i = 0; i < w.numel(); ++i) {
    ASSERT_EQ(r.out[1].tensor().data<float>()[i], -w.data<float>()[i]) << i;
  }
}

// t = Relu(x); a = ALIAS(t); y = Add(a, c); z = Mul(t, 2): a dies at Add but
// shares t's buffer, which Mul still reads.
void check_not_through_alias(const std::string& alias_op) {
  Net n;
  ir::Value* t = n.op("Relu", {n.input("x")});
  ir::Value* a =
      alias_op == "Reshape"
          ? n.op("Reshape", {t, n.g.add_initializer(
                                    "shape", std::make_shared<ir::Tensor>(
                                                 Tensor::of<int64_t>(DataType::Int64, {2},
                                                                     std::vector<int64_t>{32, 4})
                                                     .to_ir()))})
          : n.op(alias_op, {t});
  n.g.add_output(n.op("Add", {a, n.init("c", random_floats({1}, 2))}));
  n.g.add_output(n.op(
      "Mul", {t, n.init("two", Tensor::of<float>(DataType::Float, {1}, std::vector<float>{2}))}));
  Tensor x = random_floats({8, 16}, 1);
  Result r = run_both(n.m, {{"x", x}});
  EXPECT_EQ(r.reused, 1) << alias_op;  // Mul, where t dies
  for (int64_t i = 0; i < x.numel(); ++i) {
    ASSERT_EQ(r.out[1].tensor().data<float>()[i], 2 * relu(x.data<float>()[i]))
        << alias_op << " " << i;
  }
}

TEST(BufferReuse, NotThroughAReshapeAlias) {
  check_not_through_alias("Reshape");
}

TEST(BufferReuse, NotThroughAnIdentityAlias) {
  check_not_through_alias("Identity");
}

TEST(BufferReuse, NotIntoAValueASubgraphReads) {
  // t = Relu(x); y = Add(t, c); z = If(cond){Mul(t, 2)}{Neg(t)}: the If reads
  // t after the Add; inside the branches t is an outer value and must stay.
  Net n;
  ir::Value* t = n.op("Relu", {n.input("x")});
  n.g.add_output(n.op("Add", {t, n.init("c", random_floats({1}, 2))}));
  auto branch = [&](const std::string& op) {
    auto b = std::make_unique<ir::Graph>();
    std::vector<ir::Value*> ins{t};
    if (op == "Mul") {
      ins.push_back(b->add_initializer(
          "two", std::make_shared<ir::Tensor>(
                     Tensor::of<float>(DataType::Float, {1}, std::vector<float>{2}).to_ir())));
    }
    b->add_output(b->create_node(op, ins)->output(0));
    return b;
  };
  ir::Value* cond = n.g.add_input("cond", ir::Type::tensor(DataType::Bool, ir::Shape{}));
  std::vector<ir::Value*> if_ins{cond};
  ir::Node* iff = n.g.create_node("If", if_ins);
  iff->set_attr(ir::Attr::of_graph("then_branch", branch("Mul")));
  iff->set_attr(ir::Attr::of_graph("else_branch", branch("Neg")));
  n.g.add_output(iff->output(0));
  n.g.add_output(n.op("Sub", {t, n.init("d", random_floats({1}, 3))}));
  Tensor x = random_floats({8, 16}, 1);
  Tensor yes(DataType::Bool, {});
  yes.mutable_data<bool>()[0] = true;
  Result r = run_both(n.m, {{"x", x}, {"cond", yes}});
  EXPECT_EQ(r.reused, 1);  // the Sub after the If, where t dies
  for (int64_t i = 0; i < x.numel(); ++i) {
    ASSERT_EQ(r.out[1].tensor().data<float>()[i], 2 * relu(x.data<float>()[i])) << i;
  }
}

TEST(BufferReuse, NotWhenTheValueFillsTwoInputSlots) {
  Net n;
  ir::Value* t = n.op("Relu", {n.input("x")});
  n.g.add_output(n.op("Mul", {t, t}));
  Tensor x = random_floats({8, 16}, 1);
  Result r = run_both(n.m, {{"x", x}});
  EXPECT_EQ(r.reused, 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float v = relu(x.data<float>()[i]);
    ASSERT_EQ(r.out[0].tensor().data<float>()[i], v * v) << i;
  }
}

TEST(BufferReuse, TakesTheFullSizeInputNotTheBroadcastOne) {
  // y = Add(Relu(a [16]), Relu(b [8, 16])): only b's buffer has y's size.
  Net n;
  ir::Value* a = n.op("Relu", {n.input("a")});
  ir::Value* b = n.op("Relu", {n.input("b")});
  n.g.add_output(n.op("Add", {a, b}));
  Tensor av = random_floats({16}, 1), bv = random_floats({8, 16}, 2);
  Result r = run_both(n.m, {{"a", av}, {"b", bv}});
  EXPECT_EQ(r.reused, 1);
  for (int64_t i = 0; i < bv.numel(); ++i) {
    ASSERT_EQ(r.out[0].tensor().data<float>()[i],
              relu(av.data<float>()[i % 16]) + relu(bv.data<float>()[i]))
        << i;
  }
}

TEST(BufferReuse, IntegerValuesToo) {
  // Add(Cast(x) to int32, 1): the int32 value dies at the Add.
  Net n;
  ir::Node* cast = n.g.create_node("Cast", std::vector<ir::Value*>{n.input("x")});
  cast->set_attr(ir::Attr::of_int("to", int64_t(DataType::Int32)));
  n.g.add_output(
      n.op("Add",
           {cast->output(0),
            n.g.add_initializer(
                "one",
                std::make_shared<ir::Tensor>(
                    Tensor::of<int32_t>(DataType::Int32, {1}, std::vector<int32_t>{1}).to_ir()))}));
  Tensor x = random_floats({4, 4}, 1);
  Result r = run_both(n.m, {{"x", x}});
  EXPECT_EQ(r.reused, 1);
  EXPECT_EQ(r.out[0].tensor().dtype(), DataType::Int32);
  for (int64_t i = 0; i < x.numel(); ++i) {
    ASSERT_EQ(r.out[0].tensor().data<int32_t>()[i], int32_t(x.data<float>()[i]) + 1) << i;
  }
}

TEST(BufferReuse, OffWhileATraceHookSeesTheInputs) {
  Net n;
  ir::Value* t = n.op("Relu", {n.input("x")});
  // (c is a row, so the Relu -> Add chain runs as its two nodes:
  // fast/elementwise_chain.h.)
  n.g.add_output(n.op("Add", {t, n.init("c", random_floats({16}, 2))}));
  Tensor x = random_floats({8, 16}, 1);
  std::vector<std::vector<float>> add_inputs;
  SessionOptions o;
  o.trace = [&](const TraceEvent& e) {
    if (e.node.op_type() == "Add") add_inputs.push_back(values(e.inputs[0]->tensor()));
  };
  Session s(n.m, o);
  s.run({{"x", x}});
  EXPECT_EQ(s.buffers_reused(), 0);
  ASSERT_EQ(add_inputs.size(), 1u);
  for (int64_t i = 0; i < x.numel(); ++i) {
    ASSERT_EQ(add_inputs[0][size_t(i)], relu(x.data<float>()[i])) << i;
  }
}

}  // namespace
}  // namespace oxs::eval
