// Files that are not (valid) ONNX models: each must give one oxs::Error that
// names the file and says what is wrong, never a crash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <random>

#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"
#include "test_util.h"

namespace oxs::onnx {
namespace {

using testing::read_file;
using testing::TempDir;
using testing::write_file;

// Loads `path` and returns the error; fails the test if loading succeeds.
Error load_error(const std::string& path) {
  try {
    load(path);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "loading " << path << " did not fail";
  return Error(ErrorKind::Internal, "no error");
}

void expect_load_error(const std::string& path, const std::string& needle,
                       ErrorKind kind = ErrorKind::Input) {
  Error e = load_error(path);
  const std::string what = e.what();
  EXPECT_NE(what.find(path), std::string::npos) << what;
  EXPECT_NE(what.find(needle), std::string::npos) << "expected '" << needle << "' in: " << what;
  EXPECT_EQ(e.kind(), kind) << what;
}

oxs::wire::ModelProto tiny_model() {
  oxs::wire::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* n = g->add_node();
  n->set_op_type("Identity");
  n->add_input("w");
  n->add_output("y");
  g->add_output()->set_name("y");
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(oxs::wire::TensorProto::FLOAT);
  w->add_dims(4);
  w->set_raw_data(std::string(16, '\0'));
  return m;
}

std::string write_model(const TempDir& dir, const std::string& name,
                        const oxs::wire::ModelProto& m) {
  std::string path = dir / name;
  write_file(path, m.SerializeAsString());
  return path;
}

TEST(BadFiles, EmptyFile) {
  TempDir dir;
  write_file(dir / "empty.onnx", "");
  expect_load_error(dir / "empty.onnx", "empty");
}

TEST(BadFiles, MissingFileDirectoryAndFifo) {
  TempDir dir;
  expect_load_error(dir / "missing.onnx", "cannot open", ErrorKind::IO);
  ::mkdir((dir / "d.onnx").c_str(), 0755);
  expect_load_error(dir / "d.onnx", "is a directory");
  ASSERT_EQ(::mkfifo((dir / "f.onnx").c_str(), 0644), 0);
  expect_load_error(dir / "f.onnx", "not a regular file");
}

TEST(BadFiles, TruncatedModel) {
  TempDir dir;
  std::string bytes = tiny_model().SerializeAsString();
  // Every proper prefix that cuts a field must be refused, none may crash.
  size_t refused = 0;
  for (size_t n = 1; n < bytes.size(); ++n) {
    write_file(dir / "t.onnx", bytes.substr(0, n));
    try {
      load(dir / "t.onnx");
    } catch (const Error& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()).find(dir / "t.onnx"), std::string::npos);
    }
  }
  EXPECT_GT(refused, bytes.size() / 2);
  write_file(dir / "half.onnx", bytes.substr(0, bytes.size() - 5));
  expect_load_error(dir / "half.onnx", "truncated or corrupt");
}

TEST(BadFiles, RandomBytes) {
  TempDir dir;
  std::mt19937 rng(12345);
  for (int i = 0; i < 200; ++i) {
    std::string bytes(64 + static_cast<size_t>(rng() % 4096), '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (i % 2) bytes[0] = 0x3a;  // get past the first-byte check: a graph field
    write_file(dir / "r.onnx", bytes);
    Error e = load_error(dir / "r.onnx");
    EXPECT_NE(std::string(e.what()).find(dir / "r.onnx"), std::string::npos);
  }
}

TEST(BadFiles, OtherFormatsAreNamed) {
  TempDir dir;
  write_file(dir / "a.npy", std::string("\x93NUMPY\x01\x00v\x00{'descr': '<f4'}", 24));
  expect_load_error(dir / "a.npy", "NumPy");
  write_file(dir / "a.pt", std::string("PK\x03\x04\x14\x00\x00\x00\x08\x00", 10));
  expect_load_error(dir / "a.pt", "ZIP archive");
  write_file(dir / "a.txt", "This is a plain text file, not a model.\n");
  expect_load_error(dir / "a.txt", "text file");
  write_file(dir / "a.pbtxt", "ir_version: 8\ngraph { name: \"g\" }\n");
  expect_load_error(dir / "a.pbtxt", "text format");
  write_file(dir / "a.pkl", std::string("\x80\x04\x95\x10\x00\x00", 6));
  expect_load_error(dir / "a.pkl", "pickle");
  write_file(dir / "a.bin", std::string("\xff\xfe\x00\x01", 4));
  expect_load_error(dir / "a.bin", "does not start like an ONNX model");
}

TEST(BadFiles, OverTwoGigabytesIsRefusedWithAHint) {
  TempDir dir;
  const std::string path = dir / "huge.onnx";
  int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "\x08\x08", 2), 2);
  // Sparse: no disk space is used.
  ASSERT_EQ(::ftruncate(fd, (off_t{2} << 30) + 16), 0);
  ::close(fd);
  Error e = load_error(path);
  EXPECT_NE(std::string(e.what()).find("2 GiB"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("external data"), std::string::npos) << e.what();
}

TEST(BadFiles, BadTensors) {
  TempDir dir;
  struct Case {
    const char* name;
    void (*mutate)(oxs::wire::TensorProto*);
    const char* needle;
    ErrorKind kind;
  };
  const Case cases[] = {
      {"negative_dim", [](oxs::wire::TensorProto* t) { t->set_dims(0, -4); }, "negative",
       ErrorKind::Input},
      {"absurd_dims",
       [](oxs::wire::TensorProto* t) {
         t->set_dims(0, int64_t{1} << 40);
         t->add_dims(int64_t{1} << 40);
       },
       "overflow", ErrorKind::Input},
      {"raw_too_short", [](oxs::wire::TensorProto* t) { t->set_raw_data(std::string(8, '\0')); },
       "needs 16 bytes but raw_data has 8", ErrorKind::Input},
      {"huge_dims_no_data", [](oxs::wire::TensorProto* t) { t->set_dims(0, int64_t{1} << 50); },
       "raw_data has 16", ErrorKind::Input},
      {"typed_count",
       [](oxs::wire::TensorProto* t) {
         t->clear_raw_data();
         t->add_float_data(1);
       },
       "has 4 elements but its typed data holds 1", ErrorKind::Input},
      {"unknown_dtype", [](oxs::wire::TensorProto* t) { t->set_data_type(99); },
       "unknown data type 99", ErrorKind::Unsupported},
      {"negative_dtype", [](oxs::wire::TensorProto* t) { t->set_data_type(-1); },
       "unknown data type -1", ErrorKind::Unsupported},
      {"int8_out_of_range",
       [](oxs::wire::TensorProto* t) {
         t->set_data_type(oxs::wire::TensorProto::INT8);
         t->clear_raw_data();
         for (int v : {1, 2, 300, 4}) t->add_int32_data(v);
       },
       "int32_data[2] = 300 does not fit a int8", ErrorKind::Input},
      {"wrong_typed_field",
       [](oxs::wire::TensorProto* t) {
         t->clear_raw_data();
         for (int i = 0; i < 4; ++i) t->add_int64_data(i);
       },
       "int64_data", ErrorKind::Input},
      {"raw_and_typed", [](oxs::wire::TensorProto* t) { t->add_float_data(1); },
       "both raw_data and typed", ErrorKind::Input},
      {"string_raw",
       [](oxs::wire::TensorProto* t) { t->set_data_type(oxs::wire::TensorProto::STRING); },
       "string_data", ErrorKind::Input},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    oxs::wire::ModelProto m = tiny_model();
    c.mutate(m.mutable_graph()->mutable_initializer(0));
    const std::string path = write_model(dir, std::string(c.name) + ".onnx", m);
    expect_load_error(path, c.needle, c.kind);
    expect_load_error(path, "tensor 'w'", c.kind);
  }
}

TEST(BadFiles, UnknownFieldsFromANewerOnnx) {
  TempDir dir;
  oxs::wire::ModelProto m = tiny_model();
  // A field ONNX 1.23 does not define (NodeProto stops at 10).
  auto* node = m.mutable_graph()->mutable_node(0);
  node->GetReflection()->MutableUnknownFields(node)->AddLengthDelimited(11, "x");
  const std::string path = write_model(dir, "newer.onnx", m);
  expect_load_error(path, "NodeProto has field number 11", ErrorKind::Unsupported);
}

TEST(BadFiles, StructurallyInvalidGraphsStillLoad) {
  TempDir dir;
  oxs::wire::ModelProto m = tiny_model();
  m.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  m.mutable_graph()->mutable_output(0)->set_name("also_nowhere");
  auto* dup = m.mutable_graph()->add_node();
  dup->set_op_type("Identity");
  dup->add_input("w");
  dup->add_output("y");  // a second definition of y
  const std::string path = write_model(dir, "invalid.onnx", m);
  ir::Model model = load(path);
  EXPECT_EQ(model.graph->num_nodes(), 2u);
  EXPECT_EQ(model.graph->first_node()->input(0)->name(), "nowhere");
  EXPECT_EQ(testing::proto_diff(m, testing::parse_model(save_to_bytes(model))), "");
}

}  // namespace
}  // namespace oxs::onnx

