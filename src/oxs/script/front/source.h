// Source text and positions for the ONNX Script front end.
//
// A SourceFile owns the text of one script and a table of line starts, so that
// an offset turns into a 1-based line and column in O(log n). A Span is a pair
// of byte offsets into that text; every token, AST node and diagnostic carries
// one. This header knows nothing of Python or ONNX: it is only about text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace oxs::script {

// Half-open byte range [begin, end) in a SourceFile's text.
struct Span {
  uint32_t begin = 0;
  uint32_t end = 0;

  uint32_t size() const { return end - begin; }
  bool empty() const { return begin == end; }
  // The smallest span covering both.
  static Span cover(Span a, Span b) {
    return {a.begin < b.begin ? a.begin : b.begin, a.end > b.end ? a.end : b.end};
  }
  friend bool operator==(Span, Span) = default;
};

// 1-based line and column. Columns count characters (UTF-8 code points), with a
// tab counting as one character, so they match what Python reports.
struct LineCol {
  uint32_t line = 1;
  uint32_t column = 1;
  friend bool operator==(LineCol, LineCol) = default;
};

class SourceFile {
 public:
  // Line breaks are "\n", "\r\n" and a lone "\r", as in Python.
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  uint32_t size() const { return static_cast<uint32_t>(text_.size()); }

  // Offsets past the end clamp to the end of the text.
  LineCol line_col(uint32_t offset) const;
  uint32_t line_count() const { return static_cast<uint32_t>(line_starts_.size()); }
  // The text of 1-based line `line`, without its line break.
  std::string_view line_text(uint32_t line) const;
  uint32_t line_start(uint32_t line) const { return line_starts_[line - 1]; }
  std::string_view slice(Span span) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
};

}  // namespace oxs::script
