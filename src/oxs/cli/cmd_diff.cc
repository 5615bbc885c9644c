// `oxs diff A B`: structural comparison of two models (ir/structural_diff.h).
#include <fmt/core.h>

#include <memory>

#include "oxs/cli/command.h"
#include "oxs/ir/structural_diff.h"
#include "oxs/onnx/model_io.h"

namespace oxs::cli {
namespace {

struct DiffArgs {
  std::string a, b;
  double rtol = 0, atol = 0;
  size_t max_differences = 10;
  bool ignore_io_types = false;
};

int run_diff(const DiffArgs& args) {
  ir::Model a = onnx::load(args.a);
  ir::Model b = onnx::load(args.b);
  ir::DiffOptions options;
  options.rtol = args.rtol;
  options.atol = args.atol;
  options.max_differences = args.max_differences;
  options.compare_io_types = !args.ignore_io_types;
  ir::DiffResult r = ir::diff(a, b, options);
  if (r.equivalent()) {
    fmt::print("equivalent\n");
    return kExitOk;
  }
  fmt::print("{} and {} differ:\n{}", args.a, args.b, r.to_string());
  return kExitProblem;
}

Run setup_diff(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  app.add_option("A", args->a, "the first .onnx file")->required();
  app.add_option("B", args->b, "the second .onnx file")->required();
  app.add_option("--rtol", args->rtol, "relative tolerance for floats")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--atol", args->atol, "absolute tolerance for floats")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-differences", args->max_differences, "stop after N differences")
      ->default_val(10)
      ->check(CLI::Range(1, 1 << 20));
  app.add_flag("--ignore-io-types", args->ignore_io_types,
               "do not compare the types and shapes of graph inputs and outputs");
  app.footer(
      "Ignores value and node names and any node order not forced by data flow; compares\n"
      "ops, attributes, constants and initializers by value (a Constant node equals an\n"
      "initializer holding the same tensor), subgraphs and functions.\n"
      "Exit 0 when equivalent, 1 when they differ.\n\n"
      "Example:\n  oxs diff original.onnx roundtrip.onnx --rtol 1e-6");
  return [args] { return run_diff(*args); };
}

}  // namespace

OXS_COMMAND(diff, {"diff", "Compare two models structurally (names and free order ignored)", 45,
                   setup_diff});

}  // namespace oxs::cli
