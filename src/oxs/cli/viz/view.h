// The graph as `oxs viz` shows it: nodes labelled with op type, name and key
// attributes; initializers folded into the nodes that read them; edges with
// the value's name, type and (from `oxs run --trace-json`) its runtime
// summary; subgraphs and model-local functions as graphs of their own that a
// node links to. Large graphs get a summary by module (the path prefix of
// node names, as exporters write them: "/encoder/layer.0/attn/MatMul"),
// recursively, so no single view holds more than a few thousand nodes.
// Layout is ours: layered (longest path), ordered by barycenters, linear
// apart from sorting each layer.
#pragma once

#include <map>
#include <string>

#include "oxs/cli/json_out.h"
#include "oxs/ir/model.h"

namespace oxs::cli::viz {

struct ViewOptions {
  // A graph with more nodes than this is shown as a summary by module.
  size_t max_nodes_per_view = 2000;
  // Value name -> runtime summary (from --trace-json): shown on edges.
  std::map<std::string, Json> trace;
};

// {"model": ..., "root": id, "graphs": {id: view}, "trace": bool}; a view is
// {"id", "title", "kind": "graph"|"summary", "parent", "nodes": [...],
// "edges": [...], "width", "height"}; a node is {"id", "op", "name", "attrs",
// "inits", "links": [{"label", "graph"}], "x", "y", "w", "h", "kind":
// "op"|"input"|"output"|"group", "count"}; an edge is {"from", "to",
// "value", "type", "trace"}.
Json build_views(const ir::Model& model, const ViewOptions& options);

// Short text of a node's attributes for its label: "transB=1, axis=-1"
// (graphs and long tensors elided).
std::string attrs_label(const ir::Node& n);

}  // namespace oxs::cli::viz
