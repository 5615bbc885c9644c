// Model I/O benchmark driver (bench/io.sh runs it): generates chain graphs
// and a model with large external weights, and times oxs::onnx::load and
// save on them, printing one machine-readable line per measurement:
//   <what> nodes=<n> seconds=<s> ns_per_node=<x> peak_rss_mb=<m>
// Not a test: it only measures.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "oxs/ir/error.h"
#include "oxs/onnx/external_data.h"
#include "oxs/onnx/file_io.h"
#include "oxs/onnx/model_io.h"

namespace {

using Clock = std::chrono::steady_clock;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// Wall and CPU time since construction. CPU time (user + system) is the
// steadier figure on a shared machine.
struct Timer {
  Clock::time_point wall = Clock::now();
  double cpu = cpu_seconds();
};

long peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;  // KiB on Linux
}

// x -> Relu -> Relu -> ... (n nodes), with one small weight per 1000 nodes
// so that initializers are part of the work.
oxs::ir::Model chain(size_t n) {
  using namespace oxs::ir;
  Model m;
  m.opset_imports = {{"", 17}};
  m.producer_name = "oxs-bench";
  Graph& g = *m.graph;
  g.set_name("chain");
  Value* x = g.add_input("x", Type::tensor(DataType::Float, Shape{1, 16}));
  std::vector<float> w(16, 0.5f);
  for (size_t i = 0; i < n; ++i) {
    Node* node;
    if (i % 1000 == 999) {
      Value* b = g.add_initializer(
          "w" + std::to_string(i),
          std::make_shared<Tensor>(Tensor::from<float>(DataType::Float, {16}, w)));
      std::vector<Value*> ins = {x, b};
      node = g.create_node("Add", ins);
    } else {
      std::vector<Value*> ins = {x};
      node = g.create_node("Relu", ins);
    }
    x = node->output(0);
  }
  g.add_output(x);
  return m;
}

struct Elapsed {
  double wall;
  double cpu;
};

Elapsed since(const Timer& t) {
  return {std::chrono::duration<double>(Clock::now() - t.wall).count(), cpu_seconds() - t.cpu};
}

void report(const char* what, size_t nodes, Elapsed e) {
  const double n = nodes ? static_cast<double>(nodes) : 1.0;
  std::printf(
      "%s nodes=%zu wall_s=%.4f cpu_s=%.4f wall_ns_per_node=%.1f cpu_ns_per_node=%.1f "
      "peak_rss_mb=%ld\n",
      what, nodes, e.wall, e.cpu, e.wall * 1e9 / n, e.cpu * 1e9 / n, peak_rss_mb());
  std::fflush(stdout);
}

// A model with `tensors` float initializers that fill a sparse data file of
// `total` bytes beside it (ftruncate: no disk space, no time writing zeros).
// The tensors are created as mapped external tensors of that very file, so
// saving in Keep mode finds them in place and writes only the model.
void gen_big(const std::string& path, uint64_t total, size_t tensors) {
  using namespace oxs::ir;
  const std::string dir = oxs::onnx::parent_dir(path);
  const std::string location = oxs::onnx::base_name(path) + ".data";
  const uint64_t per = total / tensors / 4096 * 4096;
  {
    const std::string data = dir + "/" + location;
    int fd = ::open(data.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(per * tensors)) != 0) {
      std::perror(data.c_str());
      std::exit(1);
    }
    ::close(fd);
  }
  auto where = oxs::onnx::resolve_location(dir, location, path, "w0");
  oxs::onnx::DataFileRegistry registry;
  auto file = registry.open(where, path);
  Model m;
  m.opset_imports = {{"", 17}};
  m.producer_name = "oxs-bench";
  Graph& g = *m.graph;
  g.set_name("big");
  Value* acc = nullptr;
  for (size_t i = 0; i < tensors; ++i) {
    auto t = std::make_shared<Tensor>(DataType::Float,
                                      std::vector<int64_t>{static_cast<int64_t>(per / 4)});
    t->encoding = Tensor::Encoding::External;
    t->external.location = location;
    t->external.offset = static_cast<int64_t>(i * per);
    t->external.length = static_cast<int64_t>(per);
    t->set_storage(std::make_shared<oxs::onnx::ExternalStorage>(file, i * per, per));
    Value* w = g.add_initializer("w" + std::to_string(i), t);
    if (acc) {
      std::vector<Value*> ins = {acc, w};
      acc = g.create_node("Add", ins)->output(0);
    } else {
      acc = w;
    }
  }
  g.add_output(acc);
  oxs::onnx::save(m, path);  // Keep: the data file already holds every tensor
  std::printf("generated %s with %zu tensors, %llu bytes of external data\n", path.c_str(), tensors,
              static_cast<unsigned long long>(per * tensors));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s chain N DIR | load PATH | roundtrip PATH OUT | gen-big PATH MIB | "
                 "load-ext PATH | to-inline SRC DST\n",
                 argv[0]);
    return 2;
  }
  const std::string cmd = argv[1];
  try {
    if (cmd == "chain" && argc == 4) {
      const size_t n = std::stoul(argv[2]);
      const std::string path = std::string(argv[3]) + "/chain_" + argv[2] + ".onnx";
      Timer t0;
      oxs::ir::Model m = chain(n);
      report("build", n, since(t0));
      t0 = Timer();
      oxs::onnx::save(m, path);
      report("save_fresh", n, since(t0));
      std::printf("path=%s\n", path.c_str());
    } else if (cmd == "load" && argc == 3) {
      Timer t0;
      oxs::ir::Model m = oxs::onnx::load(argv[2]);
      report("load", m.graph->num_nodes(), since(t0));
    } else if (cmd == "roundtrip" && argc == 4) {
      Timer t0;
      oxs::ir::Model m = oxs::onnx::load(argv[2]);
      const Elapsed l = since(t0);
      report("load", m.graph->num_nodes(), l);
      Timer t1;
      oxs::onnx::save(m, argv[3]);
      const Elapsed s = since(t1);
      report("save", m.graph->num_nodes(), s);
      report("load+save", m.graph->num_nodes(), {l.wall + s.wall, l.cpu + s.cpu});
    } else if (cmd == "gen-big" && argc == 4) {
      gen_big(argv[2], std::stoull(argv[3]) << 20, 64);
    } else if (cmd == "to-inline" && argc == 4) {
      oxs::onnx::SaveOptions o;
      o.external_data = oxs::onnx::SaveOptions::ExternalData::Inline;
      oxs::onnx::save(oxs::onnx::load(argv[2]), argv[3], o);
    } else if (cmd == "load-ext" && argc == 3) {
      // Load a model with external weights (mapped lazily), read one byte
      // of every tensor (maps the data file once), save it in place.
      Timer t0;
      oxs::ir::Model m = oxs::onnx::load(argv[2]);
      report("load_external", m.graph->num_nodes(), since(t0));
      uint64_t total = 0;
      unsigned sum = 0;
      t0 = Timer();
      for (const oxs::ir::Value* v : m.graph->initializers()) {
        auto b = v->const_value()->bytes();
        total += b.size();
        if (!b.empty()) sum += static_cast<unsigned>(b[0]);
      }
      report("touch_first_byte_each", m.graph->initializers().size(), since(t0));
      std::printf("external_bytes=%llu checksum=%u\n", static_cast<unsigned long long>(total), sum);
      t0 = Timer();
      oxs::onnx::save(m, argv[2]);
      report("save_in_place_keep", m.graph->num_nodes(), since(t0));
    } else {
      std::fprintf(stderr, "bad arguments\n");
      return 2;
    }
  } catch (const oxs::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
