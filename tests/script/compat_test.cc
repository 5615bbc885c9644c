// The onnxscript-compatibility corpus (tests/script/compat/*.py): small
// programs written the way onnxscript users write them, one class of
// onnxscript semantics each. Every case is compiled for float32 and, where
// the file says `# dtypes: float32 float64`, for float64 too (the token FLOAT
// becomes DOUBLE); onnx's checker (full_check) runs on every model, and the
// evaluator's numbers are compared with expected values that
// compat/check.py computes with numpy from the formula in the file's header,
// independently of oxs. The eager path (`oxs run FILE.py -e fn`) must give
// the compiled model's numbers for every case.
//
// Header of a corpus file:
//   # case ENTRY:           one case: the function compiled as the model
//   #   x = rnd(3, 4)       an input (rnd/arr give the case's element type)
//   #   expect = 1 - erf(x) the expected output (a tuple for several)
//   # dtypes: float32 float64
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>

#include <unistd.h>

#include "oxs/eval/npy.h"
#include "oxs/eval/session.h"
#include "oxs/script/eager/eager.h"
#include "script/compile_util.h"

namespace oxs::script {
namespace {

namespace fs = std::filesystem;

struct CompatCase {
  std::string file;   // corpus file name
  std::string entry;  // function compiled as the model
  std::string dtype;  // float32 / float64
  std::string spec;   // header lines joined by " ;; "
  std::string id() const { return fs::path(file).stem().string() + "_" + entry + "_" + dtype; }
};

std::string corpus_dir() {
  return std::string(OXS_SOURCE_DIR) + "/tests/script/compat";
}

// Per process: parallel test runs do not share files.
std::string work_dir() {
  return std::string(OXS_BINARY_DIR) + "/compat_test_" + std::to_string(getpid());
}

std::vector<CompatCase> list_cases() {
  std::vector<CompatCase> out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(corpus_dir())) {
    if (e.path().extension() == ".py" && e.path().filename() != "check.py")
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    std::string text = testing::read_file(p.string());
    std::vector<std::string> dtypes = {"float32"};
    std::vector<std::pair<std::string, std::string>> cases;  // entry, spec
    std::istringstream in(text);
    std::string line;
    bool in_case = false;
    while (std::getline(in, line)) {
      if (line.rfind("# dtypes:", 0) == 0) {
        dtypes.clear();
        std::istringstream ds(line.substr(9));
        std::string d;
        while (ds >> d) dtypes.push_back(d);
        in_case = false;
      } else if (line.rfind("# case ", 0) == 0 && line.back() == ':') {
        cases.push_back({line.substr(7, line.size() - 8), ""});
        in_case = true;
      } else if (in_case && line.rfind("#   ", 0) == 0) {
        std::string& spec = cases.back().second;
        spec += (spec.empty() ? "" : " ;; ") + line.substr(4);
      } else {
        in_case = false;
      }
    }
    for (const auto& [entry, spec] : cases) {
      for (const auto& d : dtypes) out.push_back({p.filename().string(), entry, d, spec});
    }
  }
  return out;
}

// The source of a case: FLOAT becomes DOUBLE (whole words) for float64.
std::string source_for(const CompatCase& c) {
  std::string text = testing::read_file(corpus_dir() + "/" + c.file);
  if (c.dtype == "float64") text = std::regex_replace(text, std::regex("\\bFLOAT\\b"), "DOUBLE");
  return text;
}

struct Prepared {
  std::optional<ir::Model> model;
  std::string problem;  // compile error or checker/oracle failure
};

// Compiles every case, then runs the Python oracle once for all of them.
class Corpus {
 public:
  static Corpus& get() {
    static Corpus corpus;
    return corpus;
  }
  const Prepared& at(const std::string& id) { return prepared_.at(id); }

