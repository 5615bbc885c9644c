# Embeds a text file as a C++ character array (cmake -P, at build time):
#   cmake -DIN=<file> -DOUT=<file.cc> -DSYMBOL=<namespace::name> -P embed_text.cmake
# The file may not contain the raw-string delimiter )oxs_text"; writes OUT
# through a temporary file so a failed run leaves no half-written source.
file(READ "${IN}" _text)
string(FIND "${_text}" ")oxs_text\"" _clash)
if(NOT _clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the delimiter )oxs_text\" and cannot be embedded")
endif()
string(REGEX REPLACE "::[^:]*$" "" _ns "${SYMBOL}")
string(REGEX REPLACE "^.*::" "" _name "${SYMBOL}")
file(WRITE "${OUT}.tmp"
  "// Generated from ${IN} by embed_text.cmake; do not edit.\n"
  "namespace ${_ns} {\n"
  "extern const char ${_name}[];\n"
  "const char ${_name}[] = R\"oxs_text(${_text})oxs_text\";\n"
  "}  // namespace ${_ns}\n")
file(RENAME "${OUT}.tmp" "${OUT}")
