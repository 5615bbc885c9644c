// `oxs run`'s inputs and outputs of every kind: reading a value for a graph
// input from what the command line says (.npy/.pb tensor files, a SequenceProto
// or a comma-separated list of tensor files for a sequence, `none` or a file
// for an optional, a MapProto or a JSON object for a map) and writing outputs
// under --output-dir (tensors as .npy, sequences as directories, maps as
// JSON). Command-line plumbing only; the evaluator checks the values against
// the declared types.
#pragma once

#include <string>

#include "oxs/eval/tensor.h"
#include "oxs/ir/type.h"
#include "oxs/onnx/file_io.h"

namespace oxs::cli {

// The value for input `name` of declared type `type` from `text`, the part
// after NAME= of --input. Throws oxs::Error naming the input: Usage for a
// malformed list or a form the type does not take, Input/IO for bad files.
eval::Value read_input_value(const std::string& name, const ir::Type& type,
                             const std::string& text);

// Writes output `name` (its file-safe base name `base`) into `dir`: a
// tensor as <base>.npy, a sequence as the directory <base>/ with one entry
// per element (0.npy, 1.npy, ...; stale numbered entries of an earlier run
// are removed), an optional as its element (nothing when empty), a map as
// <base>.json. Every file is written atomically and nothing is written,
// replaced or removed through a symbolic link (onnx::OutputDir). Reports
// each file written (or an empty optional) on stderr.
void write_output_value(const onnx::OutputDir& dir, const std::string& base,
                        const std::string& name, const eval::Value& value);

// A map as a JSON object {"key": value, ...} (keys are strings in JSON).
std::string map_to_json(const eval::Value& map);

}  // namespace oxs::cli
