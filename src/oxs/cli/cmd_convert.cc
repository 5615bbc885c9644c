// `oxs convert IN OUT`: re-saves a model, optionally moving weights to an
// external data file or back inline, or converting it to another ai.onnx
// opset (schema::convert_opset). Saving is atomic (onnx::save): a refused
// conversion writes nothing.
#include <fmt/core.h>

#include <filesystem>
#include <memory>
#include <system_error>

#include "oxs/cli/command.h"
#include "oxs/cli/format.h"
#include "oxs/cli/help.h"
#include "oxs/cli/progress.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"
#include "oxs/schema/version_convert.h"

namespace oxs::cli {
namespace {

struct ConvertArgs {
  std::string in;
  std::string out;
  int64_t threshold = 1024;
  CLI::Option* external = nullptr;
  bool inline_data = false;
  bool in_place = false;
  int64_t opset = 0;  // 0: keep
  Verbosity verbosity;
};

bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(b, ec) && fs::equivalent(a, b, ec)) return true;
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec) && !ec;
}

int run_convert(const ConvertArgs& args) {
  if (same_file(args.in, args.out) && !args.in_place) {
    throw Error(ErrorKind::Usage, "refusing to overwrite the input '" + args.in +
                                      "'; pass --in-place to replace it, or choose another OUT");
  }
  onnx::LoadOptions load_options;
  // Replacing the file whose weights would be mapped: read them first.
  load_options.lazy_external_data = !args.in_place;
  ir::Model model = load_model(args.in, load_options, args.verbosity);
  std::string converted;
  if (args.opset) {
    schema::OpsetConversion c =
        schema::convert_opset(std::move(model), args.opset, directory_of(args.in));
    model = std::move(c.model);
    converted = " (opset " + std::to_string(c.from) + " -> " + std::to_string(c.to) + ")";
  }

  onnx::SaveOptions save;
  if (args.external->count()) {
    if (args.threshold < 0) {
      throw Error(ErrorKind::Usage, "--external-data needs a size of at least 0 bytes");
    }
    save.external_data = onnx::SaveOptions::ExternalData::External;
    save.threshold = args.threshold;
  } else if (args.inline_data) {
    save.external_data = onnx::SaveOptions::ExternalData::Inline;
  }
  save_model(model, args.out, save, args.verbosity);

  auto size_of = [](const std::string& file) -> std::string {
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    return ec ? std::string() : " (" + human_bytes(static_cast<int64_t>(size)) + ")";
  };
  std::string line = "wrote " + args.out + size_of(args.out);
  // onnx::save names the data file "<OUT>.data" (SaveOptions::external_file).
  const std::string data = args.out + ".data";
  if (args.external->count() && std::filesystem::exists(data)) {
    line += " and " + data + size_of(data);
  }
  fmt::print("{}{}\n", line, converted);
  return kExitOk;
}

Run setup_convert(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  app.add_option("IN", args->in, "the .onnx file to read")->required();
  app.add_option("OUT", args->out, "the .onnx file to write")->required();
  add_verbosity_options(app, args->verbosity);
  // Given alone, --external-data keeps the default threshold (1024 bytes).
  args->external = app.add_option("--external-data", args->threshold,
                                  "store tensors of at least BYTES (default 1024; also 4KiB, "
                                  "1MiB, ...) in the data file OUT.data")
                       ->expected(0, 1)
                       ->default_str("1024")
                       ->transform(CLI::AsSizeValue(false))
                       ->option_text("[=BYTES]");
  app.add_flag("--inline-data", args->inline_data, "store every tensor inside OUT")
      ->excludes(args->external);
  app.add_option("--opset", args->opset,
                 "convert to this ai.onnx opset (1-28), up or down; what cannot be "
                 "converted is refused, naming the node")
      ->check(integer_between(1, 1000));
  app.add_flag("--in-place", args->in_place,
               "allow OUT to be IN (the file is replaced atomically)");
  app.footer(
      "Without options, tensors stay where they were (inline or external).\n\n"
      "Examples:\n"
      "  oxs convert examples/models/mlp.onnx mlp_ext.onnx --external-data=64\n"
      "  oxs convert mlp_ext.onnx mlp_inline.onnx --inline-data\n"
      "  oxs convert examples/models/mlp.onnx mlp_opset13.onnx --opset 13\n"
      "  oxs convert examples/models/mlp.onnx mlp_opset28.onnx --opset 28\n");
  return [args] { return run_convert(*args); };
}

}  // namespace

OXS_COMMAND(convert, {"convert", "Re-save a model: move weights, or convert to another opset", 30,
                      setup_convert});

}  // namespace oxs::cli
