// `oxs`: parses the command line, runs the chosen subcommand, and turns
// errors into one line on stderr and an exit code (see command.h). The
// subcommands live in cmd_*.cc and register themselves; `oxs help CMD`,
// bare `oxs` and the one-line parse errors are in help.cc.
#include <fmt/core.h>

#include <new>
#include <unordered_map>

#include "oxs/cli/command.h"
#include "oxs/cli/help.h"
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
  CLI::App app;
  std::unordered_map<const CLI::App*, Run> runs = build_app(app, argc, argv);

  if (auto early = help_or_unknown_command(app, argc, argv)) return *early;

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return report_parse_error(app, e);
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
