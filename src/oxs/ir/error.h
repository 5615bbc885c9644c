// The one error hierarchy of oxs. Every room throws oxs::Error (or a subclass)
// for anything a user can cause; the CLI turns it into one clear line and an
// exit code. Internal invariant violations are ErrorKind::Internal.
#pragma once

#include <stdexcept>
#include <string>

namespace oxs {

enum class ErrorKind {
  Usage,        // wrong command-line or API usage
  Input,        // a bad input file or value (malformed, truncated, unsafe)
  Invalid,      // a model or graph that breaks ONNX rules
  Unsupported,  // valid but not supported by oxs (yet)
  IO,           // the operating system refused (open, write, rename, mmap)
  Internal,     // a bug in oxs
};

const char* error_kind_name(ErrorKind kind);

// Where an error points: a file with optional line/column, and/or a node.
struct ErrorLocation {
  std::string file;
  int line = 0;      // 1-based; 0 = unknown
  int column = 0;    // 1-based; 0 = unknown
  std::string node;  // node name or op, when the error is about a node
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, ErrorLocation where = {});

  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  const ErrorLocation& where() const { return where_; }

  // "file:line:col: node 'n': message" with the parts that are known.
  std::string describe() const;

 private:
  ErrorKind kind_;
  std::string message_;
  ErrorLocation where_;
};

}  // namespace oxs
