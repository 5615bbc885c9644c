// External data: lazy shared mappings, inline <-> external round trips,
// Keep mode, atomic replacement of mapped data files, and refusal of every
// unsafe location (CVE-2022-25882, CVE-2024-27318).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <thread>

#include "oxs/ir/error.h"
#include "oxs/onnx/external_data.h"
#include "oxs/onnx/model_io.h"
#include "test_util.h"

namespace oxs::onnx {
namespace {

namespace fs = std::filesystem;
using testing::parse_model;
using testing::proto_diff;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

std::string floats_bytes(size_t n, float start) {
  std::string out(n * sizeof(float), '\0');
  for (size_t i = 0; i < n; ++i) {
    float v = start + static_cast<float>(i);
    std::memcpy(out.data() + i * sizeof(float), &v, sizeof v);
  }
  return out;
}

void add_raw(oxs::wire::GraphProto* g, const std::string& name, size_t n, float start) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(oxs::wire::TensorProto::FLOAT);
  t->add_dims(static_cast<int64_t>(n));
  t->set_raw_data(floats_bytes(n, start));
}

// A model with big and small raw initializers, a typed one and a big
// tensor attribute.
oxs::wire::ModelProto inline_model() {
  oxs::wire::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  add_raw(g, "big1", 1000, 0);
  add_raw(g, "small", 3, 100);
  add_raw(g, "big2", 3000, 7);
  auto* typed = g->add_initializer();
  typed->set_name("typed");
  typed->set_data_type(oxs::wire::TensorProto::FLOAT);
  typed->add_dims(600);
  for (int i = 0; i < 600; ++i) typed->add_float_data(static_cast<float>(i));
  auto* c = g->add_node();
  c->set_op_type("Constant");
  c->add_output("c");
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(oxs::wire::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(oxs::wire::TensorProto::FLOAT);
  t->add_dims(500);
  t->set_raw_data(floats_bytes(500, 3));
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("big1");
  add->add_input("c");
  add->add_output("y");
  g->add_output()->set_name("y");
  return m;
}

const ir::Tensor& initializer(const ir::Model& m, const std::string& name) {
  for (const ir::Value* v : m.graph->initializers()) {
    if (v->name() == name) return *v->const_value();
  }
  throw std::runtime_error("no initializer " + name);
}

std::string bytes_of(const ir::Tensor& t) {
  auto b = t.bytes();
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

SaveOptions external(int64_t threshold, int64_t alignment = 4096) {
  SaveOptions o;
  o.external_data = SaveOptions::ExternalData::External;
  o.threshold = threshold;
  o.alignment = alignment;
  return o;
}

TEST(ExternalData, InlineToExternalToInlineIsIdentical) {
  TempDir dir;
  const oxs::wire::ModelProto original = inline_model();
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  fs::create_directories(dir / "c");
  write_file(dir / "a/model.onnx", original.SerializeAsString());

  save(load(dir / "a/model.onnx"), dir / "b/model.onnx", external(1024));
  EXPECT_EQ(dir_entries(dir / "b"), (std::vector<std::string>{"model.onnx", "model.onnx.data"}));
  oxs::wire::ModelProto ext = parse_model(read_file(dir / "b/model.onnx"));
  int external_count = 0;
  for (const auto& t : ext.graph().initializer()) {
    if (t.data_location() != oxs::wire::TensorProto::EXTERNAL) continue;
    ++external_count;
    ASSERT_EQ(t.external_data_size(), 3);
    EXPECT_EQ(t.external_data(0).key(), "location");
    EXPECT_EQ(t.external_data(0).value(), "model.onnx.data");
    EXPECT_EQ(std::stoll(t.external_data(1).value()) % 4096, 0) << t.name();
    EXPECT_FALSE(t.has_raw_data());
  }
  EXPECT_EQ(external_count, 2);  // big1, big2; "small" is under the threshold, "typed" is typed
  EXPECT_EQ(ext.graph().node(0).attribute(0).t().data_location(), oxs::wire::TensorProto::EXTERNAL);

  ir::Model loaded = load(dir / "b/model.onnx");
  const ir::Tensor& big2 = initializer(loaded, "big2");
  EXPECT_EQ(big2.encoding, ir::Tensor::Encoding::External);
  EXPECT_EQ(big2.storage()->kind(), ir::Storage::Kind::Lazy);  // nothing read at load
  EXPECT_EQ(big2.stored_size(), 12000u);
  EXPECT_EQ(bytes_of(big2), floats_bytes(3000, 7));
  EXPECT_EQ(big2.storage()->kind(), ir::Storage::Kind::Owned);  // read on first access
  EXPECT_EQ(initializer(loaded, "typed").encoding, ir::Tensor::Encoding::Typed);

  SaveOptions inl;
  inl.external_data = SaveOptions::ExternalData::Inline;
  save(loaded, dir / "c/model.onnx", inl);
  EXPECT_EQ(proto_diff(original, parse_model(read_file(dir / "c/model.onnx"))), "");
  EXPECT_EQ(dir_entries(dir / "c"), (std::vector<std::string>{"model.onnx"}));
  EXPECT_EQ(proto_diff(original, parse_model(save_to_bytes(load(dir / "b/model.onnx")))), "");
  // Keep (the default) writes the external model back as it was.
  fs::create_directories(dir / "d");
  save(load(dir / "b/model.onnx"), dir / "d/model.onnx");
  EXPECT_EQ(proto_diff(ext, parse_model(read_file(dir / "d/model.onnx"))), "");
  EXPECT_EQ(read_file(dir / "d/model.onnx.data"), read_file(dir / "b/model.onnx.data"));
}

// Large pieces (a big graph, big weights) and small ones (tags, tensor
// headers) must reach the file in order.
TEST(ExternalData, LargeInlineModelsSaveAndLoadBack) {
  TempDir dir;
  oxs::wire::ModelProto p = inline_model();
  auto* g = p.mutable_graph();
  // About 400 KiB of graph: bigger than a quarter of the write buffer,
  // smaller than the buffer.
  for (int i = 0; i < 10000; ++i) {
    auto* n = g->add_node();
    n->set_op_type("Relu");
    n->set_name("relu_" + std::to_string(i));
    n->add_input(i ? "r" + std::to_string(i - 1) : "y");
    n->add_output("r" + std::to_string(i));
  }
  add_raw(g, "huge", 1 << 20, 1);  // 4 MiB inline
  add_raw(g, "after", 5, 2);
  add_raw(g, "mid", 80000, 3);  // 320 KiB
  ir::Model m = load_from_bytes(p.SerializeAsString(), dir.path(), "m");
  SaveOptions inl;
  inl.external_data = SaveOptions::ExternalData::Inline;
  save(m, dir / "big.onnx", inl);
  EXPECT_EQ(proto_diff(p, parse_model(read_file(dir / "big.onnx"))), "");
  save(m, dir / "keep.onnx");
  EXPECT_EQ(proto_diff(p, parse_model(read_file(dir / "keep.onnx"))), "");
  EXPECT_EQ(proto_diff(p, parse_model(save_to_bytes(load(dir / "big.onnx")))), "");
}

TEST(ExternalData, CustomFileNameAndAlignment) {
  TempDir dir;
  ir::Model m = load_from_bytes(inline_model().SerializeAsString(), dir.path(), "m");
  SaveOptions o = external(0, 64);
  o.external_file = "weights.bin";
  save(m, dir / "m.onnx", o);
  oxs::wire::ModelProto p = parse_model(read_file(dir / "m.onnx"));
  for (const auto& t : p.graph().initializer()) {
    if (t.data_location() != oxs::wire::TensorProto::EXTERNAL) continue;
    EXPECT_EQ(t.external_data(0).value(), "weights.bin");
    EXPECT_EQ(std::stoll(t.external_data(1).value()) % 64, 0);
  }
  ir::Model back = load(dir / "m.onnx");
  EXPECT_EQ(bytes_of(initializer(back, "small")), floats_bytes(3, 100));
  o.external_file = "sub/w.bin";
  EXPECT_THROW(save(m, dir / "m2.onnx", o), Error);
  o.external_file = "m2.onnx";
  EXPECT_THROW(save(m, dir / "m2.onnx", o), Error);
}

// A model whose tensors live in two data files, one in a subdirectory.
struct KeepFixture {
  TempDir dir;
  oxs::wire::ModelProto proto;
  std::string model;

  KeepFixture() {
    fs::create_directories(dir / "weights");
    std::string wbin(8192 + 400, '\0');
    std::memcpy(wbin.data(), floats_bytes(100, 1).data(), 400);
    std::memcpy(wbin.data() + 8192, floats_bytes(100, 500).data(), 400);
    write_file(dir / "weights/w.bin", wbin);
    write_file(dir / "other.bin", floats_bytes(10, 9));
    proto.set_ir_version(8);
    auto* g = proto.mutable_graph();
    auto add = [&](const std::string& name, int64_t n,
                   std::vector<std::pair<std::string, std::string>> entries) {
      auto* t = g->add_initializer();
      t->set_name(name);
      t->set_data_type(oxs::wire::TensorProto::FLOAT);
      t->add_dims(n);
      t->set_data_location(oxs::wire::TensorProto::EXTERNAL);
      for (auto& [k, v] : entries) {
        auto* e = t->add_external_data();
        e->set_key(k);
        e->set_value(v);
      }
    };
    add("w1", 100, {{"location", "weights/w.bin"}, {"offset", "0"}, {"length", "400"}});
    add("w2", 100, {{"location", "./weights/w.bin"}, {"length", "400"}, {"offset", "8192"}});
    add("w3", 10, {{"location", "other.bin"}, {"checksum", "abc"}, {"foo", "bar"}});
    model = dir / "model.onnx";
    write_file(model, proto.SerializeAsString());
  }
};

TEST(ExternalData, KeepWritesTensorsBackToTheirLocations) {
  KeepFixture f;
  ir::Model m = load(f.model);
  // All tensors of one file share one mapping.
  auto* s1 = dynamic_cast<const ExternalStorage*>(initializer(m, "w1").storage().get());
  auto* s2 = dynamic_cast<const ExternalStorage*>(initializer(m, "w2").storage().get());
  ASSERT_TRUE(s1 && s2);
  EXPECT_EQ(&s1->file(), &s2->file());
  EXPECT_EQ(initializer(m, "w3").external.checksum, "abc");

  TempDir other;
  save(m, other / "copy.onnx");
  EXPECT_EQ(proto_diff(f.proto, parse_model(read_file(other / "copy.onnx"))), "");
  ir::Model copy = load(other / "copy.onnx");
  EXPECT_EQ(bytes_of(initializer(copy, "w1")), floats_bytes(100, 1));
  EXPECT_EQ(bytes_of(initializer(copy, "w2")), floats_bytes(100, 500));
  EXPECT_EQ(bytes_of(initializer(copy, "w3")), floats_bytes(10, 9));

  // Saving in place leaves data files that already hold the bytes alone.
  struct stat before {
  }, after{};
  ::stat((f.dir / "weights/w.bin").c_str(), &before);
  save(m, f.model);
  ::stat((f.dir / "weights/w.bin").c_str(), &after);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(proto_diff(f.proto, parse_model(read_file(f.model))), "");
}

TEST(ExternalData, ChangedTensorsRewriteTheDataFileAtomically) {
  KeepFixture f;
  ir::Model m = load(f.model);
  ir::Tensor& w1 = *m.graph->initializers()[0]->const_value();
  w1.set_storage(std::make_shared<ir::OwnedStorage>(floats_bytes(100, -50)));
  struct stat before {
  }, after{};
  ::stat((f.dir / "weights/w.bin").c_str(), &before);
  save(m, f.model);
  ::stat((f.dir / "weights/w.bin").c_str(), &after);
  EXPECT_NE(before.st_ino, after.st_ino);  // a new file renamed over the old
  // The old mapping stays valid: w2 still reads its bytes.
  EXPECT_EQ(bytes_of(initializer(m, "w2")), floats_bytes(100, 500));
  ir::Model back = load(f.model);
  EXPECT_EQ(bytes_of(initializer(back, "w1")), floats_bytes(100, -50));
  EXPECT_EQ(bytes_of(initializer(back, "w2")), floats_bytes(100, 500));
  EXPECT_EQ(dir_entries(f.dir.path()),
            (std::vector<std::string>{"model.onnx", "other.bin", "weights"}));

  // A tensor that changed size no longer fits its slot.
  w1.set_storage(std::make_shared<ir::OwnedStorage>(floats_bytes(101, 0)));
  try {
    save(m, f.model);
    ADD_FAILURE() << "saving a resized external tensor in Keep mode succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("now has 404 bytes"), std::string::npos) << e.what();
  }
}

TEST(ExternalData, ReplacingTheMappedDataFileKeepsLoadedTensorsValid) {
  TempDir dir;
  ir::Model first = load_from_bytes(inline_model().SerializeAsString(), dir.path(), "m");
  save(first, dir / "m.onnx", external(1024));
  ir::Model lazy = load(dir / "m.onnx");  // nothing mapped yet
  // Rewrite the same data file with another layout while `lazy` refers to it.
  save(lazy, dir / "m.onnx", external(16, 64));
  EXPECT_EQ(bytes_of(initializer(lazy, "big1")), floats_bytes(1000, 0));
  EXPECT_EQ(bytes_of(initializer(lazy, "big2")), floats_bytes(3000, 7));
  ir::Model fresh = load(dir / "m.onnx");
  EXPECT_EQ(bytes_of(initializer(fresh, "big2")), floats_bytes(3000, 7));
  EXPECT_EQ(bytes_of(initializer(fresh, "small")), floats_bytes(3, 100));
}

// Weights never read are copied file to file (copy_file_range), not read
// into memory: after saving elsewhere, in either mode, they are still
// unread, and the copies hold their bytes.
TEST(ExternalData, SavingElsewhereCopiesUnreadWeightsWithoutReadingThem) {
  TempDir dir;
  fs::create_directories(dir / "a");
  write_file(dir / "a/m.onnx", inline_model().SerializeAsString());
  save(load(dir / "a/m.onnx"), dir / "a/m.onnx", external(1024));
  ir::Model m = load(dir / "a/m.onnx");
  auto unread = [&](const char* name) {
    const ir::Storage* s = initializer(m, name).storage().get();
    return dynamic_cast<const ExternalStorage*>(s) && s->kind() == ir::Storage::Kind::Lazy;
  };
  ASSERT_TRUE(unread("big1") && unread("big2"));
  fs::create_directories(dir / "b");
  save(m, dir / "b/m.onnx");                    // Keep: the data file copied
  save(m, dir / "a/n.onnx", external(16, 64));  // a new layout beside the old file
  EXPECT_TRUE(unread("big1") && unread("big2"));
  for (const char* copy : {"b/m.onnx", "a/n.onnx"}) {
    ir::Model back = load(dir / copy);
    EXPECT_EQ(bytes_of(initializer(back, "big1")), floats_bytes(1000, 0)) << copy;
    EXPECT_EQ(bytes_of(initializer(back, "big2")), floats_bytes(3000, 7)) << copy;
    EXPECT_EQ(bytes_of(initializer(back, "small")), floats_bytes(3, 100)) << copy;
  }
  // Saving over the file they live in reads them first (they stay valid).
  save(m, dir / "a/m.onnx", external(16, 64));
  EXPECT_FALSE(unread("big1") || unread("big2"));
  EXPECT_EQ(bytes_of(initializer(m, "big2")), floats_bytes(3000, 7));
}

// Across file systems (here /dev/shm, a tmpfs, when it is one) the kernel
// may refuse copy_file_range: the copy goes through a buffer instead.
TEST(ExternalData, CopyingUnreadWeightsAcrossFileSystems) {
  struct stat tmp {
  }, shm{};
  if (::stat("/dev/shm", &shm) != 0 || ::access("/dev/shm", W_OK) != 0) {
    GTEST_SKIP() << "no writable /dev/shm";
  }
  TempDir dir;
  ::stat(dir.path().c_str(), &tmp);
  if (tmp.st_dev == shm.st_dev) GTEST_SKIP() << "/dev/shm is the temporary directory's file system";
  write_file(dir / "m.onnx", inline_model().SerializeAsString());
  save(load(dir / "m.onnx"), dir / "m.onnx", external(1024));
  ir::Model m = load(dir / "m.onnx");
  char tmpl[] = "/dev/shm/oxs_onnx_test_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string other = tmpl;
  save(m, other + "/m.onnx");
  save(m, other + "/n.onnx", external(16, 64));
  for (const char* copy : {"/m.onnx", "/n.onnx"}) {
    ir::Model back = load(other + copy);
    EXPECT_EQ(bytes_of(initializer(back, "big1")), floats_bytes(1000, 0)) << copy;
    EXPECT_EQ(bytes_of(initializer(back, "big2")), floats_bytes(3000, 7)) << copy;
  }
  std::error_code ec;
  fs::remove_all(other, ec);
}

TEST(ExternalData, ConcurrentFirstAccessMapsOnce) {
  TempDir dir;
  ir::Model m = load_from_bytes(inline_model().SerializeAsString(), dir.path(), "m");
  save(m, dir / "m.onnx", external(0));
  ir::Model lazy = load(dir / "m.onnx");
  std::vector<const ir::Tensor*> tensors;
  for (const ir::Value* v : lazy.graph->initializers()) {
    if (v->const_value()->encoding == ir::Tensor::Encoding::External) {
      tensors.push_back(v->const_value().get());
    }
  }
  ASSERT_GE(tensors.size(), 3u);
  std::vector<std::vector<const std::byte*>> seen(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      for (const ir::Tensor* t : tensors) seen[i].push_back(t->bytes().data());
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 1; i < 8; ++i) EXPECT_EQ(seen[i], seen[0]);
  EXPECT_EQ(bytes_of(initializer(lazy, "big1")), floats_bytes(1000, 0));
}

TEST(ExternalData, DataInsideTheModelFileItselfIsNotOverwritten) {
  TempDir dir;
  // A tensor whose "data file" is the model file: loadable, but saving it in
  // Keep mode would write data and model to the same file.
  oxs::wire::ModelProto m;
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(oxs::wire::TensorProto::UINT8);
  t->add_dims(1);
  t->set_data_location(oxs::wire::TensorProto::EXTERNAL);
  auto* e = t->add_external_data();
  e->set_key("location");
  e->set_value("m.onnx");
  e = t->add_external_data();
  e->set_key("length");
  e->set_value("1");
  write_file(dir / "m.onnx", m.SerializeAsString());
  ir::Model model = load(dir / "m.onnx");
  EXPECT_THROW(save(model, dir / "m.onnx"), Error);
  EXPECT_EQ(read_file(dir / "m.onnx"), m.SerializeAsString());
}

TEST(ExternalData, EagerLoadingReadsIntoMemory) {
  KeepFixture f;
  ir::Model m = load(f.model, LoadOptions{.lazy_external_data = false});
  EXPECT_EQ(initializer(m, "w2").storage()->kind(), ir::Storage::Kind::Owned);
  EXPECT_EQ(bytes_of(initializer(m, "w2")), floats_bytes(100, 500));
}

TEST(ExternalData, ModelDirectoryReachedThroughASymlinkIsFine) {
  KeepFixture f;
  TempDir other;
  fs::create_directory_symlink(f.dir.path(), other / "alias");
  ir::Model m = load(other / "alias/model.onnx");
  EXPECT_EQ(bytes_of(initializer(m, "w1")), floats_bytes(100, 1));
}

// ---- unsafe locations ----

struct Unsafe {
  const char* name;
  std::vector<std::pair<std::string, std::string>> entries;
  const char* needle;
};

TEST(ExternalData, UnsafeLocationsAreRefused) {
  TempDir root;
  fs::create_directories(root / "model/sub");
  fs::create_directories(root / "model/subdir");
  write_file(root / "secret.bin", floats_bytes(100, 0));
  write_file(root / "model/data.bin", floats_bytes(100, 0));
  fs::create_symlink(root / "model/data.bin", root / "model/link.bin");
  fs::create_symlink(root / "secret.bin", root / "model/out.bin");
  fs::create_directory_symlink(root / "model", root / "model/linkdir");
  ASSERT_EQ(::mkfifo((root / "model/fifo").c_str(), 0644), 0);

  const std::vector<Unsafe> cases = {
      {"empty", {{"location", ""}}, "is empty"},
      {"absolute", {{"location", root / "model/data.bin"}}, "absolute path"},
      {"etc", {{"location", "/etc/passwd"}}, "absolute path"},
      {"dotdot", {{"location", "../secret.bin"}}, "'..' component"},
      {"inner_dotdot", {{"location", "sub/../data.bin"}}, "'..' component"},
      {"trailing_dotdot", {{"location", "sub/.."}}, "'..' component"},
      {"symlink_file", {{"location", "link.bin"}}, "symbolic link"},
      {"symlink_outside", {{"location", "out.bin"}}, "symbolic link"},
      {"symlink_dir", {{"location", "linkdir/data.bin"}}, "symbolic link"},
      {"directory", {{"location", "subdir"}}, "is a directory"},
      {"fifo", {{"location", "fifo"}}, "is a fifo"},
      {"missing", {{"location", "missing.bin"}}, "cannot be opened"},
      {"file_as_dir", {{"location", "data.bin/x"}}, "non-directory component"},
      {"nul", {{"location", std::string("data.bin\0x", 10)}}, "NUL byte"},
      {"no_location", {{"offset", "0"}}, "no 'location' entry"},
      {"offset_beyond", {{"location", "data.bin"}, {"offset", "5000"}}, "beyond the end"},
      {"length_beyond",
       {{"location", "data.bin"}, {"offset", "8"}, {"length", "400"}},
       "beyond the end"},
      {"huge_length",
       {{"location", "data.bin"}, {"offset", "8"}, {"length", "9223372036854775807"}},
       "beyond the end"},
      {"negative_offset", {{"location", "data.bin"}, {"offset", "-1"}}, "is negative"},
      {"negative_length", {{"location", "data.bin"}, {"length", "-400"}}, "is negative"},
      {"garbage_offset", {{"location", "data.bin"}, {"offset", "12abc"}}, "not an integer"},
      {"overflow_offset",
       {{"location", "data.bin"}, {"offset", "99999999999999999999"}},
       "not an integer (overflow)"},
      {"wrong_length", {{"location", "data.bin"}, {"length", "16"}}, "needs 400 bytes"},
  };
  for (const Unsafe& c : cases) {
    SCOPED_TRACE(c.name);
    oxs::wire::ModelProto m;
    m.set_ir_version(8);
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name("w");
    t->set_data_type(oxs::wire::TensorProto::FLOAT);
    t->add_dims(100);
    t->set_data_location(oxs::wire::TensorProto::EXTERNAL);
    std::string location;
    for (const auto& [k, v] : c.entries) {
      auto* e = t->add_external_data();
      e->set_key(k);
      e->set_value(v);
      if (k == "location") location = v;
    }
    const std::string path = root / "model/model.onnx";
    write_file(path, m.SerializeAsString());
    try {
      load(path);
      ADD_FAILURE() << "loaded";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(c.needle), std::string::npos) << what;
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find("tensor 'w'"), std::string::npos) << what;
      if (!location.empty() && location.find('\0') == std::string::npos) {
        EXPECT_NE(what.find("'" + location + "'"), std::string::npos) << what;
      }
      EXPECT_EQ(e.kind(), ErrorKind::Input) << what;
    }
  }
  // The same directory with a sound location loads.
  oxs::wire::ModelProto ok;
  auto* t = ok.mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(oxs::wire::TensorProto::FLOAT);
  t->add_dims(100);
  t->set_data_location(oxs::wire::TensorProto::EXTERNAL);
  auto* e = t->add_external_data();
  e->set_key("location");
  e->set_value("./data.bin");
  write_file(root / "model/ok.onnx", ok.SerializeAsString());
  EXPECT_EQ(bytes_of(initializer(load(root / "model/ok.onnx"), "w")), floats_bytes(100, 0));
}

// ---- atomic saves ----

// Bytes that cannot be read (a data file that vanished, a failing device).
class FailingStorage final : public ir::Storage {
 public:
  explicit FailingStorage(size_t size) : size_(size) {}
  Kind kind() const override { return Kind::Lazy; }
  std::span<const std::byte> bytes() const override {
    throw Error(ErrorKind::IO, "the device went away");
  }
  size_t size() const override { return size_; }

