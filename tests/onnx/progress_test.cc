// LoadOptions/SaveOptions::progress: the hook the CLI's progress line uses
// on multi-GB models. Reports grow, stay within the total and end at it.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "oxs/onnx/model_io.h"
#include "test_util.h"

namespace oxs::onnx {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_file;

using Calls = std::vector<std::pair<uint64_t, uint64_t>>;

// Two raw initializers of `mib` MiB each, and a node using them.
std::string big_model(size_t mib) {
  oxs::wire::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  for (const char* name : {"a", "b"}) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(oxs::wire::TensorProto::UINT8);
    t->add_dims(static_cast<int64_t>(mib << 20));
    t->set_raw_data(std::string(mib << 20, '\x5a'));
  }
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("a");
  add->add_input("b");
  add->add_output("y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

void expect_monotonic_up_to(const Calls& calls, uint64_t total) {
  ASSERT_FALSE(calls.empty());
  for (size_t i = 1; i < calls.size(); ++i) {
    EXPECT_GE(calls[i].first, calls[i - 1].first) << "call " << i;
  }
  EXPECT_EQ(calls.back(), std::make_pair(total, total));
}

TEST(Progress, LoadReportsTheBytesParsedUpToTheFileSize) {
  TempDir dir;
  write_file(dir / "m.onnx", big_model(20));
  const uint64_t size = fs::file_size(dir / "m.onnx");
  Calls calls;
  LoadOptions options;
  options.progress = [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); };
  load(dir / "m.onnx", options);
  // 40 MiB parsed in 16 MiB steps: at least two reports before the end.
  EXPECT_GE(calls.size(), 3u);
  for (const auto& c : calls) EXPECT_EQ(c.second, size);
  expect_monotonic_up_to(calls, size);
}

TEST(Progress, SaveReportsModelAndDataFileBytes) {
  TempDir dir;
  write_file(dir / "m.onnx", big_model(20));
  const ir::Model model = load(dir / "m.onnx");
  Calls calls;
  SaveOptions options;
  options.external_data = SaveOptions::ExternalData::External;
  options.progress = [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); };
  save(model, dir / "out.onnx", options);
  const uint64_t written = fs::file_size(dir / "out.onnx") + (40u << 20);
  EXPECT_GE(calls.size(), 3u);
  expect_monotonic_up_to(calls, written);
  // Once the data files are planned, the total is known.
  EXPECT_EQ(calls[calls.size() - 2].second, written);
}

}  // namespace
}  // namespace oxs::onnx
