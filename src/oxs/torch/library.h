// The functions the dispatcher chooses from: for each ATen overload name, its
// candidates. A candidate is an ONNX Script function of the ATen library (or
// a user's, oxs.torch.register), called as a model-local function and inlined
// at the end, or a native C++ function written against the builder for ops
// whose lowering depends on ranks, static sizes or optional arguments
// (native/*.cc). Each declares its parameters by the ATen schema's names with
// the type constraints the dispatcher scores by.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "oxs/builder/var.h"
#include "oxs/ir/dtype.h"
#include "oxs/ir/model.h"
#include "oxs/torch/graph.h"

namespace oxs::torch {

class Context;

struct ParamSpec {
  std::string name;
  bool is_input = true;              // a tensor input; else an attribute
  std::vector<ir::DataType> dtypes;  // allowed element types; empty = any
  bool optional = false;             // may be None / absent
  std::string attr_kind;             // int, float, bool, str, ints, floats, tensors, "" any
  bool has_default = false;
  int min_rank = -1, max_rank = -1;  // -1: no limit
  bool sequence = false;             // a Tensor[] input (an ONNX sequence)
  // An attribute's value when the node leaves it out or gives None (the
  // library's default; compiled functions hold no attribute defaults).
  std::optional<Arg> default_value;
  std::string typevar;  // inputs and outputs with one typevar share an element type
};

using NativeFn = std::vector<builder::Var> (*)(Context&);

struct Candidate {
  enum class Kind { Script, Native };
  std::string overload;  // the name it is registered under
  std::string name;      // the function's name, for explain
  Kind kind = Kind::Script;
  bool user = false;  // registered by oxs.torch.register: wins over the library
  std::vector<ParamSpec> params;
  // Script: the compiled library (the function and its callees) and the
  // function's name in it. Native: the C++ function.
  std::shared_ptr<const ir::Model> library;
  std::string function;
  NativeFn native = nullptr;
  // Library functions (_registry.py): "cast_input" (the input is cast to
  // `dtype` first), "result" (`dtype` None means the node's result type) or "".
  std::string dtype_role;
  // An omitted optional input calls the variant <function>__without_<input>...
  bool has_variants = false;
  std::vector<std::string> output_typevars;
  int order = 0;  // registration order: the last tie-breaker
  const ParamSpec* find(std::string_view param) const;
};

class Library {
 public:
  void add(Candidate c);
  // Candidates of one overload name in registration order; null if none.
  const std::vector<Candidate>* find(const std::string& overload) const;
  // Every overload name that has a candidate.
  std::vector<std::string> overloads() const;

 private:
  std::unordered_map<std::string, std::vector<Candidate>> by_overload_;
  int next_order_ = 0;
};

// The native C++ functions (native/*.cc) added to `lib`.
void add_native_functions(Library& lib);
// The front end's own native functions (front_natives.cc:
// aten::scaled_dot_product_attention as ONNX Attention at opset 23, and
// slice.Tensor with bounds that vary with the dynamic dims). Registered
// before add_native_functions, so they win ties.
void add_front_natives(Library& lib);
void add_attention(Library& lib);

// Element-type groups for native specs.
std::vector<ir::DataType> float_types();
std::vector<ir::DataType> numeric_types();

}  // namespace oxs::torch
