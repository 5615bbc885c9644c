// A readable text form of models, graphs and functions, for people (the
// `oxs print` command, debugging, test failure messages). One node per line:
//
//   %y: float[N,3] = Gemm(%a, %b, %c) {alpha=2.0, transB=1}
//
// with subgraphs indented under their node. The text is not meant to be
// parsed back. Printing never reads external data (it shows where the data
// lives instead) and never throws on malformed tensors. Linear in the size
// of the model.
#pragma once

#include <string>

#include "oxs/ir/model.h"

namespace oxs::ir {

struct PrintOptions {
  // Tensors with at most this many elements are printed in full; larger
  // ones show their first `max_elements` values.
  size_t max_elements = 8;
  // Print doc strings as `# ...` comments.
  bool doc_strings = false;
  // End node lines with `  # node_name` (names are what errors point at).
  bool node_names = true;
};

std::string print(const Model& model, const PrintOptions& options = {});
std::string print(const Graph& graph, const PrintOptions& options = {});
std::string print(const Function& function, const PrintOptions& options = {});
// One node as a line (without indentation or subgraph bodies).
std::string print_node_line(const Node& node, const PrintOptions& options = {});
// "%name" ("%\"odd name\"" when the name is not a plain identifier).
std::string value_ref(const Value* value);
// An attribute's value as in a node line: "2.0", "[1, 2]", "\"NOTSET\"",
// "@ref" for a reference to a function's attribute, "graph" for subgraphs.
std::string attr_value_text(const Attr& attr, const PrintOptions& options = {});
// A tensor's type and (first) values, or where its external data lives:
// "float[2,2] = [1.0, 2.0, 3.0, 4.0]".
std::string tensor_summary(const Tensor& tensor, const PrintOptions& options = {});

}  // namespace oxs::ir
