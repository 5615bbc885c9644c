// Audit of type and shape inference for the op versions of oxs's own table
// (ai.onnx 18-28, ai.onnx.ml 4-5, ai.onnx.preview 1): every ONNX 1.23 backend
// node model that uses such a version is inferred strictly (unknown ops are
// errors) with every inferred type erased first, and each model output must
// get the element type and the static shape of the expected output tensor in
// test_data_set_0. Outputs whose shape depends on the data may keep
// non-static dims (named below); every table op version must be exercised by
// some backend model, or be named with the reason it is not.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <set>

#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"
#include "oxs/onnx/value_io.h"
#include "oxs/schema/registry.h"

namespace oxs::infer {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBackend123 = OXS_ONNX_BACKEND_1_23_DIR "/node";

bool from_table(const schema::OpSignature& s) {
  return (s.domain.empty() && s.since_version >= 18) ||
         (s.domain == "ai.onnx.ml" && s.since_version >= 4) || s.domain == "ai.onnx.preview";
}

std::string key_of(const schema::OpSignature& s) {
  return (s.domain.empty() ? std::string() : s.domain + ".") + s.name + "-" +
         std::to_string(s.since_version);
}

// Ops whose output dims depend on the values (not the shapes) of an input:
// when that input is fed at run time (a graph input without initializer),
// the model's outputs may keep dims unknown or symbolic, and may even lack a
// rank when the rule cannot know it; the element type must still match and
// every dim that is known must be right. Op -> the inputs and why.
struct ValueDependence {
  std::vector<size_t> inputs;
  const char* why;
};
const std::map<std::string, ValueDependence>& value_dependent_ops() {
  static const std::map<std::string, ValueDependence> m = {
      {"Reshape", {{1}, "the target shape is the values of input 'shape'"}},
      {"Squeeze", {{1}, "the squeezed axes are the values of input 'axes'"}},
      {"Unsqueeze", {{1}, "the inserted axes are the values of input 'axes'"}},
      {"Expand", {{1}, "the target shape is the values of input 'shape'"}},
      {"Tile", {{1}, "the repeats are the values of input 'repeats'"}},
      {"Slice", {{1, 2, 3, 4}, "starts, ends, axes and steps are input values"}},
      {"Pad", {{1, 3}, "the pads (and padded axes) are input values"}},
      {"Split", {{1}, "the part lengths are the values of input 'split'"}},
      {"TopK", {{1}, "k is the value of input 'K'"}},
      {"Range", {{0, 1, 2}, "the length follows from start, limit and delta's values"}},
      {"ConstantOfShape", {{0}, "the shape is the values of the input"}},
      {"Resize", {{1, 2, 3}, "the output size follows from roi, scales or sizes values"}},
      {"CenterCropPad", {{1}, "the target lengths are the values of input 'shape'"}},
      {"Col2Im", {{1, 2}, "image_shape and block_shape are input values"}},
      {"AffineGrid", {{1}, "the grid size is the values of input 'size'"}},
      {"DFT", {{1, 2}, "dft_length and axis are input values"}},
      {"MaxUnpool", {{2}, "the output size is the values of input 'output_shape'"}},
      {"OneHot", {{1}, "the depth is the value of input 'depth'"}},
      {"Loop", {{0, 1}, "the trip count and condition are input values"}},
      {"StringSplit", {{0}, "the number of substrings depends on the strings"}},
      {"ImageDecoder", {{0}, "the image size is in the encoded bytes"}},
      {"ReduceMax", {{1}, "the reduced axes are the values of input 'axes'"}},
      {"ReduceMin", {{1}, "the reduced axes are the values of input 'axes'"}},
      {"ReduceSum", {{1}, "the reduced axes are the values of input 'axes'"}},
      {"ReduceMean", {{1}, "the reduced axes are the values of input 'axes'"}},
      {"ReduceProd", {{1}, "the reduced axes are the values of input 'axes'"}},
      {"ReduceL1", {{1}, "the reduced axes are the values of input 'axes'"}},
      {"ReduceL2", {{1}, "the reduced axes are the values of input 'axes'"}},
      {"ReduceLogSum", {{1}, "the reduced axes are the values of input 'axes'"}},
      {"ReduceLogSumExp", {{1}, "the reduced axes are the values of input 'axes'"}},
      {"ReduceSumSquare", {{1}, "the reduced axes are the values of input 'axes'"}},
  };
  return m;
}

// Table op versions no ONNX 1.23 backend model exercises (at its own opset
// or rewritten to an older one), and why.
// Each one not deprecated is checked on a one-node model below
// (TableOpVersionsWithoutBackendModels).
const std::map<std::string, std::string>& without_backend_model() {
  static const std::map<std::string, std::string> m = {
      {"GlobalLpPool-22", "the backend tests of GlobalLpPool import opsets before 22"},
      {"GroupNormalization-18",
       "deprecated in the spec (replaced by GroupNormalization-21): a node is refused"},
      {"If-21", "the backend tests of If import opsets before 21 or at 25+ (If-25)"},
      {"If-23", "the backend tests of If import opsets before 21 or at 25+ (If-25)"},
      {"If-24", "the backend tests of If import opsets before 21 or at 25+ (If-25)"},
      {"If-25", "the backend tests of If import opsets before 21"},
      {"MaxRoiPool-22", "the backend tests of MaxRoiPool import opsets before 22"},
      {"Multinomial-22", "random draws: ONNX ships no backend test for Multinomial"},
      {"RandomNormal-22", "random draws: ONNX ships no backend test for RandomNormal"},
      {"RandomNormalLike-22", "random draws: ONNX ships no backend test for RandomNormalLike"},
      {"RandomUniform-22", "random draws: ONNX ships no backend test for RandomUniform"},
      {"ai.onnx.ml.TreeEnsembleClassifier-5", "deprecated (removed) in ai.onnx.ml 5: no rule"},
      {"ai.onnx.ml.TreeEnsembleRegressor-5", "deprecated (removed) in ai.onnx.ml 5: no rule"},
  };
  return m;
}

// The table op version each node of `m` resolves to (main graph and
// subgraphs).
std::set<std::string> table_versions_used(const ir::Model& m) {
  std::map<std::string, int64_t> opsets;
  for (const auto& o : m.opset_imports) {
    opsets[std::string(schema::canonical_domain(o.domain))] = o.version;
  }
  std::set<std::string> used;
  m.graph->for_each_node_recursive([&](ir::Node* n) {
    const std::string domain(schema::canonical_domain(n->domain()));
    auto it = opsets.find(domain);
    if (it == opsets.end()) return;
    const schema::OpSignature* s = schema::lookup(domain, n->op_type(), it->second);
    if (s && from_table(*s)) used.insert(key_of(*s));
  });
  return used;
}

// Older ai.onnx opsets (18 and up) at which some op of `m` has another table
// version: the model is inferred at those too (the same data holds there).
std::set<int64_t> older_opsets(const ir::Model& m, int64_t opset) {
  std::set<int64_t> out;
  m.graph->for_each_node_recursive([&](ir::Node* n) {
    if (!schema::canonical_domain(n->domain()).empty()) return;
    for (int64_t v : schema::op_versions("", n->op_type())) {
      if (v >= 18 && v < opset) out.insert(v);
    }
  });
  return out;
}

// Values whose shapes depend on run-time data. Run-time data is a graph
// input fed at run time or a value computed from one (Shape and Size read
// only shapes, so their outputs are not). A value-dependent op whose
// value-dependent input (value_dependent_ops) holds run-time data makes
// outputs of value-dependent shape, and so does every node reading one. A
// node with subgraphs counts what its subgraphs read (If branches read outer
// values).
struct Flow {
  std::set<const ir::Value*> runtime, shaped_by_data;
};

// Marks `g`'s node outputs; sets `reads_runtime` / `reads_shaped` when some
// node of `g` reads such a value.
void mark_flow(const ir::Graph& g, Flow& flow, bool& reads_runtime, bool& reads_shaped) {
  for (const ir::Node* n : g.nodes()) {
    bool runtime = false, shaped = false;
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      runtime |= n->input(i) && flow.runtime.count(n->input(i));
      shaped |= n->input(i) && flow.shaped_by_data.count(n->input(i));
    }
    for (const ir::Graph* sub : n->subgraphs()) mark_flow(*sub, flow, runtime, shaped);
    if (auto it = value_dependent_ops().find(n->op_type()); it != value_dependent_ops().end()) {
      for (size_t i : it->second.inputs) {
        shaped |= i < n->num_inputs() && n->input(i) && flow.runtime.count(n->input(i));
      }
    }
    reads_runtime |= runtime;
    reads_shaped |= shaped;
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      if (!n->output(i)) continue;
      if (runtime && n->op_type() != "Shape" && n->op_type() != "Size") {
        flow.runtime.insert(n->output(i));
      }
      if (shaped) flow.shaped_by_data.insert(n->output(i));
    }
  }
}