 private:
  Corpus() {
    fs::create_directories(work_dir());
    std::string manifest = work_dir() + "/manifest.txt";
    std::ofstream m(manifest);
    for (const CompatCase& c : list_cases()) {
      Prepared& p = prepared_[c.id()];
      SourceFile file(c.file, source_for(c));
      CompileOptions o;
      o.entry = c.entry;
      CompileResult r = compile_source(file, o);
      if (!r.ok()) {
        p.problem = "compile failed:\n" + render(file, r.diagnostics);
        continue;
      }
      std::string path = work_dir() + "/" + c.id() + ".onnx";
      onnx::save(*r.model, path);
      p.model = std::move(r.model);
      m << c.id() << " " << path << " " << c.dtype << " " << c.spec << "\n";
    }
    m.close();
    std::string log = work_dir() + "/oracle.log";
    std::string cmd =
        "/usr/bin/python3 " + corpus_dir() + "/check.py " + manifest + " > " + log + " 2>&1";
    int rc = std::system(cmd.c_str());
    std::string out = testing::read_file(log);
    std::istringstream in(out);
    std::string line;
    std::map<std::string, std::string> verdict;
    while (std::getline(in, line)) {
      auto sp = line.find(' ');
      if (sp == std::string::npos) continue;
      verdict[line.substr(0, sp)] = line.substr(sp + 1);
    }
    for (auto& [id, p] : prepared_) {
      if (!p.model) continue;
      auto it = verdict.find(id);
      if (it == verdict.end()) {
        p.problem = "the oracle gave no verdict (exit " + std::to_string(rc) + "):\n" + out;
      } else if (it->second != "ok") {
        p.problem = "oracle: " + it->second;
      }
    }
  }
  std::map<std::string, Prepared> prepared_;
};

std::string describe(const eval::Tensor& t) {
  std::string s = std::string(ir::dtype_name(t.dtype())) + "[";
  for (size_t k = 0; k < t.rank(); ++k) s += (k ? "," : "") + std::to_string(t.dim(k));
  return s + "]";
}

// Whether `got` equals `want` in type, shape and values (floats within a
// tolerance fitting the element type).
::testing::AssertionResult same_tensor(const eval::Tensor& got, const eval::Tensor& want) {
  if (got.dtype() != want.dtype() || got.dims() != want.dims()) {
    return ::testing::AssertionFailure()
           << "got " << describe(got) << ", expected " << describe(want);
  }
  const bool f32 = got.dtype() == ir::DataType::Float;
  const double rtol = f32 ? 1e-5 : 1e-11, atol = f32 ? 1e-6 : 1e-12;
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = got.get_as_double(i), w = want.get_as_double(i);
    bool same = (std::isnan(g) && std::isnan(w)) || g == w ||
                std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (!same) {
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << g << ", expected " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

// One case: the model's numbers against the oracle's, then eager against
// the model.
void check_case(const CompatCase& c, const Prepared& p) {
  ASSERT_EQ(p.problem, "");
  ASSERT_TRUE(p.model);
  const ir::Model& m = *p.model;
  std::map<std::string, eval::Value> feeds;
  std::vector<eval::Value> args;
  for (const ir::Value* in : m.graph->inputs()) {
    eval::Tensor t = eval::read_npy(work_dir() + "/" + c.id() + ".in." + in->name() + ".npy");
    feeds.emplace(in->name(), t);
    args.push_back(t);
  }
  eval::Session s(m);
  std::vector<eval::Value> outs = s.run(feeds);
  for (size_t k = 0; k < outs.size(); ++k) {
    std::string path = work_dir() + "/" + c.id() + ".expect." + std::to_string(k) + ".npy";
    ASSERT_TRUE(fs::exists(path)) << "the case expects fewer outputs than the model's "
                                  << outs.size();
    EXPECT_TRUE(same_tensor(outs[k].tensor(), eval::read_npy(path))) << "output " << k;
  }
  EXPECT_FALSE(
      fs::exists(work_dir() + "/" + c.id() + ".expect." + std::to_string(outs.size()) + ".npy"))
      << "the model has fewer outputs than the case expects";

  // Eager: the function run on its own, as `oxs run FILE.py -e ENTRY` does.
  SourceFile file(c.file, source_for(c));
  EagerCall call = prepare_eager(file, {.entry = c.entry});
  std::vector<eval::Value> eager =
      eval::Session(call.model).run_function(*call.function, args, call.attributes);
  ASSERT_EQ(eager.size(), outs.size());
  for (size_t k = 0; k < outs.size(); ++k) {
    EXPECT_TRUE(same_tensor(eager[k].tensor(), outs[k].tensor())) << "eager output " << k;
  }
}

// One test for the whole corpus, so that the models are compiled and the
// Python oracle runs once per test process (ctest runs each test alone).
TEST(Compat, CorpusCompilesChecksAndComputesTheExpectedNumbers) {
  std::vector<CompatCase> cases = list_cases();
  ASSERT_GT(cases.size(), 0u);
  Corpus& corpus = Corpus::get();
  for (const CompatCase& c : cases) {
    SCOPED_TRACE("case " + c.id() + " (" + c.file + ", entry " + c.entry + ", " + c.dtype + ")");
    check_case(c, corpus.at(c.id()));
  }
  fs::remove_all(work_dir());
}

}  // namespace
}  // namespace oxs::script
