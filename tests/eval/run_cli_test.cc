// `oxs run` end to end (the binary named by $OXS_BIN) on a backend test
// model: outputs, .npy inputs and outputs, --trace, and clear errors.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "oxs/eval/npy.h"

namespace oxs::eval {
namespace {

struct Result {
  int code;
  std::string out;
};

Result oxs(const std::string& args) {
  const char* bin = std::getenv("OXS_BIN");
  std::string cmd = std::string(bin ? bin : OXS_BINARY_DIR "/oxs") + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WEXITSTATUS(status), out};
}

const std::string kModel = "/usr/share/libonnx-testdata/data/node/test_add_bcast/model.onnx";

class RunCli : public ::testing::Test {
 protected:
  void SetUp() override {
    // A directory of its own: ctest runs these tests in parallel processes.
    std::string pattern = (std::filesystem::temp_directory_path() / "oxs_run_cli_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    Tensor x(DataType::Float, {3, 4, 5});
    for (int64_t i = 0; i < x.numel(); ++i) x.mutable_data<float>()[i] = float(i);
    write_npy((dir_ / "x.npy").string(), x);
    write_npy((dir_ / "y.npy").string(),
              Tensor::of<float>(DataType::Float, {5}, std::vector<float>{1, 1, 1, 1, 1}));
    write_npy((dir_ / "xi.npy").string(), Tensor(DataType::Int32, {3, 4, 5}));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string p(const char* f) { return (dir_ / f).string(); }
  std::filesystem::path dir_;
};

TEST_F(RunCli, ThreadsGiveTheSameOutputsAndRejectNegativeCounts) {
  const std::string inputs = " --input x=" + p("x.npy") + " --input y=" + p("y.npy");
  for (const char* t : {"1", "2", "0"}) {
    Result r = oxs("run " + kModel + inputs + " --threads " + t + " --output-dir " + p(t));
    ASSERT_EQ(r.code, 0) << r.out;
  }
  Tensor one = read_npy(p("1/sum.npy")), two = read_npy(p("2/sum.npy"));
  ASSERT_EQ(one.nbytes(), two.nbytes());
  EXPECT_EQ(0, std::memcmp(one.raw(), two.raw(), one.nbytes()));
  Result bad = oxs("run " + kModel + inputs + " --threads -1");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.out.find("--threads"), std::string::npos) << bad.out;
}

TEST_F(RunCli, RunsWithNpyInputsAndWritesOutputs) {
  Result r = oxs("run " + kModel + " --input x=" + p("x.npy") + " --input y=" + p("y.npy") +
                 " --output-dir " + p("out"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("sum: float[3,4,5] min=1 max=60"), std::string::npos) << r.out;
  Tensor s = read_npy(p("out/sum.npy"));
  EXPECT_EQ(s.data<float>()[59], 60.0f);
}

TEST_F(RunCli, TracesEveryNode) {
  Result r = oxs("run " + kModel + " --random --trace");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("Add"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-> sum: float[3,4,5]"), std::string::npos) << r.out;
  Result f = oxs("run " + kModel + " --random --trace-filter Mul");
  EXPECT_EQ(f.out.find("-> sum"), std::string::npos) << f.out;
}

TEST_F(RunCli, BadInputsAreClearErrors) {
  Result missing = oxs("run " + kModel + " --input x=" + p("x.npy"));
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.out.find("missing input 'y'"), std::string::npos) << missing.out;
  Result dtype = oxs("run " + kModel + " --input x=" + p("xi.npy") + " --input y=" + p("y.npy"));
  EXPECT_EQ(dtype.code, 1);
  EXPECT_NE(dtype.out.find("input 'x' must be float"), std::string::npos) << dtype.out;
  Result rank = oxs("run " + kModel + " --input x=" + p("y.npy") + " --input y=" + p("y.npy"));
  EXPECT_NE(rank.out.find("rank 3"), std::string::npos) << rank.out;
  std::FILE* f = std::fopen(p("bad.npy").c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("not numpy", f);
  std::fclose(f);
  Result bad = oxs("run " + kModel + " --input x=" + p("bad.npy") + " --random");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("not a valid .npy"), std::string::npos) << bad.out;
  Result limit = oxs("run " + kModel + " --random --memory-limit-mb 0 --input x=" + p("x.npy"));
  EXPECT_EQ(limit.code, 0) << limit.out;  // 0 keeps the default limit
}

}  // namespace
}  // namespace oxs::eval
