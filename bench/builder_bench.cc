// Builder benchmark driver (bench/builder.sh runs it): builds an n-node graph
// through the Builder with checks and inference on, saves it, then loads the
// same file and runs whole-model inference on it, in the same process; the
// built model is also verified once more on its own (ir::verify). One
// machine-readable line per phase:
//   <phase> nodes=<n> wall_s=<s> cpu_s=<s> ns_per_node=<cpu ns> rss_mb=<delta>
//   ... heap_mb=<delta of malloc'd bytes in use> rss_mb=<delta of resident>
// The heap delta (mallinfo2) is what the phase's result holds; RSS also counts
// freed-but-kept memory and reuse of memory freed earlier. Not a test.
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"
#include "oxs/opsets.h"

namespace {

using Clock = std::chrono::steady_clock;
using oxs::Var;
using oxs::ir::DataType;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double heap_mb() {
  return static_cast<double>(mallinfo2().uordblks) / 1048576.0;
}

double rss_mb() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

struct Phase {
  const char* name;
  size_t nodes;
  Clock::time_point wall = Clock::now();
  double cpu = cpu_seconds();
  double rss = rss_mb();
  double heap = heap_mb();
  void report() const {
    double w = std::chrono::duration<double>(Clock::now() - wall).count();
    double c = cpu_seconds() - cpu;
    std::printf("%s nodes=%zu wall_s=%.4f cpu_s=%.4f ns_per_node=%.1f heap_mb=%.1f rss_mb=%.1f\n",
                name, nodes, w, c, c * 1e9 / static_cast<double>(nodes), heap_mb() - heap,
                rss_mb() - rss);
    std::fflush(stdout);
  }
};

// x: float[N,64] -> a chain cycling through Add(const), Relu, Mul(const),
// Sigmoid, Sub(y, x) and a Reshape by a shape computed from Shape(y) every
// 1000 nodes (data propagation). Constants repeat, so dedup keeps them few.
oxs::ir::Model build(size_t n, bool infer) {
  oxs::Builder b({.infer = infer, .check = infer});
  oxs::opset17 op(b);
  Var x = b.input("x", DataType::Float, oxs::builder::shape({"N", 64}));
  Var y = x;
  Var target = b.constant(std::vector<int64_t>{-1, 64});
  size_t made = 0;
  while (made < n) {
    switch (made % 6) {
      case 0:
        y = y + 0.5;
        made += 1;
        break;  // Add (constant deduped after the first)
      case 1:
        y = op.Relu(y);
        made += 1;
        break;
      case 2:
        y = y * 2.0;
        made += 1;
        break;
      case 3:
        y = op.Sigmoid(y);
        made += 1;
        break;
      case 4:
        y = y - x;
        made += 1;
        break;
      case 5:
        if (made % 1000 < 6 && made + 4 <= n) {
          Var s = op.Shape(y);
          Var first = op.Gather(s, b.constant(std::vector<int64_t>{0}));
          y = op.Reshape(y, op.Concat({first, b.constant(std::vector<int64_t>{64})}, {.axis = 0}));
          made += 4;
        } else {
          y = op.Reshape(y, target);
          made += 1;
        }
        break;
    }
  }
  b.output(y, "y", oxs::builder::tensor(DataType::Float, oxs::builder::shape({"N", 64})));
  return b.finish();
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 3) {
    std::fprintf(stderr, "usage: oxs_builder_bench NODES OUT_DIR\n");
    return 2;
  }
  size_t n = std::stoul(argv[1]);
  std::string path = std::string(argv[2]) + "/builder_" + std::to_string(n) + ".onnx";
  {
    Phase build_phase{"build", n};
    oxs::ir::Model m = build(n, true);
    build_phase.report();
    if (m.graph->num_nodes() != n) {
      std::fprintf(stderr, "built %zu nodes, expected %zu\n", m.graph->num_nodes(), n);
      return 1;
    }
    // ir::verify alone (finish() already ran it once, inside `build`).
    Phase verify_phase{"verify", n};
    const auto issues = oxs::ir::verify(m);
    verify_phase.report();
    if (!issues.empty()) {
      std::fprintf(stderr, "verify: %s: %s\n", issues[0].where.c_str(), issues[0].message.c_str());
      return 1;
    }
    Phase save_phase{"save", n};
    oxs::onnx::save(m, path);
    save_phase.report();
  }
  {
    // The same graph without checks and inference: what the rest costs.
    Phase plain{"build_plain", n};
    oxs::ir::Model m = build(n, false);
    plain.report();
  }
  {
    Phase load_phase{"load", n};
    oxs::ir::Model m = oxs::onnx::load(path);
    load_phase.report();
    Phase infer_phase{"infer_run", n};
    oxs::infer::run(m);
    infer_phase.report();
  }
  return 0;
} catch (const oxs::Error& e) {
  std::fprintf(stderr, "error: %s\n", e.describe().c_str());
  return 1;
}
