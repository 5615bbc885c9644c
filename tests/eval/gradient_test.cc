// ai.onnx.preview.training.Gradient: the analytic gradients the kernel
// computes are checked against central finite differences of sum(y) in
// double precision, over graphs that use every differentiation rule with
// broadcasting; plus the error cases.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "oxs/eval/session.h"
#include "oxs/ir/error.h"

namespace oxs::eval {
namespace {

using Builder = std::function<ir::Value*(ir::Graph&, std::vector<ir::Value*>&)>;

ir::Node* node(ir::Graph& g, const std::string& op, std::vector<ir::Value*> ins) {
  return g.create_node(op, ins);
}
ir::Value* op1(ir::Graph& g, const std::string& op, std::vector<ir::Value*> ins) {
  return node(g, op, std::move(ins))->output(0);
}

Tensor random_doubles(const Dims& dims, std::mt19937_64& rng, double lo, double hi) {
  Tensor t(DataType::Double, dims);
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<double>()[i] = u(rng);
  return t;
}

double sum(const Tensor& t) {
  double s = 0;
  for (int64_t i = 0; i < t.numel(); ++i) s += t.data<double>()[i];
  return s;
}

// Builds inputs x0..xn (double, `shapes`), y = body(inputs), and a Gradient
// node differentiating y with respect to all of them; checks every gradient
// element against a central difference of sum(y).
void check_gradients(const std::vector<Dims>& shapes, const Builder& body, double lo = -1.5,
                     double hi = 1.5) {
  ir::Model m;
  m.opset_imports = {{"", 17}, {"ai.onnx.preview.training", 1}};
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> xs;
  std::vector<std::string> names;
  for (size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    xs.push_back(
        g.add_input(names.back(), ir::Type::tensor(DataType::Double, ir::Shape::of(shapes[i]))));
  }
  std::vector<ir::Value*> args = xs;
  ir::Value* y = body(g, args);
  y->set_name("y");
  g.add_output(y);
  ir::Node* grad = g.create_node("Gradient", xs, xs.size());
  grad->set_domain("ai.onnx.preview.training");
  grad->set_attr(ir::Attr::of_strings("xs", names));
  grad->set_attr(ir::Attr::of_string("y", "y"));
  for (size_t i = 0; i < xs.size(); ++i) {
    grad->output(i)->set_name("d_" + names[i]);
    g.add_output(grad->output(i));
  }
  Session s(m);
  std::mt19937_64 rng(7);
  std::map<std::string, Value> feeds;
  for (size_t i = 0; i < shapes.size(); ++i)
    feeds[names[i]] = random_doubles(shapes[i], rng, lo, hi);
  std::vector<Value> out = s.run(feeds);
  const double eps = 1e-6;
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor& analytic = out[1 + i].tensor();
    ASSERT_EQ(analytic.dims(), shapes[i]) << names[i];
    for (int64_t k = 0; k < analytic.numel(); ++k) {
      auto at = [&](double delta) {
        std::map<std::string, Value> f = feeds;
        Tensor t = f[names[i]].tensor().clone();
        t.mutable_data<double>()[k] += delta;
        f[names[i]] = t;
        return sum(s.run(f)[0].tensor());
      };
      double numeric = (at(eps) - at(-eps)) / (2 * eps);
      double a = analytic.data<double>()[k];
      EXPECT_NEAR(a, numeric, 1e-5 * (1 + std::abs(numeric))) << names[i] << "[" << k << "]";
    }
  }
}

TEST(Gradient, ArithmeticWithBroadcasting) {
  check_gradients({{2, 3}, {3}, {2, 1}}, [](ir::Graph& g, std::vector<ir::Value*>& x) {
    ir::Value* a = op1(g, "Add", {x[0], x[1]});  // [2,3] + [3]
    ir::Value* b = op1(g, "Mul", {a, x[2]});     // * [2,1]
    ir::Value* c = op1(g, "Sub", {b, x[1]});     // - [3]
    ir::Value* d = op1(g, "Div", {c, op1(g, "Exp", {x[2]})});
    ir::Value* e = op1(g, "Neg", {op1(g, "Identity", {d})});
    return op1(g, "Sum", {e, x[0], a});
  });
}

TEST(Gradient, NonlinearOps) {
  check_gradients({{4, 3}}, [](ir::Graph& g, std::vector<ir::Value*>& x) {
    ir::Value* s = op1(g, "Sigmoid", {x[0]});
    ir::Value* t = op1(g, "Tanh", {x[0]});
    ir::Value* e = op1(g, "Exp", {t});
    ir::Value* l = op1(g, "Log", {e});  // positive argument
    ir::Value* q = op1(g, "Sqrt", {op1(g, "Add", {e, s})});
    ir::Value* r = op1(g, "Relu", {op1(g, "Mul", {x[0], l})});
    return op1(g, "Sum", {s, q, r});
  });
}

TEST(Gradient, PowInBothOperands) {
  check_gradients(
      {{3, 2}, {2}},
      [](ir::Graph& g, std::vector<ir::Value*>& x) {
        return op1(g, "Pow", {x[0], x[1]});
      },
      0.5, 2.0);
}

TEST(Gradient, MatMulTransposeReshape) {
  check_gradients({{2, 3, 4}, {2, 4, 5}}, [](ir::Graph& g, std::vector<ir::Value*>& x) {
    ir::Value* p = op1(g, "MatMul", {x[0], x[1]});  // [2,3,5]
    ir::Node* tr = node(g, "Transpose", {p});
    tr->set_attr(ir::Attr::of_ints("perm", {2, 0, 1}));  // [5,2,3]
    auto shape = std::make_shared<ir::Tensor>(
        Tensor::of<int64_t>(DataType::Int64, {2}, std::vector<int64_t>{10, 3}).to_ir());
    ir::Value* sv = g.add_initializer("shape", shape);
    ir::Value* rs = op1(g, "Reshape", {tr->output(0), sv});
    return op1(g, "Mul", {rs, rs});
  });
}

TEST(Gradient, UnusedInputGetsZeros) {
  check_gradients({{3}, {3}}, [](ir::Graph& g, std::vector<ir::Value*>& x) {
    return op1(g, "Mul", {x[0], x[0]});
  });
}

ir::Model gradient_model(const std::string& op, const std::string& y_name) {
  ir::Model m;
  m.opset_imports = {{"", 17}, {"ai.onnx.preview.training", 1}};
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", ir::Type::tensor(DataType::Float, ir::Shape::of({3})));
  ir::Value* y = op1(g, op, {x});
  y->set_name("y");
  g.add_output(y);
  ir::Node* grad = g.create_node("Gradient", std::vector<ir::Value*>{x}, 1);
  grad->set_domain("ai.onnx.preview.training");
  grad->set_name("grad");
  grad->set_attr(ir::Attr::of_strings("xs", {"x"}));
  grad->set_attr(ir::Attr::of_string("y", y_name));
  g.add_output(grad->output(0));
  return m;
}

std::string run_error(const ir::Model& m) {
  Session s(m);
  Tensor x(DataType::Float, {3});
  try {
    s.run({{"x", x}});
  } catch (const Error& e) {
    return e.describe();
  }
  return "no error";
}

TEST(Gradient, OpWithoutRuleIsAnErrorNamingIt) {
  std::string e = run_error(gradient_model("Cos", "y"));
  EXPECT_NE(e.find("no differentiation rule for Cos"), std::string::npos) << e;
  EXPECT_NE(e.find("grad"), std::string::npos) << e;
}

TEST(Gradient, UnknownYIsAnError) {
  std::string e = run_error(gradient_model("Exp", "nope"));
  EXPECT_NE(e.find("'nope'"), std::string::npos) << e;
}

}  // namespace
}  // namespace oxs::eval
