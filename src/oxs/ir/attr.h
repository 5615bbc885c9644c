// Node attributes. An Attr holds one value of its AttrType, or, inside a
// function body, a reference to an attribute parameter of the function
// (ref_attr_name). Graph attributes own their subgraphs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oxs/ir/tensor.h"
#include "oxs/ir/type.h"

namespace oxs::ir {

class Graph;

// Values equal AttributeProto.AttributeType.
enum class AttrType : int32_t {
  Undefined = 0,
  Float = 1,
  Int = 2,
  String = 3,
  Tensor = 4,
  Graph = 5,
  Floats = 6,
  Ints = 7,
  Strings = 8,
  Tensors = 9,
  Graphs = 10,
  SparseTensor = 11,
  SparseTensors = 12,
  TypeProto = 13,
  TypeProtos = 14,
};

// "int", "floats", "graph", ...
const char* attr_type_name(AttrType t);

class Attr {
 public:
  Attr() = default;
  Attr(std::string name, AttrType type) : name(std::move(name)), type(type) {}
  Attr(Attr&&) noexcept;
  Attr& operator=(Attr&&) noexcept;
  ~Attr();
  // Deep copy (subgraphs are cloned).
  Attr clone() const;

  static Attr of_float(std::string name, float v);
  static Attr of_int(std::string name, int64_t v);
  static Attr of_string(std::string name, std::string v);
  static Attr of_floats(std::string name, std::vector<float> v);
  static Attr of_ints(std::string name, std::vector<int64_t> v);
  static Attr of_strings(std::string name, std::vector<std::string> v);
  static Attr of_tensor(std::string name, std::shared_ptr<Tensor> v);
  static Attr of_graph(std::string name, std::unique_ptr<Graph> g);
  static Attr reference(std::string name, AttrType type, std::string ref_attr_name);

  bool is_reference() const { return !ref_attr_name.empty(); }

  std::string name;
  AttrType type = AttrType::Undefined;
  std::string ref_attr_name;
  std::string doc_string;
  // onnx/ only: how the loaded protobuf deviated from the canonical encoding
  // (e.g. a field explicitly set to its default), so that saving reproduces
  // it exactly. 0 for anything built in memory.
  uint32_t proto_quirks = 0;

  float f = 0;
  int64_t i = 0;
  std::string s;
  std::shared_ptr<Tensor> t;
  std::unique_ptr<Graph> g;
  std::shared_ptr<SparseTensor> sparse_tensor;
  Type tp;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<std::shared_ptr<Tensor>> tensors;
  std::vector<std::unique_ptr<Graph>> graphs;
  std::vector<std::shared_ptr<SparseTensor>> sparse_tensors;
  std::vector<Type> type_protos;
};

}  // namespace oxs::ir
