// Direct inference rules (infer/direct.cc) must give exactly what libonnx's
// inference functions give: every backend node test model (libonnx's and
// ONNX 1.23's) is inferred with the rules on and off, with all inferred types
// erased first, and every node output's type must be identical (or both runs
// must fail with the same message).
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <set>

#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"

namespace oxs::infer {
namespace {

namespace fs = std::filesystem;

// Erases the types of node outputs and graph outputs (what inference
// produces), then infers; returns the error message or "".
std::string infer_erased(ir::Model& m, bool direct) {
  m.graph->for_each_node_recursive([](ir::Node* n) {
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      if (n->output(i)) n->output(i)->set_type({});
    }
  });
  Options o;
  o.direct_rules = direct;
  o.unknown_ops_are_errors = false;
  try {
    run(m, o);
  } catch (const Error& e) {
    return e.message();
  }
  return {};
}

struct Tally {
  size_t models = 0, compared = 0, direct_ops = 0;
};

void compare_dir(const fs::path& dir, Tally& tally) {
  static const std::set<std::string> kDirectOps = {
      "Identity", "Relu",       "Neg",   "Abs",  "Sigmoid", "Tanh", "Exp", "Log",
      "Sqrt",     "Reciprocal", "Floor", "Ceil", "Add",     "Sub",  "Mul", "Div"};
  std::vector<fs::path> models;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (fs::is_regular_file(e.path() / "model.onnx")) models.push_back(e.path() / "model.onnx");
  }
  std::sort(models.begin(), models.end());
  for (const auto& path : models) {
    SCOPED_TRACE(path.string());
    ir::Model with, without;
    try {
      with = onnx::load(path.string());
      without = onnx::load(path.string());
    } catch (const Error&) {
      continue;  // load errors are onnx/'s tests' business
    }
    ++tally.models;
    std::string e1 = infer_erased(with, true);
    std::string e2 = infer_erased(without, false);
    EXPECT_EQ(e1, e2);
    if (!e1.empty() || !e2.empty()) continue;
    std::vector<ir::Node*> a, b;
    with.graph->for_each_node_recursive([&](ir::Node* n) { a.push_back(n); });
    without.graph->for_each_node_recursive([&](ir::Node* n) { b.push_back(n); });
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) {
      for (size_t i = 0; i < a[k]->num_outputs(); ++i) {
        if (!a[k]->output(i)) continue;
        const ir::Type& x = a[k]->output(i)->type();
        const ir::Type& y = b[k]->output(i)->type();
        EXPECT_TRUE(x == y) << a[k]->op_type() << " output " << i << ": direct " << x.to_string()
                            << ", libonnx " << y.to_string();
        ++tally.compared;
        if (a[k]->domain().empty() && kDirectOps.count(a[k]->op_type()) && !x.is_none()) {
          ++tally.direct_ops;
        }
      }
    }
  }
}

TEST(InferDirectRules, SameTypesAsLibonnxOnBackendModels) {
  Tally tally;
  const fs::path node = "/usr/share/libonnx-testdata/data/node";
  ASSERT_TRUE(fs::is_directory(node)) << "install libonnx-testdata";
  compare_dir(node, tally);
  const fs::path node123 = OXS_ONNX_BACKEND_1_23_DIR "/node";
  ASSERT_TRUE(fs::is_directory(node123)) << "ONNX 1.23 backend test data not found at " << node123;
  compare_dir(node123, tally);
  std::cout << tally.models << " models, " << tally.compared << " outputs compared, "
            << tally.direct_ops << " outputs of ops that have a direct rule\n";
  EXPECT_GT(tally.models, 1000u);
  EXPECT_GT(tally.direct_ops, 200u);
}

ir::Model two_inputs(const char* op, ir::Shape a, ir::Shape b, ir::DataType t) {
  ir::Model m;
  m.opset_imports.push_back({"", 17});
  ir::Graph& g = *m.graph;
  ir::Value* x = g.add_input("x", ir::Type::tensor(t, std::move(a)));
  ir::Value* y = g.add_input("y", ir::Type::tensor(t, std::move(b)));
  std::vector<ir::Value*> in{x, y};
  g.add_output(g.create_node(op, in)->output(0));
  return m;
}

TEST(InferDirectRules, BroadcastMatchesLibonnx) {
  struct Case {
    ir::Shape a, b;
  };
  std::vector<Case> cases = {{{2, 3}, {3}},    {{4, 1, 5}, {3, 1}}, {{}, {7}},
                             {{0, 1}, {1, 4}}, {{2, 3}, {4}},       {{1}, {1}}};
  for (const auto& c : cases) {
    for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
      ir::Model m1 = two_inputs(op, c.a, c.b, ir::DataType::Float);
      ir::Model m2 = two_inputs(op, c.a, c.b, ir::DataType::Float);
      std::string e1 = infer_erased(m1, true), e2 = infer_erased(m2, false);
      EXPECT_EQ(e1, e2) << op << c.a.to_string() << c.b.to_string();
      EXPECT_EQ(m1.graph->outputs()[0]->type().to_string(),
                m2.graph->outputs()[0]->type().to_string());
      EXPECT_TRUE(m1.graph->outputs()[0]->type() == m2.graph->outputs()[0]->type());
    }
  }
  // A mismatch is reported (by libonnx, with its message) in both modes.
  ir::Model bad = two_inputs("Add", {2, 3}, {4}, ir::DataType::Float);
  EXPECT_NE(infer_erased(bad, true), "");
}

}  // namespace
}  // namespace oxs::infer
