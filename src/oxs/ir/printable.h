// Text from a model (names, domains, doc strings, attribute strings) made
// safe to show on a terminal. A model is input like any other: a name with
// ESC can recolor or retitle a terminal, rewrite earlier lines or hide what
// follows, and BEL rings it. Everything oxs prints that a model controls
// goes through printable() (or printable_lines() for multi-line text such as
// error messages), the one escaping function of the project:
//   - C0 controls and DEL become \n, \t, \r or \xNN;
//   - C1 controls (U+0080..U+009F, which some terminals obey) and bidi
//     overrides (U+202A..U+202E, U+2066..U+2069, which reorder what the
//     reader sees) become \u{NNNN};
//   - bytes that are not valid UTF-8 become \xNN;
//   - everything else, including other non-ASCII text, stays as it is.
// The result has no control characters, so escaping twice changes nothing.
#pragma once

#include <string>
#include <string_view>

namespace oxs::ir {

std::string printable(std::string_view text);
// As printable(), but line breaks stay line breaks.
std::string printable_lines(std::string_view text);
// True when printable(text) == text (no allocation).
bool is_printable(std::string_view text);

}  // namespace oxs::ir
