// The ONNX Script compiler: a .py file written in onnxscript's Python subset
// becomes an ONNX model (ir::Model). The entry function becomes the model's
// graph, typed from its annotations; every script function it calls becomes a
// model-local function (or is inlined). Errors are collected, not thrown one
// at a time: every independent problem of a file is reported in one run, each
// as `file:line:col: error[E03xx]: message` with the source line, a caret
// and a hint (see diagnostics.h, convert_codes.h).
//
// What the output looks like:
//   - functions live in domain "this" (onnxscript's default) or in the custom
//     opset of @script(Opset("com.example", 1)); their attribute parameters
//     are passed at every call, defaults included (IR 8 functions have no
//     attribute defaults);
//   - a call that omits optional tensor inputs calls a variant compiled with
//     them as None (`f__without_bias`), so `if bias is not None:` is decided
//     while compiling and libonnx can infer the call;
//   - in the model's graph, attribute parameters take their defaults, so
//     conditions on them are decided while compiling;
//   - `if` on a tensor becomes If, loops become Loop, `a if c else b` Where.
//
// This is the script room's public API for the converter; it must not print
// or touch files (the CLI does), and it never crashes or hangs on bad input.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oxs/ir/model.h"
#include "oxs/script/front/diagnostics.h"
#include "oxs/script/front/source.h"

namespace oxs::script {

class Environment;  // environment.h

struct CompileOptions {
  // The function that becomes the model graph; default: the last function
  // decorated with @script() in the file.
  std::string entry;
  // Retargets every ai.onnx opset the script imports (opset15, opset18, ...)
  // to this version; ops are then validated against it. Default: the
  // version the script imports (or the newest known when it imports none).
  std::optional<int64_t> opset;
  // Inline every call of a model-local function into the graph.
  bool inline_functions = false;
  // Remove Identity nodes and nodes nobody reads. Off by default: the
  // model holds every op the script wrote (op.Identity(x) included).
  bool cleanup = false;
  // A model holding only the function library: every @script() function of
  // the file as a model-local function, and an empty graph.
  bool functions_only = false;
  // Errors reported before giving up.
  size_t max_errors = 100;
  // Decorators that wrap onnxscript's script() (a library's
  // @register("aten::abs")): their functions count as @script(), and the
  // string arguments they get are recorded as the names registered.
  std::vector<std::string> script_decorators;
  // A file that yields no function and no model is an error unless set.
  bool allow_empty = false;
  // Gives the bytes of `external_tensor(name, type, dims, location, offset=,
  // length=)` (length -1: to the end of the file). The script room does no
  // file I/O: callers that know the source's directory set this (the CLI
  // uses onnx::open_external_data, which checks the location). Unset, such
  // a tensor is an error.
  std::function<std::shared_ptr<const ir::Storage>(const std::string& location, int64_t offset,
                                                   int64_t length, const std::string& tensor)>
      external_data;
  // Names resolved by a host (the Python package) rather than by the file's
  // imports; set by Environment::compile. Not owned.
  Environment* environment = nullptr;
};

// What the script says about a compiled function beyond its FunctionProto:
// attribute types as written (bool) and defaults, which IR 8 functions
// cannot hold; eager calls (eager/eager.h) need them.
struct ScriptAttribute {
  std::string name;
  ir::AttrType type = ir::AttrType::Undefined;
  bool is_bool = false;                           // annotated bool (stored as an int attribute)
  std::shared_ptr<const ir::Attr> default_value;  // null: no default (or None)
};
struct ScriptFunctionInfo {
  std::string name;
  std::string domain;
  // Tensor inputs with their annotated types (dims kept; None when unannotated).
  std::vector<std::pair<std::string, ir::Type>> inputs;
  std::vector<ScriptAttribute> attributes;
  // Names a registration decorator (--decorator) gave the function.
  std::vector<std::string> registered_names;
};

struct CompileResult {
  std::optional<ir::Model> model;  // set when there are no errors
  std::vector<Diagnostic> diagnostics;
  std::vector<ScriptFunctionInfo> functions;  // every script function of the file, in order
  std::string default_entry;                  // the entry used when none is given
  bool ok() const { return model.has_value(); }
};

// Compiles `source`; never throws for problems in the source.
CompileResult compile_source(const SourceFile& source, const CompileOptions& options = {});

// Compiles `source` and returns the model, or throws oxs::Error (kind Invalid)
// whose message holds every diagnostic, rendered.
ir::Model compile(const SourceFile& source, const CompileOptions& options = {});

}  // namespace oxs::script
