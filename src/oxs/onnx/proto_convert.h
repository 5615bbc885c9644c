// Conversion between the IR and onnx's protobuf messages. Used by model_io
// and by the rooms that must speak libonnx's API (schema/, infer/). No other
// room includes protobuf types.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "oxs/ir/model.h"

namespace oxs::onnx {

// Context for errors and external data while converting from protobuf.
struct FromProtoContext {
  std::string file;      // for messages
  std::string base_dir;  // for external data
  bool lazy_external_data = true;
};

// ---- protobuf -> IR ----
// The proto may be consumed (raw tensor bytes are moved, not copied).
ir::Model model_from_proto(::onnx::ModelProto& proto, const FromProtoContext& ctx);
ir::Type type_from_proto(const ::onnx::TypeProto& proto);
std::shared_ptr<ir::Tensor> tensor_from_proto(::onnx::TensorProto& proto,
                                              const FromProtoContext& ctx);
// Graph attributes are built with `scope` as the enclosing graph (for outer
// references); pass null where no graph attribute can occur.
ir::Attr attr_from_proto(::onnx::AttributeProto& proto, const FromProtoContext& ctx);

// ---- IR -> protobuf ----
void model_to_proto(const ir::Model& model, ::onnx::ModelProto* proto);
void graph_to_proto(const ir::Graph& graph, ::onnx::GraphProto* proto);
void function_to_proto(const ir::Function& function, ::onnx::FunctionProto* proto);
void type_to_proto(const ir::Type& type, ::onnx::TypeProto* proto);
// Writes the tensor's bytes inline (raw_data or typed fields per its
// encoding); external tensors are read and written inline.
void tensor_to_proto(const ir::Tensor& tensor, ::onnx::TensorProto* proto);
void attr_to_proto(const ir::Attr& attr, ::onnx::AttributeProto* proto);

}  // namespace oxs::onnx
