// Small helpers shared by the proto converters of onnx/ (not public API).
#pragma once

#include <google/protobuf/arena.h>
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>

#include <string>

#include "oxs/ir/error.h"

namespace oxs::onnx {

// Fields that ONNX 1.12 does not define would be dropped silently by the
// conversion; refuse them instead (a newer ONNX wrote the file, or it is not
// an ONNX file at all).
template <class Message>
void check_known_fields(const Message& m, const char* message_name, const std::string& file) {
  const auto& unknown = m.unknown_fields();
  if (unknown.empty()) return;
  throw Error(ErrorKind::Unsupported,
              std::string(message_name) + " has field number " +
                  std::to_string(unknown.field(0).number()) +
                  ", which ONNX 1.12 (IR version 8) does not define: the file was written by a "
                  "newer ONNX or is not an ONNX model",
              {.file = file});
}

// Arena settings for a model of about `size_hint` serialized bytes: parsing
// or building a large graph on an arena is several times faster than one
// heap allocation per message, and freeing it is one pass over big blocks.
inline google::protobuf::ArenaOptions proto_arena_options(size_t size_hint) {
  google::protobuf::ArenaOptions o;
  o.start_block_size = std::clamp<size_t>(size_hint + 4096, 4096, size_t{1} << 20);
  o.max_block_size = size_t{64} << 20;
  return o;
}

}  // namespace oxs::onnx
