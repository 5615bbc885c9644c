// `oxs run` (the binary named by $OXS_BIN) with sequence, optional and map
// inputs and outputs: backend test models run on their .pb inputs and
// compared with their expected output .pb (read through onnx::load_value),
// the comma-list, [] and none forms, --random sequences, --output-dir
// directories and JSON, and clear errors for inputs of the wrong kind.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "oxs/eval/npy.h"
#include "oxs/eval/summary.h"
#include "oxs/onnx/model_io.h"
#include "oxs/onnx/value_io.h"

namespace oxs::eval {
namespace {

namespace fs = std::filesystem;

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

const std::string kNode = "/usr/share/libonnx-testdata/data/node/";

std::string model(const std::string& test) {
  return kNode + test + "/model.onnx";
}
std::string data(const std::string& test, const std::string& file) {
  return kNode + test + "/test_data_set_0/" + file;
}

// A test-data file read as `type` (the kind its model declares).
onnx::ValueData expected(const std::string& test, const std::string& file, const ir::Type& type) {
  return onnx::load_value(data(test, file), type);
}

Tensor tensor_of(const onnx::ValueData& d) {
  return Tensor::from_ir(*d.tensor);
}

void expect_same_tensor(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.dims(), want.dims()) << what;
  for (int64_t i = 0; i < want.numel(); ++i) {
    ASSERT_EQ(got.get_as_double(i), want.get_as_double(i)) << what << " element " << i;
  }
}

const ir::Type kSeqI64 = ir::Type::sequence(ir::Type::tensor(DataType::Int64));

class RunValuesCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "oxs_run_values_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string p(const std::string& f) { return (dir_ / f).string(); }
  void write(const std::string& f, const std::string& text) { std::ofstream(p(f)) << text; }
  fs::path dir_;
};

const std::string kInsert = "test_sequence_insert_at_back";

TEST_F(RunValuesCli, SequenceModelOnItsPbInputsGivesTheExpectedOutput) {
  Result r = oxs("run " + model(kInsert) + " --input sequence=" + data(kInsert, "input_0.pb") +
                 " --input tensor=" + data(kInsert, "input_1.pb") + " --output-dir " + p("out"));
  ASSERT_EQ(r.code, 0) << r.out;
  onnx::ValueData want = expected(kInsert, "output_0.pb", kSeqI64);
  ASSERT_EQ(want.kind, onnx::ValueData::Kind::Sequence);
  ASSERT_FALSE(want.items.empty());
  // Printed: the length, then one summary line per element.
  std::string head = "output_sequence: seq[" + std::to_string(want.items.size()) + "]";
  EXPECT_NE(r.out.find(head), std::string::npos) << r.out;
  for (size_t i = 0; i < want.items.size(); ++i) {
    std::string line = "[" + std::to_string(i) + "] " + summarize(tensor_of(want.items[i]));
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
    // Written: one .npy per element in a directory named after the output.
    Tensor got = read_npy(p("out/output_sequence/" + std::to_string(i) + ".npy"));
    expect_same_tensor(got, tensor_of(want.items[i]), "element " + std::to_string(i));
  }
  EXPECT_FALSE(fs::exists(p("out/output_sequence/" + std::to_string(want.items.size()) + ".npy")));
}

TEST_F(RunValuesCli, SequenceAsACommaListOfNpyFiles) {
  onnx::ValueData in = expected(kInsert, "input_0.pb", kSeqI64);
  std::string list;
  for (size_t i = 0; i < in.items.size(); ++i) {
    std::string f = p("e" + std::to_string(i) + ".npy");
    write_npy(f, tensor_of(in.items[i]));
    list += (i ? "," : "") + f;
  }
  Result r = oxs("run " + model(kInsert) + " --input sequence=" + list +
                 " --input tensor=" + data(kInsert, "input_1.pb") + " --output-dir " + p("out"));
  ASSERT_EQ(r.code, 0) << r.out;
  onnx::ValueData want = expected(kInsert, "output_0.pb", kSeqI64);
  for (size_t i = 0; i < want.items.size(); ++i) {
    expect_same_tensor(read_npy(p("out/output_sequence/" + std::to_string(i) + ".npy")),
                       tensor_of(want.items[i]), "element " + std::to_string(i));
  }
  // [] is an empty sequence: inserting gives just the tensor.
  Result e = oxs("run " + model(kInsert) + " --input sequence=[] --input tensor=" +
                 data(kInsert, "input_1.pb") + " --output-dir " + p("out"));
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_NE(e.out.find("output_sequence: seq[1]"), std::string::npos) << e.out;
  expect_same_tensor(read_npy(p("out/output_sequence/0.npy")),
                     tensor_of(expected(kInsert, "input_1.pb", ir::Type())), "inserted");
  // The longer sequence of the first run left no stale files behind.
  EXPECT_FALSE(fs::exists(p("out/output_sequence/1.npy")));
}

