// Diagnostics of the ONNX Script front end: what went wrong, where, and what to
// write instead.
//
// A Diagnostic has a stable code ("E0201"), a one-line message, the Span it is
// about, an optional hint and notes. A DiagnosticSink collects them in order
// and caps the number of errors so that garbage input cannot flood the user.
// render() turns one into the text the CLI prints:
//
//   file.py:3:8: error[E0202]: expected ':' after 'if' condition
//       if x > 0
//               ^
//     hint: add ':' at the end of the line
//
// This header must not know about tokens, ASTs or ONNX; the codes themselves
// live in codes.h.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "oxs/script/front/source.h"

namespace oxs::script {

enum class Severity { kError, kWarning, kNote };

const char* severity_name(Severity severity);

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string code;
  std::string message;
  Span span;
  std::string hint;
  std::vector<std::string> notes;
};

class DiagnosticSink {
 public:
  static constexpr size_t kDefaultMaxErrors = 100;
  explicit DiagnosticSink(size_t max_errors = kDefaultMaxErrors) : max_errors_(max_errors) {}

  // Records `d` unless the error cap was reached; when the cap is reached, one
  // last "too many errors" diagnostic is recorded instead and the rest dropped.
  void report(Diagnostic d);
  Diagnostic& error(std::string code, Span span, std::string message, std::string hint = {});

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  std::vector<Diagnostic> take() { return std::move(diagnostics_); }
  size_t error_count() const { return error_count_; }
  bool has_errors() const { return error_count_ > 0; }
  // True once the cap is reached: further work is pointless.
  bool full() const { return error_count_ >= max_errors_; }

 private:
  size_t max_errors_;
  size_t error_count_ = 0;
  std::vector<Diagnostic> diagnostics_;
  Diagnostic dropped_;  // target of error() once full
};

// Renders one diagnostic as "file:line:col: severity[code]: message", the
// source line, a caret line under the span (tabs copied so carets line up) and
// "  hint: ..." / "  note: ..." lines. Ends with a newline.
std::string render(const SourceFile& file, const Diagnostic& diagnostic);
// All diagnostics, in order.
std::string render(const SourceFile& file, const std::vector<Diagnostic>& diagnostics);

}  // namespace oxs::script
