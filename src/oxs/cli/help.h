// The command line around the subcommands: building the CLI11 app from the
// registered commands, `oxs help [CMD]` and bare `oxs` (the command list on
// stdout), and CLI11's parse errors as one `oxs: error:` line.
#pragma once

#include <optional>
#include <unordered_map>

#include "oxs/cli/command.h"

namespace oxs::cli {

// Declares the registered commands on `app` (and `help`); returns what runs
// each subcommand that is set up. When the command line names a command
// (`oxs info ...`, `oxs help info`), only that command is declared and set
// up: CLI11 parses one subcommand, and declaring and setting up every
// command is a measurable part of a small command's run (the same
// messages for stray command names after it: tests/cli). Bare `oxs`, `oxs
// help` and `oxs --version` declare every command by name and summary (the
// command list) and set up none; anything else (`oxs --help-all`, `oxs
// completion`, options first, a misspelt command) sets up every command.
std::unordered_map<const CLI::App*, Run> build_app(CLI::App& app, int argc, char** argv);

// Handles what must not reach CLI11's parser: no arguments or `help [CMD]`
// (help on stdout, exit 0) and a misspelt command (exit 2 with a
// suggestion). Returns the exit code when it handled the command line.
std::optional<int> help_or_unknown_command(CLI::App& app, int argc, char** argv);

// --help and --version print and give 0; every other parse error is one
// line: "oxs: error: CMD: what; run `oxs CMD --help`", exit 2.
int report_parse_error(CLI::App& app, const CLI::ParseError& e);

// A validator for an integer option: "'abc' is not a number" for text,
// "must be between LO and HI" for a number out of range.
CLI::Validator integer_between(int64_t lo, int64_t hi);

}  // namespace oxs::cli
