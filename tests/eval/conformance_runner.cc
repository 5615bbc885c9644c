// Runs the ONNX backend tests (libonnx-testdata) through eval::Session:
// every test directory under the given suites, every test_data_set_*, with
// onnx's backend tolerances (rtol 1e-3, atol 1e-7); outputs of the narrow
// types (float8, float8e8m0, float4e2m1, int4/uint4/int2/uint2) must match
// bit for bit, code by code. Tests named in the
// exclusion file are still run; a failing excluded test is reported as
// excluded, a passing one as a stale exclusion (which fails the run, so the
// list stays true). Ends with the line "N passed, N failed"; exits non-zero
// when any test that is not excluded fails.
//
// usage: eval_conformance DATA_DIR EXCLUSIONS_FILE [--filter SUBSTRING] [--verbose] [--fuzz]
//        [--roundtrip [--also-exclude FILE]] [--suites node,simple,...]
//        [--max-excluded-percent P] [--properties FILE]
// --suites names the suite folders under DATA_DIR (default: the four of
// libonnx-testdata; the ONNX 1.23 data has node and simple only).
// --max-excluded-percent fails the run when the exclusions cover more than P
// percent of the node tests.
// --properties FILE names tests whose expected outputs cannot be matched
// value for value (random ops: the reference drew them with numpy's
// generator): one per line, the test id, the property, then why. Such a test
// passes when its outputs have the expected element types and shapes and the
// property holds on every run; it is counted and printed apart. Properties:
//   bernoulli  every element is 0 or 1; an input probability of exactly 0
//              or 1 gives 0 or 1; with a seed attribute on any node, two
//              runs give the same outputs.
// --roundtrip runs each model after decompiling it to ONNX Script and
// compiling that again, against the same expected outputs.
// With --fuzz every model instead runs on random inputs of its declared
// types, of shapes grown by one and shrunk by one: it must end in success or an oxs::Error,
// never a crash or another exception (exclusions do not apply).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "eval/backend_values.h"
#include "oxs/eval/convert/narrow.h"
#include "oxs/eval/session.h"
#include "oxs/eval/summary.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"
#include "oxs/onnx/value_io.h"
#include "oxs/script/compile.h"
#include "oxs/script/decompile/decompile.h"

namespace fs = std::filesystem;
using oxs::Error;
using oxs::ErrorKind;
namespace ir = oxs::ir;
namespace eval = oxs::eval;
using eval::Value;