TEST_F(RunValuesCli, RandomSequenceInputs) {
  Result r = oxs("run " + model(kInsert) + " --random --seq-len 3");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("input sequence: seq[3]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[2] int64[3]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output_sequence: seq[4]"), std::string::npos) << r.out;
  Result t = oxs("run " + model(kInsert) + " --random --seq-len 1 --trace");
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("SequenceInsert"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("-> output_sequence: seq[2]"), std::string::npos) << t.out;
}

TEST_F(RunValuesCli, OptionalInputsFromAFileOrNone) {
  const std::string get = "test_optional_get_element";
  ir::Type opt = ir::Type::optional(ir::Type::tensor(DataType::Float));
  Result r = oxs("run " + model(get) + " --input optional_input=" + data(get, "input_0.pb") +
                 " --output-dir " + p("out"));
  ASSERT_EQ(r.code, 0) << r.out;
  Tensor want = tensor_of(expected(get, "output_0.pb", ir::Type()));
  EXPECT_NE(r.out.find("output: " + summarize(want)), std::string::npos) << r.out;
  expect_same_tensor(read_npy(p("out/output.npy")), want, "output");
  // A plain tensor file is a present optional.
  Tensor in = tensor_of(expected(get, "input_0.pb", opt).items.at(0));
  write_npy(p("x.npy"), in);
  Result n = oxs("run " + model(get) + " --input optional_input=" + p("x.npy"));
  ASSERT_EQ(n.code, 0) << n.out;
  EXPECT_NE(n.out.find("output: " + summarize(in)), std::string::npos) << n.out;
  // `none` is an empty optional, which OptionalGetElement rejects.
  Result none = oxs("run " + model(get) + " --input optional_input=none");
  EXPECT_EQ(none.code, 1) << none.out;
  EXPECT_NE(none.out.find("OptionalGetElement"), std::string::npos) << none.out;

  const std::string has = "test_optional_has_element_empty";
  Result h = oxs("run " + model(has) + " --input optional_input=" + data(has, "input_0.pb"));
  ASSERT_EQ(h.code, 0) << h.out;
  bool want_has = tensor_of(expected(has, "output_0.pb", ir::Type())).data<bool>()[0];
  EXPECT_NE(h.out.find(want_has ? "[true]" : "[false]"), std::string::npos) << h.out;
  Result hn = oxs("run " + model(has) + " --input optional_input=none");
  EXPECT_NE(hn.out.find("output: bool[] min=0 max=0"), std::string::npos) << hn.out;
  Result hr = oxs("run " + model(has) + " --random");
  EXPECT_NE(hr.out.find("output: bool[] min=1 max=1"), std::string::npos) << hr.out;
}

TEST_F(RunValuesCli, OptionalSequenceOutputIsWrittenAsItsElement) {
  const std::string t = "test_optional_get_element_sequence";
  Result r = oxs("run " + model(t) + " --input optional_input=" + data(t, "input_0.pb") +
                 " --output-dir " + p("out"));
  ASSERT_EQ(r.code, 0) << r.out;
  onnx::ValueData want = expected(t, "output_0.pb", ir::Type::sequence(ir::Type()));
  for (size_t i = 0; i < want.items.size(); ++i) {
    expect_same_tensor(read_npy(p("out/output/" + std::to_string(i) + ".npy")),
                       tensor_of(want.items[i]), "element " + std::to_string(i));
  }
}

TEST_F(RunValuesCli, InputsOfTheWrongKindAreClearErrors) {
  std::string tensor_pb = data(kInsert, "input_1.pb");
  std::string seq_pb = data(kInsert, "input_0.pb");
  // A SequenceProto for the tensor input.
  Result a =
      oxs("run " + model(kInsert) + " --input sequence=" + seq_pb + " --input tensor=" + seq_pb);
  EXPECT_EQ(a.code, 1) << a.out;
  EXPECT_NE(a.out.find("input 'tensor': the file is a SequenceProto, not the TensorProto expected"),
            std::string::npos)
      << a.out;
  // A list for a tensor input, a malformed list.
  Result b = oxs("run " + model(kInsert) + " --input sequence=[] --input tensor=a.npy,b.npy");
  EXPECT_EQ(b.code, 2) << b.out;
  EXPECT_NE(b.out.find("--input tensor: the input is a tensor"), std::string::npos) << b.out;
  Result c =
      oxs("run " + model(kInsert) + " --input sequence=a.npy,,b.npy --input tensor=" + tensor_pb);
  EXPECT_EQ(c.code, 2) << c.out;
  EXPECT_NE(c.out.find("has an empty item"), std::string::npos) << c.out;
  // Elements of another dtype than the declared seq(int64).
  write_npy(p("f.npy"), Tensor(DataType::Float, {3}));
  Result d = oxs("run " + model(kInsert) + " --input sequence=" + p("f.npy") + "," + p("f.npy") +
                 " --input tensor=" + tensor_pb);
  EXPECT_EQ(d.code, 1) << d.out;
  EXPECT_NE(d.out.find("input 'sequence' element 0 must be int64"), std::string::npos) << d.out;
  // A TensorProto where an OptionalProto of a sequence is expected.
  Result e = oxs("run " + model("test_optional_get_element_sequence") +
                 " --input optional_input=" + tensor_pb);
  EXPECT_EQ(e.code, 1) << e.out;
  EXPECT_NE(e.out.find("input 'optional_input': the file is a TensorProto, not the OptionalProto"),
            std::string::npos)
      << e.out;
  Result f = oxs("run " + model(kInsert) + " --input nosuch=" + tensor_pb);
  EXPECT_EQ(f.code, 2) << f.out;
  EXPECT_NE(f.out.find("no input named 'nosuch'"), std::string::npos) << f.out;
}

