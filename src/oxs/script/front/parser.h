// Parser for the Python subset ONNX Script is written in.
//
// parse() lexes and parses a whole file into a Module with Python's
// precedence and Python's AST shapes. On a syntax error it records a
// diagnostic and resynchronizes at the next statement, so that one run
// reports every independent error (up to DiagnosticSink's cap). It never
// throws, never recurses deeper than kMaxNestingDepth expression levels, and
// runs in time linear in the input.
//
// The parser accepts any Python the AST can represent; deciding what ONNX
// Script supports (and what it means in ONNX) is the converter's job. The only
// constructs rejected here are those with no AST form: f-strings and complex
// literals.
#pragma once

#include <vector>

#include "oxs/script/front/ast.h"
#include "oxs/script/front/diagnostics.h"
#include "oxs/script/front/source.h"

namespace oxs::script {

// Nested expressions (parentheses, operands, trailers, operator chains)
// deeper than this are reported instead of overflowing the stack.
inline constexpr int kMaxNestingDepth = 200;
// An if/elif chain is a nested tree (elif is an If in orelse); longer chains
// are reported so that the tree stays shallow enough to walk recursively.
inline constexpr int kMaxElifBranches = 1000;

struct ParseResult {
  Module module;
  std::vector<Diagnostic> diagnostics;

  bool ok() const {
    for (const Diagnostic& d : diagnostics) {
      if (d.severity == Severity::kError) return false;
    }
    return true;
  }
};

// Parses a whole file. The Module holds every statement that parsed; those
// with errors are left out.
ParseResult parse(const SourceFile& file);

// Parses a file holding a single expression (a tuple if it has commas), e.g.
// a type annotation given on a command line. On success the expression is
// the value of the Module's only statement, an ExprStmt.
ParseResult parse_expression(const SourceFile& file);

}  // namespace oxs::script
