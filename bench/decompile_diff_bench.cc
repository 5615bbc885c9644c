// Driver for bench/decompile_diff.sh: decompile and structural diff on
// generated models of N nodes, one measurement per process so that peak RSS
// belongs to that measurement.
//   oxs_decompile_diff_bench gen N OUT.onnx     a model of N nodes
//   oxs_decompile_diff_bench decompile IN.onnx  load, then decompile
//   oxs_decompile_diff_bench diff A.onnx B.onnx load both, then diff
// Prints key=value lines: load_s, work_s, cpu_s, maxrss_kb, and a size.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "oxs/ir/structural_diff.h"
#include "oxs/onnx/model_io.h"
#include "oxs/script/decompile/decompile.h"

namespace {

using namespace oxs;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
}

long maxrss_kb() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return r.ru_maxrss;
}

// Two interleaved chains that meet every 100 nodes, with attributes and a
// small weight every 50 nodes: realistic fan-in, free node order.
void generate(long n, const std::string& out) {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  g.set_name("bench");
  ir::Value* x = g.add_input("x", ir::Type::tensor(ir::DataType::Float, ir::Shape{16}));
  ir::Value* a = x;
  ir::Value* b = x;
  float w[16];
  for (int i = 0; i < 16; ++i) w[i] = static_cast<float>(i) * 0.25f;
  for (long i = 0; i < n; ++i) {
    ir::Node* node;
    if (i % 100 == 99) {
      ir::Value* in[] = {a, b};
      node = g.create_node("Add", in);
      a = b = node->output(0);
      continue;
    }
    ir::Value*& cur = (i % 2) ? a : b;
    if (i % 50 == 0) {
      auto t = std::make_shared<ir::Tensor>(ir::Tensor::from<float>(ir::DataType::Float, {16}, w));
      ir::Value* wv = g.add_initializer(g.names().unique_value("w"), t);
      ir::Value* in[] = {cur, wv};
      node = g.create_node("Mul", in);
    } else if (i % 3 == 0) {
      ir::Value* in[] = {cur};
      node = g.create_node("LeakyRelu", in);
      node->set_attr(ir::Attr::of_float("alpha", 0.01f * static_cast<float>(i % 7)));
    } else {
      ir::Value* in[] = {cur};
      node = g.create_node(i % 3 == 1 ? "Relu" : "Neg", in);
    }
    cur = node->output(0);
  }
  ir::Value* in[] = {a, b};
  ir::Node* last = g.create_node("Add", in);
  last->output(0)->set_type(ir::Type::tensor(ir::DataType::Float, ir::Shape{16}));
  g.add_output(last->output(0));
  onnx::save(m, out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s gen N OUT | decompile IN | diff A B\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  try {
    if (mode == "gen" && argc == 4) {
      generate(std::atol(argv[2]), argv[3]);
      return 0;
    }
    double t0 = now();
    if (mode == "decompile") {
      ir::Model m = onnx::load(argv[2]);
      double t1 = now(), c1 = cpu();
      script::DecompileResult r = script::decompile(m);
      double t2 = now(), c2 = cpu();
      std::printf("nodes=%zu load_s=%.4f work_s=%.4f cpu_s=%.4f maxrss_kb=%ld bytes=%zu\n",
                  m.graph->num_nodes(), t1 - t0, t2 - t1, c2 - c1, maxrss_kb(), r.source.size());
      return 0;
    }
    if (mode == "diff" && argc == 4) {
      ir::Model a = onnx::load(argv[2]);
      ir::Model b = onnx::load(argv[3]);
      double t1 = now(), c1 = cpu();
      ir::DiffResult r = ir::diff(a, b);
      double t2 = now(), c2 = cpu();
      std::printf("nodes=%zu load_s=%.4f work_s=%.4f cpu_s=%.4f maxrss_kb=%ld equivalent=%d\n",
                  a.graph->num_nodes(), t1 - t0, t2 - t1, c2 - c1, maxrss_kb(),
                  r.equivalent() ? 1 : 0);
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "bad arguments\n");
  return 2;
}
