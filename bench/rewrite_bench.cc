// Rewrite benchmark driver (bench/rewrite.sh): the default pipeline of
// `oxs opt` on generated models, timed per phase.
//   oxs_rewrite_bench chain N      x -> [Add(x, 0), Relu, Identity, Mul(x, 1)] * N/4
//   oxs_rewrite_bench block L      a transformer-style encoder of L layers
// An optional third argument replaces the default pipeline.
// Prints one line: nodes_in=.. nodes_out=.. rewrites=.. cpu_s=.. wall_s=..
// rewrites_per_s=.. ns_per_node=.. and the CPU seconds of each pass.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "oxs/ir/error.h"
#include "oxs/rewrite/passes/manager.h"

namespace ir = oxs::ir;
namespace rw = oxs::rewrite;

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

ir::Value* scalar(ir::Graph& g, const std::string& name, float v) {
  ir::Value* c = g.add_initializer(name, std::make_shared<ir::Tensor>(ir::Tensor::scalar_float(v)));
  c->set_type(ir::Type::tensor(ir::DataType::Float, ir::Shape{}));
  return c;
}

ir::Model chain(size_t n) {
  ir::Model m;
  m.opset_imports.push_back({"", 17});
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", ir::Type::tensor(ir::DataType::Float, ir::Shape{16}));
  ir::Value* zero = scalar(g, "zero", 0);
  ir::Value* one = scalar(g, "one", 1);
  ir::Value* cur = x;
  const char* ops[] = {"Add", "Relu", "Identity", "Mul"};
  for (size_t i = 0; i < n; ++i) {
    const char* op = ops[i % 4];
    std::vector<ir::Value*> in{cur};
    if (i % 4 == 0) in.push_back(zero);
    if (i % 4 == 3) in.push_back(one);
    cur = g.create_node(op, in)->output(0);
  }
  cur->set_type(ir::Type::tensor(ir::DataType::Float, ir::Shape{16}));
  g.add_output(cur);
  return m;
}

// One encoder layer on x: [S, D]: attention with q/k/v projections
// (MatMul + Add), scaled softmax, output projection, a residual; then a
// feed-forward MatMul+Add/Relu/MatMul+Add, a residual; plus what exporters
// leave behind (Identity, Dropout, Transpose pairs, x*1).
ir::Value* layer(ir::Graph& g, ir::Value* x, size_t l, int64_t d) {
  auto weight = [&](const std::string& name, std::vector<int64_t> dims) {
    int64_t n = 1;
    for (int64_t v : dims) n *= v;
    std::vector<float> data(size_t(n), 0.01f * float(l + 1));
    auto t = std::make_shared<ir::Tensor>(ir::Tensor::from<float>(ir::DataType::Float, dims, data));
    ir::Value* w = g.add_initializer(name + std::to_string(l), t);
    w->set_type(ir::Type::tensor(ir::DataType::Float, ir::Shape::of(dims)));
    return w;
  };
  auto node = [&](const char* op, std::vector<ir::Value*> in, std::vector<ir::Attr> attrs = {}) {
    ir::Node* n = g.create_node(op, in);
    for (auto& a : attrs) n->set_attr(std::move(a));
    return n->output(0);
  };
  auto perm = [](std::vector<int64_t> p) {
    std::vector<ir::Attr> a;
    a.push_back(ir::Attr::of_ints("perm", std::move(p)));
    return a;
  };
  ir::Value* xi = node("Identity", {x});
  ir::Value* q = node("Add", {node("MatMul", {xi, weight("wq", {d, d})}), weight("bq", {d})});
  ir::Value* k = node("Add", {node("MatMul", {xi, weight("wk", {d, d})}), weight("bk", {d})});
  ir::Value* v = node("Add", {node("MatMul", {xi, weight("wv", {d, d})}), weight("bv", {d})});
  ir::Value* kt =
      node("Transpose", {node("Transpose", {node("Transpose", {k}, perm({1, 0}))}, perm({1, 0}))},
           perm({1, 0}));
  ir::Value* s = node("Mul", {node("MatMul", {q, kt}), weight("scale", {})});
  std::vector<ir::Attr> ax;
  ax.push_back(ir::Attr::of_int("axis", -1));
  ir::Value* p = node("Mul", {node("Softmax", {s}, std::move(ax)), weight("one", {})});
  ir::Value* o = node(
      "Add", {node("MatMul", {node("MatMul", {p, v}), weight("wo", {d, d})}), weight("bo", {d})});
  ir::Value* r1 = node("Add", {node("Dropout", {o}), x});
  ir::Value* h =
      node("Relu",
           {node("Add", {node("MatMul", {r1, weight("w1", {d, 4 * d})}), weight("b1", {4 * d})})});
  ir::Value* f = node("Add", {node("MatMul", {h, weight("w2", {4 * d, d})}), weight("b2", {d})});
  return node("Add", {node("Dropout", {f}), r1});
}

