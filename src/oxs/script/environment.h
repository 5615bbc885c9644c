// Compiling functions whose free names are resolved by a host instead of by
// the file's imports: the Python package (src/oxs/python) compiles a
// `@script()` function from its real source, with the names it uses looked
// up in the function's Python globals and closure.
//
// The host hands over one FunctionBlock per function: the function's lines
// in its file (decorators included) and what each name it may use denotes.
// An Environment lays the blocks out in one compilation unit — blocks of the
// entry's file at their true line numbers, blocks of other files after them,
// each dedented — and keeps the line map, so that diagnostics render against
// the original files (`file:line:col`, the original line and caret, the same
// text as `oxs compile`). The converter asks the Environment for a name
// before its own module-level names (see the hooks in module_env.cc,
// compile.cc and convert_expr.cc) and reports the span of every node it
// emits, so an evaluation error can name the script line.
//
// This file does no I/O and knows nothing of Python.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "oxs/ir/type.h"
#include "oxs/script/compile.h"
#include "oxs/script/convert/svalue.h"

namespace oxs::ir {
class Node;
}

namespace oxs::script {

// What a free name of a function denotes.
struct ExternalValue {
  enum class Kind : uint8_t {
    kPy,          // a Python value: None, bool, int, float, str, list/tuple, tensor
    kModule,      // a module by dotted path: "onnxscript", "math", "numpy"
    kMember,      // `path.attr` of a module the compiler knows: onnxscript.FLOAT
    kOpset,       // an opset object
    kTensorType,  // a tensor type object with a shape: FLOAT[64, "N"], FLOAT[...]
    kFunction,    // another function of the unit, by its def name
    kForeign,     // a Python object with no ONNX meaning; `path` describes it
  };
  Kind kind = Kind::kForeign;
  PyValue py;
  std::string path;
  std::string attr;
  OpsetRef opset;
  ir::DataType dtype = ir::DataType::Undefined;
  std::optional<ir::Shape> shape;  // kTensorType: nullopt = any shape
};

// One function's source and the names it sees.
struct FunctionBlock {
  std::shared_ptr<const SourceFile> file;  // the whole file (for line numbers and rendering)
  uint32_t first_line = 1;                 // 1-based, decorators included
  uint32_t last_line = 1;
  std::unordered_map<std::string, ExternalValue> names;
};

// Where a span of the unit is in the original files.
struct SourceLocation {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string text;  // the original source line
};

class Environment {
 public:
  // blocks[0] holds the entry. Throws oxs::Error (Input) if two blocks of one
  // file overlap or a block is outside its file.
  explicit Environment(std::vector<FunctionBlock> blocks,
                       std::optional<OpsetRef> default_opset = std::nullopt);

  // The unit to compile.
  const SourceFile& unit() const { return *unit_; }
  // Compiles the unit with `options` (their `environment` is set to this).
  CompileResult compile(CompileOptions options);
  // Diagnostics rendered against the original files, as `oxs compile` prints them.
  std::string render(const std::vector<Diagnostic>& diagnostics) const;
  std::string render(const Diagnostic& diagnostic) const;
  SourceLocation locate(Span span) const;
  // The script span of a node the last compile() emitted, if it recorded one.
  std::optional<Span> node_span(const ir::Node* node) const;

  // ---- for the converter ----
  // What `name` denotes at `use`, if the block containing `use` binds it.
  const ExternalValue* lookup(const std::string& name, Span use) const;
  // The ai.onnx opset of the entry when its decorator and imports name none.
  const std::optional<OpsetRef>& default_opset() const { return default_opset_; }
  void record_node(const ir::Node* node, Span span) { node_spans_[node] = span; }

 private:
  struct Line {  // a line of the unit: its block and where it came from
    int32_t block = -1;
    uint32_t original_line = 0;
    uint32_t removed = 0;  // leading bytes removed by dedenting
  };
  // A span of the unit as the same bytes of the original file.
  Span to_original(Span span, int32_t* block) const;

  std::vector<FunctionBlock> blocks_;
  std::vector<std::pair<uint32_t, uint32_t>> block_ranges_;  // unit offsets [begin, end)
  std::vector<Line> lines_;                                  // index: unit line - 1
  std::unique_ptr<SourceFile> unit_;
  std::optional<OpsetRef> default_opset_;
  std::unordered_map<const ir::Node*, Span> node_spans_;
};

// Used by the converter's name lookup (module_env.cc): the value of an
// external binding. Functions resolve to the unit's def of that name.
struct ScriptFn;
class Compiler;
SVal external_value(Compiler& c, const ExternalValue& v, Span use);

}  // namespace oxs::script
