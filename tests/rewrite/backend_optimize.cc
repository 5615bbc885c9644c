// The ONNX backend tests (libonnx-testdata: node, simple, pytorch-*) after
// `oxs opt`'s default pipeline: every model is optimized, checked with
// ir::verify, and must still give the expected outputs on the evaluator
// (onnx's backend tolerances, rtol 1e-3, atol 1e-7). Tests the evaluator
// itself fails (tests/eval/conformance_exclusions.txt) are run and reported
// as excluded; tests listed in this suite's own exclusion file are expected
// to fail after optimization, and one that passes is a stale entry that
// fails the run.
//
// With --save DIR every optimized model that passes is also written to
// DIR/<suite>__<test>.onnx (for onnx's checker: tests/rewrite/check_models.py).
//
// usage: rewrite_backend DATA_DIR EVAL_EXCLUSIONS OWN_EXCLUSIONS [--filter SUBSTRING] [--verbose]
//        [--save DIR]
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "eval/backend_values.h"
#include "oxs/eval/session.h"
#include "oxs/ir/error.h"
#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"
#include "oxs/onnx/value_io.h"
#include "oxs/rewrite/passes/manager.h"

namespace fs = std::filesystem;
namespace ir = oxs::ir;
namespace eval = oxs::eval;
namespace rw = oxs::rewrite;

namespace {

// An optional holding a value compares as its value (as onnx's harness does).
eval::Value unwrap(const eval::Value& v, const eval::Value& like) {
  if (v.is_optional() && v.has_element() && !like.is_optional()) return v.element();
  return v;
}

std::string run_test(const fs::path& dir, size_t* rewrites, const std::string& save_as) {
  ir::Model model = oxs::onnx::load((dir / "model.onnx").string());
  std::vector<std::unique_ptr<rw::Pass>> passes;
  for (const auto& name : rw::default_pipeline()) passes.push_back(rw::make_pass(name));
  auto stats = rw::run_pipeline(model, passes);
  for (const auto& s : stats) *rewrites += s.total_applications;
  auto issues = ir::verify(model);
  if (!issues.empty()) return "ir::verify: " + issues[0].where + ": " + issues[0].message;
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
  eval::SessionOptions options;
  options.check_inputs = false;
  eval::Session session(model, options);
  rw::VerifySpec spec;
  spec.mode = rw::VerifySpec::Mode::Tolerance;
  spec.rtol = 1e-3;
  spec.atol = 1e-7;
  for (const fs::path& set : sets) {
    std::map<std::string, eval::Value> feeds;
    for (size_t i = 0;; ++i) {
      fs::path p = set / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) break;
      if (i >= inputs.size()) return "more input files than graph inputs";
      feeds[inputs[i]->name()] = oxs::testing::read_backend_value(p.string(), inputs[i]->type());
    }
    std::vector<eval::Value> outs = session.run(feeds);
    const auto& gouts = model.graph->outputs();
    std::vector<eval::Value> want, got;
    std::vector<std::string> names;
    for (size_t i = 0; i < gouts.size(); ++i) {
      fs::path p = set / ("output_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) continue;
      want.push_back(oxs::testing::read_backend_value(p.string(), gouts[i]->type()));
      got.push_back(unwrap(outs[i], want.back()));
      want.back() = unwrap(want.back(), got.back());
      names.push_back(gouts[i]->name());
    }
    // compare_outputs measures relative error against its first argument:
    // the expected values.
    for (const auto& f : rw::compare_outputs(names, want, got, spec)) {
      if (!f.ok) return set.filename().string() + " output '" + f.output + "': " + f.problem;
    }
  }
  if (!save_as.empty()) oxs::onnx::save(model, save_as);
  return {};
}

std::map<std::string, std::string> read_exclusions(const std::string& file) {
  std::map<std::string, std::string> out;
  std::ifstream in(file);
  if (!in) throw oxs::Error(oxs::ErrorKind::IO, "cannot read exclusion file " + file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto sp = line.find_first_of(" \t");
    if (sp == std::string::npos) {
      throw oxs::Error(oxs::ErrorKind::Input, file + ": exclusion of " + line + " gives no reason");
    }
    out[line.substr(0, sp)] = line.substr(line.find_first_not_of(" \t", sp));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: rewrite_backend DATA_DIR EVAL_EXCLUSIONS OWN_EXCLUSIONS [--filter S] "
                 "[--verbose] [--random FILE]\n";
    return 2;
  }
  // --random FILE: the evaluator's tests of random ops (checked there by a
  // property, tests/eval/conformance_properties.txt): their outputs cannot
  // match the expected draws, so they count as the evaluator's exclusions.
  std::string filter, save_dir, random_file;
  bool verbose = false;
  for (int i = 4; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    if (a == "--verbose") verbose = true;
    if (a == "--save" && i + 1 < argc) save_dir = argv[++i];
    if (a == "--random" && i + 1 < argc) random_file = argv[++i];
  }
  try {
    auto eval_excluded = read_exclusions(argv[2]);
    if (!random_file.empty()) eval_excluded.merge(read_exclusions(random_file));
    auto own_excluded = read_exclusions(argv[3]);
    int passed = 0, failed = 0, excluded = 0, stale = 0;
    size_t rewrites = 0;
    for (const char* suite : {"node", "simple", "pytorch-converted", "pytorch-operator"}) {
      fs::path root = fs::path(argv[1]) / suite;
      if (!fs::exists(root)) {
        std::cout << "missing suite " << root << "\n";
        return 1;
      }
      std::vector<fs::path> dirs;
      for (auto& e : fs::directory_iterator(root)) dirs.push_back(e.path());
      std::sort(dirs.begin(), dirs.end());
      for (const fs::path& dir : dirs) {
        std::string id = std::string(suite) + "/" + dir.filename().string();
        if (!filter.empty() && id.find(filter) == std::string::npos) continue;
        std::string err;
        try {
          std::string save_as;
          if (!save_dir.empty()) {
            fs::create_directories(save_dir);
            save_as = (fs::path(save_dir) /
                       (std::string(suite) + "__" + dir.filename().string() + ".onnx"))
                          .string();
          }
          err = run_test(dir, &rewrites, save_as);
        } catch (const oxs::Error& e) {
          err = e.describe();
        } catch (const std::exception& e) {
          err = std::string("unexpected exception: ") + e.what();
        }
        bool is_excluded = eval_excluded.count(id) || own_excluded.count(id);
        if (err.empty()) {
          ++passed;
          if (own_excluded.count(id)) {
            ++stale;
            std::cout << "STALE EXCLUSION " << id << " passes (listed: " << own_excluded[id]
                      << ")\n";
          } else if (verbose) {
            std::cout << "ok " << id << "\n";
          }
        } else if (is_excluded) {
          ++excluded;
          if (verbose) std::cout << "excluded " << id << ": " << err << "\n";
        } else {
          ++failed;
          std::cout << "FAIL " << id << ": " << err << "\n";
        }
      }
    }
    std::cout << passed << " passed, " << failed << " failed, " << excluded << " excluded, "
              << stale << " stale exclusions; " << rewrites << " rewrites applied\n";
    return failed || stale ? 1 : 0;
  } catch (const oxs::Error& e) {
    std::cerr << e.describe() << "\n";
    return 1;
  }
}
