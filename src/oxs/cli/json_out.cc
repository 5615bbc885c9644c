#include "oxs/cli/json_out.h"

#include <fmt/core.h>

#include "oxs/onnx/file_io.h"

namespace oxs::cli {

Json json_document(const std::string& command) {
  Json j = Json::object();
  j["oxs_json"] = kJsonVersion;
  j["command"] = command;
  return j;
}

Json json_type(const ir::Type& type) {
  Json j = Json::object();
  if (type.is_none()) {
    j["kind"] = nullptr;
    return j;
  }
  using K = ir::Type::Kind;
  switch (type.kind()) {
    case K::Tensor:
      j["kind"] = "tensor";
      break;
    case K::SparseTensor:
      j["kind"] = "sparse_tensor";
      break;
    case K::Sequence:
      j["kind"] = "sequence";
      break;
    case K::Optional:
      j["kind"] = "optional";
      break;
    case K::Map:
      j["kind"] = "map";
      break;
    case K::None:
      break;
  }
  if (type.kind() == K::Map && type.elem_type() != ir::DataType::Undefined) {
    j["key_type"] = std::string(ir::dtype_name(type.elem_type()));
  } else if (type.elem_type() != ir::DataType::Undefined) {
    j["elem_type"] = std::string(ir::dtype_name(type.elem_type()));
  }
  if (type.is_tensor() || type.kind() == K::SparseTensor) {
    if (!type.shape()) {
      j["shape"] = nullptr;
    } else {
      Json dims = Json::array();
      for (size_t i = 0; i < type.shape()->rank(); ++i) {
        const ir::Dim& d = (*type.shape())[i];
        if (d.is_known()) {
          dims.push_back(d.value());
        } else if (d.is_symbolic()) {
          dims.push_back(d.symbol());
        } else {
          dims.push_back(nullptr);
        }
      }
      j["shape"] = dims;
    }
  }
  if (type.element()) j["element"] = json_type(*type.element());
  j["text"] = type.to_string();
  return j;
}

Json json_value(const ir::Value& v) {
  Json j = Json::object();
  j["name"] = v.name();
  j["type"] = json_type(v.type());
  return j;
}

void print_json(const Json& doc) {
  fmt::print("{}\n", doc.dump(2, ' ', false, Json::error_handler_t::replace));
}

void write_text_file(const std::string& path, const std::string& text) {
  onnx::AtomicFile file(path);
  file.write(text.data(), text.size());
  file.finish();
  file.commit();
}

void write_json_file(const std::string& path, const Json& doc) {
  write_text_file(path, doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

}  // namespace oxs::cli
