#include "oxs/ir/error.h"

namespace oxs {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Usage:
      return "usage error";
    case ErrorKind::Input:
      return "input error";
    case ErrorKind::Invalid:
      return "invalid model";
    case ErrorKind::Unsupported:
      return "unsupported";
    case ErrorKind::IO:
      return "I/O error";
    case ErrorKind::Internal:
      return "internal error";
  }
  return "error";
}

static std::string render(const ErrorLocation& where, const std::string& message) {
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line > 0) {
      out += ':' + std::to_string(where.line);
      if (where.column > 0) out += ':' + std::to_string(where.column);
    }
    out += ": ";
  }
  if (!where.node.empty()) out += "node '" + where.node + "': ";
  out += message;
  return out;
}

Error::Error(ErrorKind kind, std::string message, ErrorLocation where)
    : std::runtime_error(render(where, message)),
      kind_(kind),
      message_(std::move(message)),
      where_(std::move(where)) {}

std::string Error::describe() const {
  return what();
}

}  // namespace oxs