ir::Model block(size_t layers) {
  ir::Model m;
  m.opset_imports.push_back({"", 17});
  ir::Graph& g = *m.graph;
  const int64_t s = 32, d = 64;
  ir::Value* x = g.add_input("x", ir::Type::tensor(ir::DataType::Float, ir::Shape{s, d}));
  for (size_t l = 0; l < layers; ++l) x = layer(g, x, l, d);
  x->set_type(ir::Type::tensor(ir::DataType::Float, ir::Shape{s, d}));
  g.add_output(x);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: oxs_rewrite_bench chain N | block LAYERS [PASS,PASS,...]\n");
    return 2;
  }
  try {
    std::string kind = argv[1];
    size_t n = std::stoul(argv[2]);
    ir::Model m = kind == "chain" ? chain(n) : block(n);
    std::vector<std::unique_ptr<rw::Pass>> passes;
    std::vector<std::string> names = rw::default_pipeline();
    if (argc == 4) {
      names.clear();
      std::string list = argv[3];
      for (size_t b = 0, e; b <= list.size(); b = e + 1) {
        e = list.find(',', b);
        if (e == std::string::npos) e = list.size();
        names.push_back(list.substr(b, e - b));
      }
    }
    for (const auto& name : names) passes.push_back(rw::make_pass(name));
    size_t in = rw::count_nodes(m);
    double c0 = cpu_seconds();
    auto w0 = std::chrono::steady_clock::now();
    // CPU seconds per pass (PassStats::seconds is wall time, which a shared
    // machine blurs).
    std::vector<double> pass_cpu(passes.size(), 0);
    double pass_start = 0;
    rw::PipelineOptions options;
    options.progress = [&](size_t, size_t, const std::string&) { pass_start = cpu_seconds(); };
    options.after_pass = [&](size_t i, const std::string&, const ir::Model&) {
      pass_cpu[i] = cpu_seconds() - pass_start;
    };
    auto stats = rw::run_pipeline(m, passes, options);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    double cpu = cpu_seconds() - c0;
    size_t rewrites = 0;
    std::string per_pass;
    for (size_t i = 0; i < stats.size(); ++i) {
      rewrites += stats[i].total_applications;
      char buf[96];
      std::snprintf(buf, sizeof buf, " %s=%.3f", stats[i].pass.c_str(), pass_cpu[i]);
      per_pass += buf;
    }
    std::printf(
        "nodes_in=%zu nodes_out=%zu rewrites=%zu cpu_s=%.3f wall_s=%.3f rewrites_per_s=%.0f "
        "ns_per_node=%.0f passes:%s\n",
        in, rw::count_nodes(m), rewrites, cpu, wall, double(rewrites) / cpu, cpu * 1e9 / double(in),
        per_pass.c_str());
  } catch (const oxs::Error& e) {
    std::fprintf(stderr, "%s\n", e.describe().c_str());
    return 1;
  }
  return 0;
}
