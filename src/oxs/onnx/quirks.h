// Bits of the IR's `proto_quirks` fields, private to onnx/. Each bit records
// one way a loaded protobuf deviated from the canonical encoding that the
// writer produces for IR built in memory (mostly proto2 field presence: a
// string field present but empty, a field absent where the writer would set
// it). 0 always means "canonical", so IR built by other rooms saves cleanly.
#pragma once

#include <cstdint>

namespace oxs::onnx::quirk {

// ModelProto
inline constexpr uint32_t kModelProducerNameEmpty = 1u << 0;
inline constexpr uint32_t kModelProducerVersionEmpty = 1u << 1;
inline constexpr uint32_t kModelDomainEmpty = 1u << 2;
inline constexpr uint32_t kModelDocEmpty = 1u << 3;
inline constexpr uint32_t kModelNoGraph = 1u << 4;

// OperatorSetIdProto
inline constexpr uint32_t kOpsetNoDomain = 1u << 0;
inline constexpr uint32_t kOpsetNoVersion = 1u << 1;

// GraphProto
inline constexpr uint32_t kGraphNoName = 1u << 0;
inline constexpr uint32_t kGraphDocEmpty = 1u << 1;

// NodeProto
inline constexpr uint32_t kNodeNameEmpty = 1u << 0;
inline constexpr uint32_t kNodeNoOpType = 1u << 1;
inline constexpr uint32_t kNodeDomainEmpty = 1u << 2;
inline constexpr uint32_t kNodeDocEmpty = 1u << 3;
inline constexpr uint32_t kNodeOverloadEmpty = 1u << 4;

// ValueInfoProto (on ir::Value and Graph::ValueInfoOverride)
inline constexpr uint32_t kValueNoName = 1u << 0;
inline constexpr uint32_t kValueDocEmpty = 1u << 1;
// Set only while a graph is being read: the value's own annotation came from
// a ValueInfoProto of that graph (a flag is cheaper than a hash set).
inline constexpr uint32_t kValueDescribedWhileLoading = 1u << 31;

// TypeProto
inline constexpr uint32_t kTypePresent = 1u << 0;  // message present though it says nothing
inline constexpr uint32_t kTypeDenotationEmpty = 1u << 1;
inline constexpr uint32_t kTypeNoElemType = 1u << 2;  // tensor elem_type / map key_type absent
inline constexpr uint32_t kTypeOpaque = 1u << 3;      // opaque_type set (ONNX-ML)
inline constexpr uint32_t kTypeOpaqueDomainEmpty = 1u << 4;
inline constexpr uint32_t kTypeOpaqueNameEmpty = 1u << 5;

// TensorShapeProto.Dimension
inline constexpr uint32_t kDimDenotationEmpty = 1u << 0;

// TensorProto
inline constexpr uint32_t kTensorNoDataType = 1u << 0;
inline constexpr uint32_t kTensorNameEmpty = 1u << 1;
inline constexpr uint32_t kTensorDocEmpty = 1u << 2;
inline constexpr uint32_t kTensorDataLocationDefault = 1u << 3;  // data_location: DEFAULT set
inline constexpr uint32_t kTensorSegmentNoBegin = 1u << 4;
inline constexpr uint32_t kTensorSegmentNoEnd = 1u << 5;
// Typed encoding of a tensor whose canonical typed field is absent but
// which had an explicit (empty) raw_data: covered by Encoding::Raw.

// AttributeProto
inline constexpr uint32_t kAttrNoType = 1u << 0;
inline constexpr uint32_t kAttrDocEmpty = 1u << 1;
inline constexpr uint32_t kAttrRefEmpty = 1u << 2;
inline constexpr uint32_t kAttrNoName = 1u << 3;
// When set, the singular value fields present are exactly the kAttrHas* bits
// below (instead of the one field that `type` selects).
inline constexpr uint32_t kAttrExplicitFields = 1u << 4;
inline constexpr uint32_t kAttrHasF = 1u << 5;
inline constexpr uint32_t kAttrHasI = 1u << 6;
inline constexpr uint32_t kAttrHasS = 1u << 7;
inline constexpr uint32_t kAttrHasT = 1u << 8;
inline constexpr uint32_t kAttrHasG = 1u << 9;
inline constexpr uint32_t kAttrHasSparse = 1u << 10;
inline constexpr uint32_t kAttrHasTp = 1u << 11;
inline constexpr uint32_t kAttrFieldMask =
    kAttrHasF | kAttrHasI | kAttrHasS | kAttrHasT | kAttrHasG | kAttrHasSparse | kAttrHasTp;

// FunctionProto
inline constexpr uint32_t kFunctionNoName = 1u << 0;
inline constexpr uint32_t kFunctionDomainEmpty = 1u << 1;
inline constexpr uint32_t kFunctionDocEmpty = 1u << 2;
inline constexpr uint32_t kFunctionOverloadEmpty = 1u << 3;

}  // namespace oxs::onnx::quirk
