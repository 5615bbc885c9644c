#include "oxs/ir/printable.h"

#include <cstdint>
#include <cstdio>

namespace oxs::ir {

namespace {

// The length of the valid UTF-8 sequence at text[i] and its code point, or 0
// if the bytes there are not one (overlong forms and surrogates included).
size_t utf8_at(std::string_view text, size_t i, uint32_t& cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = b(0);
  size_t len = 0;
  uint32_t min = 0;
  if (c < 0x80) {
    cp = c;
    return 1;
  } else if ((c & 0xe0) == 0xc0) {
    len = 2, cp = c & 0x1f, min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    len = 3, cp = c & 0x0f, min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

bool hidden_code_point(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

template <class Sink>
bool scan(std::string_view text, bool keep_newlines, Sink&& emit) {
  bool clean = true;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    char buf[16];
    if (c < 0x20 || c == 0x7f) {
      const char* named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : nullptr;
      if (c == '\n' && keep_newlines) {
        emit(std::string_view(text.data() + i, 1));
      } else {
        clean = false;
        if (!named) std::snprintf(buf, sizeof buf, "\\x%02x", c);
        emit(std::string_view(named ? named : buf));
      }
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t len = utf8_at(text, i, cp);
    if (len == 0) {
      clean = false;
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      emit(std::string_view(buf));
      ++i;
    } else if (hidden_code_point(cp)) {
      clean = false;
      std::snprintf(buf, sizeof buf, "\\u{%04x}", static_cast<unsigned>(cp));
      emit(std::string_view(buf));
      i += len;
    } else {
      emit(text.substr(i, len));
      i += len;
    }
  }
  return clean;
}

std::string escape(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  scan(text, keep_newlines, [&out](std::string_view piece) { out += piece; });
  return out;
}

}  // namespace

std::string printable(std::string_view text) {
  return escape(text, false);
}

std::string printable_lines(std::string_view text) {
  return escape(text, true);
}

bool is_printable(std::string_view text) {
  return scan(text, false, [](std::string_view) {});
}

}  // namespace oxs::ir
