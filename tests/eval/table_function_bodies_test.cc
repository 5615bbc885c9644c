// oxs's own function bodies (schema/, for op versions of ai.onnx 18+) run by
// the evaluator on ONNX 1.23's backend node tests: for every test whose
// model uses such an op, the op's kernel is taken away so that its schema
// body runs, and the outputs must match the expected ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "onnx123_gaps.h"
#include "oxs/eval/kernel.h"
#include "oxs/eval/session.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"
#include "oxs/onnx/value_io.h"
#include "oxs/schema/function_body.h"
#include "oxs/schema/registry.h"

namespace oxs::eval {
namespace {

namespace fs = std::filesystem;

// Tests whose outputs are random draws: checked by property (every element
// 0 or 1, and equal to p where p is 0 or 1) instead of value for value.
const std::set<std::string> kRandom = {"test_bernoulli", "test_bernoulli_double",
                                       "test_bernoulli_seed"};

// Backend tests whose table op's body cannot reproduce the expected
// outputs, and why. Each must still fail through the body (a stale entry
// is an error).
const std::map<std::string, std::string>& body_exclusions() {
  static const std::map<std::string, std::string> m = {};
  return m;
}

Value read_value(const fs::path& p, const ir::Type& type) {
  onnx::ValueData d = onnx::load_value(p.string(), type);
  if (d.kind != onnx::ValueData::Kind::Tensor) {
    throw Error(ErrorKind::Unsupported, p.string() + ": not a tensor");
  }
  Tensor t = Tensor::from_ir(std::shared_ptr<const ir::Tensor>(d.tensor));
  // numpy has no bfloat16: the test data holds its bits as uint16.
  if (type.is_tensor() && type.elem_type() == ir::DataType::BFloat16 &&
      t.dtype() == ir::DataType::Uint16) {
    t = t.bitcast(ir::DataType::BFloat16);
  }
  return Value(std::move(t));
}

// Empty when `got` matches `want` (floating types within 1e-3 relative, as
// the conformance runner; 16-bit and narrower floats within their precision).
std::string mismatch(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype()) return "element type differs";
  if (got.dims() != want.dims()) return "shape " + dims_to_string(got.dims());
  const ir::DataType t = got.dtype();
  const bool fp = ir::is_floating(t) || ir::is_low_precision_float(t);
  // Bodies compute 16-bit floats step by step in 16 bits; 8- and 4-bit
  // floats come from casts only and must match exactly.
  const double rel = ir::is_low_precision_float(t)                               ? 0
                     : t == ir::DataType::Float16 || t == ir::DataType::BFloat16 ? 1e-2
                                                                                 : 1e-3;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double x = got.get_as_double(i), y = want.get_as_double(i);
    const bool ok = x == y || (fp && std::isnan(x) && std::isnan(y)) ||
                    (fp && rel > 0 && std::abs(x - y) <= 1e-6 + rel * std::abs(y));
    if (!ok) {
      std::ostringstream os;
      os << "element " << i << " is " << x << ", expected " << y;
      return os.str();
    }
  }
  return {};
}

std::string bernoulli_mismatch(const Tensor& got, const Tensor& p) {
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double v = got.get_as_double(i), q = p.get_as_double(i);
    if ((v != 0 && v != 1) || ((q == 0 || q == 1) && v != q)) {
      return "element " + std::to_string(i) + " is " + std::to_string(v) + " for p " +
             std::to_string(q);
    }
  }
  return {};
}

int64_t opset_of(const ir::Model& m, const std::string& domain) {
  for (const ir::OpsetImport& o : m.opset_imports) {
    if (o.domain == domain || (domain.empty() && o.domain == "ai.onnx")) return o.version;
  }
  return 0;
}

bool from_table(const schema::OpSignature& s) {
  return (s.domain.empty() && s.since_version >= 18) ||
         (s.domain == "ai.onnx.ml" && s.since_version >= 4) || s.domain == "ai.onnx.preview";
}

struct Outcome {
  std::vector<std::string> ops;  // the table function ops the model uses
  std::string failure;           // empty when every output matched
  int body_nodes = 0;            // nodes run inside function bodies
};

