// Hostile files and directories: hard links to data files, data files
// truncated while a model uses them (SIGBUS with a mapping), links planted
// where a save or an output directory writes, and link-following deletion.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <set>

#include "oxs/ir/error.h"
#include "oxs/onnx/external_data.h"
#include "oxs/onnx/file_io.h"
#include "oxs/onnx/model_io.h"
#include "test_util.h"

namespace oxs::onnx {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

// model.onnx in `dir` with one float tensor "w" of `n` elements stored in
// `location` at offset 0.
void write_external_model(const TempDir& dir, const std::string& location, int64_t n) {
  oxs::wire::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* t = g->add_initializer();
  t->set_name("w");
  t->set_data_type(oxs::wire::TensorProto::FLOAT);
  t->add_dims(n);
  t->set_data_location(oxs::wire::TensorProto::EXTERNAL);
  auto* e = t->add_external_data();
  e->set_key("location");
  e->set_value(location);
  g->add_output()->set_name("w");
  write_file(dir / "model.onnx", m.SerializeAsString());
}

const ir::Tensor& tensor_w(const ir::Model& m) {
  return *m.graph->initializers().front()->const_value();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(HostileFiles, AHardLinkedDataFileIsRefusedUnlessAllowed) {
  TempDir outside, dir;
  write_file(outside / "secret.bin", std::string(16, 'S'));
  ASSERT_EQ(::link((outside / "secret.bin").c_str(), (dir / "w.bin").c_str()), 0);
  write_external_model(dir, "w.bin", 4);
  std::string err = error_of([&] { load(dir / "model.onnx"); });
  EXPECT_NE(err.find("'w.bin' is a file with 2 hard links"), std::string::npos) << err;
  EXPECT_NE(err.find("--allow-hardlinks"), std::string::npos) << err;
  LoadOptions allow;
  allow.allow_hardlinks = true;
  ir::Model m = load(dir / "model.onnx", allow);
  EXPECT_EQ(tensor_w(m).bytes().size(), 16u);
  // An ordinary file with one link loads by default.
  ASSERT_EQ(::unlink((outside / "secret.bin").c_str()), 0);
  EXPECT_NO_THROW(load(dir / "model.onnx"));
}

// A mapping of a file truncated behind our back faults with SIGBUS on the
// next access; a read sees the shorter file and says so.
TEST(HostileFiles, ADataFileTruncatedAfterLoadingIsAClearErrorNotSigbus) {
  TempDir dir;
  write_file(dir / "w.bin", std::string(1 << 16, 'x'));
  write_external_model(dir, "w.bin", (1 << 16) / 4);
  ir::Model m = load(dir / "model.onnx");
  ASSERT_EQ(::truncate((dir / "w.bin").c_str(), 100), 0);
  std::string err = error_of([&] { tensor_w(m).bytes(); });
  EXPECT_NE(err.find("shrank to 100 bytes since the model was loaded"), std::string::npos) << err;
  EXPECT_NE(err.find("tensor 'w'"), std::string::npos) << err;
  // Restored to its size, the same file reads again (nothing was cached).
  ASSERT_EQ(::truncate((dir / "w.bin").c_str(), 1 << 16), 0);
  EXPECT_EQ(tensor_w(m).bytes().size(), size_t(1 << 16));
}

// Once read, a tensor's bytes are its own: truncating the file later
// changes nothing (a mapping would fault on the next access).
TEST(HostileFiles, BytesOnceReadSurviveTruncation) {
  TempDir dir;
  write_file(dir / "w.bin", std::string(4096, '\x01'));
  write_external_model(dir, "w.bin", 1024);
  ir::Model m = load(dir / "model.onnx");
  auto bytes = tensor_w(m).bytes();
  ASSERT_EQ(::truncate((dir / "w.bin").c_str(), 0), 0);
  EXPECT_EQ(std::to_integer<int>(bytes[4095]), 1);
  EXPECT_EQ(tensor_w(m).storage()->kind(), ir::Storage::Kind::Owned);
}

TEST(HostileFiles, ADataFileReplacedAfterLoadingIsAClearError) {
  TempDir dir;
  write_file(dir / "w.bin", std::string(64, 'a'));
  write_external_model(dir, "w.bin", 16);
  ir::Model m = load(dir / "model.onnx");
  write_file(dir / "w2.bin", std::string(64, 'b'));
  fs::rename(dir / "w2.bin", dir / "w.bin");
  std::string err = error_of([&] { tensor_w(m).bytes(); });
  EXPECT_NE(err.find("was replaced since the model was loaded"), std::string::npos) << err;
}

TEST(HostileFiles, SaveReplacesALinkPlantedAtTheTargetAndLeavesItsTargetAlone) {
  TempDir dir;
  write_file(dir / "victim", "precious");
  fs::create_symlink(dir / "victim", dir / "m.onnx");
  ir::Model m;
  m.graph->set_name("g");
  save(m, dir / "m.onnx");
  EXPECT_EQ(read_file(dir / "victim"), "precious");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "m.onnx")));
}

