// `oxs decompile MODEL [-o FILE.py] [--weights FILE]`: ONNX back to ONNX
// Script (script/decompile/decompile.h).
#include <fmt/core.h>

#include <filesystem>
#include <memory>

#include "oxs/cli/command.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/file_io.h"
#include "oxs/onnx/model_io.h"
#include "oxs/script/decompile/decompile.h"

namespace oxs::cli {
namespace {

struct DecompileArgs {
  std::string model;
  std::string output;
  std::string weights;
  int64_t max_inline = 64;
};

void write_atomically(const std::string& path, const std::string& bytes) {
  onnx::AtomicFile file(path);
  file.write(bytes.data(), bytes.size());
  file.finish();
  file.commit();
}

int run_decompile(const DecompileArgs& args) {
  namespace fs = std::filesystem;
  if (!args.weights.empty() && args.output.empty()) {
    throw Error(ErrorKind::Usage, "--weights needs -o FILE.py: the weights file sits beside it");
  }
  if (!args.weights.empty() && fs::path(args.weights).has_parent_path()) {
    throw Error(ErrorKind::Usage, "--weights takes a file name, written beside the .py file: '" +
                                      args.weights + "' has a directory part");
  }
  ir::Model model = onnx::load(args.model);
  script::DecompileOptions options;
  options.weights_file = args.weights;
  options.max_inline_elements = args.max_inline;
  script::DecompileResult r = script::decompile(model, options);
  if (args.output.empty()) {
    fmt::print("{}", r.source);
    return kExitOk;
  }
  if (fs::exists(args.output) && fs::equivalent(args.output, args.model)) {
    throw Error(ErrorKind::Usage, "refusing to overwrite the input model with the source");
  }
  // Weights first: the source must never refer to a file that is missing.
  if (!r.weights.empty()) {
    fs::path dir = fs::path(args.output).parent_path();
    write_atomically((dir / args.weights).string(), r.weights);
  }
  write_atomically(args.output, r.source);
  fmt::print(
      "wrote {}{}\n", args.output,
      r.weights.empty() ? "" : fmt::format(" and {} ({} bytes)", args.weights, r.weights.size()));
  return kExitOk;
}

Run setup_decompile(CLI::App& app) {
  auto args = std::make_shared<DecompileArgs>();
  app.add_option("MODEL", args->model, "the .onnx file")->required();
  app.add_option("-o,--output", args->output, "write the source here (default: stdout)");
  app.add_option("--weights", args->weights,
                 "put tensors larger than --max-inline elements in this file beside the .py "
                 "and refer to them with external_tensor(...)");
  app.add_option("--max-inline", args->max_inline, "largest tensor written inline (elements)")
      ->default_val(64)
      ->check(CLI::NonNegativeNumber);
  app.footer(
      "Writes ONNX Script that `oxs compile` reads back: one @script function per\n"
      "model-local function and one for the main graph; If as if/else; Loop and Scan\n"
      "bodies as nested functions.\n\n"
      "Example:\n  oxs decompile examples/models/mlp.onnx -o mlp.py --weights mlp.weights");
  return [args] { return run_decompile(*args); };
}

}  // namespace

OXS_COMMAND(decompile,
            {"decompile", "Turn an ONNX model back into ONNX Script source", 35, setup_decompile});

}  // namespace oxs::cli
