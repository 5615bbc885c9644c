// INTERNAL to schema/: the index of every op version oxs knows, made at
// build time by tools/gen_schema_table.cc from libonnx 1.12's registry and
// oxs's own table (data/onnx_ops.txt). With it no process builds libonnx's
// registry (every schema of every version, ~40M instructions) or parses the
// whole table at start-up: the registry answers which versions exist from
// this index and builds one op version's schema or signature when it is
// first asked for (registry.cc). Includes libonnx headers.
#pragma once

#include <onnx/defs/schema.h>

#include <cstdint>
#include <span>
#include <string_view>

namespace oxs::schema::index {

// A domain and the opsets oxs knows of it.
struct DomainRange {
  std::string_view name;  // "" for ai.onnx
  int64_t min_opset = 0;
  int64_t max_opset = 0;
  int64_t libonnx_max_opset = 0;  // 0: a domain libonnx does not know
};

// One op version. From libonnx when `libonnx` >= 0 (the argument of
// make_libonnx_schema), else from the table: the op's block of lines in
// table::embedded_op_table() and the line number it starts at.
struct OpVersion {
  uint32_t domain = 0;  // index into domains()
  std::string_view name;
  int64_t since_version = 0;
  int32_t libonnx = -1;
  uint32_t table_offset = 0;
  uint32_t table_size = 0;
  uint32_t table_line = 0;
};

// Every domain, sorted by name ("" first).
std::span<const DomainRange> domains();
// Every op version, sorted by (domain, name, since_version); no duplicates.
std::span<const OpVersion> op_versions();

// libonnx's schema of entry `id` (OpVersion::libonnx), built on its own
// through libonnx's exported GetOpSchema<...>() and not yet finalized: what
// libonnx's registry would hold after OpSchema::Finalize().
::onnx::OpSchema make_libonnx_schema(int32_t id);

}  // namespace oxs::schema::index
