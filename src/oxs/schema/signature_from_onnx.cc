// Translation of libonnx's OpSchema into our OpSignature. Kept apart from the
// registry so that the cache logic and the field mapping stay readable.
#include <onnx/defs/data_type_utils.h>

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "oxs/onnx/libonnx_bridge.h"
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
// parse the string (it parses every string it registered). Remembered per
// string: ops share a few dozen type strings, and libonnx's own lookup
// (a mutex and a hash of the string per call) costs more than ours.
ir::Type type_of_string(const std::string& type_str) {
  static std::mutex mu;
  static std::unordered_map<std::string, ir::Type> known;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = known.find(type_str);
    if (it != known.end()) return it->second;
  }
  ir::Type type;
  try {
    const ::onnx::TypeProto& proto =
        ::onnx::Utils::DataTypeUtils::ToTypeProto(::onnx::Utils::DataTypeUtils::ToType(type_str));
    type = oxs::onnx::type_from_proto(proto);
  } catch (const std::exception&) {
    type = ir::Type();
  }
  std::lock_guard<std::mutex> lock(mu);
  return known.emplace(type_str, std::move(type)).first->second;
}

// libonnx keeps this flag private; its verifier reveals it. A node with the
// fewest inputs and outputs the op takes and one made-up attribute passes the
// attribute loop of OpSchema::Verify only if unchecked attributes are allowed
// (after that loop, the only complaint can be a missing required attribute).
bool probe_allows_unchecked_attributes(const ::onnx::OpSchema& schema) {
  if (schema.deprecated()) return false;
  ::onnx::NodeProto node;
  node.set_op_type(schema.Name());
  node.set_domain(schema.domain());
  for (int i = 0; i < schema.min_input(); ++i) node.add_input("x" + std::to_string(i));
  for (int i = 0; i < schema.min_output(); ++i) node.add_output("y" + std::to_string(i));
  auto* attr = node.add_attribute();
  attr->set_name("oxs_probe_attribute");
  attr->set_type(::onnx::AttributeProto::INT);
  attr->set_i(0);
  try {
    schema.Verify(node);
    return true;
  } catch (const std::exception& e) {
    const std::string message = e.what();
    return message.find("Unrecognized attribute") == std::string::npos &&
           message.find("Required attribute") != std::string::npos;
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
  sig.allows_unchecked_attributes = probe_allows_unchecked_attributes(schema);
  return sig;
}

}  // namespace oxs::schema
