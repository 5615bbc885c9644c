// `oxs viz`: the HTML page checked in a real browser (Debian's headless
// Chromium: the DOM after the page's script ran, and a screenshot), the SVG
// laid out by Graphviz, the trace overlay, subgraphs and functions, and a
// 100,000-node model shown as a summary by module. Chromium and Graphviz are
// installed by scripts/install-deps; a missing one fails these tests.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "oxs/ir/model.h"
#include "oxs/onnx/model_io.h"
#include "run_oxs.h"

namespace oxs::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kMlp = source_path("examples/models/mlp.onnx");

std::string shell(const std::string& cmd) {
  return shell_output(cmd + " 2>/dev/null");
}

std::string chromium() {
  for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (std::filesystem::exists(c)) return c;
  }
  ADD_FAILURE() << "Chromium is missing: scripts/install-deps installs Debian's chromium";
  return "chromium";
}

// The page's DOM after its script ran, at `url` (with a #fragment).
std::string dom_of(const TempDir& dir, const std::string& page, const std::string& fragment) {
  return shell(chromium() +
               " --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage "
               "--user-data-dir=" +
               dir.file("profile") + " --virtual-time-budget=5000 --window-size=1280,800 " +
               "--dump-dom 'file://" + page + fragment + "'");
}

// Width and height from a PNG's IHDR chunk (0, 0 when not a PNG).
std::pair<uint32_t, uint32_t> png_size(const std::string& bytes) {
  if (bytes.size() < 24 || bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return {0, 0};
  auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

TEST(CliViz, HtmlPageShowsTheGraphInChromium) {
  TempDir dir;
  const std::string page = dir.file("mlp.html");
  RunResult r = run_oxs({"viz", kMlp, "-o", page});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string dom = dom_of(dir, page, "#select=fc1");
  ASSERT_TRUE(contains(dom, "data-ready=\"1\"")) << "the page's script did not finish:\n" << dom;
  // Every op drawn, with its name; initializers folded into their consumer.
  for (const char* text :
       {">Gemm</text>", ">Relu</text>", ">Softmax</text>", ">fc1</text>", ">relu1</text>",
        ">W1: float[8,4]</text>", ">transB=1</text>", ">float[N,8]</text>"}) {
    EXPECT_TRUE(contains(dom, text)) << text;
  }
  // The selected node's details in the side panel.
  EXPECT_TRUE(contains(dom, "name: <b>fc1</b>")) << dom;
  EXPECT_TRUE(contains(dom, "4 nodes, 5 edges")) << dom;
  // No initializer is drawn as a box of its own.
  EXPECT_FALSE(contains(dom, ">W1</text>")) << dom;

  // A screenshot of the page, larger (more content) than one of an empty page.
  std::ofstream(dir.file("blank.html")) << "<html><body></body></html>";
  const std::string flags =
      " --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage "
      "--user-data-dir=" +
      dir.file("profile") + " --virtual-time-budget=5000 --window-size=1280,800 ";
  shell(chromium() + flags + "--screenshot=" + dir.file("mlp.png") + " 'file://" + page + "'");
  shell(chromium() + flags + "--screenshot=" + dir.file("blank.png") + " 'file://" +
        dir.file("blank.html") + "'");
  const std::string png = slurp(dir.file("mlp.png")), blank = slurp(dir.file("blank.png"));
  EXPECT_EQ(png_size(png), (std::pair<uint32_t, uint32_t>{1280, 800}));
  EXPECT_GT(png.size(), 2 * blank.size()) << "the screenshot looks empty";
}

TEST(CliViz, SearchFindsNodesByNameAndOutputValue) {
  TempDir dir;
  const std::string page = dir.file("mlp.html");
  ASSERT_EQ(run_oxs({"viz", kMlp, "-o", page}).code, 0);
  std::string dom = dom_of(dir, page, "#search=logits");
  EXPECT_TRUE(contains(dom, "1 results for “logits”")) << dom;
  EXPECT_TRUE(contains(dom, "(output logits)")) << dom;
  dom = dom_of(dir, page, "#search=gemm");
  EXPECT_TRUE(contains(dom, "2 results for “gemm”")) << dom;
}

TEST(CliViz, TraceValuesOverlaidOnEdges) {
  TempDir dir;
  RunResult r =
      run_oxs({"run", kMlp, "--input", "X=[[1,2,3,4]]", "--trace-json", dir.file("trace.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string page = dir.file("trace.html");
  r = run_oxs({"viz", kMlp, "-o", page, "--trace", dir.file("trace.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string dom = dom_of(dir, page, "#select=softmax");
  EXPECT_TRUE(contains(dom, "trace overlay")) << dom;
  EXPECT_TRUE(std::regex_search(dom, std::regex("class=\"elabel trace\"[^>]*>min [-0-9.e]+ max")))
      << dom;
  // The softmax output sums to one: its max is below 1 and its min above 0.
  EXPECT_TRUE(contains(dom, "Y: float[N,3]")) << dom;
  r = run_oxs({"viz", kMlp, "-o", page, "--trace", kMlp});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "not a trace written by `oxs run --trace-json`")) << r.err;
}

TEST(CliViz, SubgraphsAndFunctionsOpenAsViews) {
  TempDir dir;
  const std::string page = dir.file("if.html");
  RunResult r =
      run_oxs({"viz", "/usr/share/libonnx-testdata/data/node/test_if/model.onnx", "-o", page});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string dom = dom_of(dir, page, "");
  EXPECT_TRUE(contains(dom, ">If</text>")) << dom;
  EXPECT_TRUE(contains(dom, "class=\"node op link\"")) << dom;  // drawn as openable
  dom = dom_of(dir, page, "#graph=g1");
  EXPECT_TRUE(contains(dom, "data-graph=\"g1\"")) << dom;
  EXPECT_TRUE(contains(dom, ">Constant</text>")) << dom;
  EXPECT_TRUE(std::regex_search(dom, std::regex("<a data-g=\"g0\">[^<]+</a> / <b>"))) << dom;

  ASSERT_EQ(run_oxs({"compile", source_path("examples/hardmax.py"), "-o", dir.file("h.onnx")}).code,
            0);
  ASSERT_EQ(run_oxs({"viz", dir.file("h.onnx"), "-o", dir.file("h.html")}).code, 0);
  dom = dom_of(dir, dir.file("h.html"), "#graph=f:this.onnx_hardmax");
  EXPECT_TRUE(contains(dom, ">ArgMax</text>")) << dom;
  EXPECT_TRUE(contains(dom, ">OneHot</text>")) << dom;
}

TEST(CliViz, SvgThroughGraphvizAndDot) {
  TempDir dir;
  RunResult r = run_oxs({"viz", kMlp, "-o", dir.file("mlp.svg")});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = slurp(dir.file("mlp.svg"));
  EXPECT_TRUE(contains(svg, "<svg")) << svg.substr(0, 200);
  for (const char* text :
       {">Gemm</text>", ">fc1</text>", ">W1: float[8,4]</text>", ">Softmax</text>"}) {
    EXPECT_TRUE(contains(svg, text)) << text;
  }
  r = run_oxs({"viz", kMlp, "-o", dir.file("mlp.dot")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(slurp(dir.file("mlp.dot")), "digraph oxs {"));
  EXPECT_EQ(run_oxs({"viz", kMlp, "-o", dir.file("mlp.png")}).code, 2);
}

TEST(CliViz, HundredThousandNodesGetASummaryByModule) {
  TempDir dir;
  {
    ir::Model m;
    m.ir_version = 8;
    m.opset_imports.push_back({"", 17});
    m.graph = std::make_unique<ir::Graph>("big");
    ir::Graph& g = *m.graph;
    ir::Value* x = g.add_input("X", ir::Type::tensor(ir::DataType::Float, ir::Shape::of({4})));
    ir::Value* cur = x;
    for (int i = 0; i < 100000; ++i) {
      std::array<ir::Value*, 2> ins{cur, x};
      ir::Node* n = g.create_node("Add", ins);
      n->set_name("/block" + std::to_string(i / 1000) + "/layer" + std::to_string(i / 100 % 10) +
                  "/Add_" + std::to_string(i));
      cur = n->output(0);
    }
    g.add_output(cur);
    onnx::save(m, dir.file("big.onnx"));
  }
  const std::string page = dir.file("big.html");
  RunResult r = run_oxs({"viz", dir.file("big.onnx"), "-o", page});
  ASSERT_EQ(r.code, 0) << r.err;
  // 100 blocks on the first view; each opens to its 1000 nodes.
  EXPECT_TRUE(contains(r.out, "the first with 100 boxes")) << r.out;
  std::string dom = dom_of(dir, page, "");
  EXPECT_TRUE(contains(dom, "summary: 100 groups")) << dom.substr(0, 2000);
  EXPECT_TRUE(contains(dom, ">block0 (1000)</text>")) << dom.substr(0, 2000);
  EXPECT_TRUE(contains(dom, ">block99</a> 1000 nodes")) << dom.substr(0, 2000);  // the panel
  dom = dom_of(dir, page, "#search=Add_99999");
  EXPECT_TRUE(contains(dom, "1 results for “add_99999”")) << dom.substr(0, 2000);
  EXPECT_TRUE(contains(dom, "in big / block99<")) << dom.substr(0, 2000);
}

}  // namespace
}  // namespace oxs::testing
