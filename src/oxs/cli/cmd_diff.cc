// `oxs diff A B`: structural comparison of two models (ir/structural_diff.h).
#include <fmt/core.h>

#include <cmath>
#include <memory>

#include "oxs/cli/command.h"
#include "oxs/cli/help.h"
#include "oxs/cli/json_out.h"
#include "oxs/ir/structural_diff.h"
#include "oxs/onnx/model_io.h"

namespace oxs::cli {
namespace {

struct DiffArgs {
  std::string a, b;
  double rtol = 0, atol = 0;
  size_t max_differences = 10;
  bool ignore_io_types = false;
  bool json = false;
};

Json diff_json(const DiffArgs& args, const ir::DiffResult& r) {
  Json j = json_document("diff");
  j["first"] = args.a;
  j["second"] = args.b;
  j["equivalent"] = r.equivalent();
  j["truncated"] = r.differences.size() >= args.max_differences;
  Json list = Json::array();
  for (const ir::Difference& d : r.differences) {
    Json e = {{"kind", d.kind},
              {"path", d.path},
              {"message", d.message},
              {"first", d.where_a},
              {"second", d.where_b}};
    if (d.tensor) {
      const ir::TensorDelta& t = *d.tensor;
      e["tensor"] = {{"elements", t.elements},
                     {"differing", t.differing},
                     {"max_abs_diff", std::isfinite(t.max_abs) ? Json(t.max_abs) : Json("inf")},
                     {"max_rel_diff", std::isfinite(t.max_rel) ? Json(t.max_rel) : Json("inf")},
                     {"first_index", t.first_index},
                     {"first_index_nd", t.first_index_nd},
                     {"first_values", {t.first_a, t.first_b}}};
    }
    list.push_back(std::move(e));
  }
  j["differences"] = list;
  return j;
}

int run_diff(const DiffArgs& args) {
  ir::Model a = onnx::load(args.a);
  ir::Model b = onnx::load(args.b);
  ir::DiffOptions options;
  options.rtol = args.rtol;
  options.atol = args.atol;
  options.max_differences = args.max_differences;
  options.compare_io_types = !args.ignore_io_types;
  ir::DiffResult r = ir::diff(a, b, options);
  if (args.json) {
    print_json(diff_json(args, r));
    return r.equivalent() ? kExitOk : kExitProblem;
  }
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
      ->check(integer_between(1, 1 << 20));
  app.add_flag("--json", args->json,
               "print the differences as JSON (kind, path, tensor statistics; docs/json.md)");
  app.add_flag("--ignore-io-types", args->ignore_io_types,
               "do not compare the types and shapes of graph inputs and outputs");
  app.footer(
      "Ignores value and node names and any node order not forced by data flow; compares\n"
      "ops, attributes, constants and initializers by value (a Constant node equals an\n"
      "initializer holding the same tensor), subgraphs and functions.\n"
      "Every difference is reported (up to --max-differences): operators, attributes,\n"
      "constants with element statistics, types, opsets, functions.\n"
      "Exit 0 when equivalent, 1 when they differ.\n\n"
      "Example:\n  oxs diff examples/models/mlp.onnx mlp_inline.onnx --rtol 1e-6\n");
  return [args] { return run_diff(*args); };
}

}  // namespace

OXS_COMMAND(diff, {"diff", "Compare two models structurally (names and free order ignored)", 45,
                   setup_diff});

}  // namespace oxs::cli