TEST(HostileFiles, TemporaryNamesAreUnpredictableAndNeverReuseAnEntry) {
  TempDir dir;
  std::set<std::string> names;
  for (int i = 0; i < 8; ++i) {
    AtomicFile f(dir / "out.bin");
    const std::string name = fs::path(f.temp_path()).filename().string();
    EXPECT_EQ(name.rfind(".out.bin.tmp.", 0), 0u) << name;
    EXPECT_EQ(name.size(), std::string(".out.bin.tmp.").size() + 16) << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), 8u);
  // Neither the pid nor a counter: two files at once get unrelated names.
  AtomicFile a(dir / "out.bin"), b(dir / "out.bin");
  EXPECT_NE(a.temp_path(), b.temp_path());
}

TEST(HostileFiles, OutputDirWritesFilesAtomicallyReplacingLinks) {
  TempDir dir;
  write_file(dir / "victim", "precious");
  OutputDir out = OutputDir::open(dir / "out", /*create=*/true);
  fs::create_symlink(dir / "victim", dir / "out/y.npy");
  out.write_file("y.npy", "new bytes");
  EXPECT_EQ(read_file(dir / "victim"), "precious");
  EXPECT_EQ(read_file(dir / "out/y.npy"), "new bytes");
  EXPECT_EQ(out.entries(), std::vector<std::string>{"y.npy"});  // no temporaries left
}

TEST(HostileFiles, OutputDirRefusesALinkedSubdirectory) {
  TempDir dir;
  fs::create_directories(dir / "elsewhere");
  fs::create_directories(dir / "out");
  fs::create_directory_symlink(dir / "elsewhere", dir / "out/seq");
  write_file(dir / "out/file", "x");
  OutputDir out = OutputDir::open(dir / "out", false);
  std::string err = error_of([&] { out.subdir("seq"); });
  EXPECT_NE(err.find("is a symbolic link; refusing to write through it"), std::string::npos) << err;
  err = error_of([&] { out.subdir("file"); });
  EXPECT_NE(err.find("exists and is not a directory"), std::string::npos) << err;
}

TEST(HostileFiles, OutputDirRemovesTreesWithoutFollowingLinks) {
  TempDir dir;
  fs::create_directories(dir / "victim/inner");
  write_file(dir / "victim/inner/data", "keep");
  fs::create_directories(dir / "out/tree/a/b");
  write_file(dir / "out/tree/a/b/f", "x");
  fs::create_directory_symlink(dir / "victim", dir / "out/tree/a/link");
  fs::create_symlink(dir / "victim/inner/data", dir / "out/tree/filelink");
  OutputDir out = OutputDir::open(dir / "out", false);
  out.remove("tree");
  out.remove("missing");  // fine
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir / "out/tree")));
  EXPECT_EQ(read_file(dir / "victim/inner/data"), "keep");
  // A link itself is removed, not its target.
  fs::create_directory_symlink(dir / "victim", dir / "out/dirlink");
  out.remove("dirlink");
  EXPECT_TRUE(fs::is_directory(dir / "victim/inner"));
}

TEST(HostileFiles, OutputDirOpenErrorsNameThePath) {
  TempDir dir;
  write_file(dir / "file", "x");
  std::string err = error_of([&] { OutputDir::open(dir / "file", true); });
  EXPECT_NE(err.find("it exists and is not a directory"), std::string::npos) << err;
  err = error_of([&] { OutputDir::open(dir / "file/sub", true); });
  EXPECT_NE(err.find("cannot create"), std::string::npos) << err;
  err = error_of([&] { OutputDir::open(dir / "missing", false); });
  EXPECT_NE(err.find("No such file"), std::string::npos) << err;
}

}  // namespace
}  // namespace oxs::onnx
