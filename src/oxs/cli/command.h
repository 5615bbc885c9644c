// The subcommands of `oxs`. Each cmd_<name>.cc registers itself with
// OXS_COMMAND; main.cc only parses the command line and dispatches, so adding
// a subcommand means adding one file (and nothing else):
//
//   // cmd_hello.cc
//   #include "oxs/cli/command.h"
//   namespace oxs::cli {
//   namespace {
//   Run setup_hello(CLI::App& app) {
//     auto name = std::make_shared<std::string>();
//     app.add_option("NAME", *name, "who to greet")->required();
//     app.footer("Example:\n  oxs hello world");
//     return [name] { fmt::print("hello {}\n", *name); return kExitOk; };
//   }
//   }  // namespace
//   OXS_COMMAND(hello, {"hello", "Greet someone", 90, setup_hello});
//   }  // namespace oxs::cli
//
// The cli/ room holds no logic a library user would also want: commands call
// library rooms and format their results.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "oxs/onnx/model_io.h"

namespace oxs::cli {

// Exit codes of `oxs`.
inline constexpr int kExitOk = 0;        // success
inline constexpr int kExitProblem = 1;   // bad input, invalid model, I/O failure
inline constexpr int kExitUsage = 2;     // bad command line
inline constexpr int kExitInternal = 3;  // a bug in oxs

// Runs the chosen subcommand after parsing; returns the exit code. It may
// throw oxs::Error: main maps the kind to an exit code and prints one line.
using Run = std::function<int()>;

struct Command {
  std::string name;     // "info"
  std::string summary;  // one line for `oxs --help`
  int order = 50;       // position in `oxs --help` (then by name)
  // Declares the subcommand's options on `app` (with an example in the
  // footer) and returns what runs it. Option values must outlive the call:
  // capture them in the returned Run (e.g. through shared_ptr).
  std::function<Run(CLI::App& app)> setup;
};

// Records a command; called at static-initialization time by OXS_COMMAND.
bool register_command(Command command);
// Every registered command, sorted by (order, name).
std::vector<Command> registered_commands();

// Declares the options of loading a model (--allow-hardlinks) on a
// command's `app`, filling `options` (which must outlive the parse).
void add_load_options(CLI::App& app, onnx::LoadOptions& options);

// The version line printed by `oxs --version`.
std::string version_text();

}  // namespace oxs::cli

#define OXS_COMMAND(id, ...)                                       \
  [[maybe_unused]] static const bool oxs_command_registered_##id = \
      ::oxs::cli::register_command(::oxs::cli::Command __VA_ARGS__)
