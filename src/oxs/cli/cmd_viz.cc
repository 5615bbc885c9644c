// `oxs viz MODEL -o graph.html|graph.svg|graph.dot`: the graph drawn. HTML is
// our own page (viz/page.cc): subgraphs and functions open on click, search by
// name, pan and zoom, a summary by module for large models, and the values of
// a run (`oxs run --trace-json`) on the edges with --trace. SVG is laid out by
// Graphviz's `dot` (Debian's graphviz); .dot writes its input.
#include <fmt/core.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "oxs/cli/command.h"
#include "oxs/cli/help.h"
#include "oxs/cli/viz/page.h"
#include "oxs/cli/viz/view.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"

namespace oxs::cli {
namespace {

struct VizArgs {
  std::string model;
  std::string output;
  std::string trace;
  int64_t max_nodes = 2000;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Value name -> summary from `oxs run --trace-json FILE`.
std::map<std::string, Json> read_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::IO, "cannot open the trace '" + path + "'", {.file = path});
  std::stringstream ss;
  ss << in.rdbuf();
  Json doc = Json::parse(ss.str(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("command", "") != "run-trace" ||
      !doc.contains("values") || !doc["values"].is_array()) {
    throw Error(ErrorKind::Input,
                "not a trace written by `oxs run --trace-json` (expected {\"command\": "
                "\"run-trace\", \"values\": [...]})",
                {.file = path});
  }
  std::map<std::string, Json> out;
  for (const Json& v : doc["values"]) {
    if (v.contains("value") && v["value"].is_string() && v.contains("summary")) {
      out[v["value"].get<std::string>()] = v["summary"];
    }
  }
  return out;
}

int run_viz(const VizArgs& args) {
  const bool html = ends_with(args.output, ".html") || ends_with(args.output, ".htm");
  const bool svg = ends_with(args.output, ".svg");
  const bool dot = ends_with(args.output, ".dot") || ends_with(args.output, ".gv");
  if (!html && !svg && !dot) {
    throw Error(ErrorKind::Usage, "viz: -o must end in .html, .svg or .dot (it picks the format)");
  }
  viz::ViewOptions options;
  options.max_nodes_per_view = static_cast<size_t>(args.max_nodes);
  if (!args.trace.empty()) options.trace = read_trace(args.trace);
  ir::Model model = onnx::load(args.model);
  Json views = viz::build_views(model, options);
  std::string text;
  if (html) {
    text = viz::html_page(views);
  } else {
    text = viz::dot_text(views);
    if (svg) text = viz::dot_to_svg(text);
  }
  write_text_file(args.output, text);
  const Json& root = views["graphs"][views["root"].get<std::string>()];
  fmt::print("wrote {} ({} view{}, the first with {} boxes)\n", args.output, views["graphs"].size(),
             views["graphs"].size() == 1 ? "" : "s", root["nodes"].size());
  return kExitOk;
}

Run setup_viz(CLI::App& app) {
  auto args = std::make_shared<VizArgs>();
  app.add_option("MODEL", args->model, "the .onnx model")->required();
  app.add_option("-o,--output", args->output,
                 "graph.html (interactive page), graph.svg (Graphviz layout) or graph.dot")
      ->required();
  app.add_option("--trace", args->trace,
                 "show the values of a run on the edges (a file from `oxs run --trace-json`)");
  app.add_option("--max-nodes", args->max_nodes,
                 "a graph with more nodes is shown as a summary by module (default 2000)")
      ->check(integer_between(10, 1000000));
  app.footer(
      "Nodes show their op, name and key attributes, with initializers folded in; edges the\n"
      "value's type. In the HTML page: drag to pan, wheel to zoom, click a node for details,\n"
      "double-click to open a subgraph, function or module, search by name.\n\n"
      "Examples:\n  oxs viz examples/models/mlp.onnx -o mlp.html\n"
      "  oxs run examples/models/mlp.onnx --random --dim N=2 --trace-json trace.json\n"
      "  oxs viz examples/models/mlp.onnx -o mlp_trace.html --trace trace.json\n"
      "  oxs viz examples/models/mlp.onnx -o mlp.svg\n");
  return [args] { return run_viz(*args); };
}

}  // namespace

OXS_COMMAND(viz, {"viz", "Draw a model as an interactive HTML page or an SVG", 38, setup_viz});

}  // namespace oxs::cli
