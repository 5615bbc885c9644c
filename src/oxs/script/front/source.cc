#include "oxs/script/front/source.h"

#include <algorithm>

namespace oxs::script {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  const size_t n = text_.size();
  for (size_t i = 0; i < n; ++i) {
    char c = text_[i];
    if (c == '\n' || (c == '\r' && (i + 1 >= n || text_[i + 1] != '\n'))) {
      line_starts_.push_back(static_cast<uint32_t>(i + 1));
    }
  }
}

LineCol SourceFile::line_col(uint32_t offset) const {
  offset = std::min(offset, size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());
  uint32_t column = 1;
  for (uint32_t i = line_starts_[line - 1]; i < offset; ++i) {
    // UTF-8 continuation bytes do not start a character.
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;
  }
  return {line, column};
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  uint32_t begin = line_starts_[line - 1];
  uint32_t end = line < line_starts_.size() ? line_starts_[line] : size();
  std::string_view s(text_.data() + begin, end - begin);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string_view SourceFile::slice(Span span) const {
  uint32_t b = std::min(span.begin, size());
  uint32_t e = std::min(std::max(span.end, b), size());
  return std::string_view(text_).substr(b, e - b);
}

}  // namespace oxs::script
