// Eager calls of one ONNX Script function (`oxs run FILE.py -e fn`): the
// file is compiled as a function library, and the call gets the attribute
// values the compiled model would see. A FunctionProto (IR 8) has no
// attribute defaults, so the defaults written in the script are supplied
// here; attribute values from the command line are read by the parameter's
// declared type, with Python's conversions (an int where a float is
// declared becomes a float; a float where an int is declared is an error).
// No evaluation happens here: the caller runs eval::Session::run_function.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "oxs/ir/model.h"
#include "oxs/script/compile.h"

namespace oxs::script {

struct EagerOptions {
  // The function to run; default: the entry `oxs compile` would use.
  std::string entry;
  // Attribute values as text (NAME -> "2", "0.5", "[1, 2]", "True", "mean").
  std::map<std::string, std::string> attribute_args;
  CompileOptions compile;  // external data and the like; entry/functions_only are set here
};

struct EagerCall {
  ir::Model model;                   // every script function of the file
  const ir::Function* function;      // the one to run (owned by `model`)
  ScriptFunctionInfo info;           // its parameters as the script declares them
  std::vector<ir::Attr> attributes;  // given values, then defaults
};

// Compiles `source` and binds the attributes. Throws oxs::Error: Invalid for
// compile errors, Usage for an unknown function or a bad attribute value.
EagerCall prepare_eager(const SourceFile& source, const EagerOptions& options);

// The attribute `a` from command-line text, converted as Python would.
ir::Attr parse_attribute_arg(const ScriptAttribute& a, const std::string& text);

}  // namespace oxs::script
