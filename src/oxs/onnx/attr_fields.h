// Which singular AttributeProto value fields the writer sets for an attribute
// with no presence quirks (onnx/ internal, shared by reader and writer so
// that they agree).
#pragma once

#include "oxs/ir/attr.h"
#include "oxs/onnx/quirks.h"

namespace oxs::onnx {

inline uint32_t natural_attr_fields(const ir::Attr& a) {
  if (a.is_reference()) return 0;
  switch (a.type) {
    case ir::AttrType::Float:
      return quirk::kAttrHasF;
    case ir::AttrType::Int:
      return quirk::kAttrHasI;
    case ir::AttrType::String:
      return quirk::kAttrHasS;
    case ir::AttrType::Tensor:
      return a.t ? quirk::kAttrHasT : 0;
    case ir::AttrType::Graph:
      return a.g ? quirk::kAttrHasG : 0;
    case ir::AttrType::SparseTensor:
      return a.sparse_tensor ? quirk::kAttrHasSparse : 0;
    case ir::AttrType::TypeProto:
      return quirk::kAttrHasTp;
    default:
      return 0;
  }
}

// The singular fields to write.
inline uint32_t attr_fields_to_write(const ir::Attr& a) {
  if (a.proto_quirks & quirk::kAttrExplicitFields) return a.proto_quirks & quirk::kAttrFieldMask;
  return natural_attr_fields(a);
}

}  // namespace oxs::onnx
