// Shared by the ONNX Runtime oracle tests (tests/eval/ort_*.cc): runs a model
// through eval::Session and through ONNX Runtime (tests/eval/ort/run_ort.py on
// the onnxruntime wheel of the project venv, OXS_PYTHON) on the same inputs and compares every
// output: floats within rtol/atol, integers, bools and strings exactly.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "oxs/eval/npy.h"
#include "oxs/eval/session.h"
#include "oxs/eval/summary.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"

namespace oxs::eval::ort_test {

namespace fs = std::filesystem;

inline const fs::path kOrtDir = fs::path(OXS_SOURCE_DIR) / "tests/eval/ort";

inline std::string shell(const std::string& cmd, int* code) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  *code = WEXITSTATUS(pclose(p));
  return out;
}

// "" when `a` (ours) matches `b` (ORT's), else what differs first.
inline std::string compare(const Tensor& a, const Tensor& b, double rtol, double atol) {
  if (a.dtype() != b.dtype())
    return std::string("dtype ") + std::string(ir::dtype_name(a.dtype())) + " vs ORT " +
           std::string(ir::dtype_name(b.dtype()));
  if (a.dims() != b.dims())
    return "shape " + dims_to_string(a.dims()) + " vs ORT " + dims_to_string(b.dims());
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (a.dtype() == DataType::String) {
      if (a.strings()[i] != b.strings()[i])
        return "element " + std::to_string(i) + ": '" + a.strings()[i] + "' vs ORT '" +
               b.strings()[i] + "'";
      continue;
    }
    double x = a.get_as_double(i), y = b.get_as_double(i);
    bool ok = ir::is_floating(a.dtype())
                  ? x == y || (std::isnan(x) && std::isnan(y)) ||
                        std::abs(x - y) <= atol + rtol * std::abs(y)  // x == y: equal infinities
                  : x == y;
    if (!ok)
      return "element " + std::to_string(i) + ": " + std::to_string(x) + " vs ORT " +
             std::to_string(y);
  }
  return {};
}

struct OrtCase {
  std::map<std::string, int64_t> dims;  // values of symbolic input dims
  uint64_t seed = 1;                    // for inputs not in `feeds`
  std::map<std::string, Tensor> feeds;  // explicit inputs (the rest are random)
  double rtol = 1e-3;
  double atol = 1e-5;
  // Outputs not compared, by index (the test says why).
  std::vector<size_t> ignore_outputs;
};

// Runs `model` with both runtimes on the same inputs and expects equal outputs.
inline void check_against_ort(const ir::Model& model, const std::string& name,
                              const OrtCase& c = {}) {
  // The venv's Python: the environment (eval_ort_tests, tests/eval/CMakeLists.txt) or, for
  // other binaries that use this header, compiled in (tests/rewrite/CMakeLists.txt).
  const char* python = std::getenv("OXS_PYTHON");
#ifdef OXS_PYTHON
  if (!python) python = OXS_PYTHON;
#endif
  ASSERT_TRUE(python && fs::exists(python))
      << "OXS_PYTHON names no Python: run scripts/install-deps, and the tests through ctest";
  // The process id keeps concurrent runs apart (several checkouts testing at
  // once on one machine removed each other's files under a fixed name).
  fs::path dir =
      fs::path(::testing::TempDir()) / ("oxs_ort_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / "in");
  std::string path = (dir / "model.onnx").string();
  onnx::save(model, path);
  std::mt19937_64 rng(c.seed);
  std::map<std::string, Value> feeds;
  for (const ir::Value* in : model.graph->inputs()) {
    if (in->const_value()) continue;
    auto given = c.feeds.find(in->name());
    Tensor t =
        given != c.feeds.end() ? given->second : random_tensor(in->name(), in->type(), c.dims, rng);
    write_npy((dir / "in" / (in->name() + ".npy")).string(), t);
    feeds[in->name()] = t;
  }
  Session session(model);
  std::vector<Value> ours = session.run(feeds);
  int code = 0;
  std::string out = shell(std::string(python) + " " + (kOrtDir / "run_ort.py").string() + " " +
                              path + " " + (dir / "in").string() + " " + (dir / "out").string(),
                          &code);
  ASSERT_EQ(code, 0) << name << ": " << out;
  bool same = true;
  for (size_t i = 0; i < ours.size(); ++i) {
    if (std::find(c.ignore_outputs.begin(), c.ignore_outputs.end(), i) != c.ignore_outputs.end())
      continue;
    Tensor theirs = read_npy((dir / "out" / (std::to_string(i) + ".npy")).string());
    std::string diff = compare(ours[i].tensor(), theirs, c.rtol, c.atol);
    EXPECT_EQ(diff, "") << name << " output " << i << " (model and inputs kept in " << dir.string()
                        << ")";
    same = same && diff.empty();
  }
  if (same) fs::remove_all(dir);
}

inline ir::Type tensor_type(DataType dt, std::vector<int64_t> dims) {
  return ir::Type::tensor(dt, ir::Shape::of(dims));
}

// A model with one node `op` (in `domain`) over inputs of the given types; it
// imports ai.onnx at `opset` and, for another domain, that domain at
// `domain_opset`.
inline ir::Model single_op(const std::string& op, std::vector<ir::Type> inputs, int opset,
                           const std::function<void(ir::Node*)>& attrs = {}, size_t outputs = 1,
                           const std::string& domain = "", int domain_opset = 1) {
  ir::Model m;
  m.opset_imports = {{"", opset}};
  if (!domain.empty()) m.opset_imports.push_back({domain, domain_opset});
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> ins;
  for (size_t i = 0; i < inputs.size(); ++i)
    ins.push_back(g.add_input("in" + std::to_string(i), inputs[i]));
  ir::Node* n = g.create_node(op, ins, outputs);
  if (!domain.empty()) n->set_domain(domain);
  if (attrs) attrs(n);
  for (size_t i = 0; i < outputs; ++i) {
    n->output(i)->set_name("out" + std::to_string(i));
    g.add_output(n->output(i));
  }
  return m;
}

inline std::shared_ptr<ir::Tensor> random_weights(std::vector<int64_t> dims, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor t = random_tensor("w", tensor_type(DataType::Float, dims), {}, rng);
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] *= 0.2f;
  return std::make_shared<ir::Tensor>(t.to_ir());
}

}  // namespace oxs::eval::ort_test
