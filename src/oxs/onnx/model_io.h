// Reading and writing .onnx files: the onnx/ room's entry points. Loading
// parses the protobuf once (on an arena) and builds the IR, losslessly: saving
// an unchanged model reproduces the ModelProto field for field, including
// proto2 presence (see proto_convert.h). Loading rejects only what it cannot
// represent or must not touch — a file that is not an ONNX model, a corrupt
// tensor, unsafe external data — with one oxs::Error naming the file; a
// structurally invalid graph still loads (ir::verify reports it).
//
// External data is not read at load time but on a tensor's first access
// (with pread, never mapped: see external_data.h), with the location checked
// first: relative, inside the model's directory (realpath), no '..', no
// symbolic link, a regular file without other hard links, offset and length
// within the file.
//
// Saving writes to a temporary file beside the target (and beside each data
// file) and renames it only when everything is written and flushed, so a
// failed save leaves the old files as they were, and a data file that a
// loaded model still reads is replaced, never truncated in place.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "oxs/ir/model.h"

namespace oxs::onnx {

// Progress of a long load or save: `done` bytes of `total` (0 when not
// known yet). Called every few MiB and once at the end; for a person
// watching (the CLI's progress line), never needed for correctness.
using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

struct LoadOptions {
  // Read external data lazily, on a tensor's first access (the default).
  // When false, it is read during load (still path- and bounds-checked).
  bool lazy_external_data = true;
  // Accept external data files that have more than one hard link (refused
  // by default: a hard link may be a file from outside the model's
  // directory). Symbolic links stay refused.
  bool allow_hardlinks = false;
  // Bytes of the model file parsed so far (not external data: it is read
  // later, lazily or while converting).
  ProgressFn progress;
};

// Throws oxs::Error naming `path` and what is wrong.
ir::Model load(const std::string& path, const LoadOptions& options = {});
// Parses a serialized ModelProto. `base_dir` resolves external data;
// `display_name` names the source in errors.
ir::Model load_from_bytes(std::string_view bytes, const std::string& base_dir,
                          const std::string& display_name);

struct SaveOptions {
  enum class ExternalData {
    // Tensors stay as loaded: external tensors go back to their locations
    // and offsets (into the target's directory: data files are copied there,
    // or left alone when they already hold the bytes), the others inline.
    Keep,
    // Every raw-encoded (or external) tensor of at least `threshold` bytes
    // goes to `external_file`, one data file beside the model, at offsets
    // that are multiples of `alignment`. Typed-field tensors stay inline,
    // as onnx's own converter does, so inline -> external -> inline gives
    // the original proto back.
    External,
    // Every tensor is stored inside the model file (at most 2 GiB).
    Inline,
  };
  ExternalData external_data = ExternalData::Keep;
  int64_t threshold = 1024;
  // Data file name, a plain name in the model's directory; default:
  // "<model file name>.data".
  std::string external_file;
  // Offsets in the data file are multiples of this (for mmap).
  int64_t alignment = 4096;
  // Bytes written so far, model and data files together; `total` is 0
  // while the model file is written, then what all files will hold.
  ProgressFn progress;
};

// Bytes [offset, offset+length) of the file `location` relative to
// `base_dir`, mapped lazily, with the same checks as external data of a model
// (relative, no '..', no symlink, a regular file inside base_dir, within the
// file's size). `source` and `tensor` name the origin in errors. Used for
// ONNX Script's external_tensor(...). Throws oxs::Error (Input).
std::shared_ptr<const ir::Storage> open_external_data(const std::string& base_dir,
                                                      const std::string& location, int64_t offset,
                                                      int64_t length, const std::string& source,
                                                      const std::string& tensor);

// Throws oxs::Error; on failure the target (and data files) are untouched.
// A model over protobuf's 2 GiB limit is refused with a hint to use
// ExternalData::External.
void save(const ir::Model& model, const std::string& path, const SaveOptions& options = {});
// Serializes without external data handling (all tensors inline).
std::string save_to_bytes(const ir::Model& model);

}  // namespace oxs::onnx