// Runs the test in `dir` with the kernels of its table function ops removed.
// With `opset` > 0 the model's ai.onnx import is set to it first (to run
// an older op version on the same data).
Outcome run_with_bodies(const fs::path& dir, int64_t opset_override = 0) {
  Outcome out;
  ir::Model model = onnx::load((dir / "model.onnx").string());
  for (ir::OpsetImport& o : model.opset_imports) {
    if (opset_override > 0 && (o.domain.empty() || o.domain == "ai.onnx")) {
      o.version = opset_override;
    }
  }
  KernelRegistry registry = KernelRegistry::builtin();
  for (const ir::Node* n : model.graph->nodes()) {
    const int64_t opset = opset_of(model, n->domain());
    const schema::OpSignature* s = schema::lookup(n->domain(), n->op_type(), opset);
    if (!s || !from_table(*s) || !schema::body_available(*s)) continue;
    registry.add(s->domain, s->name, int(s->since_version), nullptr);
    out.ops.push_back(s->display_name());
  }
  if (out.ops.empty()) return out;
  SessionOptions options;
  options.registry = &registry;
  options.check_inputs = false;  // as ONNX's harness (castlike feeds 'like' as [1])
  options.trace = [&](const TraceEvent& e) { out.body_nodes += e.depth > 0; };
  Session session(model, options);
  std::vector<const ir::Value*> inputs;
  for (const ir::Value* v : model.graph->inputs()) {
    if (!v->const_value()) inputs.push_back(v);
  }
  const fs::path set = dir / "test_data_set_0";
  std::map<std::string, Value> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const fs::path p = set / ("input_" + std::to_string(i) + ".pb");
    if (fs::exists(p)) feeds[inputs[i]->name()] = read_value(p, inputs[i]->type());
  }
  std::vector<Value> got;
  try {
    got = session.run(feeds);
  } catch (const Error& e) {
    out.failure = std::string("run failed: ") + e.what();
    return out;
  }
  const auto& outputs = model.graph->outputs();
  const std::string name = dir.filename().string();
  for (size_t i = 0; i < outputs.size() && out.failure.empty(); ++i) {
    const Value want =
        read_value(set / ("output_" + std::to_string(i) + ".pb"), outputs[i]->type());
    std::string d;
    if (kRandom.count(name)) {
      d = got[i].tensor().dims() == want.tensor().dims()
              ? bernoulli_mismatch(got[i].tensor(), feeds.begin()->second.tensor())
              : "shape differs";
    } else {
      d = mismatch(got[i].tensor(), want.tensor());
    }
    if (!d.empty()) out.failure = "output '" + outputs[i]->name() + "': " + d;
  }
  return out;
}

TEST(TableFunctionBodies, MatchTheBackendTestsOfOnnx123) {
  const fs::path node_dir = fs::path(OXS_ONNX_BACKEND_1_23_DIR) / "node";
  ASSERT_TRUE(fs::is_directory(node_dir)) << "ONNX 1.23 backend test data not found at " << node_dir
                                          << "; configure with -DOXS_ONNX_BACKEND_1_23=<dir>";
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(node_dir)) {
    const std::string n = e.path().filename().string();
    // The *_expanded tests hold the spec's own inlined body: nothing of ours.
    // The cases of tests/onnx123_gaps.txt are not passed yet.
    if (n.find("_expanded") == std::string::npos && !oxs::testing::is_onnx123_gap(n))
      dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  std::map<std::string, int> passed_per_op;
  int tests = 0, excluded = 0;
  for (const fs::path& d : dirs) {
    Outcome o = run_with_bodies(d);
    if (o.ops.empty()) continue;
    ++tests;
    const std::string name = d.filename().string();
    if (body_exclusions().count(name)) {
      ++excluded;
      EXPECT_NE(o.failure, "") << name << " passes through the body now: drop its exclusion";
      continue;
    }
    EXPECT_EQ(o.failure, "") << name << " (" << o.ops[0] << ")";
    EXPECT_GT(o.body_nodes, 0) << name << ": no function body ran";
    if (o.failure.empty()) {
      for (const std::string& op : o.ops) ++passed_per_op[op];
    }
  }
  std::ostringstream summary;
  for (const auto& [op, n] : passed_per_op) summary << op << ":" << n << " ";
  std::cout << tests << " backend tests run through oxs's bodies (" << excluded
            << " excluded); passed per op: " << summary.str() << "\n";
  // The newest version of every op with a body is exercised by at least one
  // test (the tests use the newest opset; older versions: see below).
  std::map<std::string, const schema::OpSignature*> newest;
  for (const char* domain : {"", "ai.onnx.preview"}) {
    for (const schema::OpSignature* s : schema::all_signatures(domain)) {
      if (from_table(*s) && schema::body_available(*s)) newest[s->domain + "." + s->name] = s;
    }
  }
  for (const auto& [name, s] : newest) {
    EXPECT_TRUE(passed_per_op.count(s->display_name()))
        << s->display_name() << " has a body but no backend test passed through it";
  }
}

// Older op versions with bodies of their own, run on the newest version's
// data at their opset (the data is valid for them: same semantics there).
TEST(TableFunctionBodies, OlderVersionsOnTheSameData) {
  const fs::path node_dir = fs::path(OXS_ONNX_BACKEND_1_23_DIR) / "node";
  const struct {
    const char* test;
    int64_t opset;
    const char* op;
  } cases[] = {
      {"test_mish", 18, "Mish-18"},
      {"test_castlike_FLOAT_to_FLOAT16", 19, "CastLike-19"},
      {"test_castlike_FLOAT_to_FLOAT8E4M3FN", 21, "CastLike-21"},
      {"test_castlike_no_saturate_FLOAT_to_FLOAT8E5M2", 23, "CastLike-23"},
      {"test_castlike_DOUBLE_to_FLOAT", 24, "CastLike-24"},
  };
  for (const auto& c : cases) {
    Outcome o = run_with_bodies(node_dir / c.test, c.opset);
    ASSERT_EQ(o.ops, std::vector<std::string>{c.op}) << c.test;
    EXPECT_EQ(o.failure, "") << c.test << " at opset " << c.opset;
    EXPECT_GT(o.body_nodes, 0) << c.test;
  }
}

}  // namespace
}  // namespace oxs::eval
