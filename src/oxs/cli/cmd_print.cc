// `oxs print MODEL`: the model as readable text (ir/printer.h).
#include <fmt/core.h>

#include <memory>

#include "oxs/cli/command.h"
#include "oxs/cli/help.h"
#include "oxs/ir/printer.h"
#include "oxs/onnx/model_io.h"

namespace oxs::cli {
namespace {

struct PrintArgs {
  std::string path;
  onnx::LoadOptions load;
  size_t max_elements = 8;
  bool doc_strings = false;
  bool no_node_names = false;
};

int run_print(const PrintArgs& args) {
  ir::Model model = onnx::load(args.path, args.load);
  ir::PrintOptions options;
  options.max_elements = args.max_elements;
  options.doc_strings = args.doc_strings;
  options.node_names = !args.no_node_names;
  fmt::print("{}", ir::print(model, options));
  return kExitOk;
}

Run setup_print(CLI::App& app) {
  auto args = std::make_shared<PrintArgs>();
  app.add_option("MODEL", args->path, "the .onnx file")->required();
  add_load_options(app, args->load);
  app.add_option("--max-elements", args->max_elements,
                 "print tensors of up to N elements in full, else their first N values")
      ->default_val(8)
      ->check(integer_between(0, 1 << 20));
  app.add_flag("--doc", args->doc_strings, "show doc strings as # comments");
  app.add_flag("--no-node-names", args->no_node_names, "omit the `# node_name` after each node");
  app.footer(
      "One node per line: outputs with types = Op(inputs) {attributes}  # node name;\n"
      "subgraphs are indented under their node. External weights are not read.\n\n"
      "Example:\n  oxs print examples/models/mlp.onnx\n");
  return [args] { return run_print(*args); };
}

}  // namespace

OXS_COMMAND(print, {"print", "Print a model as readable text, one node per line", 40, setup_print});

}  // namespace oxs::cli
