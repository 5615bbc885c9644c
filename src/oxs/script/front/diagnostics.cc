#include "oxs/script/front/diagnostics.h"

#include "oxs/script/front/codes.h"

namespace oxs::script {

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

void DiagnosticSink::report(Diagnostic d) {
  if (full()) return;
  if (d.severity == Severity::kError) {
    ++error_count_;
    if (full()) {
      diagnostics_.push_back(std::move(d));
      Diagnostic stop;
      stop.code = std::string(code::kTooManyErrors);
      stop.message = "too many errors (" + std::to_string(max_errors_) + "), stopping here";
      stop.span = diagnostics_.back().span;
      diagnostics_.push_back(std::move(stop));
      return;
    }
  }
  diagnostics_.push_back(std::move(d));
}

Diagnostic& DiagnosticSink::error(std::string code, Span span, std::string message,
                                  std::string hint) {
  if (full()) {
    dropped_ = Diagnostic{};
    return dropped_;
  }
  Diagnostic d;
  d.code = std::move(code);
  d.span = span;
  d.message = std::move(message);
  d.hint = std::move(hint);
  size_t before = diagnostics_.size();
  report(std::move(d));
  return diagnostics_[before];
}

namespace {

bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

std::string render(const SourceFile& file, const Diagnostic& d) {
  LineCol lc = file.line_col(d.span.begin);
  std::string out = file.name() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column) +
                    ": " + severity_name(d.severity);
  if (!d.code.empty()) out += "[" + d.code + "]";
  out += ": " + d.message + "\n";

  if (lc.line <= file.line_count()) {
    std::string_view line = file.line_text(lc.line);
    uint32_t line_begin = file.line_start(lc.line);
    uint32_t line_end = line_begin + static_cast<uint32_t>(line.size());
    // Control bytes would garble a terminal; show them as spaces.
    std::string shown(line);
    for (char& c : shown) {
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) c = ' ';
    }
    out += shown + "\n";
    std::string caret;
    uint32_t begin = std::min(d.span.begin, line_end);
    for (uint32_t i = line_begin; i < begin; ++i) {
      char c = file.text()[i];
      if (c == '\t') {
        caret += '\t';
      } else if (!is_continuation_byte(c)) {
        caret += ' ';
      }
    }
    caret += '^';
    // The span may run past this line; underline only what is on it.
    uint32_t end = std::min(std::max(d.span.end, begin), line_end);
    bool first = true;
    for (uint32_t i = begin; i < end; ++i) {
      if (is_continuation_byte(file.text()[i])) continue;
      if (first) {
        first = false;
        continue;
      }
      caret += '~';
    }
    out += caret + "\n";
  }
  if (!d.hint.empty()) out += "  hint: " + d.hint + "\n";
  for (const std::string& note : d.notes) out += "  note: " + note + "\n";
  return out;
}

std::string render(const SourceFile& file, const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) out += render(file, d);
  return out;
}

}  // namespace oxs::script
