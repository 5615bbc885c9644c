// INTERNAL to schema/: oxs's own fixed function bodies for op versions of
// oxs's operator table, written in ONNX's text syntax in
// data/function_bodies.onnxtxt (embedded at build time, parsed once on first
// use by libonnx's OnnxParser). Includes protobuf types: schema/ only.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace oxs::schema::bodies {

// The body of op version (domain, name, since) ("" is ai.onnx), or null.
// Throws oxs::Error Internal when the embedded text does not parse (a build
// that ships a broken file fails every test that asks for a body).
const ::onnx::FunctionProto* text_body(std::string_view domain, std::string_view name,
                                       int64_t since);

struct TextBodyKey {
  std::string domain;
  std::string name;
  int64_t since = 0;
};
// Every op version the text holds a body for, in file order.
std::vector<TextBodyKey> text_body_keys();

}  // namespace oxs::schema::bodies
