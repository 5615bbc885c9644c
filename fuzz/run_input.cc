// Harness (f): the inputs of `oxs run --input NAME=...`: a literal
// ([[1,2],[3,4]], 3, "text", none), a .npy, .npz, .pb (TensorProto,
// SequenceProto, MapProto, OptionalProto) or .json (a map) file, or a
// sequence of files, read for an input of a declared type, as the command
// reads them (cli/run_values.cc, cli/run_inputs.cc).
//
// Bytes: [type][form][payload...]. `type` picks the declared type of the
// input (tensors of several element types, with and without a shape, a
// sequence, an optional, a map); `form` picks how the payload is given: as
// the text after NAME= itself (a literal), or written to a file of one of
// the extensions and given by path (twice, comma-separated, for a
// sequence of files).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "fuzz/harness.h"
#include "oxs/cli/run_inputs.h"
#include "oxs/cli/run_values.h"
#include "oxs/ir/error.h"

namespace oxs::fuzz {

namespace {

ir::Type declared_type(uint8_t b) {
  using ir::DataType;
  const DataType dts[] = {DataType::Float, DataType::Int64,   DataType::Bool,   DataType::String,
                          DataType::Uint8, DataType::Float16, DataType::Double, DataType::Int32};
  const ir::Type tensor = ir::Type::tensor(dts[b % 8]);
  switch ((b >> 3) % 6) {
    case 0:
      return tensor;
    case 1:
      return ir::Type::tensor(dts[b % 8], ir::Shape({ir::Dim::known(2), ir::Dim::known(2)}));
    case 2:
      return ir::Type::sequence(tensor);
    case 3:
      return ir::Type::optional(tensor);
    case 4:
      return ir::Type::map(b & 1 ? DataType::String : DataType::Int64,
                           ir::Type::tensor(DataType::Float));
    default:
      return ir::Type();  // undeclared
  }
}

const char* const kExtensions[] = {".npy", ".npz", ".pb", ".json"};

// A directory of this process for the input files, removed at exit.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    std::string pattern = "/tmp/oxs_fuzz_run_input_XXXXXX";
    if (!mkdtemp(pattern.data())) std::abort();
    path = pattern;
  }
  ~ScratchDir() {
    for (const char* ext : kExtensions) ::unlink((path + "/input" + ext).c_str());
    ::rmdir(path.c_str());
  }
};

// The file input<ext> of the scratch directory, rewritten for every input.
std::string scratch_file(const char* ext, const std::string& bytes) {
  static const ScratchDir dir;
  const std::string path = dir.path + "/input" + ext;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

}  // namespace

void run_input(const uint8_t* data, size_t size) {
  if (size < 2) return;
  const ir::Type type = declared_type(data[0]);
  const uint8_t form = data[1];
  const std::string payload(reinterpret_cast<const char*>(data + 2), size - 2);
  try {
    switch (form % 6) {
      case 0:
      case 1:  // a literal (or a name that is not a file)
        (void)cli::read_input_value("x", type, payload);
        break;
      case 5: {  // a sequence of two files
        const std::string path = scratch_file(".npy", payload);
        (void)cli::read_input_value("x", type, path + "," + path);
        break;
      }
      default: {
        const char* ext = kExtensions[(form >> 3) % 4];
        const std::string path = scratch_file(ext, payload);
        (void)cli::read_input_value("x", type, path);
        if (std::string(ext) == ".npz") (void)cli::read_npz(path);
        break;
      }
    }
  } catch (const Error&) {
  }
}

}  // namespace oxs::fuzz
