// Op signatures: what an operator of (domain, op_type, opset) takes and
// returns, described with IR types only. The schema/ room is the one source of
// op signatures for every other room (builder, script, eval, infer); it reads
// them from libonnx's registry but must not expose protobuf or libonnx types
// in this header (see onnx_schema.h for the internal, protobuf-speaking view).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oxs/ir/graph.h"  // attr.h needs Graph complete (inline Attr ctor)
#include "oxs/ir/type.h"

namespace oxs::schema {

// How many actual arguments a formal parameter takes.
enum class ParamOption : uint8_t {
  Single,    // exactly one
  Optional,  // zero or one
  Variadic,  // min_arity or more (must be the last parameter)
};

const char* param_option_name(ParamOption o);  // "single", "optional", "variadic"

struct FormalParam {
  std::string name;
  std::string description;
  // A type-constraint name ("T") or a concrete type string ("tensor(int64)").
  std::string type_constraint;
  ParamOption option = ParamOption::Single;
  // For variadic parameters: every argument must have the same type.
  bool is_homogeneous = true;
  // For variadic parameters: the minimum number of arguments.
  int min_arity = 1;
};

struct TypeConstraint {
  std::string name;  // "T", "T1", ...
  // ONNX type strings as in the spec: "tensor(float)", "seq(tensor(int64))".
  std::vector<std::string> allowed_type_strs;
  // The same types as IR types (shape absent). Parallel to allowed_type_strs.
  std::vector<ir::Type> allowed_types;
  std::string description;
};

struct AttrParam {
  std::string name;
  std::string description;
  ir::AttrType type = ir::AttrType::Undefined;
  bool required = false;
  // The value used when the attribute is absent, if the spec gives one.
  std::optional<ir::Attr> default_value;
};

struct OpSignature {
  std::string domain;  // "" for ai.onnx
  std::string name;
  int64_t since_version = 0;
  std::string doc;
  std::vector<FormalParam> inputs;
  std::vector<FormalParam> outputs;
  std::vector<TypeConstraint> type_constraints;
  std::vector<AttrParam> attributes;  // sorted by name
  int min_input = 0;
  int max_input = 0;  // INT_MAX for variadic
  int min_output = 0;
  int max_output = 0;
  bool has_function_body = false;
  bool has_context_dependent_function = false;
  // The op no longer exists as of since_version (e.g. Upsample-10).
  bool deprecated = false;
  // Attributes not listed above are accepted (LayerNormalization-17 in
  // libonnx 1.12). Names starting with "__" are always accepted.
  bool allows_unchecked_attributes = false;

  const AttrParam* find_attr(std::string_view name) const;
  const TypeConstraint* find_type_constraint(std::string_view name) const;
  // "Gemm-13", "ai.onnx.ml.LinearClassifier-1": for messages.
  std::string display_name() const;
};

}  // namespace oxs::schema
