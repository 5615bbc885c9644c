// JSON output of the subcommands (`--json`, schema in docs/json.md): the
// shared pieces, value types and how a document is printed. Every document
// is one object with "oxs_json": <version> and "command": <name>.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "oxs/ir/type.h"
#include "oxs/ir/value.h"

namespace oxs::cli {

using Json = nlohmann::ordered_json;

// Bumped when a field changes meaning or disappears (adding fields does not).
inline constexpr int kJsonVersion = 1;

// {"oxs_json": 1, "command": command}.
Json json_document(const std::string& command);
// {"kind": "tensor", "elem_type": "float", "shape": ["N", 4], "text": "float[N,4]"}
// (shape null when unknown; a dim is an int, a symbol string, or null).
Json json_type(const ir::Type& type);
// {"name": ..., "type": json_type(...)}
Json json_value(const ir::Value& v);
// Prints the document on stdout (indented, one trailing newline).
void print_json(const Json& doc);
// Writes the document to `path` atomically (onnx::AtomicFile).
void write_json_file(const std::string& path, const Json& doc);
// Writes `text` to `path` atomically.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace oxs::cli
