// .npy reading and writing: round trips per dtype, fortran order, and
// malformed files failing with clear errors before allocating.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "oxs/eval/npy.h"
#include "oxs/eval/summary.h"
#include "oxs/ir/error.h"

namespace oxs::eval {
namespace {

std::string header_file(const std::string& dict, const std::string& data) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += char(h.size() & 0xff);
  out += char(h.size() >> 8);
  return out + h + data;
}

TEST(Npy, RoundTripsEveryNumericType) {
  for (DataType dt : {DataType::Float, DataType::Double, DataType::Float16, DataType::Int8,
                      DataType::Int16, DataType::Int32, DataType::Int64, DataType::Uint8,
                      DataType::Uint16, DataType::Uint32, DataType::Uint64, DataType::Bool}) {
    Tensor t(dt, {2, 3});
    auto* b = static_cast<unsigned char*>(t.mutable_raw());
    for (size_t i = 0; i < t.nbytes(); ++i)
      b[i] = static_cast<unsigned char>(dt == DataType::Bool ? i % 2 : i * 7 + 1);
    Tensor r = parse_npy(npy_bytes(t), "mem");
    EXPECT_EQ(r.dtype(), dt) << ir::dtype_name(dt);
    EXPECT_EQ(r.dims(), t.dims());
    EXPECT_EQ(0, std::memcmp(r.raw(), t.raw(), t.nbytes())) << ir::dtype_name(dt);
  }
}

TEST(Npy, RoundTripsStringsAndScalars) {
  Tensor s(DataType::String, {3});
  s.mutable_strings() = {"a", "héllo", ""};
  Tensor r = parse_npy(npy_bytes(s), "mem");
  EXPECT_EQ(r.strings(), s.strings());
  Tensor scalar = Tensor::of<float>(DataType::Float, {}, std::vector<float>{2.5f});
  Tensor r2 = parse_npy(npy_bytes(scalar), "mem");
  EXPECT_EQ(r2.rank(), 0u);
  EXPECT_EQ(r2.data<float>()[0], 2.5f);
}

TEST(Npy, ReadsFortranOrder) {
  // [[1,2,3],[4,5,6]] stored column-major: 1 4 2 5 3 6.
  std::vector<int32_t> col = {1, 4, 2, 5, 3, 6};
  std::string data(reinterpret_cast<const char*>(col.data()), col.size() * 4);
  Tensor t = parse_npy(
      header_file("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", data), "f");
  ASSERT_EQ(t.dims(), (Dims{2, 3}));
  std::vector<int32_t> got(t.data<int32_t>(), t.data<int32_t>() + 6);
  EXPECT_EQ(got, (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
}

TEST(Npy, RejectsMalformedFiles) {
  auto expect_error = [](const std::string& bytes, const std::string& needle) {
    try {
      parse_npy(bytes, "bad.npy");
      ADD_FAILURE() << "no error for " << needle;
    } catch (const Error& e) {
      EXPECT_NE(e.message().find(needle), std::string::npos) << e.message();
    }
  };
  expect_error("hello", "magic");
  expect_error(header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", "abc"),
               "holds only");
  expect_error(header_file("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "12345678"),
               "unsupported dtype");
  expect_error(
      header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }",
                  ""),
      "int64");
  expect_error(header_file("{'descr': '<f4', 'fortran_order': False}", ""), "shape");
  std::string truncated = npy_bytes(Tensor(DataType::Float, {4}));
  expect_error(truncated.substr(0, 9), "magic");
}

TEST(Npy, WritesFilesAtomically) {
  std::string path = std::string(::testing::TempDir()) + "/oxs_npy_test.npy";
  Tensor t = Tensor::of<int64_t>(DataType::Int64, {3}, std::vector<int64_t>{1, -2, 3});
  write_npy(path, t);
  Tensor r = read_npy(path);
  EXPECT_EQ(std::vector<int64_t>(r.data<int64_t>(), r.data<int64_t>() + 3),
            (std::vector<int64_t>{1, -2, 3}));
  std::filesystem::remove(path);
  EXPECT_THROW(write_npy("/nonexistent-dir/x.npy", t), Error);
}

std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The old writer used `path.tmp.<pid>`, opened without O_EXCL|O_NOFOLLOW: a
// link planted there sent the bytes into the file it points to. Now the
// temporary name is random and created exclusively, and a link at the
// target itself is replaced rather than written through.
TEST(Npy, WritingNeverFollowsPlantedLinks) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "oxs_npy_links";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path victim = dir / "victim.txt", target = dir / "x.npy";
  { std::ofstream(victim) << "keep me"; }
  fs::create_symlink(victim, dir / ("x.npy.tmp." + std::to_string(::getpid())));
  fs::create_symlink(victim, target);
  Tensor t = Tensor::of<int64_t>(DataType::Int64, {2}, std::vector<int64_t>{7, 8});
  write_npy(target.string(), t);
  EXPECT_EQ(file_text(victim), "keep me");
  EXPECT_FALSE(fs::is_symlink(target));
  EXPECT_EQ(file_text(target), npy_bytes(t));
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++entries;
    EXPECT_EQ(e.path().filename().string().find(".x.npy.tmp."), std::string::npos)
        << "temporary left behind: " << e.path();
  }
  EXPECT_EQ(entries, 3u);  // victim, the planted link, x.npy
  fs::remove_all(dir);
}

TEST(Summary, ReportsStatsAndFileSafeNames) {
  Tensor t = Tensor::of<float>(DataType::Float, {4}, std::vector<float>{1, 3, NAN, -1});
  TensorStats s = tensor_stats(t);
  EXPECT_EQ(s.min, -1);
  EXPECT_EQ(s.max, 3);
  EXPECT_EQ(s.nan_count, 1);
  EXPECT_DOUBLE_EQ(s.mean, 1);
  EXPECT_EQ(file_safe_name("a/b:c"), "a_b_c");
  EXPECT_EQ(file_safe_name(".."), "_..");
  EXPECT_EQ(file_safe_name(""), "_");
}

TEST(Summary, RandomTensorsUseDimsAndRejectUnknownSymbols) {
  std::mt19937_64 rng(0);
  ir::Type t =
      ir::Type::tensor(DataType::Float, ir::Shape({ir::Dim::symbolic("N"), ir::Dim::known(3)}));
  Tensor r = random_tensor("x", t, {{"N", 2}}, rng);
  EXPECT_EQ(r.dims(), (Dims{2, 3}));
  EXPECT_THROW(random_tensor("x", t, {}, rng), Error);
}

}  // namespace
}  // namespace oxs::eval
