// Helpers shared by the script front-end tests.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "oxs/script/front/diagnostics.h"
#include "oxs/script/front/lexer.h"
#include "oxs/script/front/parser.h"
#include "oxs/script/front/source.h"

namespace oxs::script {
inline void PrintTo(LineCol lc, std::ostream* os) {
  *os << lc.line << ":" << lc.column;
}
}  // namespace oxs::script

namespace oxs::script::testing {

// Token kinds of `text`, with kEndOfFile left off.
inline std::vector<TokenKind> kinds(const std::string& text) {
  SourceFile file("t.py", text);
  DiagnosticSink sink;
  std::vector<TokenKind> out;
  for (const Token& t : tokenize(file, sink)) {
    if (t.kind != TokenKind::kEndOfFile) out.push_back(t.kind);
  }
  return out;
}

// All diagnostics of parsing `text` as t.py, rendered.
inline std::string errors_of(const std::string& text) {
  SourceFile file("t.py", text);
  ParseResult r = parse(file);
  return render(file, r.diagnostics);
}

// The AST dump of `text`, or the rendered diagnostics if there were any.
inline std::string dump_of(const std::string& text) {
  SourceFile file("t.py", text);
  ParseResult r = parse(file);
  if (!r.diagnostics.empty()) return "ERRORS:\n" + render(file, r.diagnostics);
  return dump(r.module);
}

// The dump of a single expression.
inline std::string expr_of(const std::string& text) {
  SourceFile file("e.py", text);
  ParseResult r = parse_expression(file);
  if (!r.diagnostics.empty()) return "ERRORS:\n" + render(file, r.diagnostics);
  if (r.module.body.size() != 1) return "NO EXPRESSION";
  return dump(*r.module.body[0]->as<ExprStmt>().value);
}

}  // namespace oxs::script::testing
