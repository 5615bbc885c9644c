// The IR <-> libonnx 1.12's protobuf classes (`onnx::ModelProto`, ...), for
// the rooms that call libonnx's checker, schemas and inference functions
// (schema/, infer/). The project's wire format is its own (wire/
// onnx_wire.proto, IR version 14); libonnx's messages describe IR version 8.
// Each conversion here goes through the wire message and its bytes: a field
// that libonnx does not know (an IR 9+ field) survives as an unknown field of
// the libonnx message and comes back when converted the other way, and the
// newer element types are plain int32 values in both.
#pragma once

#include <onnx/onnx_pb.h>

#include <memory>

#include "oxs/onnx/proto_convert.h"

namespace oxs::onnx {

ir::Type type_from_proto(const ::onnx::TypeProto& proto);
void type_to_proto(const ir::Type& type, ::onnx::TypeProto* proto);
ir::Attr attr_from_proto(const ::onnx::AttributeProto& proto, const FromProtoContext& ctx);
void attr_to_proto(const ir::Attr& attr, ::onnx::AttributeProto* proto);
void tensor_to_proto(const ir::Tensor& tensor, ::onnx::TensorProto* proto);
std::unique_ptr<ir::Function> function_from_proto(const ::onnx::FunctionProto& proto,
                                                  const FromProtoContext& ctx);
// Options as for the wire overload (the placer fills the wire message).
void model_to_proto(const ir::Model& model, ::onnx::ModelProto* proto,
                    const ToProtoOptions& options);

// Re-encodes a message as the other library's class (same field numbers).
// Throws oxs::Error (Internal) if the bytes do not parse.
void reencode(const google::protobuf::MessageLite& from, google::protobuf::MessageLite* to);

}  // namespace oxs::onnx