// The model outputs whose shapes depend on run-time data.
std::set<const ir::Value*> value_dependent_outputs(const ir::Model& m) {
  Flow flow;
  for (const ir::Value* v : m.graph->inputs()) {
    if (!v->const_value()) flow.runtime.insert(v);
  }
  bool runtime = false, shaped = false;
  mark_flow(*m.graph, flow, runtime, shaped);
  std::set<const ir::Value*> out;
  for (const ir::Value* v : m.graph->outputs()) {
    if (flow.shaped_by_data.count(v)) out.insert(v);
  }
  return out;
}

// Compares the inferred type of one model output with the expected value:
// "" when they agree, else what differs.
std::string compare_output(const ir::Type& inferred, const ir::Type& declared,
                           const fs::path& expected_file, bool value_dependent) {
  onnx::ValueData v = onnx::load_value(expected_file.string(), declared);
  const ir::Type* t = &inferred;
  const onnx::ValueData* d = &v;
  if (declared.kind() == ir::Type::Kind::Optional) {
    if (t->kind() != ir::Type::Kind::Optional || !t->element()) {
      return "inferred " + t->to_string() + ", expected " + declared.to_string();
    }
    t = t->element();
    if (d->items.empty()) return "";
    d = &d->items[0];
  }
  if (declared.kind() == ir::Type::Kind::Sequence ||
      (declared.kind() == ir::Type::Kind::Optional && declared.element() &&
       declared.element()->kind() == ir::Type::Kind::Sequence)) {
    if (t->kind() != ir::Type::Kind::Sequence || !t->element()) {
      return "inferred " + t->to_string() + ", expected a sequence";
    }
    if (d->items.empty()) return "";
    if (t->element()->elem_type() != d->items[0].tensor->dtype()) {
      return "inferred " + t->to_string() + ", expected elements of type " +
             std::string(ir::dtype_name(d->items[0].tensor->dtype()));
    }
    return "";
  }
  if (d->kind != onnx::ValueData::Kind::Tensor || !d->tensor) return "";  // maps: type only
  const ir::Tensor& x = *d->tensor;
  ir::DataType want = x.dtype();
  // numpy has no bfloat16: the test data holds its bits as uint16.
  if (declared.is_tensor() && declared.elem_type() == ir::DataType::BFloat16 &&
      want == ir::DataType::Uint16) {
    want = ir::DataType::BFloat16;
  }
  const std::string expected = ir::Type::tensor(want, ir::Shape::of(x.dims())).to_string();
  if (!t->is_tensor() || t->elem_type() != want) {
    return "inferred " + t->to_string() + ", expected " + expected;
  }
  if (!t->shape()) {
    return value_dependent ? ""
                           : "inferred " + t->to_string() + " (no shape), expected " + expected;
  }
  const ir::Shape& s = *t->shape();
  if (s.rank() != x.dims().size()) return "inferred " + t->to_string() + ", expected " + expected;
  for (size_t i = 0; i < s.rank(); ++i) {
    if (s[i].is_known() ? s[i].value() != x.dims()[i] : !value_dependent) {
      return "inferred " + t->to_string() + ", expected " + expected;
    }
  }
  return "";
}

