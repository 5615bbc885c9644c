#include "oxs/cli/command.h"

#include <algorithm>
#include <mutex>

#include "oxs/schema/registry.h"

#ifndef OXS_VERSION
#define OXS_VERSION "unknown"
#endif

namespace oxs::cli {
namespace {

// A function-local static: safe to use from other files' static initializers.
std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

}  // namespace

bool register_command(Command command) {
  registry().push_back(std::move(command));
  return true;
}

std::vector<Command> registered_commands() {
  std::vector<Command> out = registry();
  std::sort(out.begin(), out.end(), [](const Command& a, const Command& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return out;
}

std::string version_text() {
  std::string text = "oxs " OXS_VERSION;
  if (auto latest = schema::latest_opset("")) {
    text += " (ONNX opsets up to " + std::to_string(*latest);
    if (auto ml = schema::latest_opset("ai.onnx.ml")) text += ", ai.onnx.ml " + std::to_string(*ml);
    text += "; libonnx 1.12 and oxs's own table)";
  }
  return text;
}

}  // namespace oxs::cli
