// Attribute values for the single_op harness, by the schema's attribute
// type: numbers (mostly small, sometimes extreme), strings the specs use as
// modes, element-type codes for dtype-valued attributes (every code of ONNX
// 1.23 and a few past it), tensors (of the op's chosen element types among
// others), sparse tensors (indices in and out of range) and type protos
// (tensors, sequences, optionals, maps). Graph attributes are made by
// bodies.h once the node's other attributes are known.
#pragma once

#include <vector>

#include "fuzz/byte_reader.h"
#include "oxs/ir/attr.h"
#include "oxs/schema/signature.h"

namespace oxs::fuzz {

// A value for `p`; Undefined (not set) for graph-valued types. `dtypes`
// are the element types chosen for the op's type constraints. Without
// `extended` (the corpus' fixed-version files) the choices are the ones the
// harness always made, so those files keep their cases: no dtype codes
// past the plain ints, attribute tensors of float, int64, int32 and bool
// only, and no sparse-tensor or type-proto values.
ir::Attr random_attr(const schema::AttrParam& p, const std::vector<ir::DataType>& dtypes,
                     bool extended, ByteReader& r);

// Whether `t` is a graph-valued attribute type (made by bodies.h).
inline bool is_graph_attr(ir::AttrType t) {
  return t == ir::AttrType::Graph || t == ir::AttrType::Graphs;
}

}  // namespace oxs::fuzz
