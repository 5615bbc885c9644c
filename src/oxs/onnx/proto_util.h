// Small helpers shared by the proto converters of onnx/ (not public API).
#pragma once

#include <google/protobuf/arena.h>
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>

#include <string>

#include "oxs/ir/error.h"
#include "oxs/ir/metadata.h"

namespace oxs::onnx {

// Fields that ONNX 1.23 (IR version 14) does not define would be dropped
// silently by the conversion; refuse them instead (a newer ONNX wrote the
// file, or it is not an ONNX file at all).
template <class Message>
void check_known_fields(const Message& m, const char* message_name, const std::string& file) {
  const auto& unknown = m.unknown_fields();
  if (unknown.empty()) return;
  throw Error(ErrorKind::Unsupported,
              std::string(message_name) + " has field number " +
                  std::to_string(unknown.field(0).number()) +
                  ", which ONNX 1.23 (IR version 14) does not define: the file was written by "
                  "a newer ONNX or is not an ONNX model",
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

// Reads key/value entries (moving the strings out of the proto).
template <class Entries>
ir::StringPairs take_pairs(Entries& entries) {
  ir::StringPairs out;
  out.reserve(static_cast<size_t>(entries.size()));
  for (auto& e : entries)
    out.emplace_back(std::move(*e.mutable_key()), std::move(*e.mutable_value()));
  return out;
}

// Writes key/value entries in order.
template <class Entries>
void put_pairs(const ir::StringPairs& pairs, Entries* out) {
  out->Reserve(static_cast<int>(pairs.size()));
  for (const auto& [k, v] : pairs) {
    auto* e = out->Add();
    e->set_key(k);
    e->set_value(v);
  }
}

}  // namespace oxs::onnx