namespace oxs::onnx {
namespace {

// An error deep inside a subgraph (after its nodes already use outer values)
// unwinds without touching freed memory.
TEST(BadFiles, ErrorInsideASubgraphUnwindsCleanly) {
  TempDir dir;
  oxs::wire::ModelProto m = tiny_model();
  auto* if_node = m.mutable_graph()->add_node();
  if_node->set_op_type("If");
  if_node->add_input("y");
  if_node->add_output("z");
  auto* a = if_node->add_attribute();
  a->set_name("then_branch");
  a->set_type(oxs::wire::AttributeProto::GRAPH);
  auto* g = a->mutable_g();
  auto* use = g->add_node();
  use->set_op_type("Identity");
  use->add_input("w");  // outer initializer
  use->add_output("inner");
  auto* c = g->add_node();
  c->set_op_type("Constant");
  c->add_output("bad");
  auto* t = c->add_attribute();
  t->set_name("value");
  t->set_type(oxs::wire::AttributeProto::TENSOR);
  t->mutable_t()->set_data_type(oxs::wire::TensorProto::FLOAT);
  t->mutable_t()->add_dims(-1);
  const std::string path = write_model(dir, "subgraph_error.onnx", m);
  expect_load_error(path, "negative");
}

}  // namespace
}  // namespace oxs::onnx
