#include "oxs/cli/help.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oxs/schema/suggest.h"

namespace oxs::cli {
namespace {

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

int unknown_command(const CLI::App& app, const std::string& name) {
  fmt::print(stderr, "oxs: error: unknown command '{}'{}; run `oxs --help` for the list\n", name,
             schema::did_you_mean(schema::closest_names(name, command_names(app))));
  return kExitUsage;
}

// CLI11 messages may span lines; the promise is one line.
std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// Which commands this run sets up: the one the command line names (`oxs
// info ...`, `oxs help info`), none when it only prints the version or the
// command list, or every one (nullopt) for anything else.
std::optional<std::string_view> commands_needed(const std::vector<Command>& commands, int argc,
                                                char** argv) {
  if (argc < 2) return std::string_view();  // the command list
  std::string_view name = argv[1];
  if (argc == 2 && name == "--version") return std::string_view();
  if (name == "help") {
    if (argc == 2) return std::string_view();  // the command list
    if (argc != 3) return std::nullopt;
    name = argv[2];
  }
  // `completion` reads every command's options.
  if (name == "completion") return std::nullopt;
  for (const Command& c : commands) {
    if (c.name == name) return name;
  }
  return std::nullopt;
}

}  // namespace

std::unordered_map<const CLI::App*, Run> build_app(CLI::App& app, int argc, char** argv) {
  app.name("oxs");
  app.description(
      "oxs: ONNX Script natively in C++ (inspect, check, convert, run and print ONNX models)");
  app.set_version_flag("--version", version_text());
  app.set_help_all_flag("--help-all", "print the help of every command");
  app.require_subcommand(1);
  app.footer(
      "Run `oxs help <command>` or `oxs <command> --help` for a command's options and an "
      "example.\nExit codes: 0 success, 1 a problem with the input, 2 a bad command line, 3 a "
      "bug in oxs.\n");
  std::unordered_map<const CLI::App*, Run> runs;
  const std::vector<Command> commands = registered_commands();
  const std::optional<std::string_view> needed = commands_needed(commands, argc, argv);
  for (const Command& c : commands) {
    if (needed && !needed->empty() && c.name != *needed) continue;
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    if (!needed || c.name == *needed) runs[sub] = c.setup(*sub);
  }
  CLI::App* help = app.add_subcommand("help", "Show the help of a command (`oxs help run`)");
  help->allow_extras();
  runs[help] = [help] {
    // Reached only through the parser, e.g. `oxs --quiet help`: list the commands.
    fmt::print("{}", help->get_parent()->help());
    return kExitOk;
  };
  return runs;
}

std::optional<int> help_or_unknown_command(CLI::App& app, int argc, char** argv) {
  if (argc < 2) {
    fmt::print("{}", app.help());
    return kExitOk;
  }
  const std::string first = argv[1];
  if (first == "help") {
    if (argc == 2) {
      fmt::print("{}", app.help());
      return kExitOk;
    }
    if (argc > 3) {
      fmt::print(stderr, "oxs: error: help: give one command, e.g. `oxs help run`\n");
      return kExitUsage;
    }
    const std::string name = argv[2];
    for (CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == name && name != "help") {
        fmt::print("{}", sub->help("oxs"));
        return kExitOk;
      }
    }
    return unknown_command(app, name);
  }
  if (first[0] == '-') return std::nullopt;
  const std::vector<std::string> names = command_names(app);
  if (std::find(names.begin(), names.end(), first) == names.end()) {
    return unknown_command(app, first);
  }
  return std::nullopt;
}

int report_parse_error(CLI::App& app, const CLI::ParseError& e) {
  // --help, --help-all and --version are "errors" with exit code 0.
  if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitUsage;
  std::string command;
  for (const CLI::App* sub : app.get_subcommands()) command = sub->get_name();
  std::string message = one_line(e.what());
  if (command.empty()) {
    fmt::print(stderr, "oxs: error: {}; run `oxs --help`\n", message);
  } else {
    fmt::print(stderr, "oxs: error: {}: {}; run `oxs {} --help`\n", command, message, command);
  }
  return kExitUsage;
}

CLI::Validator integer_between(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        int64_t v = 0;
        const char* end = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ptr != end)
          return "'" + text + "' is not a number (expected an integer)";
        if (ec == std::errc::result_out_of_range || v < lo || v > hi) {
          return "'" + text + "' must be between " + std::to_string(lo) + " and " +
                 std::to_string(hi);
        }
        return std::string();
      },
      "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

}  // namespace oxs::cli
