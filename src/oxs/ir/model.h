// Model and model-local Function: the top of the IR. A Function is a named,
// domain-qualified body graph with attribute parameters; nodes in the body
// refer to them through Attr::ref_attr_name.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "oxs/ir/graph.h"

namespace oxs::ir {

struct OpsetImport {
  std::string domain;  // "" for ai.onnx
  int64_t version = 0;
  uint32_t proto_quirks = 0;  // onnx/ only (e.g. domain field absent)
  bool operator==(const OpsetImport& o) const { return domain == o.domain && version == o.version; }
};

using StringPairs = std::vector<std::pair<std::string, std::string>>;

// The version imported for `domain` ("" and "ai.onnx" are the same domain).
std::optional<int64_t> find_opset(const std::vector<OpsetImport>& imports,
                                  const std::string& domain);

class Function {
 public:
  Function() : body(std::make_unique<Graph>()) {}
  Function(std::string domain, std::string name)
      : name(std::move(name)), domain(std::move(domain)), body(std::make_unique<Graph>()) {}

  std::string name;
  std::string domain;
  std::string doc_string;
  // Names of the attribute parameters, in order.
  std::vector<std::string> attributes;
  std::vector<OpsetImport> opset_imports;
  // Inputs and outputs of the body are the function's formal parameters.
  std::unique_ptr<Graph> body;
  // onnx/ only: how the loaded protobuf deviated from the canonical encoding
  // (e.g. a field explicitly set to its default), so that saving reproduces
  // it exactly. 0 for anything built in memory.
  uint32_t proto_quirks = 0;
};

struct TrainingInfo {
  std::unique_ptr<Graph> initialization;
  std::unique_ptr<Graph> algorithm;
  StringPairs initialization_binding;
  StringPairs update_binding;
};

class Model {
 public:
  Model() : graph(std::make_unique<Graph>()) {}

  int64_t ir_version = 8;
  std::vector<OpsetImport> opset_imports;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  std::string doc_string;
  std::unique_ptr<Graph> graph;
  StringPairs metadata_props;
  std::vector<TrainingInfo> training_info;
  std::vector<std::unique_ptr<Function>> functions;

  // Proto2 presence of scalar fields that hold their default value, so that
  // a round trip reproduces the file exactly. Only onnx/ reads these.
  bool has_ir_version = true;
  bool has_model_version = false;
  // onnx/ only: how the loaded protobuf deviated from the canonical encoding
  // (e.g. a field explicitly set to its default), so that saving reproduces
  // it exactly. 0 for anything built in memory.
  uint32_t proto_quirks = 0;

  Function* find_function(const std::string& domain, const std::string& name) const;
};

}  // namespace oxs::ir
