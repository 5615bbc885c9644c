// `oxs`: parses the command line, runs the chosen subcommand, and turns
// errors into one line on stderr and an exit code (see command.h). The
// subcommands live in cmd_*.cc and register themselves.
#include <fmt/core.h>

#include <algorithm>
#include <new>
#include <unordered_map>

#include "oxs/cli/command.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printable.h"
#include "oxs/schema/suggest.h"

namespace {

int report(const oxs::Error& e) {
  if (e.kind() == oxs::ErrorKind::Internal) {
    fmt::print(stderr,
               "oxs: internal error: {}\noxs: this is a bug in oxs; please report it with the "
               "command line and the input\n",
               oxs::ir::printable_lines(e.describe()));
    return oxs::cli::kExitInternal;
  }
  // Messages quote model names: escape what a terminal would obey.
  fmt::print(stderr, "oxs: error: {}\n", oxs::ir::printable_lines(e.describe()));
  return e.kind() == oxs::ErrorKind::Usage ? oxs::cli::kExitUsage : oxs::cli::kExitProblem;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace oxs::cli;
  CLI::App app{"oxs: ONNX Script natively in C++ (inspect, check, convert and print ONNX models)",
               "oxs"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  app.footer("Run `oxs <command> --help` for a command's options and an example.\n");

  std::unordered_map<const CLI::App*, Run> runs;
  std::vector<std::string> names;
  for (const Command& c : registered_commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    runs[sub] = c.setup(*sub);
    names.push_back(c.name);
  }

  // CLI11 would say "A subcommand is required" for a misspelt command.
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    fmt::print(stderr, "oxs: error: unknown command '{}'{}; run `oxs --help` for the list\n",
               argv[1], oxs::schema::did_you_mean(oxs::schema::closest_names(argv[1], names)));
    return kExitUsage;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end here with code 0; real parse errors with 2.
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }

  try {
    for (const CLI::App* sub : app.get_subcommands()) {
      auto it = runs.find(sub);
      if (it != runs.end()) return it->second();
    }
    fmt::print(stderr, "oxs: error: no command given; run `oxs --help`\n");
    return kExitUsage;
  } catch (const oxs::Error& e) {
    return report(e);
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "oxs: error: out of memory\n");
    return kExitProblem;
  } catch (const std::exception& e) {
    fmt::print(stderr,
               "oxs: internal error: {}\noxs: this is a bug in oxs; please report it with the "
               "command line and the input\n",
               oxs::ir::printable_lines(e.what()));
    return kExitInternal;
  } catch (...) {
    fmt::print(stderr, "oxs: internal error: unknown exception\noxs: this is a bug in oxs\n");
    return kExitInternal;
  }
}
