#include "oxs/onnx/libonnx_bridge.h"

#include <string>

#include "oxs/ir/error.h"

namespace oxs::onnx {

void reencode(const google::protobuf::MessageLite& from, google::protobuf::MessageLite* to) {
  std::string bytes;
  if (!from.SerializeToString(&bytes) || !to->ParseFromString(bytes)) {
    throw Error(ErrorKind::Internal,
                "could not re-encode a " + from.GetTypeName() + " as " + to->GetTypeName());
  }
}

ir::Type type_from_proto(const ::onnx::TypeProto& proto) {
  wire::TypeProto w;
  reencode(proto, &w);
  return type_from_proto(w);
}

void type_to_proto(const ir::Type& type, ::onnx::TypeProto* proto) {
  wire::TypeProto w;
  type_to_proto(type, &w);
  reencode(w, proto);
}

ir::Attr attr_from_proto(const ::onnx::AttributeProto& proto, const FromProtoContext& ctx) {
  wire::AttributeProto w;
  reencode(proto, &w);
  return attr_from_proto(w, ctx);
}

void attr_to_proto(const ir::Attr& attr, ::onnx::AttributeProto* proto) {
  wire::AttributeProto w;
  attr_to_proto(attr, &w);
  reencode(w, proto);
}

void tensor_to_proto(const ir::Tensor& tensor, ::onnx::TensorProto* proto) {
  wire::TensorProto w;
  tensor_to_proto(tensor, &w);
  reencode(w, proto);
}

std::unique_ptr<ir::Function> function_from_proto(const ::onnx::FunctionProto& proto,
                                                  const FromProtoContext& ctx) {
  wire::FunctionProto w;
  reencode(proto, &w);
  return function_from_proto(w, ctx);
}

void model_to_proto(const ir::Model& model, ::onnx::ModelProto* proto,
                    const ToProtoOptions& options) {
  wire::ModelProto w;
  model_to_proto(model, &w, options);
  reencode(w, proto);
}

}  // namespace oxs::onnx
