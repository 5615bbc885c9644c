// Reading and writing .onnx files. Loading builds the IR from the protobuf
// once; external data is not read but mapped lazily on first access (with
// the location checked: relative, inside the model's directory, no '..',
// no symlink, a regular file, offset+length within the file). Saving writes
// to a temporary file beside the target and renames it, so a failed save
// leaves the old file as it was.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "oxs/ir/model.h"

namespace oxs::onnx {

struct LoadOptions {
  // Map external data lazily (the default). When false, external data is
  // read into memory during load (still path- and bounds-checked).
  bool lazy_external_data = true;
};

// Throws oxs::Error naming `path` and what is wrong.
ir::Model load(const std::string& path, const LoadOptions& options = {});
// Parses a serialized ModelProto. `base_dir` resolves external data;
// `display_name` names the source in errors.
ir::Model load_from_bytes(std::string_view bytes, const std::string& base_dir,
                          const std::string& display_name);

struct SaveOptions {
  enum class ExternalData {
    Keep,      // tensors stay as loaded (external stays external, in the same file names)
    External,  // every tensor of at least `threshold` bytes goes to `external_file`
    Inline,    // every tensor is stored inside the model file
  };
  ExternalData external_data = ExternalData::Keep;
  int64_t threshold = 1024;
  // Data file name, relative to the model's directory; default:
  // "<model file name>.data".
  std::string external_file;
  // Offsets in the data file are multiples of this (for mmap).
  int64_t alignment = 4096;
};

// Throws oxs::Error; on failure the target (and data file) are untouched.
void save(const ir::Model& model, const std::string& path, const SaveOptions& options = {});
// Serializes without external data handling (all tensors inline).
std::string save_to_bytes(const ir::Model& model);

}  // namespace oxs::onnx
