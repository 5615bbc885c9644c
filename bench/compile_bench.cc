// Compiler benchmark driver (bench/compile.sh): compiles one ONNX Script
// file with every @script() function as a model-local function
// (--functions-only), single-threaded, `repeats` times, and prints the best
// wall and CPU time, the function count and the peak resident memory.
//   usage: oxs_compile_bench FILE.py [repeats]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "oxs/script/compile.h"

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: oxs_compile_bench FILE.py [repeats]\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  int repeats = argc > 2 ? std::stoi(argv[2]) : 3;
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  double best_wall = 1e30, best_cpu = 1e30;
  size_t functions = 0;
  for (int r = 0; r < repeats; ++r) {
    oxs::script::SourceFile file(argv[1], text);
    oxs::script::CompileOptions options;
    options.functions_only = true;
    auto w0 = std::chrono::steady_clock::now();
    double c0 = cpu_seconds();
    oxs::script::CompileResult result = oxs::script::compile_source(file, options);
    double cpu = cpu_seconds() - c0;
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    if (!result.ok()) {
      std::fprintf(stderr, "%s", oxs::script::render(file, result.diagnostics).c_str());
      return 1;
    }
    functions = result.model->functions.size();
    best_wall = std::min(best_wall, wall);
    best_cpu = std::min(best_cpu, cpu);
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::printf("lines=%zu functions=%zu wall=%.4f cpu=%.4f functions_per_s=%.0f peak_rss_mib=%.1f\n",
              lines, functions, best_wall, best_cpu, static_cast<double>(functions) / best_cpu,
              static_cast<double>(u.ru_maxrss) / 1024.0);
  return 0;
}