struct Tally {
  size_t models = 0, runs = 0, older_runs = 0, outputs = 0, value_dependent_outputs = 0,
         mismatches = 0;
  std::map<std::string, size_t> checked;  // table op version -> passing runs
};

// Infers `dir`'s model (at `opset` when > 0) with every inferred type
// erased and compares its outputs. With `older` set, a model the older
// opset rejects is not applicable (returns false) rather than a failure.
bool check_model(const fs::path& dir, int64_t opset, bool older, Tally& tally) {
  const std::string name =
      dir.filename().string() + (opset > 0 ? " at opset " + std::to_string(opset) : std::string());
  ir::Model model = onnx::load((dir / "model.onnx").string());
  if (opset > 0) {
    for (ir::OpsetImport& o : model.opset_imports) {
      if (schema::canonical_domain(o.domain).empty()) o.version = opset;
    }
  }
  const std::set<std::string> used = table_versions_used(model);
  if (used.empty()) return false;
  const std::set<const ir::Value*> value_dependent = value_dependent_outputs(model);
  std::vector<ir::Type> declared;
  for (const ir::Value* o : model.graph->outputs()) declared.push_back(o->type());
  model.graph->for_each_node_recursive([](ir::Node* n) {
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      if (n->output(i)) n->output(i)->set_type({});
    }
  });
  try {
    run(model);
  } catch (const Error& e) {
    if (older) return false;
    ++tally.mismatches;
    ADD_FAILURE() << name << ": inference failed: " << e.what();
    return false;
  }
  ++tally.runs;
  tally.older_runs += older;
  bool ok = true;
  for (size_t i = 0; i < model.graph->outputs().size(); ++i) {
    const fs::path expected = dir / "test_data_set_0" / ("output_" + std::to_string(i) + ".pb");
    if (!fs::is_regular_file(expected)) continue;
    ++tally.outputs;
    const ir::Value* out = model.graph->outputs()[i];
    const bool shaped_by_data = value_dependent.count(out) > 0;
    tally.value_dependent_outputs += shaped_by_data;
    const std::string diff = compare_output(out->type(), declared[i], expected, shaped_by_data);
    if (!diff.empty()) {
      ok = false;
      ++tally.mismatches;
      ADD_FAILURE() << name << " output " << i << " (" << model.graph->outputs()[i]->name()
                    << "): " << diff;
    }
  }
  if (ok) {
    for (const std::string& k : used) ++tally.checked[k];
  }
  return true;
}