namespace {

// A value file of the test data (eval/backend_values.h).
Value read_value(const fs::path& p, const ir::Type& type) {
  return oxs::testing::read_backend_value(p.string(), type);
}

// Empty when `got` has the element type and shape of `want`.
std::string same_type_and_shape(const Value& got, const Value& want, const std::string& where) {
  if (!got.is_tensor() || !want.is_tensor()) return where + ": expected a tensor output";
  const eval::Tensor& a = got.tensor();
  const eval::Tensor& b = want.tensor();
  if (a.dtype() != b.dtype()) {
    return where + ": dtype " + std::string(ir::dtype_name(a.dtype())) + ", expected " +
           std::string(ir::dtype_name(b.dtype()));
  }
  if (a.dims() != b.dims()) {
    return where + ": shape " + eval::dims_to_string(a.dims()) + ", expected " +
           eval::dims_to_string(b.dims());
  }
  return {};
}

// Empty string when equal within tolerance, else what differs.
std::string compare(const Value& got, const Value& want, const std::string& where) {
  if (got.kind() != want.kind()) {
    // An optional holding a value compares with its value.
    if (got.is_optional() && got.has_element()) return compare(got.element(), want, where);
    if (want.is_optional() && want.has_element()) return compare(got, want.element(), where);
    return where + ": got " + got.describe() + ", expected " + want.describe();
  }
  if (got.is_sequence()) {
    if (got.items().size() != want.items().size()) {
      return where + ": sequence of " + std::to_string(got.items().size()) + ", expected " +
             std::to_string(want.items().size());
    }
    for (size_t i = 0; i < got.items().size(); ++i) {
      auto d = compare(got.items()[i], want.items()[i], where + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return {};
  }
  if (got.is_optional()) {
    if (got.has_element() != want.has_element()) return where + ": optional presence differs";
    return got.has_element() ? compare(got.element(), want.element(), where) : std::string();
  }
  if (!got.is_tensor()) return {};
  if (auto d = same_type_and_shape(got, want, where); !d.empty()) return d;
  const eval::Tensor& a = got.tensor();
  const eval::Tensor& b = want.tensor();
  if (a.dtype() == ir::DataType::String) {
    for (int64_t i = 0; i < a.numel(); ++i) {
      if (a.strings()[size_t(i)] != b.strings()[size_t(i)]) {
        return where + ": element " + std::to_string(i) + " is '" + a.strings()[size_t(i)] +
               "', expected '" + b.strings()[size_t(i)] + "'";
      }
    }
    return {};
  }
  if (eval::is_narrow_type(a.dtype())) {
    // Float8, float4 and the sub-byte integers compare by code, bit-exact
    // (the sign of zero and of NaN included).
    for (int64_t i = 0; i < a.numel(); ++i) {
      const unsigned x = a.data<uint8_t>()[i], y = b.data<uint8_t>()[i];
      if (x != y) {
        std::ostringstream os;
        os << where << ": element " << i << " is code 0x" << std::hex << x << " ("
           << a.get_as_double(i) << "), expected 0x" << y << " (" << b.get_as_double(i) << ")";
        return os.str();
      }
    }
    return {};
  }
  bool fp = ir::is_floating(a.dtype());
  for (int64_t i = 0; i < a.numel(); ++i) {
    double x = a.get_as_double(i), y = b.get_as_double(i);
    bool ok;
    if (fp) {
      ok = (std::isnan(x) && std::isnan(y)) || x == y ||
           std::abs(x - y) <= 1e-7 + 1e-3 * std::abs(y);
    } else {
      ok = x == y;
    }
    if (!ok) {
      std::ostringstream os;
      os << where << ": element " << i << " is " << x << ", expected " << y;
      return os.str();
    }
  }
  return {};
}

// Whether any node of the graph has a `seed` attribute (a seeded random op
// must give the same draws on every run).
bool has_seeded_node(const ir::Graph& g) {
  for (const ir::Node* n : g.nodes()) {
    if (n->attr("seed") != nullptr) return true;
  }
  return false;
}

// Checks the "bernoulli" property of one output against the input
// probabilities `p` (same shape): every element 0 or 1, and 0 or 1 exactly
// where p is. Empty when it holds.
std::string check_bernoulli(const eval::Tensor& got, const eval::Tensor* p,
                            const std::string& where) {
  for (int64_t i = 0; i < got.numel(); ++i) {
    double v = got.get_as_double(i);
    if (v != 0 && v != 1) {
      return where + ": element " + std::to_string(i) + " is " + std::to_string(v) +
             ", a Bernoulli draw must be 0 or 1";
    }
    if (p != nullptr && p->numel() == got.numel()) {
      double q = p->get_as_double(i);
      if ((q == 0 || q == 1) && v != q) {
        return where + ": element " + std::to_string(i) + " is " + std::to_string(v) +
               " where the probability is exactly " + std::to_string(q);
      }
    }
  }
  return {};
}

// The model after ONNX -> ONNX Script -> ONNX (decompile, then compile), so
// that the round trip is checked against the expected outputs too. Inputs
// and outputs keep their order (their names may be made valid Python).
ir::Model round_trip(ir::Model model, const fs::path& dir) {
  for (size_t i = model.graph->inputs().size(); i-- > 0;) {
    if (model.graph->inputs()[i]->is_initializer()) model.graph->demote_input_to_initializer(i);
  }
  oxs::script::SourceFile file((dir / "model.py").string(), oxs::script::decompile(model).source);
  return oxs::script::compile(file);
}

// Checks the outputs of one test data set against `property` (see
// --properties); empty when it holds.
std::string check_property(const std::string& property, const ir::Model& model,
                           eval::Session& session, const std::map<std::string, Value>& feeds,
                           const std::vector<Value>& outs, const fs::path& set) {
  if (property != "bernoulli") return "unknown property '" + property + "'";
  const auto& gouts = model.graph->outputs();
  const eval::Tensor* p = nullptr;
  if (feeds.size() == 1 && feeds.begin()->second.is_tensor()) p = &feeds.begin()->second.tensor();
  std::vector<Value> again;
  if (has_seeded_node(*model.graph)) again = session.run(feeds);
  for (size_t i = 0; i < gouts.size(); ++i) {
    std::string where = set.filename().string() + " output '" + gouts[i]->name() + "'";
    fs::path f = set / ("output_" + std::to_string(i) + ".pb");
    if (!fs::exists(f)) return where + ": no expected output file";
    auto d = same_type_and_shape(outs[i], read_value(f, gouts[i]->type()), where);
    if (d.empty()) d = check_bernoulli(outs[i].tensor(), p, where);
    if (d.empty() && !again.empty()) {
      d = compare(again[i], outs[i], where + " (second run of a seeded model)");
    }
    if (!d.empty()) return d;
  }
  return {};
}

bool g_roundtrip = false;

// `property` is empty for a value-for-value comparison, else the name of the
// property the outputs must have (see --properties).
std::string run_test(const fs::path& dir, const std::string& property = {}) {
  ir::Model model = oxs::onnx::load((dir / "model.onnx").string());
  if (g_roundtrip) model = round_trip(std::move(model), dir);
  std::vector<const ir::Value*> inputs;
  for (const ir::Value* v : model.graph->inputs()) {
    if (!v->const_value()) inputs.push_back(v);
  }
  std::vector<fs::path> sets;
  for (auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return "no test_data_set_* directory";
  // onnx's backend harness does not check fed shapes against the declared
  // ones, and some test data relies on it (castlike feeds 'like' as [1]).
  eval::SessionOptions options;
  options.check_inputs = false;
  eval::Session session(model, options);
  for (const fs::path& set : sets) {
    std::map<std::string, Value> feeds;
    for (size_t i = 0;; ++i) {
      fs::path p = set / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) break;
      if (i >= inputs.size()) return "more input files than graph inputs";
      feeds[inputs[i]->name()] = read_value(p, inputs[i]->type());
    }
    std::vector<Value> outs = session.run(feeds);
    const auto& gouts = model.graph->outputs();
    if (!property.empty()) {
      auto d = check_property(property, model, session, feeds, outs, set);
      if (!d.empty()) return d;
      continue;
    }
    for (size_t i = 0; i < gouts.size(); ++i) {
      fs::path p = set / ("output_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) continue;
      Value want = read_value(p, gouts[i]->type());
      auto d =
          compare(outs[i], want, set.filename().string() + " output '" + gouts[i]->name() + "'");
      if (!d.empty()) return d;
    }
  }
  return {};
}

// Robustness: runs a model on random inputs of its declared types, then
// with every dimension grown by one. Any result is fine except a crash or
// an exception that is not an oxs::Error. Returns what went wrong, or "".
std::string fuzz_test(const fs::path& dir) {
  ir::Model model = oxs::onnx::load((dir / "model.onnx").string());
  // Variant 0: declared shapes; 1: every dim + 1; 2: every dim - 1 (empty tensors).
  for (int variant = 0; variant < 3; ++variant) {
    std::mt19937_64 rng(variant);
    std::map<std::string, Value> feeds;
    bool ok = true;
    for (const ir::Value* in : model.graph->inputs()) {
      if (in->const_value()) continue;
      ir::Type t = in->type();
      if (!t.is_tensor() || !t.shape()) {
        ok = false;
        break;
      }
      for (auto& d : t.shape()->dims()) {
        int64_t v = d.is_known() ? d.value() : 2;
        d = ir::Dim::known(variant == 2 ? std::max<int64_t>(v - 1, 0) : v + variant);
      }
      feeds[in->name()] = eval::random_tensor(in->name(), t, {}, rng);
    }
    if (!ok) continue;
    try {
      eval::SessionOptions options;
      options.check_inputs = false;
      eval::Session session(model, options);
      session.run(feeds);
    } catch (const Error&) {
      // a clear error is a fine outcome
    } catch (const std::exception& e) {
      return std::string("variant ") + std::to_string(variant) + ": non-oxs exception: " + e.what();
    }
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: eval_conformance DATA_DIR EXCLUSIONS_FILE [--filter S] [--verbose] "
                 "[--fuzz] [--roundtrip [--also-exclude FILE]] [--suites A,B] "
                 "[--max-excluded-percent P] [--properties FILE]\n";
    return 2;
  }
  fs::path data = argv[1];
  std::string filter;
  bool verbose = false, fuzz = false;
  std::vector<std::string> extra_exclusions;
  std::vector<std::string> suites = {"node", "pytorch-converted", "pytorch-operator", "simple"};
  double max_excluded_percent = 100;
  std::string properties_file;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--suites" && i + 1 < argc) {
      suites.clear();
      std::stringstream ss(argv[++i]);
      for (std::string s; std::getline(ss, s, ',');) {
        if (!s.empty()) suites.push_back(s);
      }
    }
    if (a == "--max-excluded-percent" && i + 1 < argc) max_excluded_percent = std::stod(argv[++i]);
    if (a == "--fuzz") fuzz = true;
    if (a == "--roundtrip") g_roundtrip = true;
    if (a == "--also-exclude" && i + 1 < argc) extra_exclusions.push_back(argv[++i]);
    if (a == "--properties" && i + 1 < argc) properties_file = argv[++i];
    if (a == "--filter" && i + 1 < argc) {
      filter = argv[++i];
    } else if (a == "--verbose") {
      verbose = true;
    }
  }
  std::map<std::string, std::string> excluded;  // test -> reason
  std::vector<std::string> exclusion_files = {argv[2]};
  exclusion_files.insert(exclusion_files.end(), extra_exclusions.begin(), extra_exclusions.end());
  for (const std::string& file : exclusion_files) {
    std::ifstream in(file);
    if (!in) {
      std::cerr << "cannot read exclusion file " << file << "\n";
      return 2;
    }
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      auto sp = line.find_first_of(" \t");
      std::string name = line.substr(0, sp);
      std::string reason =
          sp == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", sp));
      if (reason.empty()) {
        std::cerr << "exclusion of " << name << " gives no reason\n";
        return 2;
      }
      excluded[name] = reason;
    }
  }
  std::map<std::string, std::string> properties;  // test -> property
  if (!properties_file.empty()) {
    std::ifstream in(properties_file);
    if (!in) {
      std::cerr << "cannot read properties file " << properties_file << "\n";
      return 2;
    }
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string name, property, reason;
      ls >> name >> property;
      std::getline(ls >> std::ws, reason);
      if (property.empty() || reason.empty()) {
        std::cerr << "property test " << name << " needs a property and a reason\n";
        return 2;
      }
      if (excluded.count(name)) {
        std::cerr << name << " is both excluded and a property test\n";
        return 2;
      }
      properties[name] = property;
    }
  }
  int by_property = 0;
  int passed = 0, failed = 0, excl_failed = 0, stale = 0, node_total = 0, node_excluded = 0;
  for (const std::string& suite : suites) {
    fs::path sdir = data / suite;
    if (!fs::exists(sdir)) {
      std::cerr << "missing suite " << sdir << "\n";
      return 2;
    }
    std::vector<fs::path> tests;
    for (auto& e : fs::directory_iterator(sdir)) tests.push_back(e.path());
    std::sort(tests.begin(), tests.end());
    for (const fs::path& t : tests) {
      std::string name = t.filename().string();
      std::string id = suite + "/" + name;
      if (!filter.empty() && id.find(filter) == std::string::npos) continue;
      bool is_excluded = !fuzz && excluded.count(id) != 0;
      if (suite == "node") {
        ++node_total;
        if (is_excluded) ++node_excluded;
      }
      std::string err;
      auto t0 = std::chrono::steady_clock::now();
      try {
        auto prop = properties.find(id);
        err = fuzz ? fuzz_test(t) : run_test(t, prop == properties.end() ? "" : prop->second);
        if (err.empty() && !fuzz && prop != properties.end()) ++by_property;
      } catch (const Error& e) {
        err = e.describe();
      } catch (const std::exception& e) {
        err = std::string("exception: ") + e.what();
      }
      double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (err.empty()) {
        if (is_excluded) {
          ++stale;
          std::cout << "STALE EXCLUSION " << id << " passes (listed: " << excluded[id] << ")\n";
        } else {
          ++passed;
          if (verbose) std::cout << "ok   " << id << " (" << ms << " ms)\n";
        }
      } else if (is_excluded) {
        ++excl_failed;
        if (verbose) std::cout << "excl " << id << ": " << err << "\n";
      } else {
        ++failed;
        std::cout << "FAIL " << id << ": " << err << "\n";
      }
    }
  }
  if (by_property) std::cout << "passed by property (random ops): " << by_property << "\n";
  std::cout << "excluded: " << excl_failed << " (node tests: " << node_excluded << " of "
            << node_total << ")";
  if (stale) std::cout << ", stale exclusions: " << stale;
  bool too_many = node_total > 0 && 100.0 * node_excluded > max_excluded_percent * node_total;
  if (too_many) {
    std::cout << "\nexclusions cover more than " << max_excluded_percent
              << "% of the node tests; fix kernels rather than excluding";
  }
  std::cout << "\n" << passed << " passed, " << failed << " failed\n";
  return failed == 0 && stale == 0 && !too_many ? 0 : 1;
}
