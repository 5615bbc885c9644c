// Inference conformance over libonnx's node test models: for each model, the
// graph outputs' declared types are removed, the model is inferred by
// infer::run, and what we infer must agree with the declaration (merge
// without contradiction; same element type whenever we infer one). Models
// whose outputs libonnx itself cannot infer are counted, not failed.
#include <gtest/gtest.h>

#include <onnx/shape_inference/implementation.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/libonnx_bridge.h"
#include "oxs/onnx/model_io.h"

namespace oxs::infer {
namespace {

namespace fs = std::filesystem;

const char* kNodeDir = "/usr/share/libonnx-testdata/data/node";

// Cases we do not run, each with the reason.
const std::map<std::string, std::string> kExcluded = {};

TEST(InferConformance, NodeTestModels) {
  ASSERT_TRUE(fs::is_directory(kNodeDir)) << "install libonnx-testdata";
  size_t models = 0, outputs = 0, exact = 0, partial = 0, unknown = 0;
  std::vector<std::string> failures;
  for (const auto& entry : fs::directory_iterator(kNodeDir)) {
    std::string name = entry.path().filename().string();
    if (kExcluded.count(name)) continue;
    std::string path = (entry.path() / "model.onnx").string();
    if (!fs::exists(path)) continue;
    ir::Model m = onnx::load(path);
    std::vector<ir::Type> declared;
    for (ir::Value* v : m.graph->outputs()) {
      declared.push_back(v->type());
      v->set_type({});
    }
    ++models;
    try {
      run(m);
    } catch (const Error& e) {
      failures.push_back(name + ": " + e.message());
      continue;
    }
    for (size_t i = 0; i < declared.size(); ++i) {
      const ir::Type& got = m.graph->outputs()[i]->type();
      ++outputs;
      if (got == declared[i]) {
        ++exact;
        continue;
      }
      if (got.is_none()) {
        ++unknown;
        continue;
      }
      try {
        merge_types(declared[i], got, "output");
        if (got.is_tensor() && got.elem_type() != declared[i].elem_type()) {
          failures.push_back(name + ": output " + std::to_string(i) + " inferred " +
                             got.to_string() + ", declared " + declared[i].to_string());
        } else {
          ++partial;
          if (getenv("OXS_SHOW_PARTIAL")) {
            std::cout << name << ": " << got.to_string() << " vs " << declared[i].to_string()
                      << "\n";
          }
        }
      } catch (const Error& e) {
        failures.push_back(name + ": " + e.message());
      }
    }
  }
  std::cout << "node models: " << models << ", outputs: " << outputs << ", exact: " << exact
            << ", partial: " << partial << ", unknown: " << unknown << "\n";
  EXPECT_GT(models, 800u);
  // Most outputs must be inferred exactly as declared.
  EXPECT_GT(exact * 10, outputs * 8);
  for (const auto& f : failures) ADD_FAILURE() << f;
}

// What libonnx's own whole-graph inference (with data propagation) finds for
// the outputs; its invented symbols ("unk__0") count as unknown.
std::vector<ir::Type> libonnx_outputs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  ::onnx::ModelProto proto;
  if (!proto.ParseFromString(ss.str())) return {};
  for (auto& o : *proto.mutable_graph()->mutable_output()) o.clear_type();
  try {
    ::onnx::shape_inference::InferShapes(proto, ::onnx::OpSchemaRegistry::Instance(),
                                         ::onnx::ShapeInferenceOptions(false, 0, true));
  } catch (const std::exception&) {
    return {};
  }
  std::vector<ir::Type> out;
  for (const auto& o : proto.graph().output()) {
    ir::Type t = o.has_type() ? onnx::type_from_proto(o.type()) : ir::Type();
    if (t.is_tensor() && t.shape()) {
      for (auto& d : t.shape()->dims()) {
        if (d.is_symbolic() && d.symbol().rfind("unk__", 0) == 0) d = ir::Dim::unknown();
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Whether `ours` knows everything `theirs` does.
bool at_least_as_precise(const ir::Type& ours, const ir::Type& theirs) {
  if (theirs.is_none()) return true;
  if (ours.kind() != theirs.kind()) return false;
  if (!theirs.is_tensor()) return ours == theirs || !(ours.element() == nullptr);
  if (theirs.elem_type() != ir::DataType::Undefined && ours.elem_type() != theirs.elem_type()) {
    return false;
  }
  if (!theirs.shape()) return true;
  if (!ours.shape() || ours.shape()->rank() != theirs.shape()->rank()) return false;
  for (size_t i = 0; i < theirs.shape()->rank(); ++i) {
    const ir::Dim& t = (*theirs.shape())[i];
    const ir::Dim& o = (*ours.shape())[i];
    if (t.is_known() && !(o.is_known() && o.value() == t.value())) return false;
    if (t.is_symbolic() && o.is_unknown()) return false;
  }
  return true;
}

// Never less than libonnx's own inference on the same models.
TEST(InferConformance, AtLeastAsPreciseAsLibonnx) {
  ASSERT_TRUE(fs::is_directory(kNodeDir)) << "install libonnx-testdata";
  size_t compared = 0, better = 0;
  for (const auto& entry : fs::directory_iterator(kNodeDir)) {
    std::string name = entry.path().filename().string();
    if (kExcluded.count(name)) continue;
    std::string path = (entry.path() / "model.onnx").string();
    if (!fs::exists(path)) continue;
    std::vector<ir::Type> theirs = libonnx_outputs(path);
    ir::Model m = onnx::load(path);
    for (ir::Value* v : m.graph->outputs()) v->set_type({});
    try {
      run(m);
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.message();
      continue;
    }
    for (size_t i = 0; i < theirs.size() && i < m.graph->outputs().size(); ++i) {
      const ir::Type& ours = m.graph->outputs()[i]->type();
      ++compared;
      EXPECT_TRUE(at_least_as_precise(ours, theirs[i]))
          << name << " output " << i << ": ours " << ours.to_string() << ", libonnx "
          << theirs[i].to_string();
      if (!at_least_as_precise(theirs[i], ours)) ++better;
    }
  }
  std::cout << "outputs compared with libonnx: " << compared << ", more precise: " << better
            << "\n";
  EXPECT_GT(compared, 1000u);
}

}  // namespace
}  // namespace oxs::infer