TEST(ModernShapesAudit, EveryTableOpVersionInfersBackendOutputShapes) {
  if (!fs::is_directory(kBackend123)) {
    FAIL() << "ONNX 1.23 backend test data not found at " << kBackend123;
  }
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(kBackend123)) {
    if (fs::is_regular_file(e.path() / "model.onnx")) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  ASSERT_GT(dirs.size(), 1500u);

  Tally tally;
  for (const fs::path& dir : dirs) {
    if (!check_model(dir, 0, false, tally)) continue;
    ++tally.models;
    const ir::Model model = onnx::load((dir / "model.onnx").string());
    int64_t opset = 0;
    for (const auto& o : model.opset_imports) {
      if (schema::canonical_domain(o.domain).empty()) opset = o.version;
    }
    for (int64_t older : older_opsets(model, opset)) check_model(dir, older, true, tally);
  }

  // Every table op version is exercised, or named.
  size_t versions = 0, covered = 0;
  for (const char* domain : {"", "ai.onnx.ml", "ai.onnx.preview"}) {
    for (const schema::OpSignature* s : schema::all_signatures(domain)) {
      if (!from_table(*s)) continue;
      ++versions;
      const std::string k = key_of(*s);
      const bool named = without_backend_model().count(k) > 0;
      if (tally.checked.count(k)) {
        ++covered;
        EXPECT_FALSE(named) << k << " is checked on backend models now: drop it from "
                            << "without_backend_model()";
      } else {
        EXPECT_TRUE(named) << k << " is checked on no backend model and not named";
      }
    }
  }
  std::cout << versions << " table op versions, " << covered << " checked on " << tally.models
            << " backend models (" << tally.runs << " inference runs, " << tally.older_runs
            << " at an older opset); " << tally.outputs << " outputs compared ("
            << tally.value_dependent_outputs << " with value-dependent dims), " << tally.mismatches
            << " mismatches\n";
  EXPECT_EQ(tally.mismatches, 0u);
}

