#include "oxs/schema/bodies/text_bodies.h"

#include <onnx/defs/parser.h>

#include <map>
#include <tuple>

#include "oxs/ir/error.h"

namespace oxs::schema::bodies {

extern const char kFunctionBodiesText[];  // generated from data/function_bodies.onnxtxt

namespace {

using Key = std::tuple<std::string, std::string, int64_t>;

struct Table {
  std::map<Key, ::onnx::FunctionProto> bodies;
  std::vector<TextBodyKey> order;
};

// The op version a body is for: its name, its domain, and the version its
// opset_import gives that domain.
Key key_of(const ::onnx::FunctionProto& f) {
  std::string domain = f.domain() == "ai.onnx" ? std::string() : f.domain();
  for (const auto& imp : f.opset_import()) {
    std::string d = imp.domain() == "ai.onnx" ? std::string() : imp.domain();
    if (d == domain) return {domain, f.name(), imp.version()};
  }
  throw Error(ErrorKind::Internal, "data/function_bodies.onnxtxt: the body of " + f.name() +
                                       " does not import its own domain, so its op version is "
                                       "unknown; add it to the header's opset_import");
}

Table parse_all() {
  Table t;
  ::onnx::OnnxParser parser(kFunctionBodiesText);
  while (!parser.EndOfInput()) {
    ::onnx::FunctionProto f;
    auto status = parser.Parse(f);
    if (!status.IsOK()) {
      throw Error(ErrorKind::Internal, "data/function_bodies.onnxtxt does not parse (after " +
                                           std::to_string(t.order.size()) +
                                           " bodies): " + status.ErrorMessage());
    }
    Key k = key_of(f);
    auto [it, fresh] = t.bodies.emplace(k, std::move(f));
    if (!fresh) {
      throw Error(ErrorKind::Internal, "data/function_bodies.onnxtxt defines " + std::get<1>(k) +
                                           "-" + std::to_string(std::get<2>(k)) + " twice");
    }
    t.order.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k)});
  }
  return t;
}

const Table& table() {
  static const Table t = parse_all();
  return t;
}

}  // namespace

const ::onnx::FunctionProto* text_body(std::string_view domain, std::string_view name,
                                       int64_t since) {
  const Table& t = table();
  std::string d = domain == "ai.onnx" ? std::string() : std::string(domain);
  auto it = t.bodies.find(Key{d, std::string(name), since});
  return it == t.bodies.end() ? nullptr : &it->second;
}

std::vector<TextBodyKey> text_body_keys() {
  return table().order;
}

}  // namespace oxs::schema::bodies
