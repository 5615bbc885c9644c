// Translation of libonnx's OpSchema into our OpSignature. Kept apart from the
// registry so that the cache logic and the field mapping stay readable.
#include <onnx/defs/data_type_utils.h>

#include <algorithm>

#include "oxs/onnx/proto_convert.h"
#include "oxs/schema/onnx_schema.h"

namespace oxs::schema {
namespace {

ParamOption option_of(::onnx::OpSchema::FormalParameterOption o) {
  switch (o) {
    case ::onnx::OpSchema::Single:
      return ParamOption::Single;
    case ::onnx::OpSchema::Optional:
      return ParamOption::Optional;
    case ::onnx::OpSchema::Variadic:
      return ParamOption::Variadic;
  }
  return ParamOption::Single;
}

std::vector<FormalParam> params_of(const std::vector<::onnx::OpSchema::FormalParameter>& in) {
  std::vector<FormalParam> out;
  out.reserve(in.size());
  for (const auto& p : in) {
    FormalParam f;
    f.name = p.GetName();
    f.description = p.GetDescription();
    f.type_constraint = p.GetTypeStr();
    f.option = option_of(p.GetOption());
    f.is_homogeneous = p.GetIsHomogeneous();
    f.min_arity = p.GetMinArity();
    out.push_back(std::move(f));
  }
  return out;
}

// "tensor(float)" -> float tensor of unknown shape; None if libonnx cannot
// parse the string (it parses every string it registered).
ir::Type type_of_string(const std::string& type_str) {
  try {
    const ::onnx::TypeProto& proto =
        ::onnx::Utils::DataTypeUtils::ToTypeProto(::onnx::Utils::DataTypeUtils::ToType(type_str));
    return oxs::onnx::type_from_proto(proto);
  } catch (const std::exception&) {
    return ir::Type();
  }
}

}  // namespace

OpSignature signature_from_onnx(const ::onnx::OpSchema& schema) {
  OpSignature sig;
  sig.domain = schema.domain();
  sig.name = schema.Name();
  sig.since_version = schema.since_version();
  if (const char* doc = schema.doc()) sig.doc = doc;
  sig.inputs = params_of(schema.inputs());
  sig.outputs = params_of(schema.outputs());
  for (const auto& c : schema.typeConstraintParams()) {
    TypeConstraint tc;
    tc.name = c.type_param_str;
    tc.description = c.description;
    tc.allowed_type_strs = c.allowed_type_strs;
    tc.allowed_types.reserve(c.allowed_type_strs.size());
    for (const std::string& t : c.allowed_type_strs) tc.allowed_types.push_back(type_of_string(t));
    sig.type_constraints.push_back(std::move(tc));
  }
  // std::map: already sorted by name.
  for (const auto& [name, a] : schema.attributes()) {
    AttrParam p;
    p.name = name;
    p.description = a.description;
    p.type = static_cast<ir::AttrType>(a.type);
    p.required = a.required;
    if (a.default_value.type() != ::onnx::AttributeProto::UNDEFINED) {
      ::onnx::AttributeProto copy = a.default_value;  // attr_from_proto may consume it
      if (copy.name().empty()) copy.set_name(name);
      oxs::onnx::FromProtoContext ctx;
      ctx.file = "<schema " + sig.name + ">";
      p.default_value = oxs::onnx::attr_from_proto(copy, ctx);
    }
    sig.attributes.push_back(std::move(p));
  }
  sig.min_input = schema.min_input();
  sig.max_input = schema.max_input();
  sig.min_output = schema.min_output();
  sig.max_output = schema.max_output();
  sig.has_function_body = schema.HasFunction();
  sig.has_context_dependent_function = schema.HasContextDependentFunction();
  sig.deprecated = schema.deprecated();
  return sig;
}

}  // namespace oxs::schema
