// The outputs of `oxs viz`: a self-contained HTML page (no network, no
// library: the views' JSON and our script in one file) and Graphviz DOT for
// the SVG that Graphviz's `dot` lays out.
#pragma once

#include <string>

#include "oxs/cli/json_out.h"

namespace oxs::cli::viz {

// The page for build_views()'s document.
std::string html_page(const Json& views);

// The root view as a DOT digraph (labels: op, name, attributes, folded
// initializers; edges: value name, type, trace summary).
std::string dot_text(const Json& views);

// Runs Graphviz `dot -Tsvg` on `dot` and returns the SVG. Throws oxs::Error
// when dot is missing or fails.
std::string dot_to_svg(const std::string& dot);

}  // namespace oxs::cli::viz