// A model X: map(int64, float) -> CastMap -> Y, and Z = ZipMap(Y).
std::string write_map_model(const std::string& path) {
  ir::Model m;
  m.opset_imports = {{"", 17}, {"ai.onnx.ml", 1}};
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> ins{
      g.add_input("X", ir::Type::map(DataType::Int64, ir::Type::tensor(DataType::Float)))};
  ir::Node* cast = g.create_node("CastMap", ins, 1, "ai.onnx.ml");
  cast->set_attr(ir::Attr::of_string("map_form", "SPARSE"));
  cast->set_attr(ir::Attr::of_int("max_map", 3));
  cast->output(0)->set_name("Y");
  std::vector<ir::Value*> y{cast->output(0)};
  ir::Node* zip = g.create_node("ZipMap", y, 1, "ai.onnx.ml");
  zip->set_attr(ir::Attr::of_strings("classlabels_strings", {"a", "b", "c"}));
  zip->output(0)->set_name("Z");
  g.add_output(cast->output(0));
  g.add_output(zip->output(0));
  onnx::save(m, path);
  return path;
}

TEST_F(RunValuesCli, MapInputsFromJsonAndMapOutputsAsJson) {
  std::string mp = write_map_model(p("map.onnx"));
  write("m.json", R"({"2": 0.5, "0": -1.25})");
  Result r = oxs("run " + mp + " --input X=" + p("m.json") + " --output-dir " + p("out"));
  ASSERT_EQ(r.code, 0) << r.out;
  // SPARSE CastMap puts each value at its key; ZipMap labels the columns.
  EXPECT_NE(r.out.find("Y: float[1,3] min=-1.25 max=0.5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[0] map(string,float)[3] {\"a\": -1.25, \"b\": 0, \"c\": 0.5}"),
            std::string::npos)
      << r.out;
  std::ifstream in(p("out/Z/0.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "{\"a\":-1.25,\"b\":0.0,\"c\":0.5}\n");
  // --random cannot make maps; a bad JSON key is named.
  Result rnd = oxs("run " + mp + " --random");
  EXPECT_EQ(rnd.code, 2) << rnd.out;
  EXPECT_NE(rnd.out.find("input 'X' is a map"), std::string::npos) << rnd.out;
  write("bad.json", R"({"one": 0.5})");
  Result bad = oxs("run " + mp + " --input X=" + p("bad.json"));
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_NE(bad.out.find("entry \"one\": the key is not an integer"), std::string::npos) << bad.out;
  Result big = oxs("run " + mp + " --input X=" + p("m.json") + " --random");
  EXPECT_EQ(big.code, 0) << big.out;
  write("far.json", R"({"5": 1})");
  Result far = oxs("run " + mp + " --input X=" + p("far.json"));
  EXPECT_EQ(far.code, 1) << far.out;
  EXPECT_NE(far.out.find("outside [0, max_map=3)"), std::string::npos) << far.out;
}

TEST_F(RunValuesCli, OptionalOutputsPrintedAndWrittenOrNot) {
  // E = Optional() of type float (empty), P = Optional(X).
  ir::Model m;
  m.opset_imports = {{"", 17}};
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> x{g.add_input("X", ir::Type::tensor(DataType::Float, ir::Shape{2}))};
  ir::Node* e = g.create_node("Optional", std::vector<ir::Value*>{});
  ir::Attr type("type", ir::AttrType::TypeProto);
  type.tp = ir::Type::tensor(DataType::Float);
  e->set_attr(std::move(type));
  e->output(0)->set_name("E");
  ir::Node* pn = g.create_node("Optional", x);
  pn->output(0)->set_name("P");
  g.add_output(e->output(0));
  g.add_output(pn->output(0));
  onnx::save(m, p("opt.onnx"));
  Tensor in = Tensor::of<float>(DataType::Float, {2}, std::vector<float>{1.5f, -2.0f});
  write_npy(p("x.npy"), in);
  Result r = oxs("run " + p("opt.onnx") + " --input X=" + p("x.npy") + " --output-dir " + p("out"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("E: none (an empty optional)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("P: optional(" + summarize(in) + ")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output 'E' is an empty optional; nothing written"), std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(p("out/E.npy")));
  expect_same_tensor(read_npy(p("out/P.npy")), in, "P");
}

}  // namespace
}  // namespace oxs::eval