 private:
  size_t size_;
};

ir::Model model_with_storage(std::shared_ptr<const ir::Storage> s, int64_t n) {
  ir::Model m;
  auto t = std::make_shared<ir::Tensor>(ir::DataType::Float, std::vector<int64_t>{n});
  t->set_storage(std::move(s));
  ir::Value* w = m.graph->add_initializer("w", t);
  m.graph->add_output(w);
  return m;
}

TEST(AtomicSave, FailedSaveLeavesOldFilesAndNoTemporaries) {
  TempDir dir;
  write_file(dir / "m.onnx", "OLD MODEL");
  write_file(dir / "m.onnx.data", "OLD DATA");
  ir::Model m = model_with_storage(std::make_shared<FailingStorage>(4000), 1000);
  EXPECT_THROW(save(m, dir / "m.onnx", external(0)), Error);
  EXPECT_THROW(save(m, dir / "m.onnx"), Error);
  EXPECT_EQ(read_file(dir / "m.onnx"), "OLD MODEL");
  EXPECT_EQ(read_file(dir / "m.onnx.data"), "OLD DATA");
  EXPECT_EQ(dir_entries(dir.path()), (std::vector<std::string>{"m.onnx", "m.onnx.data"}));
}

TEST(AtomicSave, InlineOverTwoGigabytesAsksForExternalData) {
  TempDir dir;
  // Claims 3 GiB but is never read: the limit is checked first.
  ir::Model m =
      model_with_storage(std::make_shared<FailingStorage>(size_t{3} << 30), int64_t{3} << 28);
  for (auto mode : {SaveOptions::ExternalData::Inline, SaveOptions::ExternalData::Keep}) {
    SaveOptions o;
    o.external_data = mode;
    try {
      save(m, dir / "big.onnx", o);
      ADD_FAILURE() << "saved";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
      EXPECT_NE(std::string(e.what()).find("2 GiB"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("--external-data"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(save_to_bytes(m), Error);
  EXPECT_TRUE(dir_entries(dir.path()).empty());
}

TEST(AtomicSave, BadTargetsAreErrors) {
  TempDir dir;
  ir::Model m = load_from_bytes(inline_model().SerializeAsString(), ".", "m");
  fs::create_directories(dir / "isdir");
  EXPECT_THROW(save(m, dir / "isdir"), Error);
  try {
    save(m, dir / "no/such/dir/m.onnx");
    ADD_FAILURE() << "saved";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::IO);
  }
  SaveOptions bad;
  bad.alignment = 0;
  EXPECT_THROW(save(m, dir / "m.onnx", bad), Error);
  EXPECT_EQ(dir_entries(dir.path()), (std::vector<std::string>{"isdir"}));
}

}  // namespace
}  // namespace oxs::onnx
