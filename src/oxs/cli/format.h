// Small formatting helpers shared by the subcommands' output. Helpers that
// show model text escape it (ir::printable), as every command must.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "oxs/ir/model.h"

namespace oxs::cli {

// "268 B", "1.5 KiB", "3.2 GiB".
std::string human_bytes(int64_t bytes);
// "1,234,567".
std::string grouped(int64_t n);
// "ai.onnx 17, ai.onnx.ml 3".
std::string opsets_text(const std::vector<ir::OpsetImport>& imports);
// "name: float[N,4]" (or just "name" when untyped).
std::string value_text(const ir::Value& v);
// The directory of a file path ("." for a bare file name).
std::string directory_of(const std::string& path);

}  // namespace oxs::cli
