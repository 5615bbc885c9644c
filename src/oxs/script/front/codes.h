// Stable diagnostic codes of the ONNX Script front end.
//
// E01xx are lexical errors, E02xx syntax errors, E00xx limits. The converter
// (AST -> graph) owns E03xx and up and defines its own codes elsewhere. Codes
// never change meaning once released; tests and users grep for them.
#pragma once

#include <string_view>

namespace oxs::script::code {

inline constexpr std::string_view kTooManyErrors = "E0001";
inline constexpr std::string_view kTooDeeplyNested = "E0002";

inline constexpr std::string_view kInvalidCharacter = "E0101";
inline constexpr std::string_view kUnterminatedString = "E0102";
inline constexpr std::string_view kInvalidNumber = "E0103";
inline constexpr std::string_view kIntegerTooLarge = "E0104";
inline constexpr std::string_view kInconsistentTabs = "E0105";
inline constexpr std::string_view kBadDedent = "E0106";
inline constexpr std::string_view kUnmatchedBracket = "E0107";
inline constexpr std::string_view kUnclosedBracket = "E0108";
inline constexpr std::string_view kMismatchedBracket = "E0109";
inline constexpr std::string_view kBadContinuation = "E0110";
inline constexpr std::string_view kTooManyIndentLevels = "E0111";
inline constexpr std::string_view kInvalidEscape = "E0112";
inline constexpr std::string_view kInvalidStringPrefix = "E0113";

inline constexpr std::string_view kUnexpectedToken = "E0201";
inline constexpr std::string_view kMissingColon = "E0202";
inline constexpr std::string_view kExpectedIndentedBlock = "E0203";
inline constexpr std::string_view kUnexpectedIndent = "E0204";
inline constexpr std::string_view kInvalidTarget = "E0205";
inline constexpr std::string_view kPython2Syntax = "E0206";
inline constexpr std::string_view kUnsupportedSyntax = "E0207";
inline constexpr std::string_view kMixedBytesAndStr = "E0208";
inline constexpr std::string_view kInvalidParameters = "E0209";
inline constexpr std::string_view kInvalidArguments = "E0210";
inline constexpr std::string_view kMissingComma = "E0211";
inline constexpr std::string_view kAssignInExpression = "E0212";

}  // namespace oxs::script::code
