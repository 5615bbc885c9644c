#include "oxs/cli/viz/page.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "oxs/ir/error.h"

extern char** environ;

namespace oxs::cli::viz {
namespace {

// The page's style and script. The script reads the views from the
// #data element; views are laid out already (view.cc), so it only draws what
// is on screen (a few thousand elements at most), which keeps a 100k-node
// model responsive.
constexpr const char* kHead = R"html(<!doctype html>
<html><head><meta charset="utf-8"><title>oxs viz</title>
<style>
body{margin:0;font:13px system-ui,sans-serif;display:flex;flex-direction:column;height:100vh}
#bar{display:flex;gap:10px;align-items:center;padding:6px 10px;border-bottom:1px solid #ccc;background:#f6f6f6}
#crumbs a{cursor:pointer;color:#0645ad;text-decoration:underline}
#main{flex:1;display:flex;min-height:0}
#canvas{flex:1;position:relative;overflow:hidden;background:#fff}
#svg{width:100%;height:100%;cursor:grab;display:block}
#panel{width:340px;overflow:auto;border-left:1px solid #ccc;padding:8px 10px;font-size:12px}
#panel h3{margin:4px 0}
#panel .row{margin:2px 0;word-break:break-all}
#panel button{margin:2px 4px 2px 0}
#panel a{cursor:pointer;color:#0645ad}
.node rect{fill:#e8f0fe;stroke:#4a6fa5;stroke-width:1}
.node.input rect{fill:#e6f4ea;stroke:#3b8a4f}
.node.output rect{fill:#fdecea;stroke:#b3261e}
.node.group rect{fill:#fff4d6;stroke:#a87b00}
.node.link rect{stroke-dasharray:5 2;stroke-width:2}
.node.sel rect{stroke:#e37400;stroke-width:3}
.node text{font-size:11px;fill:#222}
.node text.op{font-weight:bold;font-size:12px}
.edge{stroke:#8a8a8a;fill:none}
.elabel{fill:#555;font-size:10px}
.elabel.trace{fill:#8a3ffc}
</style></head><body>
<div id="bar"><b>oxs viz</b><span id="crumbs"></span>
<input id="search" placeholder="search names, ops, values (Enter)" size="32">
<span id="status"></span></div>
<div id="main"><div id="canvas"><svg id="svg" xmlns="http://www.w3.org/2000/svg">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#8a8a8a"/></marker></defs>
<g id="vp"><g id="edges"></g><g id="nodes"></g></g></svg></div>
<div id="panel"></div></div>
<script id="data" type="application/json">)html";

constexpr const char* kScript = R"js(</script>
<script>
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
const $ = id => document.getElementById(id);
const svg = $('svg'), vp = $('vp'), gE = $('edges'), gN = $('nodes');
let cur = null, sel = -1, view = {x: 0, y: 0, k: 1}, pending = false;
const esc = s => String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
const fmt = v => typeof v === 'number' ? (Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : +v.toFixed(4)) : v;
function traceText(t) {
  if (!t) return '';
  if (t.stats) return 'min ' + fmt(t.stats.min) + ' max ' + fmt(t.stats.max) + ' mean ' + fmt(t.stats.mean) + (t.stats.nan_count ? ' nan ' + t.stats.nan_count : '');
  return t.kind || '';
}
function size() { const r = svg.getBoundingClientRect(); return {w: r.width || 1200, h: r.height || 800}; }
function fit() {
  const s = size();
  const k = Math.min(1.2, (s.w - 40) / Math.max(cur.width, 1), (s.h - 40) / Math.max(cur.height, 1));
  view.k = Math.max(k, 0.4);  // readable: a big graph opens at its top, to pan from
  view.x = Math.max(20, (s.w - cur.width * view.k) / 2);
  view.y = 20;
}
function open(id, select) {
  if (!D.graphs[id]) return;
  cur = D.graphs[id];
  sel = -1;
  fit();
  let chain = [], g = cur;
  while (g) { chain.unshift(g); g = g.parent ? D.graphs[g.parent] : null; }
  $('crumbs').innerHTML = chain.map((g, i) => i === chain.length - 1 ? '<b>' + esc(g.title) + '</b>'
      : '<a data-g="' + esc(g.id) + '">' + esc(g.title) + '</a>').join(' / ');
  if (select !== undefined && select >= 0) selectNode(select, true); else { draw(); panel(); }
  document.body.setAttribute('data-graph', cur.id);
}
function nodeSvg(n, detail) {
  const cls = 'node ' + n.kind + (n.links ? ' link' : '') + (n.id === sel ? ' sel' : '');
  let s = '<g class="' + cls + '" data-id="' + n.id + '" transform="translate(' + n.x + ',' + n.y + ')">' +
      '<rect width="' + n.w + '" height="' + n.h + '" rx="5"></rect>';
  if (detail) {
    let y = 16;
    const line = (t, c) => { s += '<text x="10" y="' + y + '"' + (c ? ' class="' + c + '"' : '') + '>' + esc(t) + '</text>'; y += 14; };
    line(n.op + (n.count ? ' (' + n.count + ')' : ''), 'op');
    if (n.name && !n.count) line(n.name);
    if (n.attrs) line(n.attrs.length > 48 ? n.attrs.slice(0, 47) + '…' : n.attrs);
    if (n.inits) { for (const i of n.inits.slice(0, 4)) line(i); }
  }
  return s + '</g>';
}
function draw() {
  pending = false;
  vp.setAttribute('transform', 'translate(' + view.x + ',' + view.y + ') scale(' + view.k + ')');
  const s = size();
  const x0 = -view.x / view.k, y0 = -view.y / view.k, x1 = x0 + s.w / view.k, y1 = y0 + s.h / view.k;
  const vis = [];
  for (const n of cur.nodes) if (n.x + n.w >= x0 && n.x <= x1 && n.y + n.h >= y0 && n.y <= y1) vis.push(n);
  const LIMIT = 4000, shown = vis.slice(0, LIMIT), detail = shown.length <= 1500 && view.k > 0.3;
  gN.innerHTML = shown.map(n => nodeSvg(n, detail)).join('');
  const on = new Set(shown.map(n => n.id));
  let es = '', count = 0;
  for (const e of cur.edges) {
    if (!on.has(e.from) && !on.has(e.to)) continue;
    if (++count > 6000) break;
    const a = cur.nodes[e.from], b = cur.nodes[e.to];
    const ax = a.x + a.w / 2, ay = a.y + a.h, bx = b.x + b.w / 2, by = b.y, my = (ay + by) / 2;
    es += '<path class="edge" marker-end="url(#arrow)" d="M' + ax + ',' + ay + ' C' + ax + ',' + my + ' ' + bx + ',' + my + ' ' + bx + ',' + by + '"></path>';
    if (detail && (e.type || e.trace)) {
      const lx = (ax + bx) / 2 + 4, ly = my;
      if (e.type) es += '<text class="elabel" x="' + lx + '" y="' + ly + '">' + esc(e.type) + '</text>';
      if (e.trace) es += '<text class="elabel trace" x="' + lx + '" y="' + (ly + 12) + '">' + esc(traceText(e.trace)) + '</text>';
    }
  }
  gE.innerHTML = es;
  const ops = cur.nodes.filter(n => n.kind === 'op' || n.kind === 'group').length;
  $('status').textContent = (cur.kind === 'summary' ? 'summary: ' + ops + ' groups' : ops + ' nodes') + ', ' + cur.edges.length + ' edges' +
      (vis.length > LIMIT ? ' (showing ' + LIMIT + ' of ' + vis.length + ' on screen: zoom in)' : '') + (D.trace ? ' · trace overlay' : '');
}
function redraw() { if (!pending) { pending = true; requestAnimationFrame(draw); } }
function panel() {
  const p = $('panel');
  if (sel < 0) {
    const counts = {};
    for (const n of cur.nodes) if (n.kind === 'op') counts[n.op] = (counts[n.op] || 0) + 1;
    const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]).slice(0, 30);
    p.innerHTML = '<h3>' + esc(cur.title) + '</h3>' +
        (cur.kind === 'summary' ? '<div class="row">A summary by module: double-click a group (or use its link) to open it.</div>' +
         cur.nodes.map(n => '<div class="row"><a data-g="' + esc(n.links[0].graph) + '">' + esc(n.op) + '</a> ' + n.count + ' nodes</div>').join('')
         : rows.map(([op, c]) => '<div class="row">' + esc(op) + ': ' + c + '</div>').join(''));
    return;
  }
  const n = cur.nodes[sel];
  let h = '<h3>' + esc(n.op) + '</h3>';
  if (n.name) h += '<div class="row">name: <b>' + esc(n.name) + '</b></div>';
  if (n.attrs) h += '<div class="row">' + esc(n.attrs) + '</div>';
  if (n.inits) h += '<div class="row">initializers:</div>' + n.inits.map(i => '<div class="row">&nbsp; ' + esc(i) + '</div>').join('');
  const ins = cur.edges.filter(e => e.to === sel), outs = cur.edges.filter(e => e.from === sel);
  const edgeRow = e => '<div class="row">&nbsp; ' + esc(e.value || '') + (e.type ? ': ' + esc(e.type) : '') +
      (e.trace ? '<br>&nbsp;&nbsp; <span style="color:#8a3ffc">' + esc(traceText(e.trace)) + (e.trace.values ? ' [' + e.trace.values.slice(0, 6).map(fmt).join(', ') + (e.trace.truncated ? ', …' : '') + ']' : '') + '</span>' : '') + '</div>';
  if (ins.length) h += '<div class="row">inputs:</div>' + ins.map(edgeRow).join('');
  if (outs.length) h += '<div class="row">outputs:</div>' + outs.map(edgeRow).join('');
  if (n.links) h += '<div class="row">' + n.links.map(l => '<button data-g="' + esc(l.graph) + '">open ' + esc(l.label) + '</button>').join('') + '</div>';
  p.innerHTML = h;
}
function selectNode(i, center) {
  sel = i;
  if (center && i >= 0) {
    const n = cur.nodes[i], s = size();
    view.k = Math.max(view.k, 0.8);
    view.x = s.w / 2 - (n.x + n.w / 2) * view.k;
    view.y = s.h / 2 - (n.y + n.h / 2) * view.k;
  }
  draw();
  panel();
}
function search(q) {
  q = q.trim().toLowerCase();
  if (!q) return;
  const hits = [];
  for (const g of Object.values(D.graphs)) {
    if (g.kind === 'summary') continue;
    for (const n of g.nodes) {
      if (n.kind !== 'op') continue;
      const hay = ((n.name || '') + ' ' + n.op).toLowerCase();
      let why = hay.includes(q) ? '' : null;
      if (why === null) for (const e of g.edges) if (e.from === n.id && (e.value || '').toLowerCase().includes(q)) { why = 'output ' + e.value; break; }
      if (why !== null) hits.push([g, n, why]);
      if (hits.length >= 200) break;
    }
    if (hits.length >= 200) break;
  }
  $('panel').innerHTML = '<h3>' + hits.length + (hits.length >= 200 ? '+' : '') + ' results for “' + esc(q) + '”</h3>' +
      hits.map(([g, n, why]) => '<div class="row"><a data-g="' + esc(g.id) + '" data-n="' + n.id + '">' + esc(n.op) + ' ' + esc(n.name || '') + '</a>' +
          (why ? ' (' + esc(why) + ')' : '') + '<br>&nbsp; in ' + esc(g.title) + '</div>').join('');
  return hits;
}
document.addEventListener('click', ev => {
  const a = ev.target.closest('[data-g]');
  if (a) { open(a.getAttribute('data-g'), a.hasAttribute('data-n') ? +a.getAttribute('data-n') : undefined); return; }
  const g = ev.target.closest('.node');
  if (g && !moved) selectNode(+g.getAttribute('data-id'), false);
});
svg.addEventListener('dblclick', ev => {
  const g = ev.target.closest('.node');
  if (!g) return;
  const n = cur.nodes[+g.getAttribute('data-id')];
  if (n.links) open(n.links[0].graph);
});
let drag = null, moved = false;
svg.addEventListener('mousedown', ev => { drag = {x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y}; moved = false; });
window.addEventListener('mousemove', ev => {
  if (!drag) return;
  const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
  view.x = drag.vx + dx; view.y = drag.vy + dy; redraw();
});
window.addEventListener('mouseup', () => { drag = null; });
svg.addEventListener('wheel', ev => {
  ev.preventDefault();
  const r = svg.getBoundingClientRect(), mx = ev.clientX - r.left, my = ev.clientY - r.top;
  const f = Math.exp(-ev.deltaY * 0.0015), k = Math.min(4, Math.max(0.005, view.k * f));
  view.x = mx - (mx - view.x) * k / view.k; view.y = my - (my - view.y) * k / view.k; view.k = k;
  redraw();
}, {passive: false});
window.addEventListener('resize', redraw);
$('search').addEventListener('keydown', ev => { if (ev.key === 'Enter') search(ev.target.value); });
// Deep links: #graph=ID, #select=NODE_NAME, #search=TEXT (also used by the tests).
function fromHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  open(h.get('graph') && D.graphs[h.get('graph')] ? h.get('graph') : D.root);
  if (h.get('select')) {
    const i = cur.nodes.findIndex(n => n.name === h.get('select'));
    if (i >= 0) selectNode(i, true);
  }
  if (h.get('search')) { $('search').value = h.get('search'); search(h.get('search')); }
  document.body.setAttribute('data-ready', '1');
}
window.addEventListener('hashchange', fromHash);
fromHash();
</script></body></html>
)js";

std::string dot_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string html_page(const Json& views) {
  std::string data = views.dump(-1, ' ', false, Json::error_handler_t::replace);
  // Inside <script>, "</" would end the element: JSON allows "<\/".
  std::string safe;
  safe.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '<' && i + 1 < data.size() && data[i + 1] == '/') {
      safe += "<\\/";
      ++i;
    } else {
      safe += data[i];
    }
  }
  return std::string(kHead) + safe + kScript;
}

std::string dot_text(const Json& views) {
  const Json& g = views["graphs"][views["root"].get<std::string>()];
  std::ostringstream out;
  out << "digraph oxs {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", "
         "fillcolor=\"#e8f0fe\", color=\"#4a6fa5\", fontname=\"Helvetica\", fontsize=10];\n"
         "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#8a8a8a\"];\n";
  for (const Json& n : g["nodes"]) {
    std::string label = n["op"].get<std::string>();
    if (n.contains("count")) label += " (" + std::to_string(n["count"].get<int64_t>()) + " nodes)";
    if (n.contains("name") && !n.contains("count")) label += "\n" + n["name"].get<std::string>();
    if (n.contains("attrs")) label += "\n" + n["attrs"].get<std::string>();
    if (n.contains("inits")) {
      for (const Json& i : n["inits"]) label += "\n" + i.get<std::string>();
    }
    const std::string kind = n["kind"].get<std::string>();
    const char* fill = kind == "input"    ? "#e6f4ea"
                       : kind == "output" ? "#fdecea"
                       : kind == "group"  ? "#fff4d6"
                                          : "#e8f0fe";
    out << "  n" << n["id"].get<int64_t>() << " [label=" << dot_quote(label) << ", fillcolor=\""
        << fill << "\"];\n";
  }
  for (const Json& e : g["edges"]) {
    std::string label = e.value("value", std::string());
    if (e.contains("type")) label += (label.empty() ? "" : "\n") + e["type"].get<std::string>();
    if (e.contains("trace") && e["trace"].contains("stats")) {
      const Json& s = e["trace"]["stats"];
      label += "\nmin " + s["min"].dump() + " max " + s["max"].dump();
    }
    out << "  n" << e["from"].get<int64_t>() << " -> n" << e["to"].get<int64_t>()
        << " [label=" << dot_quote(label) << "];\n";
  }
  out << "}\n";
  return out.str();
}

std::string dot_to_svg(const std::string& dot) {
  namespace fs = std::filesystem;
  std::string dir_pattern = (fs::temp_directory_path() / "oxs_viz_XXXXXX").string();
  if (!mkdtemp(dir_pattern.data()))
    throw Error(ErrorKind::IO, "cannot create a temporary directory");
  const fs::path dir = dir_pattern;
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};
  const std::string in = (dir / "graph.dot").string(), out = (dir / "graph.svg").string(),
                    err = (dir / "stderr").string();
  std::ofstream(in, std::ios::binary) << dot;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> storage{"dot", "-Tsvg", in, "-o", out};
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "dot", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw Error(ErrorKind::IO,
                "cannot run Graphviz's `dot` for SVG output (install Debian's graphviz, as "
                "scripts/install-deps does), or write .html or .dot instead");
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream svg(out, std::ios::binary);
  std::stringstream ss;
  ss << svg.rdbuf();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || ss.str().empty()) {
    std::ifstream e(err);
    std::string first;
    std::getline(e, first);
    throw Error(ErrorKind::IO, "Graphviz's dot failed: " + first);
  }
  return ss.str();
}

}  // namespace oxs::cli::viz
