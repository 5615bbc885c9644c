// Stable diagnostic codes of the ONNX Script converter (AST -> ONNX), E03xx.
// The front end's codes (lexing, parsing, limits) live in codes.h. A code
// never changes meaning once released: tests and users grep for them.
#pragma once

#include <string_view>

namespace oxs::script::code {

inline constexpr std::string_view kUnboundName = "E0301";
inline constexpr std::string_view kUnknownOp = "E0302";
inline constexpr std::string_view kUnknownAttribute = "E0303";
inline constexpr std::string_view kWrongInputCount = "E0304";
inline constexpr std::string_view kAttributeTypeMismatch = "E0305";
inline constexpr std::string_view kMissingAttribute = "E0306";
inline constexpr std::string_view kMissingReturn = "E0307";
inline constexpr std::string_view kMixedOpsetVersions = "E0308";
inline constexpr std::string_view kUnsupportedFeature = "E0309";
inline constexpr std::string_view kNoOnnxMeaning = "E0310";
inline constexpr std::string_view kUnsupportedOpset = "E0311";
inline constexpr std::string_view kBadAnnotation = "E0312";
inline constexpr std::string_view kInvalidNode = "E0313";
inline constexpr std::string_view kBadEntry = "E0314";
inline constexpr std::string_view kWrongKindOfValue = "E0315";
inline constexpr std::string_view kUndefinedOnSomePath = "E0316";
inline constexpr std::string_view kUnpackMismatch = "E0317";
inline constexpr std::string_view kRecursiveCall = "E0318";
inline constexpr std::string_view kBadImport = "E0319";
inline constexpr std::string_view kTooComplex = "E0320";
inline constexpr std::string_view kBadCall = "E0321";
inline constexpr std::string_view kOpNotInOpset = "E0322";
inline constexpr std::string_view kBadConstant = "E0323";

}  // namespace oxs::script::code
