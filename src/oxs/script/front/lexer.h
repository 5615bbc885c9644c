// Lexer for the Python 3 syntax that ONNX Script sources are written in.
//
// tokenize() is one linear pass over the bytes: it tracks indentation with a
// stack (emitting kIndent / kDedent), joins lines inside brackets and after a
// backslash, skips comments, decodes string escapes and number literals, and
// always ends with kNewline (if needed), the closing kDedents and kEndOfFile.
// Errors go to the DiagnosticSink with a span and the lexer carries on, so it
// never throws or crashes on any input, including NUL bytes and invalid UTF-8.
// It does not know which Python constructs ONNX Script accepts; the parser and
// converter decide that.
#pragma once

#include <vector>

#include "oxs/script/front/diagnostics.h"
#include "oxs/script/front/source.h"
#include "oxs/script/front/token.h"

namespace oxs::script {

// Python's own limit; deeper indentation is reported once per line.
inline constexpr size_t kMaxIndentLevels = 100;

std::vector<Token> tokenize(const SourceFile& file, DiagnosticSink& sink);

}  // namespace oxs::script
