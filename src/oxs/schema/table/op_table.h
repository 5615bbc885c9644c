// The operator table that oxs owns (data/onnx_ops.txt): signatures of the
// ONNX operator versions that libonnx 1.12 does not know (ai.onnx 18-28,
// ai.onnx.ml 4-5, ai.onnx.preview 1), parsed into OpSignatures. The format is
// described at the top of the table. The build runs the same parser over the
// file (tools/gen_schema_table.cc) and fails on any malformed line, then
// embeds the text with an index of where each op's lines are
// (table/op_index.h); the registry parses one op when it is first asked for.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "oxs/ir/type.h"
#include "oxs/schema/signature.h"

namespace oxs::schema::table {

// Parses the whole table, or a part of it that starts at line `first_line`
// (the registry parses one op's block when the op is first asked for).
// Throws oxs::Error (Internal) naming `source` and the line of the first
// malformed item.
std::vector<OpSignature> parse_op_table(std::string_view text, const std::string& source,
                                        size_t first_line = 1);

// "tensor(float8e4m3fn)", "seq(tensor(int64))", "optional(seq(tensor(x)))",
// "map(int64, tensor(float))", "sparse_tensor(float)" -> the IR type (shape
// absent); nullopt if the string is not such a type.
std::optional<ir::Type> parse_type_string(std::string_view text);

// The embedded table (generated at build time from data/onnx_ops.txt).
std::string_view embedded_op_table();

// Highest opsets the table covers (the range libonnx 1.12 lacks).
inline constexpr int64_t kLatestOnnxOpset = 28;
inline constexpr int64_t kLatestMlOpset = 5;
inline constexpr int64_t kLatestPreviewOpset = 1;

}  // namespace oxs::schema::table
