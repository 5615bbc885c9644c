#include "oxs/cli/viz/view.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "oxs/ir/printer.h"

namespace oxs::cli::viz {
namespace {

struct VNode {
  std::string kind = "op";  // op, input, output, group
  std::string op, name, attrs;
  std::vector<std::string> inits;
  Json links = Json::array();
  int64_t count = 0;
  std::vector<int> preds;
  double w = 0, h = 0, x = 0, y = 0;
  int layer = 0;
};

struct VEdge {
  int from, to;
  std::string value, type;
  const Json* trace = nullptr;
  int64_t count = 1;
};

struct VGraph {
  std::string id, title, kind = "graph", parent;
  std::vector<VNode> nodes;
  std::vector<VEdge> edges;
};

std::string clip(std::string s, size_t n) {
  if (s.size() > n) s = s.substr(0, n - 1) + "…";
  return s;
}

void size_node(VNode& n) {
  size_t chars = std::max({n.op.size(), n.name.size(), std::min<size_t>(n.attrs.size(), 48)});
  for (const auto& i : n.inits) chars = std::max(chars, std::min<size_t>(i.size(), 48));
  n.w = 24 + 7.0 * static_cast<double>(std::max<size_t>(chars, 4));
  n.h = 24 + 14.0 * static_cast<double>((n.name.empty() ? 0 : 1) + (n.attrs.empty() ? 0 : 1) +
                                        std::min<size_t>(n.inits.size(), 4));
}

// Layered layout: a node's layer is one past its deepest predecessor (edges
// from later to earlier nodes, i.e. cycles between groups, are ignored);
// each layer is ordered by the mean x of its predecessors.
void layout(VGraph& g) {
  for (const VEdge& e : g.edges) {
    if (e.from < e.to) g.nodes[size_t(e.to)].preds.push_back(e.from);
  }
  int layers = 0;
  for (VNode& n : g.nodes) {
    for (int p : n.preds) n.layer = std::max(n.layer, g.nodes[size_t(p)].layer + 1);
    layers = std::max(layers, n.layer + 1);
  }
  // Outputs sit on the last layer.
  for (VNode& n : g.nodes) {
    if (n.kind == "output") n.layer = std::max(n.layer, layers - 1);
  }
  std::vector<std::vector<int>> by_layer(static_cast<size_t>(layers));
  for (size_t i = 0; i < g.nodes.size(); ++i) by_layer[size_t(g.nodes[i].layer)].push_back(int(i));
  double y = 0, width = 0;
  std::vector<double> key;
  for (auto& layer : by_layer) {
    key.assign(layer.size(), 0);
    for (size_t k = 0; k < layer.size(); ++k) {
      const VNode& n = g.nodes[size_t(layer[k])];
      if (n.preds.empty()) {
        key[k] = -1e18 + double(k);  // sources keep their order, leftmost
        continue;
      }
      double sum = 0;
      for (int p : n.preds) sum += g.nodes[size_t(p)].x + g.nodes[size_t(p)].w / 2;
      key[k] = sum / double(n.preds.size());
    }
    std::vector<size_t> order(layer.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return key[a] < key[b]; });
    double x = 0, tallest = 0;
    for (size_t k : order) {
      VNode& n = g.nodes[size_t(layer[k])];
      // Stay near the predecessors when there is room.
      if (!n.preds.empty()) x = std::max(x, key[k] - n.w / 2);
      n.x = x;
      n.y = y;
      x += n.w + 24;
      tallest = std::max(tallest, n.h);
    }
    width = std::max(width, x);
    y += tallest + 56;
  }
  (void)width;
}

Json to_json(const VGraph& g) {
  Json nodes = Json::array();
  double width = 0, height = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const VNode& n = g.nodes[i];
    Json j = {{"id", i},  {"kind", n.kind}, {"op", n.op}, {"x", n.x},
              {"y", n.y}, {"w", n.w},       {"h", n.h}};
    if (!n.name.empty()) j["name"] = n.name;
    if (!n.attrs.empty()) j["attrs"] = n.attrs;
    if (!n.inits.empty()) j["inits"] = n.inits;
    if (!n.links.empty()) j["links"] = n.links;
    if (n.count) j["count"] = n.count;
    nodes.push_back(std::move(j));
    width = std::max(width, n.x + n.w);
    height = std::max(height, n.y + n.h);
  }
  Json edges = Json::array();
  for (const VEdge& e : g.edges) {
    Json j = {{"from", e.from}, {"to", e.to}};
    if (!e.value.empty()) j["value"] = e.value;
    if (!e.type.empty()) j["type"] = e.type;
    if (e.trace) j["trace"] = *e.trace;
    if (e.count > 1) j["count"] = e.count;
    edges.push_back(std::move(j));
  }
  return {{"id", g.id},     {"title", g.title}, {"kind", g.kind}, {"parent", g.parent},
          {"nodes", nodes}, {"edges", edges},   {"width", width}, {"height", height}};
}