// One-node models for the op versions named in without_backend_model (those
// with a rule): the inferred output type must be the expected one.
struct Synthetic {
  std::string key;  // the op version, as in without_backend_model()
  std::string op;
  int64_t opset;
  std::vector<ir::Type> inputs;
  std::function<void(ir::Node*)> set_attrs;  // may be empty
  std::string expected;                      // the first output's inferred type
};

std::unique_ptr<ir::Graph> constant_branch(const char* name, float value) {
  auto g = std::make_unique<ir::Graph>();
  ir::Node* c = g->create_node("Constant", {});
  const float values[] = {value, value};
  auto t = std::make_shared<ir::Tensor>(ir::Tensor::from<float>(ir::DataType::Float, {2}, values));
  c->set_attr(ir::Attr::of_tensor("value", t));
  c->output(0)->set_name(name);
  g->add_output(c->output(0));
  return g;
}

TEST(ModernShapesAudit, TableOpVersionsWithoutBackendModels) {
  using ir::DataType;
  auto f = [](ir::Shape s) { return ir::Type::tensor(DataType::Float, std::move(s)); };
  std::vector<Synthetic> cases = {
      {"GlobalLpPool-22", "GlobalLpPool", 22, {f({2, 3, 4, 5})}, nullptr, "float[2,3,1,1]"},
      {"MaxRoiPool-22",
       "MaxRoiPool",
       22,
       {f({1, 3, 8, 8}), f({2, 5})},
       [](ir::Node* n) {
         n->set_attr(ir::Attr::of_ints("pooled_shape", {2, 2}));
       },
       "float[2,3,2,2]"},
      {"Multinomial-22",
       "Multinomial",
       22,
       {f({3, 5})},
       [](ir::Node* n) { n->set_attr(ir::Attr::of_int("sample_size", 4)); },
       "int32[3,4]"},
      {"RandomNormal-22",
       "RandomNormal",
       22,
       {},
       [](ir::Node* n) {
         n->set_attr(ir::Attr::of_ints("shape", {2, 3}));
       },
       "float[2,3]"},
      {"RandomNormalLike-22", "RandomNormalLike", 22, {f({2, 3})}, nullptr, "float[2,3]"},
      {"RandomUniform-22",
       "RandomUniform",
       22,
       {},
       [](ir::Node* n) {
         n->set_attr(ir::Attr::of_ints("shape", {2, 3}));
         n->set_attr(ir::Attr::of_int("dtype", 11));
       },
       "double[2,3]"},
  };
  for (int64_t v : {21, 23, 24, 25}) {
    cases.push_back({"If-" + std::to_string(v),
                     "If",
                     v,
                     {ir::Type::tensor(DataType::Bool, ir::Shape{})},
                     nullptr,
                     "float[2]"});
  }
  std::set<std::string> seen;
  for (const Synthetic& c : cases) {
    SCOPED_TRACE(c.key);
    ir::Model m;
    m.opset_imports = {{"", c.opset}};
    ir::Graph& g = *m.graph;
    std::vector<ir::Value*> ins;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      ins.push_back(g.add_input("in" + std::to_string(i), c.inputs[i]));
    }
    ir::Node* n = g.create_node(c.op, ins);
    if (c.set_attrs) c.set_attrs(n);
    if (c.op == "If") {
      n->set_attr(ir::Attr::of_graph("then_branch", constant_branch("then_out", 1)));
      n->set_attr(ir::Attr::of_graph("else_branch", constant_branch("else_out", 2)));
      n->adopt_subgraphs();
    }
    g.add_output(n->output(0));
    ASSERT_TRUE(table_versions_used(m).count(c.key)) << "the model does not use " << c.key;
    run(m);
    EXPECT_EQ(n->output(0)->type().to_string(), c.expected);
    seen.insert(c.key);
  }
  for (const auto& [key, why] : without_backend_model()) {
    if (why.find("deprecated") != std::string::npos) continue;
    EXPECT_TRUE(seen.count(key)) << key << " has no one-node check";
  }
}

}  // namespace
}  // namespace oxs::infer
