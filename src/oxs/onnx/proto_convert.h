// Conversion between the IR and oxs's wire messages (wire/onnx_wire.proto,
// ONNX 1.23's IR version 14). Used by model_io, and through
// libonnx_bridge.h by the rooms that must speak libonnx's API (schema/,
// infer/). No other room includes protobuf types.
//
// Conversion is lossless for every field of onnx.proto 1.23 (IR version
// 14): proto2 field presence that the IR cannot express directly is kept in
// the IR's `proto_quirks` fields and Graph::value_info_overrides. Loading
// never rejects a structurally invalid graph (undefined names become
// annotation values that ir::verify reports); it rejects only data it cannot
// represent (bad tensors, unknown fields, unsafe external data).
#pragma once

#include "oxs/onnx/wire/onnx_wire.pb.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "oxs/ir/model.h"

namespace oxs::onnx {

class DataFileRegistry;

// Context for errors and external data while converting from protobuf.
struct FromProtoContext {
  std::string file;      // for messages
  std::string base_dir;  // for external data
  bool lazy_external_data = true;
  // Shares one mapping per data file among the tensors of one load; created
  // on demand when null.
  std::shared_ptr<DataFileRegistry> data_files;
};

// ---- protobuf -> IR ----
// The proto may be consumed (raw tensor bytes and strings are moved, not
// copied). Throws oxs::Error naming ctx.file.
ir::Model model_from_proto(wire::ModelProto& proto, const FromProtoContext& ctx);
ir::Type type_from_proto(const wire::TypeProto& proto);
std::shared_ptr<ir::Tensor> tensor_from_proto(wire::TensorProto& proto,
                                              const FromProtoContext& ctx);
std::shared_ptr<ir::SparseTensor> sparse_tensor_from_proto(wire::SparseTensorProto& proto,
                                                           const FromProtoContext& ctx);
// Graph attributes are built without an enclosing scope: names they use
// from outside become annotation values.
ir::Attr attr_from_proto(wire::AttributeProto& proto, const FromProtoContext& ctx);
// Graph attributes are built with `scope` as the enclosing graph: names they
// use from outside resolve to values of `scope` and its ancestors, and the
// subgraphs share its name authority.
ir::Attr attr_from_proto(wire::AttributeProto& proto, const FromProtoContext& ctx,
                         ir::Graph* scope);
// A top-level graph with its own name authority.
std::unique_ptr<ir::Graph> graph_from_proto(wire::GraphProto& proto, const FromProtoContext& ctx);
std::unique_ptr<ir::Function> function_from_proto(wire::FunctionProto& proto,
                                                  const FromProtoContext& ctx);

// ---- IR -> protobuf ----
void model_to_proto(const ir::Model& model, wire::ModelProto* proto);
void graph_to_proto(const ir::Graph& graph, wire::GraphProto* proto);
void function_to_proto(const ir::Function& function, wire::FunctionProto* proto);
void type_to_proto(const ir::Type& type, wire::TypeProto* proto);
// Writes the tensor's bytes inline (raw_data or typed fields per its
// encoding); external tensors are read and written inline.
void tensor_to_proto(const ir::Tensor& tensor, wire::TensorProto* proto);
void attr_to_proto(const ir::Attr& attr, wire::AttributeProto* proto);

// Decides where a tensor's bytes go while writing: return true after filling
// the data fields of `proto` yourself (external_data, data_location), false
// to have them written inline. Metadata (name, dims, type) is already set.
using TensorPlacer = std::function<bool(const ir::Tensor& tensor, wire::TensorProto* proto)>;

struct ToProtoOptions {
  TensorPlacer placer;  // null: everything inline
  // Inline tensor bytes allowed in total; exceeding it throws oxs::Error
  // (Unsupported) before the bytes are copied. Protobuf cannot serialize a
  // message over 2 GiB.
  uint64_t max_inline_bytes = UINT64_MAX;
  std::string file;  // for messages
};
void model_to_proto(const ir::Model& model, wire::ModelProto* proto, const ToProtoOptions& options);

// Receives serialized bytes in order.
using ByteSink = std::function<void(std::string_view bytes)>;
// Serializes `model` through `sink`, writing the raw bytes of the main
// graph's initializers straight from their storage rather than copying them
// into a proto first (saving a large inline model needs no second copy of
// its weights). The bytes parse to the same ModelProto as model_to_proto's;
// field order may differ. Throws oxs::Error (Unsupported) before writing
// anything if the result would exceed options.max_inline_bytes or 2 GiB.
void write_model(const ir::Model& model, const ToProtoOptions& options, const ByteSink& sink);

}  // namespace oxs::onnx
