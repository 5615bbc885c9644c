// `oxs compile FILE.py -o OUT.onnx`: compiles an ONNX Script file
// (script/compile.h) and saves the model. Diagnostics go to stderr, all of
// them, rendered with the source line and a caret.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "oxs/cli/command.h"
#include "oxs/cli/help.h"
#include "oxs/cli/progress.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/onnx/model_io.h"
#include "oxs/script/compile.h"

namespace oxs::cli {
namespace {

struct CompileArgs {
  std::string path;
  std::string output;
  std::string entry;
  int64_t opset = 0;
  bool inline_functions = false;
  bool functions_only = false;
  bool print = false;
  bool allow_empty = false;
  bool cleanup = false;
  std::vector<std::string> decorators;
  Verbosity verbosity;
};

// The offset of the first byte that does not belong to a valid UTF-8
// sequence, or nothing.
std::optional<size_t> first_invalid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    if (len == 0 || i + len > s.size()) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return std::nullopt;
}

std::string read_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(ErrorKind::Input, "this is a directory; give an ONNX Script .py file",
                {.file = path});
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::IO, "cannot open '" + path + "' for reading", {.file = path});
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::IO, "cannot read '" + path + "'", {.file = path});
  std::string text = ss.str();
  // A NUL byte never occurs in Python source: this is a model, an archive or
  // some other binary, and parsing it would only print its bytes back.
  if (text.find('\0') != std::string::npos) {
    const bool looks_onnx = path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
    throw Error(ErrorKind::Input,
                std::string("a binary file, not ONNX Script source") +
                    (looks_onnx ? "; to turn a model into source use `oxs decompile`" : ""),
                {.file = path});
  }
  if (auto bad = first_invalid_utf8(text)) {
    const auto line =
        1 + std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(*bad), '\n');
    throw Error(ErrorKind::Input,
                "not UTF-8 text (invalid byte at line " + std::to_string(line) +
                    "); ONNX Script source, like Python's, must be UTF-8",
                {.file = path, .line = static_cast<int>(line)});
  }
  return text;
}

int run_compile(const CompileArgs& args) {
  if (args.output.empty() && !args.print) {
    throw Error(ErrorKind::Usage, "compile: give -o OUT.onnx (or --print to only show the graph)");
  }
  script::SourceFile source(args.path, read_text(args.path));
  script::CompileOptions options;
  options.entry = args.entry;
  if (args.opset > 0) options.opset = args.opset;
  options.inline_functions = args.inline_functions;
  options.functions_only = args.functions_only;
  options.allow_empty = args.allow_empty;
  options.cleanup = args.cleanup;
  options.script_decorators = args.decorators;
  // external_tensor(...) files sit beside the script.
  std::string script_dir = std::filesystem::path(args.path).parent_path().string();
  options.external_data = [script_dir, file = args.path](const std::string& location,
                                                         int64_t offset, int64_t length,
                                                         const std::string& tensor) {
    return onnx::open_external_data(script_dir, location, offset, length, file, tensor);
  };
  // The compiler reports no fractions: the line says what is being compiled.
  Progress compiling("compiling " + args.path, args.verbosity);
  script::CompileResult result = script::compile_source(source, options);
  compiling.done();
  if (!result.diagnostics.empty()) {
    fmt::print(stderr, "{}", script::render(source, result.diagnostics));
  }
  if (!result.ok()) {
    size_t n = 0;
    for (const auto& d : result.diagnostics) n += d.severity == script::Severity::kError ? 1 : 0;
    if (n == 0 && args.allow_empty) {
      fmt::print(stderr, "oxs: {} yields no function or model; nothing written (--allow-empty)\n",
                 args.path);
      return kExitOk;
    }
    fmt::print(stderr, "oxs: error: {}: {} error{}, no model written\n", args.path, n,
               n == 1 ? "" : "s");
    return kExitProblem;
  }
  if (!args.output.empty()) save_model(*result.model, args.output, {}, args.verbosity);
  if (args.print) fmt::print("{}", ir::print(*result.model));
  if (!args.output.empty()) {
    fmt::print(stderr, "oxs: wrote {} ({} function{})\n", args.output,
               result.model->functions.size(), result.model->functions.size() == 1 ? "" : "s");
  }
  return kExitOk;
}

Run setup_compile(CLI::App& app) {
  auto args = std::make_shared<CompileArgs>();
  app.add_option("FILE", args->path, "the ONNX Script .py file")->required();
  add_verbosity_options(app, args->verbosity);
  app.add_option("-o,--output", args->output, "where to write the .onnx model");
  app.add_option("-e,--entry", args->entry,
                 "the function that becomes the model graph (default: the last @script() one)");
  app.add_option("--opset", args->opset,
                 "retarget every ai.onnx opset the file imports to this version")
      ->check(integer_between(1, 1000));
  app.add_flag("--inline", args->inline_functions, "inline the calls of script functions");
  app.add_flag("--functions-only", args->functions_only,
               "write only the function library (every @script() function), no graph");
  app.add_flag("--print", args->print, "print the compiled model as text");
  app.add_flag("--cleanup", args->cleanup,
               "remove Identity nodes and nodes whose outputs nobody reads (by default the model "
               "keeps every op the script wrote)");
  app.add_flag("--allow-empty", args->allow_empty,
               "a file with no @script() function is not an error (nothing is written)");
  app.add_option(
      "--decorator", args->decorators,
      "NAME: a decorator that wraps script() (e.g. a library's @register(\"aten::abs\")) "
      "counts as @script(); its string arguments are recorded as registered names "
      "(repeatable)");
  app.footer(
      "Compiles functions written in onnxscript's Python subset into an ONNX model:\n"
      "the entry becomes the graph, every script function it calls a model-local\n"
      "function. All errors of the file are reported in one run.\n\n"
      "Example:\n  oxs compile examples/hardmax.py -o hardmax.onnx --print\n");
  return [args] { return run_compile(*args); };
}

}  // namespace

OXS_COMMAND(compile,
            {"compile", "Compile an ONNX Script .py file into a model", 20, setup_compile});

}  // namespace oxs::cli