// A box for a value entering or leaving a view.
VNode io_node(const char* kind, const char* op, const ir::Value& val) {
  VNode n;
  n.kind = kind;
  n.op = op;
  n.name = val.name();
  n.attrs = val.type().is_none() ? "" : val.type().to_string();
  size_node(n);
  return n;
}

// The module path of a node name: "/enc/layer.0/attn/MatMul" -> {enc, layer.0, attn}.
std::vector<std::string> module_path(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    if (slash == std::string::npos) break;
    if (slash > start) parts.push_back(name.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

class Builder {
 public:
  Builder(const ir::Model& model, const ViewOptions& options) : model_(model), options_(options) {}

  Json build() {
    const std::string root = graph_view(
        *model_.graph,
        model_.graph->name().empty() ? std::string("main graph") : model_.graph->name(), "");
    return {{"model", model_.graph->name()},
            {"root", root},
            {"trace", !options_.trace.empty()},
            {"graphs", graphs_}};
  }

 private:
  std::string fresh_id(const std::string& prefix) { return prefix + std::to_string(next_id_++); }

  std::string graph_view(const ir::Graph& g, const std::string& title, const std::string& parent) {
    std::vector<const ir::Node*> nodes(g.nodes().begin(), g.nodes().end());
    return view_of(g, nodes, title, parent, 0);
  }

  std::string function_view(const ir::Function& f, const std::string& parent) {
    auto it = functions_.find(&f);
    if (it != functions_.end()) return it->second;
    const std::string id = "f:" + (f.domain.empty() ? "" : f.domain + ".") + f.name;
    functions_[&f] = id;  // before building: recursive functions link back
    std::vector<const ir::Node*> nodes(f.body->nodes().begin(), f.body->nodes().end());
    view_of(*f.body, nodes, "function " + id.substr(2), parent, 0, id);
    return id;
  }

  // A view of `nodes` (a subset of graph `g`, in its order): in full, or a
  // summary by module when large.
  std::string view_of(const ir::Graph& g, const std::vector<const ir::Node*>& nodes,
                      const std::string& title, const std::string& parent, size_t depth,
                      std::string id = {}) {
    if (id.empty()) id = fresh_id("g");
    if (nodes.size() > options_.max_nodes_per_view) {
      // Skip levels where every node shares one module.
      for (;; ++depth) {
        std::unordered_set<std::string> keys;
        bool deeper = false;
        for (const ir::Node* n : nodes) {
          auto path = module_path(n->name());
          keys.insert(depth < path.size() ? path[depth] : std::string());
          deeper = deeper || depth + 1 < path.size();
          if (keys.size() > 1) break;
        }
        if (keys.size() > 1 || !deeper) break;
      }
      summary_view(g, nodes, title, parent, depth, id);
    } else {
      full_view(g, nodes, title, parent, id);
    }
    return id;
  }

  void summary_view(const ir::Graph& g, const std::vector<const ir::Node*>& nodes,
                    const std::string& title, const std::string& parent, size_t depth,
                    const std::string& id) {
    // Groups: modules at this depth, in order of first appearance; nodes
    // without a module here, or graphs without module names, in chunks.
    std::vector<std::string> keys;
    std::unordered_map<std::string, size_t> group_of_key;
    std::vector<std::vector<const ir::Node*>> groups;
    const size_t chunk = options_.max_nodes_per_view;
    size_t loose = 0;
    std::unordered_map<const ir::Node*, size_t> group_of;
    for (const ir::Node* n : nodes) {
      auto path = module_path(n->name());
      std::string key;
      if (depth < path.size()) {
        key = path[depth];
      } else {
        key = "nodes " + std::to_string(loose / chunk * chunk + 1) + "-" +
              std::to_string(loose / chunk * chunk + chunk);
        ++loose;
      }
      auto [it, fresh] = group_of_key.try_emplace(key, groups.size());
      if (fresh) {
        groups.emplace_back();
        keys.push_back(key);
      }
      groups[it->second].push_back(n);
      group_of[n] = it->second;
    }
    if (groups.size() == 1) {  // nothing to split on: show it all
      full_view(g, nodes, title, parent, id);
      return;
    }
    VGraph v;
    v.id = id;
    v.title = title;
    v.kind = "summary";
    v.parent = parent;
    for (size_t i = 0; i < groups.size(); ++i) {
      VNode n;
      n.kind = "group";
      n.op = clip(keys[i], 48);
      n.count = static_cast<int64_t>(groups[i].size());
      n.name = std::to_string(n.count) + " nodes";
      std::string child = view_of(g, groups[i], title + " / " + keys[i], id, depth + 1);
      n.links.push_back({{"label", "open " + keys[i]}, {"graph", child}});
      size_node(n);
      v.nodes.push_back(std::move(n));
    }
    // Edges between groups, one per ordered pair, counting the values.
    std::map<std::pair<size_t, size_t>, int64_t> between;
    for (const ir::Node* n : nodes) {
      for (size_t i = 0; i < n->num_inputs(); ++i) {
        const ir::Value* in = n->input(i);
        if (!in || !in->producer()) continue;
        auto it = group_of.find(in->producer());
        if (it != group_of.end() && it->second != group_of[n]) {
          ++between[{it->second, group_of[n]}];
        }
      }
    }
    for (const auto& [pair, count] : between) {
      VEdge e{int(pair.first), int(pair.second), "", std::to_string(count) + " values"};
      e.count = count;
      v.edges.push_back(std::move(e));
    }
    layout(v);
    graphs_[id] = to_json(v);
  }

  void full_view(const ir::Graph& g, const std::vector<const ir::Node*>& nodes,
                 const std::string& title, const std::string& parent, const std::string& id) {
    VGraph v;
    v.id = id;
    v.title = title;
    v.parent = parent;
    std::unordered_map<const ir::Node*, int> index;
    for (const ir::Node* n : nodes) index[n] = 0;
    std::unordered_map<const ir::Value*, int> source;  // value -> pseudo input node
    auto edge_to = [&](const ir::Value* val, int to) {
      int from = -1;
      if (const ir::Node* p = val->producer(); p && index.count(p)) {
        from = index[p];
      } else {
        auto [it, fresh] = source.try_emplace(val, int(v.nodes.size()));
        if (fresh) {
          v.nodes.push_back(
              io_node("input", val->is_graph_input() ? "input" : "from outside", *val));
        }
        from = it->second;
      }
      VEdge e{from, to, val->name(), val->type().is_none() ? "" : val->type().to_string()};
      auto t = options_.trace.find(val->name());
      if (t != options_.trace.end()) e.trace = &t->second;
      v.edges.push_back(std::move(e));
    };
    // A whole graph shows its inputs first, in their order (also the unused
    // ones); a part of one gets pseudo inputs as its nodes need them (below),
    // so that no input's uses are scanned once per part.
    const bool whole = nodes.size() == g.num_nodes();
    for (const ir::Value* in : whole ? g.inputs() : std::vector<ir::Value*>{}) {
      if (in->is_initializer()) continue;
      source[in] = int(v.nodes.size());
      v.nodes.push_back(io_node("input", "input", *in));
    }
    for (const ir::Node* node : nodes) {
      // Inputs from outside create pseudo nodes, which must precede this one.
      for (size_t i = 0; i < node->num_inputs(); ++i) {
        const ir::Value* in = node->input(i);
        if (!in || (in->is_initializer() && !in->is_graph_input())) continue;
        const ir::Node* p = in->producer();
        if ((!p || !index.count(p)) && !source.count(in)) {
          source[in] = int(v.nodes.size());
          v.nodes.push_back(io_node("input", in->is_graph_input() ? "input" : "from outside", *in));
        }
      }
      const int me = int(v.nodes.size());
      index[node] = me;
      VNode n;
      n.op = (node->domain().empty() || node->domain() == "ai.onnx" ? "" : node->domain() + ".") +
             node->op_type();
      n.name = node->name();
      n.attrs = attrs_label(*node);
      for (const ir::Attr& a : node->attrs()) {
        if (a.g) {
          n.links.push_back(
              {{"label", a.name},
               {"graph",
                graph_view(*a.g, title + " / " + node->display_name() + "." + a.name, id)}});
        }
        for (size_t k = 0; k < a.graphs.size(); ++k) {
          n.links.push_back(
              {{"label", a.name + "[" + std::to_string(k) + "]"},
               {"graph", graph_view(*a.graphs[k],
                                    title + " / " + node->display_name() + "." + a.name, id)}});
        }
      }
      if (const ir::Function* f = model_.find_function(node->domain(), node->op_type())) {
        n.links.push_back({{"label", "function " + f->name}, {"graph", function_view(*f, id)}});
      }
      v.nodes.push_back(std::move(n));
      VNode& placed = v.nodes.back();
      for (size_t i = 0; i < node->num_inputs(); ++i) {
        const ir::Value* in = node->input(i);
        if (!in) continue;
        if (in->is_initializer() && !in->is_graph_input()) {
          placed.inits.push_back(
              clip(in->name() + (in->type().is_none() ? "" : ": " + in->type().to_string()), 48));
          continue;
        }
      }
      size_node(placed);
      for (size_t i = 0; i < node->num_inputs(); ++i) {
        const ir::Value* in = node->input(i);
        if (in && !(in->is_initializer() && !in->is_graph_input())) edge_to(in, me);
      }
    }
    // Outputs: the graph's, and values read outside this subset.
    std::unordered_set<const ir::Value*> shown;
    auto add_output = [&](const ir::Value* val, const char* op) {
      if (!shown.insert(val).second) return;
      const int me = int(v.nodes.size());
      v.nodes.push_back(io_node("output", op, *val));
      edge_to(val, me);
    };
    for (const ir::Value* out : g.outputs()) {
      const ir::Node* p = out->producer();
      if ((p && index.count(p)) || (!p && nodes.size() == g.num_nodes())) add_output(out, "output");
    }
    if (nodes.size() != g.num_nodes()) {
      for (const ir::Node* node : nodes) {
        for (size_t i = 0; i < node->num_outputs(); ++i) {
          const ir::Value* val = node->output(i);
          if (!val) continue;
          for (const ir::Use& u : val->uses()) {
            if (!index.count(u.user)) {
              add_output(val, "to outside");
              break;
            }
          }
        }
      }
    }
    layout(v);
    graphs_[id] = to_json(v);
  }

  const ir::Model& model_;
  const ViewOptions& options_;
  Json graphs_ = Json::object();
  int next_id_ = 0;
  std::unordered_map<const ir::Function*, std::string> functions_;
};

}  // namespace

std::string attrs_label(const ir::Node& n) {
  std::string out;
  for (const ir::Attr& a : n.attrs()) {
    if (a.g || !a.graphs.empty()) continue;
    std::string item = a.name + "=" + clip(ir::attr_value_text(a), 24);
    if (out.size() + item.size() > 60) {
      out += out.empty() ? "…" : ", …";
      break;
    }
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

Json build_views(const ir::Model& model, const ViewOptions& options) {
  return Builder(model, options).build();
}

}  // namespace oxs::cli::viz
